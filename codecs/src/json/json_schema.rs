//! The JSON Schema (draft-07) that `json-confluent-native` registers for a row type when
//! the `schema` option is not set: it describes the JSON `JsonRowEncoder` writes.
//!
//! The mapping (documented in `docs/formats/json-confluent-native.md`):
//! - the row is `{"$schema": draft-07, "type":"object", "properties":{...}, "required":[...]}`,
//!   properties in column order, `required` listing the NOT NULL columns (left out when
//!   there is none); nested ROWs are objects with the same two keys and no `$schema`;
//! - a nullable type T is `{"oneOf":[{"type":"null"}, T]}` (the shape Confluent's
//!   `JsonSchemaConverter` reads as an optional value); the top-level row is never wrapped,
//!   since a row is always written as an object;
//! - BOOLEAN `boolean`; TINYINT, SMALLINT, INT, BIGINT and both INTERVALs `integer`;
//!   DECIMAL `number`; FLOAT and DOUBLE `{"oneOf":[{"type":"number"},{"enum":["NaN",
//!   "Infinity","-Infinity"]}]}` (the strings `json` writes for non-finite values);
//!   CHAR/VARCHAR `string`; BINARY/VARBINARY `string`
//!   with `"contentEncoding":"base64"`; DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ `string`
//!   with `format` `date`, `time`, `date-time`, `date-time`;
//! - ARRAY `{"type":"array","items":E}`; MAP `{"type":"object","additionalProperties":V}`
//!   (keys are strings in JSON); MULTISET `{"type":"object","additionalProperties":
//!   {"type":"integer"}}` (element -> count); the NULL type `{"type":"null"}`.
//!
//! Object keys are written in a fixed order and without spaces, so every parallel writer
//! derives the same text and the registry returns one id for it.

use crate::error::CodecError;
use crate::types::{FlinkField, FlinkKind, FlinkType};

/// The `$schema` URI of the derived schemas.
pub const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// FLOAT and DOUBLE: a number, or one of the strings `json` writes for the values JSON has no
/// number for (flink-json writes them through Jackson, which quotes non-finite numbers).
const FLOATING: &str =
    "{\"oneOf\":[{\"type\":\"number\"},{\"enum\":[\"NaN\",\"Infinity\",\"-Infinity\"]}]}";

/// The JSON Schema text describing the JSON written for rows of `row_type` (a ROW).
pub fn derive_json_schema(row_type: &FlinkType) -> Result<String, CodecError> {
    let fields = row_type.row_fields()?;
    let mut out = String::with_capacity(64 + 48 * fields.len());
    out.push_str("{\"$schema\":");
    push_str_literal(&mut out, DRAFT_07);
    out.push(',');
    object_body(fields, &mut out);
    out.push('}');
    Ok(out)
}

/// Checks the `schema` option's text: it must be a JSON Schema document, i.e. a JSON object
/// or boolean. Returns what is wrong otherwise.
pub fn check_schema_text(text: &str) -> Result<(), String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) if value.is_object() || value.is_boolean() => Ok(()),
        Ok(value) => Err(format!(
            "a JSON Schema is a JSON object or boolean, got {}",
            kind_of(&value)
        )),
        Err(e) => Err(format!("not valid JSON: {e}")),
    }
}

fn kind_of(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// `"type":"object","properties":{...}[,"required":[...]]` for the fields of a row.
fn object_body(fields: &[FlinkField], out: &mut String) {
    out.push_str("\"type\":\"object\",\"properties\":{");
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str_literal(out, &field.name);
        out.push(':');
        value_schema(&field.ty, out);
    }
    out.push('}');
    let mut required = fields.iter().filter(|f| !f.ty.nullable).peekable();
    if required.peek().is_some() {
        out.push_str(",\"required\":[");
        for (i, field) in required.enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_str_literal(out, &field.name);
        }
        out.push(']');
    }
}

/// The schema of a value of type `ty`, wrapped in `oneOf` with `null` when nullable.
fn value_schema(ty: &FlinkType, out: &mut String) {
    if ty.nullable && ty.kind != FlinkKind::Null {
        out.push_str("{\"oneOf\":[{\"type\":\"null\"},");
        kind_schema(&ty.kind, out);
        out.push_str("]}");
    } else {
        kind_schema(&ty.kind, out);
    }
}

