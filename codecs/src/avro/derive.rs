//! The Avro schema Flink derives from a table's row type (spec section 2.1, the legacy
//! timestamp mapping that `avro-confluent` always uses): the reader schema for decode
//! and the writer schema for encode.

use serde_json::{json, Value};

use crate::error::CodecError;
use crate::types::{FlinkField, FlinkKind, FlinkType};

use super::model::AvroNode;

/// Name of the top-level record Flink derives.
pub const TOP_LEVEL_RECORD_NAME: &str = "record";

/// Namespace of the records Flink derives (nested records inherit it); checked against
/// Flink 2.2.0's `AvroSchemaConverter`, see `docs/parity/avro.md`.
pub const DERIVED_NAMESPACE: &str = "org.apache.flink.avro.generated";

/// Derives the Avro schema JSON for a Flink row type, as Flink's `AvroSchemaConverter`
/// writes it: a record named `record` in namespace `org.apache.flink.avro.generated`, nested records named `<parent>_<field>`, nullable
/// types as `["null", T]` with `"default": null` on fields.
pub fn derive_schema_json(row: &FlinkType) -> Result<Value, CodecError> {
    let fields = row.row_fields()?;
    // The physical row type handed to a format is NOT NULL at the top level.
    let mut record = record_json(fields, TOP_LEVEL_RECORD_NAME)?;
    if let Value::Object(obj) = &mut record {
        obj.insert("namespace".into(), Value::String(DERIVED_NAMESPACE.into()));
    }
    Ok(record)
}

/// Derives the reader schema for a Flink row type (see [`derive_schema_json`]).
pub fn derive_reader_schema(row: &FlinkType) -> Result<AvroNode, CodecError> {
    let text = derive_schema_json(row)?.to_string();
    AvroNode::parse(&text)
}

fn record_json(fields: &[FlinkField], name: &str) -> Result<Value, CodecError> {
    let mut out = Vec::with_capacity(fields.len());
    for field in fields {
        let ty = type_json(&field.ty, &format!("{name}_{}", field.name))?;
        let mut f = serde_json::Map::new();
        f.insert("name".into(), Value::String(field.name.clone()));
        f.insert("type".into(), ty);
        if field.ty.nullable && field.ty.kind != FlinkKind::Null {
            f.insert("default".into(), Value::Null);
        }
        out.push(Value::Object(f));
    }
    Ok(json!({"type": "record", "name": name, "fields": out}))
}

/// The schema of one type; `row_name` is the name a ROW at this position gets.
fn type_json(ty: &FlinkType, row_name: &str) -> Result<Value, CodecError> {
    let unsupported = || {
        CodecError::InvalidType(format!(
            "Unsupported to derive Schema for type: {}",
            describe(ty)
        ))
    };
    let core = match &ty.kind {
        FlinkKind::Null => return Ok(json!("null")),
        FlinkKind::Boolean => json!("boolean"),
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int => json!("int"),
        FlinkKind::BigInt => json!("long"),
        FlinkKind::Float => json!("float"),
        FlinkKind::Double => json!("double"),
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => json!("string"),
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => json!("bytes"),
        FlinkKind::Decimal { precision, scale } => json!({
            "type": "bytes", "logicalType": "decimal", "precision": precision, "scale": scale
        }),
        FlinkKind::Date => json!({"type": "int", "logicalType": "date"}),
        FlinkKind::Time(p) => {
            if *p > 3 {
                return Err(CodecError::InvalidType(format!(
                    "Avro does not support TIME type with precision: {p}, it only supports precision less than 3."
                )));
            }
            json!({"type": "int", "logicalType": "time-millis"})
        }
        FlinkKind::Timestamp(p) => {
            if *p > 3 {
                return Err(CodecError::InvalidType(format!(
                    "Avro does not support TIMESTAMP type with precision: {p}, it only supports precision less than 3."
                )));
            }
            json!({"type": "long", "logicalType": "timestamp-millis"})
        }
        FlinkKind::TimestampLtz(_) | FlinkKind::IntervalYearMonth | FlinkKind::IntervalDayTime => {
            return Err(unsupported())
        }
        FlinkKind::Array(element) => {
            json!({"type": "array", "items": type_json(element, row_name)?})
        }
        FlinkKind::Map(key, value) => {
            require_string_key(key)?;
            json!({"type": "map", "values": type_json(value, row_name)?})
        }
        FlinkKind::Multiset(element) => {
            require_string_key(element)?;
            json!({"type": "map", "values": ["null", "int"]})
        }
        FlinkKind::Row(fields) => record_json(fields, row_name)?,
    };
    Ok(if ty.nullable {
        json!(["null", core])
    } else {
        core
    })
}

fn require_string_key(key: &FlinkType) -> Result<(), CodecError> {
    match key.kind {
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Ok(()),
        _ => Err(CodecError::InvalidType(format!(
            "Avro format doesn't support non-string as key type of map. The key type is: {}",
            describe(key)
        ))),
    }
}

