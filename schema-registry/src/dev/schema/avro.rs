//! AVRO schemas on registration: parsed by codecs' parser (which follows Java Avro, what
//! Flink and Confluent run), plus the checks Java Avro's `Schema.Parser` makes that decoding
//! does not need (valid and unique names, no redefinitions, valid defaults), and the
//! canonical form that decides whether two texts are the same schema.
//!
//! The canonical form is the schema's JSON with whitespace and key order ignored, named
//! types written once under their full name (no `namespace` key), references to them and
//! aliases by full name, and `{"type": "int"}` written `"int"`; docs, defaults, logical types
//! and other attributes are kept, as in Confluent's canonical string.

use std::collections::{HashMap, HashSet};

use karrow_codecs::avro::model::{AvroNode, RecordSchema};
use serde_json::{Map, Value};

/// A parsed, checked Avro schema.
#[derive(Debug)]
pub(crate) struct AvroParsed {
    /// The schema tree (named types resolved, references included).
    pub root: AvroNode,
    /// Named types by full name, to follow `Recursive` nodes.
    pub names: HashMap<String, AvroNode>,
    /// The canonical text (see the module doc).
    pub canonical: String,
}

const PRIMITIVES: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

/// Parses and checks `text`; `references` are the texts of the schemas it refers to,
/// dependencies first.
pub(crate) fn parse(text: &str, references: &[&str]) -> Result<AvroParsed, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let mut walker = Walker::default();
    for reference in references {
        let json: Value = serde_json::from_str(reference)
            .map_err(|e| format!("a referenced schema is not JSON: {e}"))?;
        walker.schema(&json, "")?;
    }
    let canonical = walker.schema(&json, "")?;
    let root = AvroNode::parse_with_references(text, references).map_err(|e| e.to_string())?;
    let mut names = HashMap::new();
    collect_names(&root, &mut names);
    check_defaults(&root, &names)?;
    Ok(AvroParsed {
        root,
        names,
        canonical: super::json::canonical(&canonical),
    })
}

/// Every named type of a tree by full name.
pub(crate) fn collect_names(node: &AvroNode, names: &mut HashMap<String, AvroNode>) {
    match node {
        AvroNode::Record(r) if names.insert(r.full_name.clone(), node.clone()).is_none() => {
            for f in &r.fields {
                collect_names(&f.schema, names);
            }
        }
        AvroNode::Enum(e) => {
            names.insert(e.full_name.clone(), node.clone());
        }
        AvroNode::Fixed(f) => {
            names.insert(f.full_name.clone(), node.clone());
        }
        AvroNode::Array(items) | AvroNode::Map(items) => collect_names(items, names),
        AvroNode::Union(branches) => branches.iter().for_each(|b| collect_names(b, names)),
        _ => {}
    }
}

/// Java Avro's name rule: a letter or `_`, then letters, digits or `_`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn check_full_name(full: &str, what: &str) -> Result<(), String> {
    if full.split('.').all(valid_name) {
        Ok(())
    } else {
        Err(format!(
            "invalid {what} name '{full}': each part must start with a letter or '_' and hold \
             only letters, digits and '_'"
        ))
    }
}

fn full_name(name: &str, namespace: Option<&str>, enclosing: &str) -> String {
    if name.contains('.') {
        return name.to_string();
    }
    match namespace.unwrap_or(enclosing) {
        "" => name.to_string(),
        space => format!("{space}.{name}"),
    }
}

fn namespace_of(full: &str) -> &str {
    full.rfind('.').map_or("", |i| &full[..i])
}

/// Walks schema JSON checking what Java Avro's parser checks and building the canonical form.
#[derive(Default)]
struct Walker {
    defined: HashSet<String>,
}

impl Walker {
    fn schema(&mut self, json: &Value, space: &str) -> Result<Value, String> {
        match json {
            Value::String(name) => self.reference(name, space),
            Value::Array(branches) => self.union(branches, space),
            Value::Object(obj) => self.object(obj, space),
            other => Err(format!("not a schema: {other}")),
        }
    }