/// The schema of a non-null value of kind `kind`.
fn kind_schema(kind: &FlinkKind, out: &mut String) {
    match kind {
        FlinkKind::Null => out.push_str("{\"type\":\"null\"}"),
        FlinkKind::Boolean => out.push_str("{\"type\":\"boolean\"}"),
        FlinkKind::TinyInt
        | FlinkKind::SmallInt
        | FlinkKind::Int
        | FlinkKind::BigInt
        | FlinkKind::IntervalYearMonth
        | FlinkKind::IntervalDayTime => out.push_str("{\"type\":\"integer\"}"),
        // `json` (Jackson) writes NaN and the infinities as these strings.
        FlinkKind::Float | FlinkKind::Double => out.push_str(FLOATING),
        FlinkKind::Decimal { .. } => out.push_str("{\"type\":\"number\"}"),
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => out.push_str("{\"type\":\"string\"}"),
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
            out.push_str("{\"type\":\"string\",\"contentEncoding\":\"base64\"}")
        }
        FlinkKind::Date => out.push_str("{\"type\":\"string\",\"format\":\"date\"}"),
        FlinkKind::Time(_) => out.push_str("{\"type\":\"string\",\"format\":\"time\"}"),
        FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => {
            out.push_str("{\"type\":\"string\",\"format\":\"date-time\"}")
        }
        FlinkKind::Array(element) => {
            out.push_str("{\"type\":\"array\",\"items\":");
            value_schema(element, out);
            out.push('}');
        }
        FlinkKind::Map(_, value) => {
            out.push_str("{\"type\":\"object\",\"additionalProperties\":");
            value_schema(value, out);
            out.push('}');
        }
        FlinkKind::Multiset(_) => {
            out.push_str("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}")
        }
        FlinkKind::Row(fields) => {
            out.push('{');
            object_body(fields, out);
            out.push('}');
        }
    }
}