/// A short SQL-like rendering of a type for error messages.
pub fn describe(ty: &FlinkType) -> String {
    let base = match &ty.kind {
        FlinkKind::Null => "NULL".to_string(),
        FlinkKind::Boolean => "BOOLEAN".into(),
        FlinkKind::TinyInt => "TINYINT".into(),
        FlinkKind::SmallInt => "SMALLINT".into(),
        FlinkKind::Int => "INT".into(),
        FlinkKind::BigInt => "BIGINT".into(),
        FlinkKind::Float => "FLOAT".into(),
        FlinkKind::Double => "DOUBLE".into(),
        FlinkKind::Char(n) => format!("CHAR({n})"),
        FlinkKind::VarChar(n) if *n == i32::MAX as u32 => "STRING".into(),
        FlinkKind::VarChar(n) => format!("VARCHAR({n})"),
        FlinkKind::Binary(n) => format!("BINARY({n})"),
        FlinkKind::VarBinary(n) if *n == i32::MAX as u32 => "BYTES".into(),
        FlinkKind::VarBinary(n) => format!("VARBINARY({n})"),
        FlinkKind::Decimal { precision, scale } => format!("DECIMAL({precision}, {scale})"),
        FlinkKind::Date => "DATE".into(),
        FlinkKind::Time(p) => format!("TIME({p})"),
        FlinkKind::Timestamp(p) => format!("TIMESTAMP({p})"),
        FlinkKind::TimestampLtz(p) => format!("TIMESTAMP_LTZ({p})"),
        FlinkKind::IntervalYearMonth => "INTERVAL YEAR TO MONTH".into(),
        FlinkKind::IntervalDayTime => "INTERVAL DAY TO SECOND".into(),
        FlinkKind::Array(e) => format!("ARRAY<{}>", describe(e)),
        FlinkKind::Multiset(e) => format!("MULTISET<{}>", describe(e)),
        FlinkKind::Map(k, v) => format!("MAP<{}, {}>", describe(k), describe(v)),
        FlinkKind::Row(fields) => format!(
            "ROW<{}>",
            fields
                .iter()
                .map(|f| format!("`{}` {}", f.name, describe(&f.ty)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if ty.nullable {
        base
    } else {
        format!("{base} NOT NULL")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(json: &str) -> FlinkType {
        FlinkType::from_json_str(json).unwrap()
    }

    #[test]
    fn derives_flink_names_unions_and_logical_types() {
        let row = ty(r#"{"type":"ROW","nullable":false,"fields":[
            {"name":"id","type":{"type":"BIGINT","nullable":false}},
            {"name":"price","type":{"type":"DECIMAL","nullable":true,"precision":10,"scale":2}},
            {"name":"r","type":{"type":"ROW","nullable":true,"fields":[
                {"name":"ts","type":{"type":"TIMESTAMP","nullable":true,"precision":3}}]}},
            {"name":"tags","type":{"type":"ARRAY","nullable":true,
                "element":{"type":"ROW","nullable":false,"fields":[{"name":"x","type":{"type":"INT","nullable":false}}]}}}]}"#);
        let text = derive_schema_json(&row).unwrap().to_string();
        assert_eq!(
            text,
            concat!(
                r#"{"fields":[{"name":"id","type":"long"},"#,
                r#"{"default":null,"name":"price","type":["null",{"logicalType":"decimal","precision":10,"scale":2,"type":"bytes"}]},"#,
                r#"{"default":null,"name":"r","type":["null",{"fields":[{"default":null,"name":"ts","type":["null",{"logicalType":"timestamp-millis","type":"long"}]}],"name":"record_r","type":"record"}]},"#,
                r#"{"default":null,"name":"tags","type":["null",{"items":{"fields":[{"name":"x","type":"int"}],"name":"record_tags","type":"record"},"type":"array"}]}],"#,
                r#""name":"record","namespace":"org.apache.flink.avro.generated","type":"record"}"#
            )
        );
        assert!(derive_reader_schema(&row).is_ok());
    }

    #[test]
    fn rejects_what_flink_rejects() {
        let ts6 = ty(
            r#"{"type":"ROW","fields":[{"name":"t","type":{"type":"TIMESTAMP","precision":6}}]}"#,
        );
        let err = derive_schema_json(&ts6).unwrap_err().to_string();
        assert!(
            err.contains("Avro does not support TIMESTAMP type with precision: 6"),
            "{err}"
        );
        let ltz = ty(
            r#"{"type":"ROW","fields":[{"name":"t","type":{"type":"TIMESTAMP_LTZ","precision":3}}]}"#,
        );
        assert!(derive_schema_json(&ltz)
            .unwrap_err()
            .to_string()
            .contains("Unsupported to derive Schema"));
        let map = ty(
            r#"{"type":"ROW","fields":[{"name":"m","type":{"type":"MAP","key":{"type":"INT"},"value":{"type":"INT"}}}]}"#,
        );
        assert!(derive_schema_json(&map)
            .unwrap_err()
            .to_string()
            .contains("non-string as key type"));
    }
}
