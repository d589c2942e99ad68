//! An Avro schema converted to the Flink row type Flink gives it
//! (`AvroSchemaConverter.convertToDataType`, legacy timestamp mapping, as `avro-confluent`
//! uses): the table a Flink user would declare over a topic with that schema.

use std::collections::HashMap;

use karrow_codecs::types::{FlinkField, FlinkKind, FlinkType};
use serde_json::Value;

use super::error::BenchError;

const STRING: FlinkKind = FlinkKind::VarChar(i32::MAX as u32);

/// Converts Avro schema JSON text (a record) into a NOT NULL ROW type.
pub fn row_type_of_avro(schema_text: &str) -> Result<FlinkType, BenchError> {
    let value: Value = serde_json::from_str(schema_text)
        .map_err(|e| BenchError::Schema(format!("the Avro schema is not JSON: {e}")))?;
    let mut names = Names::default();
    let ty = names.convert(&value, None)?;
    match ty.kind {
        FlinkKind::Row(_) => Ok(FlinkType {
            nullable: false,
            kind: ty.kind,
        }),
        _ => Err(BenchError::Schema(
            "the Avro schema is not a record; karrow bench needs a record per message".into(),
        )),
    }
}

#[derive(Default)]
struct Names {
    /// Named types defined so far, by full name; `None` while a record is being defined.
    defined: HashMap<String, Option<FlinkType>>,
}

fn not_null(kind: FlinkKind) -> FlinkType {
    FlinkType {
        nullable: false,
        kind,
    }
}

fn full_name(obj: &serde_json::Map<String, Value>, namespace: Option<&str>) -> Option<String> {
    let name = obj.get("name")?.as_str()?;
    if name.contains('.') {
        return Some(name.to_string());
    }
    match obj.get("namespace").and_then(Value::as_str).or(namespace) {
        Some(ns) if !ns.is_empty() => Some(format!("{ns}.{name}")),
        _ => Some(name.to_string()),
    }
}

fn namespace_of(full: &str) -> Option<&str> {
    full.rfind('.').map(|i| &full[..i])
}

impl Names {
    fn convert(
        &mut self,
        schema: &Value,
        namespace: Option<&str>,
    ) -> Result<FlinkType, BenchError> {
        match schema {
            Value::String(name) => self.primitive_or_reference(name, namespace),
            Value::Array(branches) => self.union(branches, namespace),
            Value::Object(obj) => {
                let ty = obj.get("type").ok_or_else(|| {
                    BenchError::Schema(format!("Avro schema without \"type\": {schema}"))
                })?;
                let logical = obj.get("logicalType").and_then(Value::as_str);
                match ty {
                    Value::String(t) => match t.as_str() {
                        "record" | "error" => self.record(obj, namespace),
                        "enum" => {
                            self.define(obj, namespace, not_null(STRING))?;
                            Ok(not_null(STRING))
                        }
                        "fixed" => {
                            let size =
                                obj.get("size").and_then(Value::as_u64).ok_or_else(|| {
                                    BenchError::Schema(format!("fixed without a size: {schema}"))
                                })?;
                            let ty = match decimal(obj, logical)? {
                                Some(d) => d,
                                None => not_null(FlinkKind::VarBinary(
                                    u32::try_from(size).map_err(|_| {
                                        BenchError::Schema(format!("fixed size {size} too large"))
                                    })?,
                                )),
                            };
                            self.define(obj, namespace, ty.clone())?;
                            Ok(ty)
                        }
                        "array" => {
                            let items = obj.get("items").ok_or_else(|| {
                                BenchError::Schema(format!("array without items: {schema}"))
                            })?;
                            Ok(not_null(FlinkKind::Array(Box::new(
                                self.convert(items, namespace)?,
                            ))))
                        }
                        "map" => {
                            let values = obj.get("values").ok_or_else(|| {
                                BenchError::Schema(format!("map without values: {schema}"))
                            })?;
                            Ok(not_null(FlinkKind::Map(
                                Box::new(not_null(STRING)),
                                Box::new(self.convert(values, namespace)?),
                            )))
                        }
                        "bytes" => Ok(decimal(obj, logical)?
                            .unwrap_or_else(|| not_null(FlinkKind::VarBinary(i32::MAX as u32)))),
                        "int" => Ok(not_null(match logical {
                            Some("date") => FlinkKind::Date,
                            Some("time-millis") => FlinkKind::Time(3),
                            _ => FlinkKind::Int,
                        })),
                        "long" => Ok(not_null(match logical {
                            Some("timestamp-millis") => FlinkKind::Timestamp(3),
                            Some("timestamp-micros") => FlinkKind::Timestamp(6),
                            Some("time-micros") => FlinkKind::Time(6),
                            _ => FlinkKind::BigInt,
                        })),
                        other => self.primitive_or_reference(other, namespace),
                    },
                    nested => self.convert(nested, namespace),
                }
            }
            other => Err(BenchError::Schema(format!("not an Avro schema: {other}"))),
        }
    }