/// Appends `text` as a JSON string literal.
fn push_str_literal(out: &mut String, text: &str) {
    // Serialising a &str cannot fail; the fallback keeps the function total anyway.
    match serde_json::to_string(text) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn row(fields: &str) -> FlinkType {
        FlinkType::from_json_str(&format!(
            r#"{{"type":"ROW","nullable":false,"fields":[{fields}]}}"#
        ))
        .unwrap()
    }

    fn derived(fields: &str) -> Value {
        let text = derive_json_schema(&row(fields)).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn scalar_columns_in_order_with_required_for_not_null() {
        let text = derive_json_schema(&row(
            r#"{"name":"id","type":{"type":"BIGINT","nullable":false}},
               {"name":"name","type":{"type":"VARCHAR","nullable":true,"length":2147483647}},
               {"name":"ok","type":{"type":"BOOLEAN","nullable":false}}"#,
        ))
        .unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"#,
                r#""id":{"type":"integer"},"name":{"oneOf":[{"type":"null"},{"type":"string"}]},"#,
                r#""ok":{"type":"boolean"}},"required":["id","ok"]}"#
            )
        );
    }

    #[test]
    fn every_scalar_kind() {
        let schema = derived(
            r#"{"name":"t","type":{"type":"TINYINT","nullable":false}},
               {"name":"s","type":{"type":"SMALLINT","nullable":false}},
               {"name":"i","type":{"type":"INT","nullable":false}},
               {"name":"ym","type":{"type":"INTERVAL_YEAR_MONTH","nullable":false}},
               {"name":"dt","type":{"type":"INTERVAL_DAY_TIME","nullable":false}},
               {"name":"f","type":{"type":"FLOAT","nullable":false}},
               {"name":"d","type":{"type":"DOUBLE","nullable":false}},
               {"name":"dec","type":{"type":"DECIMAL","nullable":false,"precision":10,"scale":2}},
               {"name":"c","type":{"type":"CHAR","nullable":false,"length":3}},
               {"name":"b","type":{"type":"BINARY","nullable":false,"length":4}},
               {"name":"vb","type":{"type":"VARBINARY","nullable":false,"length":2147483647}},
               {"name":"day","type":{"type":"DATE","nullable":false}},
               {"name":"tm","type":{"type":"TIME","nullable":false,"precision":3}},
               {"name":"ts","type":{"type":"TIMESTAMP","nullable":false,"precision":6}},
               {"name":"ltz","type":{"type":"TIMESTAMP_LTZ","nullable":false,"precision":3}},
               {"name":"n","type":{"type":"NULL","nullable":true}}"#,
        );
        let p = &schema["properties"];
        for int in ["t", "s", "i", "ym", "dt"] {
            assert_eq!(p[int], json!({"type":"integer"}), "{int}");
        }
        for floating in ["f", "d"] {
            assert_eq!(
                p[floating],
                json!({"oneOf":[{"type":"number"},{"enum":["NaN","Infinity","-Infinity"]}]}),
                "{floating}"
            );
        }
        assert_eq!(p["dec"], json!({"type":"number"}));
        assert_eq!(p["c"], json!({"type":"string"}));
        for bytes in ["b", "vb"] {
            assert_eq!(
                p[bytes],
                json!({"type":"string","contentEncoding":"base64"}),
                "{bytes}"
            );
        }
        assert_eq!(p["day"], json!({"type":"string","format":"date"}));
        assert_eq!(p["tm"], json!({"type":"string","format":"time"}));
        assert_eq!(p["ts"], json!({"type":"string","format":"date-time"}));
        assert_eq!(p["ltz"], json!({"type":"string","format":"date-time"}));
        // The NULL type is not wrapped in a oneOf with itself, and is never required.
        assert_eq!(p["n"], json!({"type":"null"}));
        assert_eq!(schema["required"].as_array().unwrap().len(), 15);
        assert!(!schema["required"].as_array().unwrap().contains(&json!("n")));
    }

    #[test]
    fn collections_and_nested_rows() {
        let schema = derived(
            r#"{"name":"tags","type":{"type":"ARRAY","nullable":true,
                    "element":{"type":"VARCHAR","nullable":true,"length":2147483647}}},
               {"name":"ids","type":{"type":"ARRAY","nullable":false,
                    "element":{"type":"INT","nullable":false}}},
               {"name":"m","type":{"type":"MAP","nullable":false,
                    "key":{"type":"VARCHAR","nullable":false,"length":2147483647},
                    "value":{"type":"DOUBLE","nullable":true}}},
               {"name":"ms","type":{"type":"MULTISET","nullable":true,
                    "element":{"type":"VARCHAR","nullable":true,"length":2147483647}}},
               {"name":"r","type":{"type":"ROW","nullable":true,"fields":[
                    {"name":"x","type":{"type":"INT","nullable":false}},
                    {"name":"y","type":{"type":"VARCHAR","nullable":true,"length":5}}]}},
               {"name":"open","type":{"type":"ROW","nullable":false,"fields":[
                    {"name":"z","type":{"type":"INT","nullable":true}}]}}"#,
        );
        let p = &schema["properties"];
        assert_eq!(
            p["tags"],
            json!({"oneOf":[{"type":"null"},{"type":"array","items":
                {"oneOf":[{"type":"null"},{"type":"string"}]}}]})
        );
        assert_eq!(p["ids"], json!({"type":"array","items":{"type":"integer"}}));
        assert_eq!(
            p["m"],
            json!({"type":"object","additionalProperties":
                {"oneOf":[{"type":"null"},{"oneOf":[{"type":"number"},
                    {"enum":["NaN","Infinity","-Infinity"]}]}]}})
        );
        assert_eq!(
            p["ms"],
            json!({"oneOf":[{"type":"null"},{"type":"object","additionalProperties":{"type":"integer"}}]})
        );
        assert_eq!(
            p["r"],
            json!({"oneOf":[{"type":"null"},{"type":"object","properties":{
                "x":{"type":"integer"},
                "y":{"oneOf":[{"type":"null"},{"type":"string"}]}},"required":["x"]}]})
        );
        // Nested rows carry no $schema, and no required list when every field is nullable.
        assert_eq!(
            p["open"],
            json!({"type":"object","properties":{"z":{"oneOf":[{"type":"null"},{"type":"integer"}]}}})
        );
        assert_eq!(schema["required"], json!(["ids", "m", "open"]));
    }

    #[test]
    fn names_are_escaped_and_order_is_kept() {
        let text = derive_json_schema(&row(
            r#"{"name":"z\"q","type":{"type":"INT","nullable":true}},
               {"name":"a\\b","type":{"type":"INT","nullable":true}}"#,
        ))
        .unwrap();
        assert!(text.contains(r#""properties":{"z\"q":"#), "{text}");
        let z = text.find("z\\\"q").unwrap();
        let a = text.find("a\\\\b").unwrap();
        assert!(z < a, "columns keep their order: {text}");
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert!(parsed.get("required").is_none());
        assert!(parsed["properties"].get("z\"q").is_some());
    }

    #[test]
    fn the_row_type_must_be_a_row() {
        let not_a_row = FlinkType::from_json_str(r#"{"type":"INT","nullable":false}"#).unwrap();
        assert!(derive_json_schema(&not_a_row).is_err());
        // An empty row is an object without properties.
        assert_eq!(
            derive_json_schema(&row("")).unwrap(),
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{}}"#
        );
    }

    #[test]
    fn explicit_schema_text_must_be_an_object_or_boolean() {
        assert!(check_schema_text(r#"{"type":"object"}"#).is_ok());
        assert!(check_schema_text("true").is_ok());
        assert!(check_schema_text("[1]").unwrap_err().contains("an array"));
        assert!(check_schema_text("\"x\"").unwrap_err().contains("a string"));
        assert!(check_schema_text("{\"type\":")
            .unwrap_err()
            .contains("not valid JSON"));
    }
}
