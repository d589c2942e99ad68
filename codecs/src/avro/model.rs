//! A parsed Avro schema, reduced to what decoding needs: physical types, the names and
//! aliases that schema resolution matches on, and field defaults.
//!
//! The parser follows Java Avro (which Flink runs) rather than a stricter reading of
//! the specification: unknown or invalid logical types are ignored, namespaces are
//! inherited from the enclosing named type, and a name is looked up first in the
//! enclosing namespace, then as given.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::CodecError;

/// One node of an Avro schema.
#[derive(Debug, Clone)]
pub enum AvroNode {
    /// `null`.
    Null,
    /// `boolean`.
    Boolean,
    /// `int` (also `date`, `time-millis`).
    Int,
    /// `long` (also the timestamp and `time-micros` logical types).
    Long,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `bytes` (also `decimal` on bytes).
    Bytes,
    /// `string`.
    String,
    /// `array` of items.
    Array(Arc<AvroNode>),
    /// `map` with string keys.
    Map(Arc<AvroNode>),
    /// A union of branches.
    Union(Arc<[AvroNode]>),
    /// A `record`.
    Record(Arc<RecordSchema>),
    /// An `enum`.
    Enum(Arc<EnumSchema>),
    /// A `fixed`.
    Fixed(Arc<FixedSchema>),
    /// A reference to a named type that is still being defined (a recursive schema).
    Recursive(Arc<str>),
}

/// A record type.
#[derive(Debug)]
pub struct RecordSchema {
    /// Full name (namespace + name).
    pub full_name: String,
    /// Full-name aliases.
    pub aliases: Vec<String>,
    /// Fields in declaration order.
    pub fields: Vec<RecordField>,
}

/// A field of a record.
#[derive(Debug)]
pub struct RecordField {
    /// Field name.
    pub name: String,
    /// Field aliases.
    pub aliases: Vec<String>,
    /// Field schema.
    pub schema: AvroNode,
    /// Default value, as JSON, when declared.
    pub default: Option<Value>,
}

/// An enum type.
#[derive(Debug)]
pub struct EnumSchema {
    /// Full name.
    pub full_name: String,
    /// Full-name aliases.
    pub aliases: Vec<String>,
    /// Symbols in declaration order.
    pub symbols: Vec<String>,
    /// Symbol used when a writer symbol is unknown to the reader.
    pub default: Option<String>,
}

/// A fixed type.
#[derive(Debug)]
pub struct FixedSchema {
    /// Full name.
    pub full_name: String,
    /// Full-name aliases.
    pub aliases: Vec<String>,
    /// Size in bytes.
    pub size: usize,
}

impl AvroNode {
    /// Parses Avro schema JSON text.
    pub fn parse(text: &str) -> Result<AvroNode, CodecError> {
        Self::parse_with_references(text, &[])
    }

    /// Parses Avro schema JSON text whose named types may be defined in `references`: the
    /// texts of the schemas it refers to, dependencies first, parsed before it by the same
    /// parser (as Confluent's clients resolve schema references).
    pub fn parse_with_references(text: &str, references: &[&str]) -> Result<AvroNode, CodecError> {
        let mut parser = Parser::default();
        for reference in references {
            let json: Value = serde_json::from_str(reference).map_err(|e| {
                CodecError::InvalidSchema(format!("a referenced schema is not JSON: {e}"))
            })?;
            parser.node(&json, "")?;
        }
        let json: Value = serde_json::from_str(text)
            .map_err(|e| CodecError::InvalidSchema(format!("not JSON: {e}")))?;
        parser.node(&json, "")
    }

    /// The Avro type name of this node, as Java Avro prints it in resolution errors.
    pub fn type_name(&self) -> &'static str {
        match self {
            AvroNode::Null => "null",
            AvroNode::Boolean => "boolean",
            AvroNode::Int => "int",
            AvroNode::Long => "long",
            AvroNode::Float => "float",
            AvroNode::Double => "double",
            AvroNode::Bytes => "bytes",
            AvroNode::String => "string",
            AvroNode::Array(_) => "array",
            AvroNode::Map(_) => "map",
            AvroNode::Union(_) => "union",
            AvroNode::Record(_) => "record",
            AvroNode::Enum(_) => "enum",
            AvroNode::Fixed(_) => "fixed",
            AvroNode::Recursive(_) => "record",
        }
    }

    /// A short description for error messages: the full name of named types, else the type.
    pub fn describe(&self) -> String {
        match self {
            AvroNode::Record(r) => r.full_name.clone(),
            AvroNode::Enum(e) => e.full_name.clone(),
            AvroNode::Fixed(f) => f.full_name.clone(),
            AvroNode::Recursive(n) => n.to_string(),
            other => other.type_name().to_string(),
        }
    }
}

