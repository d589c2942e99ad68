//! The Avro schema Flink derives from a table's row type (spec section 2.1, the legacy
//! timestamp mapping that `avro-confluent` always uses): the reader schema for decode
//! and the writer schema for encode.

use crate::error::CodecError;
use crate::types::{FlinkField, FlinkKind, FlinkType};

use super::model::AvroNode;

/// Name of the top-level record Flink derives.
pub const TOP_LEVEL_RECORD_NAME: &str = "record";

/// Namespace of the records Flink derives (nested records inherit it); checked against
/// Flink 2.2.0's `AvroSchemaConverter`, see `docs/parity/avro.md`.
pub const DERIVED_NAMESPACE: &str = "org.apache.flink.avro.generated";

/// Derives the Avro schema JSON text for a Flink row type exactly as Flink's
/// `AvroSchemaConverter` + Java Avro's `Schema.toString()` write it (key order included,
/// since the text is what gets registered): a record named `record` in namespace
/// `org.apache.flink.avro.generated`, nested records named `<parent>_<field>`, nullable
/// types as `["null", T]` with `"default":null` on fields.
pub fn derive_schema_json(row: &FlinkType) -> Result<String, CodecError> {
    let fields = row.row_fields()?;
    let mut out = String::new();
    // The physical row type handed to a format is NOT NULL at the top level.
    write_record(
        &mut out,
        fields,
        TOP_LEVEL_RECORD_NAME,
        Some(DERIVED_NAMESPACE),
    )?;
    Ok(out)
}

/// Derives the reader schema for a Flink row type (see [`derive_schema_json`]).
pub fn derive_reader_schema(row: &FlinkType) -> Result<AvroNode, CodecError> {
    AvroNode::parse(&derive_schema_json(row)?)
}

/// Java Avro's name rule: `[A-Za-z_][A-Za-z0-9_]*`.
fn check_name(name: &str) -> Result<(), CodecError> {
    let mut chars = name.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(CodecError::InvalidType(format!(
            "'{name}' is not a valid Avro name (letters, digits and '_', not starting with a digit)"
        )))
    }
}

fn write_record(
    out: &mut String,
    fields: &[FlinkField],
    name: &str,
    namespace: Option<&str>,
) -> Result<(), CodecError> {
    out.push_str("{\"type\":\"record\",\"name\":\"");
    out.push_str(name);
    out.push('"');
    if let Some(ns) = namespace {
        out.push_str(",\"namespace\":\"");
        out.push_str(ns);
        out.push('"');
    }
    out.push_str(",\"fields\":[");
    for (i, field) in fields.iter().enumerate() {
        check_name(&field.name)?;
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":\"");
        out.push_str(&field.name);
        out.push_str("\",\"type\":");
        write_type(out, &field.ty, &format!("{name}_{}", field.name))?;
        if field.ty.nullable && field.ty.kind != FlinkKind::Null {
            out.push_str(",\"default\":null");
        }
        out.push('}');
    }
    out.push_str("]}");
    Ok(())
}

/// Writes the schema of one type; `row_name` is the name a ROW at this position gets.
fn write_type(out: &mut String, ty: &FlinkType, row_name: &str) -> Result<(), CodecError> {
    let unsupported = || {
        CodecError::InvalidType(format!(
            "Unsupported to derive Schema for type: {}",
            crate::types::summary_string(ty)
        ))
    };
    if ty.kind == FlinkKind::Null {
        out.push_str("\"null\"");
        return Ok(());
    }
    if ty.nullable {
        out.push_str("[\"null\",");
    }
    match &ty.kind {
        FlinkKind::Null => {}
        FlinkKind::Boolean => out.push_str("\"boolean\""),
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int => out.push_str("\"int\""),
        FlinkKind::BigInt => out.push_str("\"long\""),
        FlinkKind::Float => out.push_str("\"float\""),
        FlinkKind::Double => out.push_str("\"double\""),
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => out.push_str("\"string\""),
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => out.push_str("\"bytes\""),
        FlinkKind::Decimal { precision, scale } => out.push_str(&format!(
            "{{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":{precision},\"scale\":{scale}}}"
        )),
        FlinkKind::Date => out.push_str("{\"type\":\"int\",\"logicalType\":\"date\"}"),
        FlinkKind::Time(p) => {
            if *p > 3 {
                return Err(CodecError::InvalidType(format!(
                    "Avro does not support TIME type with precision: {p}, it only supports precision less than 3."
                )));
            }
            out.push_str("{\"type\":\"int\",\"logicalType\":\"time-millis\"}")
        }
        FlinkKind::Timestamp(p) => {
            if *p > 3 {
                return Err(CodecError::InvalidType(format!(
                    "Avro does not support TIMESTAMP type with precision: {p}, it only supports precision less than 3."
                )));
            }
            out.push_str("{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}")
        }
        FlinkKind::TimestampLtz(_) | FlinkKind::IntervalYearMonth | FlinkKind::IntervalDayTime => {
            return Err(unsupported())
        }
        FlinkKind::Array(element) => {
            out.push_str("{\"type\":\"array\",\"items\":");
            write_type(out, element, row_name)?;
            out.push('}');
        }
        FlinkKind::Map(key, value) => {
            require_string_key(key)?;
            out.push_str("{\"type\":\"map\",\"values\":");
            write_type(out, value, row_name)?;
            out.push('}');
        }
        FlinkKind::Multiset(element) => {
            require_string_key(element)?;
            out.push_str("{\"type\":\"map\",\"values\":[\"null\",\"int\"]}");
        }
        FlinkKind::Row(fields) => write_record(out, fields, row_name, None)?,
    }
    if ty.nullable {
        out.push(']');
    }
    Ok(())
}

fn require_string_key(key: &FlinkType) -> Result<(), CodecError> {
    match key.kind {
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Ok(()),
        _ => Err(CodecError::InvalidType(format!(
            "Avro format doesn't support non-string as key type of map. The key type is: {}",
            crate::types::summary_string(key)
        ))),
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
        let text = derive_schema_json(&row).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":["#,
                r#"{"name":"id","type":"long"},"#,
                r#"{"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},"#,
                r#"{"name":"r","type":["null",{"type":"record","name":"record_r","fields":[{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]}],"default":null},"#,
                r#"{"name":"tags","type":["null",{"type":"array","items":{"type":"record","name":"record_tags","fields":[{"name":"x","type":"int"}]}}],"default":null}]}"#
            )
        );
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
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