    /// A type named by a string: a primitive or a named type defined before.
    fn reference(&self, name: &str, space: &str) -> Result<Value, String> {
        if PRIMITIVES.contains(&name) {
            return Ok(Value::String(name.to_string()));
        }
        let qualified = full_name(name, None, space);
        for candidate in [qualified.as_str(), name] {
            if self.defined.contains(candidate) {
                return Ok(Value::String(candidate.to_string()));
            }
        }
        Err(format!("undefined name: {name}"))
    }

    fn union(&mut self, branches: &[Value], space: &str) -> Result<Value, String> {
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(branches.len());
        for branch in branches {
            if branch.is_array() {
                return Err("a union may not directly contain a union".into());
            }
            let canonical = self.schema(branch, space)?;
            let key = match &canonical {
                Value::String(s) => s.clone(),
                Value::Object(o) => match o.get("type").and_then(Value::as_str) {
                    Some("record" | "error" | "enum" | "fixed") => o
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                },
                _ => String::new(),
            };
            if !seen.insert(key.clone()) {
                return Err(format!("duplicate in union: {key}"));
            }
            out.push(canonical);
        }
        Ok(Value::Array(out))
    }

    fn object(&mut self, obj: &Map<String, Value>, space: &str) -> Result<Value, String> {
        let ty = obj
            .get("type")
            .ok_or_else(|| format!("no type: {}", Value::Object(obj.clone())))?;
        let Some(ty) = ty.as_str() else {
            // `{"type": {...}}` or `{"type": [...]}`: the nested schema is the type.
            return self.schema(ty, space);
        };
        match ty {
            "record" | "error" | "enum" | "fixed" => self.named(ty, obj, space),
            "array" | "map" => {
                let key = if ty == "array" { "items" } else { "values" };
                let inner = obj.get(key).ok_or_else(|| format!("{ty} without {key}"))?;
                let mut out = obj.clone();
                out.insert(key.into(), self.schema(inner, space)?);
                Ok(Value::Object(out))
            }
            primitive if PRIMITIVES.contains(&primitive) => {
                if obj.len() == 1 {
                    Ok(Value::String(primitive.to_string()))
                } else {
                    Ok(Value::Object(obj.clone()))
                }
            }
            // A named type referred to as `{"type": "Name"}`.
            other => {
                let reference = self.reference(other, space)?;
                if obj.len() == 1 {
                    Ok(reference)
                } else {
                    let mut out = obj.clone();
                    out.insert("type".into(), reference);
                    Ok(Value::Object(out))
                }
            }
        }
    }