#[derive(Default)]
struct Parser {
    named: HashMap<String, AvroNode>,
    defining: Vec<String>,
}

fn full_name(name: &str, namespace: Option<&str>, enclosing: &str) -> String {
    if name.contains('.') {
        return name.to_string();
    }
    let space = namespace.unwrap_or(enclosing);
    if space.is_empty() {
        name.to_string()
    } else {
        format!("{space}.{name}")
    }
}

fn namespace_of(full: &str) -> &str {
    full.rfind('.').map(|i| &full[..i]).unwrap_or("")
}

fn aliases(obj: &Map<String, Value>, space: &str) -> Vec<String> {
    obj.get("aliases")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(|a| full_name(a, None, space))
                .collect()
        })
        .unwrap_or_default()
}

impl Parser {
    fn node(&mut self, json: &Value, space: &str) -> Result<AvroNode, CodecError> {
        match json {
            Value::String(name) => self.by_name(name, space),
            Value::Array(branches) => {
                let nodes = branches
                    .iter()
                    .map(|b| self.node(b, space))
                    .collect::<Result<Vec<_>, _>>()?;
                if nodes.iter().any(|n| matches!(n, AvroNode::Union(_))) {
                    return Err(CodecError::InvalidSchema(
                        "a union may not directly contain a union".into(),
                    ));
                }
                Ok(AvroNode::Union(nodes.into()))
            }
            Value::Object(obj) => self.object(obj, space),
            other => Err(CodecError::InvalidSchema(format!("not a schema: {other}"))),
        }
    }

    fn by_name(&mut self, name: &str, space: &str) -> Result<AvroNode, CodecError> {
        if let Some(p) = primitive(name) {
            return Ok(p);
        }
        let qualified = full_name(name, None, space);
        for candidate in [qualified.as_str(), name] {
            if let Some(n) = self.named.get(candidate) {
                return Ok(n.clone());
            }
            if self.defining.iter().any(|d| d == candidate) {
                return Ok(AvroNode::Recursive(Arc::from(candidate)));
            }
        }
        Err(CodecError::InvalidSchema(format!("undefined name: {name}")))
    }