    fn primitive_or_reference(
        &mut self,
        name: &str,
        namespace: Option<&str>,
    ) -> Result<FlinkType, BenchError> {
        Ok(match name {
            "null" => FlinkType {
                nullable: true,
                kind: FlinkKind::Null,
            },
            "boolean" => not_null(FlinkKind::Boolean),
            "int" => not_null(FlinkKind::Int),
            "long" => not_null(FlinkKind::BigInt),
            "float" => not_null(FlinkKind::Float),
            "double" => not_null(FlinkKind::Double),
            "string" => not_null(STRING),
            "bytes" => not_null(FlinkKind::VarBinary(i32::MAX as u32)),
            reference => {
                let candidates = [
                    namespace.map(|ns| format!("{ns}.{reference}")),
                    Some(reference.to_string()),
                ];
                for c in candidates.into_iter().flatten() {
                    match self.defined.get(&c) {
                        Some(Some(ty)) => return Ok(ty.clone()),
                        Some(None) => {
                            return Err(BenchError::Schema(format!(
                                "recursive Avro type '{c}' has no Flink row type"
                            )))
                        }
                        None => {}
                    }
                }
                return Err(BenchError::Schema(format!(
                    "unknown Avro type '{reference}'"
                )));
            }
        })
    }

    fn define(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        namespace: Option<&str>,
        ty: FlinkType,
    ) -> Result<(), BenchError> {
        let name = full_name(obj, namespace)
            .ok_or_else(|| BenchError::Schema("a named Avro type has no name".into()))?;
        self.defined.insert(name, Some(ty));
        Ok(())
    }

    fn record(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        namespace: Option<&str>,
    ) -> Result<FlinkType, BenchError> {
        let name = full_name(obj, namespace)
            .ok_or_else(|| BenchError::Schema("an Avro record has no name".into()))?;
        self.defined.insert(name.clone(), None);
        let inner_ns = namespace_of(&name).map(str::to_string);
        let fields = obj
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| BenchError::Schema(format!("record '{name}' has no fields array")))?;
        let mut out = Vec::with_capacity(fields.len());
        for f in fields {
            let fname = f
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| BenchError::Schema(format!("a field of '{name}' has no name")))?;
            let fty = f.get("type").ok_or_else(|| {
                BenchError::Schema(format!("field '{fname}' of '{name}' has no type"))
            })?;
            out.push(FlinkField {
                name: fname.to_string(),
                ty: self.convert(fty, inner_ns.as_deref())?,
            });
        }
        let ty = not_null(FlinkKind::Row(out));
        self.defined.insert(name, Some(ty.clone()));
        Ok(ty)
    }

    fn union(
        &mut self,
        branches: &[Value],
        namespace: Option<&str>,
    ) -> Result<FlinkType, BenchError> {
        let is_null = |v: &Value| v.as_str() == Some("null");
        let (actual, nullable) = match branches {
            [a, b] if is_null(a) => (b, true),
            [a, b] if is_null(b) => (a, true),
            [a] => (a, false),
            _ => {
                return Err(BenchError::Schema(format!(
                    "Avro union {} has no Flink type other than RAW, which karrow does not support",
                    Value::Array(branches.to_vec())
                )))
            }
        };
        let mut ty = self.convert(actual, namespace)?;
        if nullable {
            ty.nullable = true;
        }
        Ok(ty)
    }
}

fn decimal(
    obj: &serde_json::Map<String, Value>,
    logical: Option<&str>,
) -> Result<Option<FlinkType>, BenchError> {
    if logical != Some("decimal") {
        return Ok(None);
    }
    let precision = obj.get("precision").and_then(Value::as_u64).unwrap_or(0);
    let scale = obj.get("scale").and_then(Value::as_u64).unwrap_or(0);
    if !(1..=38).contains(&precision) || scale > precision {
        return Err(BenchError::Schema(format!(
            "decimal({precision}, {scale}) is outside what Flink supports (1 <= p <= 38, 0 <= s <= p)"
        )));
    }
    Ok(Some(not_null(FlinkKind::Decimal {
        precision: precision as u8,
        scale: scale as i8,
    })))
}

#[cfg(test)]
mod tests {
    use super::super::ddl::flink_type_string;
    use super::*;

    #[test]
    fn converts_like_flink() {
        let ty = row_type_of_avro(
            r#"{"type":"record","name":"Bid","namespace":"n","fields":[
              {"name":"id","type":"long"},
              {"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}]},
              {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
              {"name":"again","type":["null","Kind"]},
              {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
              {"name":"tags","type":{"type":"array","items":"string"}},
              {"name":"attrs","type":{"type":"map","values":["null","int"]}},
              {"name":"h","type":{"type":"fixed","name":"H","size":4}}]}"#,
        )
        .unwrap();
        assert_eq!(
            flink_type_string(&ty),
            "ROW<`id` BIGINT NOT NULL, `price` DECIMAL(10, 2), `kind` VARCHAR(2147483647) NOT NULL, \
             `again` VARCHAR(2147483647), `ts` TIMESTAMP(3) NOT NULL, \
             `tags` ARRAY<VARCHAR(2147483647) NOT NULL> NOT NULL, \
             `attrs` MAP<VARCHAR(2147483647) NOT NULL, INT> NOT NULL, `h` VARBINARY(4) NOT NULL> NOT NULL"
        );
    }

    #[test]
    fn rejects_what_flink_cannot_type() {
        for bad in [
            r#""string""#,
            r#"{"type":"record","name":"r","fields":[{"name":"u","type":["int","string"]}]}"#,
            r#"{"type":"record","name":"r","fields":[{"name":"u","type":"Nope"}]}"#,
            r#"{"type":"record","name":"r","fields":[{"name":"u","type":["null","r"]}]}"#,
            "{",
        ] {
            assert!(row_type_of_avro(bad).is_err(), "{bad}");
        }
    }
}