    fn named(&mut self, ty: &str, obj: &Map<String, Value>, space: &str) -> Result<Value, String> {
        let name = obj
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("a {ty} needs a name"))?;
        let namespace = match obj.get("namespace") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => return Err(format!("the namespace of {name} is not a string: {other}")),
        };
        if let Some(ns) = namespace.filter(|ns| !ns.is_empty()) {
            check_full_name(ns, "namespace")?;
        }
        let full = full_name(name, namespace, space);
        check_full_name(&full, ty)?;
        if PRIMITIVES.contains(&full.as_str()) {
            return Err(format!(
                "a {ty} may not be named after the primitive type {full}"
            ));
        }
        if !self.defined.insert(full.clone()) {
            return Err(format!("can't redefine: {full}"));
        }
        let inner_space = namespace_of(&full).to_string();
        let mut out = obj.clone();
        out.remove("namespace");
        out.insert("name".into(), Value::String(full.clone()));
        if let Some(aliases) = obj.get("aliases") {
            let list = aliases
                .as_array()
                .ok_or_else(|| format!("the aliases of {full} are not an array"))?;
            let mut canonical = Vec::with_capacity(list.len());
            for alias in list {
                let alias = alias
                    .as_str()
                    .ok_or_else(|| format!("an alias of {full} is not a string"))?;
                let alias = full_name(alias, None, &inner_space);
                check_full_name(&alias, "alias")?;
                canonical.push(Value::String(alias));
            }
            out.insert("aliases".into(), Value::Array(canonical));
        }
        match ty {
            "enum" => check_enum(&full, obj)?,
            "fixed" => {
                let size = obj.get("size");
                if size.is_none_or(|s| s.as_u64().is_none_or(|n| n > i32::MAX as u64)) {
                    return Err(format!("fixed {full} has no valid size: {size:?}"));
                }
            }
            _ => {
                let fields = obj
                    .get("fields")
                    .and_then(Value::as_array)
                    .ok_or_else(|| format!("record {full} has no fields"))?;
                let mut names = HashSet::new();
                let mut canonical = Vec::with_capacity(fields.len());
                for field in fields {
                    let fobj = field
                        .as_object()
                        .ok_or_else(|| format!("bad field in {full}: {field}"))?;
                    let fname = fobj
                        .get("name")
                        .and_then(Value::as_str)
                        .ok_or_else(|| format!("field without name in {full}"))?;
                    if !valid_name(fname) {
                        return Err(format!("invalid field name '{fname}' in {full}"));
                    }
                    if !names.insert(fname) {
                        return Err(format!("duplicate field {fname} in record {full}"));
                    }
                    let fty = fobj
                        .get("type")
                        .ok_or_else(|| format!("field {fname} of {full} has no type"))?;
                    let mut fout = fobj.clone();
                    fout.insert("type".into(), self.schema(fty, &inner_space)?);
                    canonical.push(Value::Object(fout));
                }
                out.insert("fields".into(), Value::Array(canonical));
            }
        }
        Ok(Value::Object(out))
    }
}

fn check_enum(full: &str, obj: &Map<String, Value>) -> Result<(), String> {
    let symbols = obj
        .get("symbols")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("enum {full} has no symbols"))?;
    let mut seen = HashSet::new();
    for symbol in symbols {
        let s = symbol
            .as_str()
            .ok_or_else(|| format!("enum {full}: bad symbol {symbol}"))?;
        if !valid_name(s) {
            return Err(format!("enum {full}: invalid symbol '{s}'"));
        }
        if !seen.insert(s) {
            return Err(format!("enum {full}: duplicate symbol {s}"));
        }
    }
    match obj.get("default") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(d)) if seen.contains(d.as_str()) => Ok(()),
        Some(other) => Err(format!(
            "enum {full}: the default {other} is not one of its symbols"
        )),
    }
}

/// Every field default fits its field's type (Java Avro validates defaults on parse).
fn check_defaults(root: &AvroNode, names: &HashMap<String, AvroNode>) -> Result<(), String> {
    for node in names.values() {
        if let AvroNode::Record(r) = node {
            check_record_defaults(r, names)?;
        }
    }
    if let AvroNode::Record(r) = root {
        check_record_defaults(r, names)?;
    }
    Ok(())
}

fn check_record_defaults(
    r: &RecordSchema,
    names: &HashMap<String, AvroNode>,
) -> Result<(), String> {
    for f in &r.fields {
        if let Some(default) = &f.default {
            if !fits(&f.schema, default, names, 0) {
                return Err(format!(
                    "invalid default for field {} of {}: {default}",
                    f.name, r.full_name
                ));
            }
        }
    }
    Ok(())
}