    fn object(&mut self, obj: &Map<String, Value>, space: &str) -> Result<AvroNode, CodecError> {
        let ty = obj.get("type").ok_or_else(|| {
            CodecError::InvalidSchema(format!("no type: {}", Value::Object(obj.clone())))
        })?;
        let Some(ty) = ty.as_str() else {
            // `{"type": {...}}` or `{"type": [...]}`: the nested schema is the type.
            return self.node(ty, space);
        };
        let name = || {
            obj.get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| CodecError::InvalidSchema(format!("a {ty} needs a name")))
        };
        let namespace = obj.get("namespace").and_then(Value::as_str);
        match ty {
            "record" | "error" => {
                let full = full_name(name()?, namespace, space);
                let inner_space = namespace_of(&full).to_string();
                let raw_fields = obj.get("fields").and_then(Value::as_array).ok_or_else(|| {
                    CodecError::InvalidSchema(format!("record {full} has no fields"))
                })?;
                self.defining.push(full.clone());
                let mut fields = Vec::with_capacity(raw_fields.len());
                for f in raw_fields {
                    let fobj = f.as_object().ok_or_else(|| {
                        CodecError::InvalidSchema(format!("bad field in {full}: {f}"))
                    })?;
                    let fname = fobj.get("name").and_then(Value::as_str).ok_or_else(|| {
                        CodecError::InvalidSchema(format!("field without name in {full}"))
                    })?;
                    let fty = fobj.get("type").ok_or_else(|| {
                        CodecError::InvalidSchema(format!("field {fname} of {full} has no type"))
                    })?;
                    let schema = self.node(fty, &inner_space)?;
                    let field_aliases = fobj
                        .get("aliases")
                        .and_then(Value::as_array)
                        .map(|l| {
                            l.iter()
                                .filter_map(Value::as_str)
                                .map(String::from)
                                .collect()
                        })
                        .unwrap_or_default();
                    fields.push(RecordField {
                        name: fname.to_string(),
                        aliases: field_aliases,
                        schema,
                        default: fobj.get("default").cloned(),
                    });
                }
                self.defining.pop();
                let node = AvroNode::Record(Arc::new(RecordSchema {
                    aliases: aliases(obj, &inner_space),
                    full_name: full.clone(),
                    fields,
                }));
                self.named.insert(full, node.clone());
                Ok(node)
            }
            "enum" => {
                let full = full_name(name()?, namespace, space);
                let symbols = obj
                    .get("symbols")
                    .and_then(Value::as_array)
                    .ok_or_else(|| {
                        CodecError::InvalidSchema(format!("enum {full} has no symbols"))
                    })?
                    .iter()
                    .map(|s| {
                        s.as_str().map(String::from).ok_or_else(|| {
                            CodecError::InvalidSchema(format!("enum {full}: bad symbol {s}"))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let node = AvroNode::Enum(Arc::new(EnumSchema {
                    aliases: aliases(obj, namespace_of(&full)),
                    default: obj.get("default").and_then(Value::as_str).map(String::from),
                    full_name: full.clone(),
                    symbols,
                }));
                self.named.insert(full, node.clone());
                Ok(node)
            }
            "fixed" => {
                let full = full_name(name()?, namespace, space);
                let size = obj.get("size").and_then(Value::as_u64).ok_or_else(|| {
                    CodecError::InvalidSchema(format!("fixed {full} has no size"))
                })?;
                let node = AvroNode::Fixed(Arc::new(FixedSchema {
                    aliases: aliases(obj, namespace_of(&full)),
                    full_name: full.clone(),
                    size: usize::try_from(size).map_err(|_| {
                        CodecError::InvalidSchema(format!("fixed {full}: size too large"))
                    })?,
                }));
                self.named.insert(full, node.clone());
                Ok(node)
            }
            "array" => {
                let items = obj
                    .get("items")
                    .ok_or_else(|| CodecError::InvalidSchema("array without items".into()))?;
                Ok(AvroNode::Array(Arc::new(self.node(items, space)?)))
            }
            "map" => {
                let values = obj
                    .get("values")
                    .ok_or_else(|| CodecError::InvalidSchema("map without values".into()))?;
                Ok(AvroNode::Map(Arc::new(self.node(values, space)?)))
            }
            // A primitive with attributes (e.g. a logical type, which decoding ignores), or
            // a reference to a named type written as an object.
            other => self.by_name(other, space),
        }
    }
}

fn primitive(name: &str) -> Option<AvroNode> {
    Some(match name {
        "null" => AvroNode::Null,
        "boolean" => AvroNode::Boolean,
        "int" => AvroNode::Int,
        "long" => AvroNode::Long,
        "float" => AvroNode::Float,
        "double" => AvroNode::Double,
        "bytes" => AvroNode::Bytes,
        "string" => AvroNode::String,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_named_types_namespaces_and_references() {
        let schema = AvroNode::parse(
            r#"{"type":"record","name":"Bid","namespace":"com.acme","fields":[
                {"name":"a","type":{"type":"record","name":"Addr","fields":[{"name":"z","type":"int"}]}},
                {"name":"b","type":["null","Addr"],"default":null},
                {"name":"c","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}},
                {"name":"d","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
                {"name":"e","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#,
        )
        .unwrap();
        let AvroNode::Record(rec) = schema else {
            panic!()
        };
        assert_eq!(rec.full_name, "com.acme.Bid");
        let AvroNode::Record(addr) = &rec.fields[0].schema else {
            panic!()
        };
        assert_eq!(addr.full_name, "com.acme.Addr");
        let AvroNode::Union(b) = &rec.fields[1].schema else {
            panic!()
        };
        assert!(matches!(b[1], AvroNode::Record(_)));
        assert!(matches!(rec.fields[2].schema, AvroNode::Bytes));
        assert!(matches!(rec.fields[4].schema, AvroNode::Long));
        assert_eq!(rec.fields[1].default, Some(Value::Null));
    }

    #[test]
    fn recursive_and_undefined_names() {
        let rec = AvroNode::parse(
            r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#,
        )
        .unwrap();
        let AvroNode::Record(rec) = rec else { panic!() };
        let AvroNode::Union(u) = &rec.fields[0].schema else {
            panic!()
        };
        assert!(matches!(u[1], AvroNode::Recursive(_)));
        assert!(AvroNode::parse(r#""Nope""#).is_err());
        assert!(AvroNode::parse("{").is_err());
    }
}