/// Whether JSON `value` is a valid default for `node` (a union's default may match any
/// branch, as newer Java Avro accepts).
fn fits(node: &AvroNode, value: &Value, names: &HashMap<String, AvroNode>, depth: usize) -> bool {
    if depth > 256 {
        return false;
    }
    let number =
        |v: &Value| v.is_number() || matches!(v.as_str(), Some("NaN" | "Infinity" | "-Infinity"));
    match node {
        AvroNode::Null => value.is_null(),
        AvroNode::Boolean => value.is_boolean(),
        AvroNode::Int => value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        AvroNode::Long => value.as_i64().is_some(),
        AvroNode::Float | AvroNode::Double => number(value),
        AvroNode::Bytes | AvroNode::String | AvroNode::Fixed(_) => value.is_string(),
        AvroNode::Enum(e) => value
            .as_str()
            .is_some_and(|s| e.symbols.iter().any(|x| x == s)),
        AvroNode::Array(items) => value
            .as_array()
            .is_some_and(|list| list.iter().all(|v| fits(items, v, names, depth + 1))),
        AvroNode::Map(values) => value
            .as_object()
            .is_some_and(|m| m.values().all(|v| fits(values, v, names, depth + 1))),
        AvroNode::Union(branches) => branches.iter().any(|b| fits(b, value, names, depth + 1)),
        AvroNode::Record(r) => record_fits(r, value, names, depth),
        AvroNode::Recursive(name) => match names.get(name.as_ref()) {
            Some(AvroNode::Record(r)) => record_fits(r, value, names, depth),
            Some(other) => fits(other, value, names, depth + 1),
            None => false,
        },
    }
}

fn record_fits(
    r: &RecordSchema,
    value: &Value,
    names: &HashMap<String, AvroNode>,
    depth: usize,
) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    r.fields.iter().all(|f| match obj.get(&f.name) {
        Some(v) => fits(&f.schema, v, names, depth + 1),
        None => f.default.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> String {
        parse(text, &[])
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .canonical
    }

    fn err(text: &str) -> String {
        parse(text, &[]).expect_err(text)
    }

    #[test]
    fn canonical_form_ignores_layout_and_spelling() {
        let a = ok(
            r#"{"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":"int"},{"name":"b","type":{"type":"R"}}]}"#,
        );
        let b = ok(
            r#"{ "fields": [ {"type": {"type":"int"}, "name": "a"}, {"name":"b","type":"n.R"} ], "name": "n.R", "type": "record" }"#,
        );
        assert_eq!(a, b);
        let c = ok(
            r#"{"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":{"type":"int","logicalType":"date"}},{"name":"b","type":"R"}]}"#,
        );
        assert_ne!(a, c);
    }

    #[test]
    fn java_avro_name_rules() {
        // apache-avro 0.21 panicked on these inside its name parser.
        assert!(
            err(r#"{"type":"record","name":"1bad","fields":[]}"#).contains("invalid record name")
        );
        assert!(err(r#"{"type":"record","name":"a-b","fields":[]}"#).contains("invalid"));
        assert!(
            err(r#"{"type":"enum","name":"E","symbols":["A","A"]}"#).contains("duplicate symbol")
        );
        assert!(err(r#"{"type":"enum","name":"E","symbols":["1"]}"#).contains("invalid symbol"));
        assert!(err(r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}"#).contains("duplicate field"));
        assert!(err(r#"["int","int"]"#).contains("duplicate in union"));
        assert!(err(r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]}"#).contains("can't redefine"));
        assert!(err(
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}"#
        )
        .contains("invalid default"));
        assert!(err(r#"{"type":"fixed","name":"F","size":-1}"#).contains("size"));
        // Unicode letters are names for Java Avro.
        ok(r#"{"type":"record","name":"Ünï","fields":[{"name":"é","type":"int","default":1}]}"#);
        ok(
            r#"{"type":"record","name":"R","fields":[{"name":"u","type":["null","string"],"default":null}]}"#,
        );
    }

    #[test]
    fn references_define_names() {
        let inner = r#"{"type":"record","name":"Inner","namespace":"n","fields":[{"name":"x","type":"int"}]}"#;
        let outer = r#"{"type":"record","name":"Outer","namespace":"n","fields":[{"name":"i","type":"Inner"}]}"#;
        assert!(parse(outer, &[]).is_err());
        let parsed = parse(outer, &[inner]).unwrap();
        assert!(parsed.names.contains_key("n.Inner"));
    }
}
