//! The encode stage of a full-fusion plan (`docs/operator-plan.md`, "Encode stage"): which
//! output columns the sink's value (and key) encoder writes, with which format and encoder
//! configuration. Parsed and checked here, against the plan's output row; the encoders
//! themselves are opened by the host (the cdylib), from `config`, exactly as the sink's own
//! encoder sessions are.

use karrow_codecs::types::{summary_string, FlinkKind};
use karrow_codecs::FlinkType;
use serde_json::{Map, Value};

use super::parse::brief;
use crate::error::Decline;

/// The sink formats a fused pipeline encodes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeFormat {
    /// `json-native`.
    Json,
    /// `json-confluent-native`.
    JsonConfluent,
    /// `avro-confluent-native`.
    AvroConfluent,
    /// `protobuf-confluent-native`.
    ProtobufConfluent,
}

impl EncodeFormat {
    /// The format for a `format` name of the plan, or why it is not encoded in a fused
    /// pipeline.
    fn from_name(name: &str) -> Result<Self, Decline> {
        Ok(match name {
            "json-native" => EncodeFormat::Json,
            "json-confluent-native" => EncodeFormat::JsonConfluent,
            "avro-confluent-native" => EncodeFormat::AvroConfluent,
            "protobuf-confluent-native" => EncodeFormat::ProtobufConfluent,
            "protobuf-native" => {
                return Err(Decline::new(
                    "the sink format protobuf-native needs its descriptor set as the session's \
                     bytes, which a fused session gives its decoder",
                ))
            }
            other => {
                return Err(Decline::new(format!(
                    "the sink format '{other}' is not encoded in a fused pipeline"
                )))
            }
        })
    }

    /// The format's name in the plan.
    pub fn name(self) -> &'static str {
        match self {
            EncodeFormat::Json => "json-native",
            EncodeFormat::JsonConfluent => "json-confluent-native",
            EncodeFormat::AvroConfluent => "avro-confluent-native",
            EncodeFormat::ProtobufConfluent => "protobuf-confluent-native",
        }
    }

    /// Whether the format's encoder configuration has a `confluent` section.
    fn has_confluent_section(self) -> bool {
        matches!(
            self,
            EncodeFormat::JsonConfluent | EncodeFormat::ProtobufConfluent
        )
    }
}

/// One encoder of the stage: a format over output columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoder {
    /// The sink format.
    pub format: EncodeFormat,
    /// Output column indices, in the encoded row's field order.
    pub columns: Vec<usize>,
    /// The encoded row type (the sink's physical row of these columns), from `config`.
    pub row_type: FlinkType,
    /// The encoder's configuration, as the format's encoder session takes it.
    pub config: Value,
}

/// The encode stage: the value encoder and, when the sink has a key format, the key encoder.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeStage {
    /// The value encoder.
    pub value: Encoder,
    /// The key encoder.
    pub key: Option<Encoder>,
}

/// Parses the plan's `encode` value (`None` for a missing or null one) and checks it against
/// the plan's `output` row type.
pub fn parse_encode(
    value: Option<&Value>,
    output: &FlinkType,
) -> Result<Option<EncodeStage>, Decline> {
    let value = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => v,
    };
    let obj = object(value, "encode")?;
    if let Some(k) = obj.keys().find(|k| !["value", "key"].contains(&k.as_str())) {
        return Err(Decline::new(format!("encode has an unknown key \"{k}\"")));
    }
    let fields = output
        .row_fields()
        .map_err(|_| Decline::new("the output type is not a ROW"))?;
    let outputs: Vec<&FlinkType> = fields.iter().map(|f| &f.ty).collect();
    let value = match obj.get("value") {
        None | Some(Value::Null) => return Err(Decline::new("encode needs a \"value\" encoder")),
        Some(v) => encoder(v, &outputs).map_err(|d| Decline::new(format!("value: {}", d.0)))?,
    };
    let key = match obj.get("key") {
        None | Some(Value::Null) => None,
        Some(v) => Some(encoder(v, &outputs).map_err(|d| Decline::new(format!("key: {}", d.0)))?),
    };
    Ok(Some(EncodeStage { value, key }))
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, Decline> {
    value
        .as_object()
        .ok_or_else(|| Decline::new(format!("{what} is not a JSON object: {}", brief(value))))
}

fn encoder(value: &Value, outputs: &[&FlinkType]) -> Result<Encoder, Decline> {
    let obj = object(value, "the encoder")?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["format", "columns", "config"].contains(&k.as_str()))
    {
        return Err(Decline::new(format!(
            "the encoder has an unknown key \"{k}\""
        )));
    }
    let format = obj
        .get("format")
        .and_then(Value::as_str)
        .ok_or_else(|| Decline::new("the encoder needs a \"format\" string"))?;
    let format = EncodeFormat::from_name(format)?;
    let columns = obj
        .get("columns")
        .and_then(Value::as_array)
        .ok_or_else(|| Decline::new("the encoder needs a \"columns\" array"))?
        .iter()
        .map(|c| {
            c.as_u64()
                .and_then(|c| usize::try_from(c).ok())
                .filter(|&c| c < outputs.len())
                .ok_or_else(|| {
                    Decline::new(format!(
                        "column {} is not one of the {} output columns",
                        brief(c),
                        outputs.len()
                    ))
                })
        })
        .collect::<Result<Vec<usize>, _>>()?;
    if columns.is_empty() {
        return Err(Decline::new("the encoder writes no column"));
    }
    for (i, c) in columns.iter().enumerate() {
        if columns[..i].contains(c) {
            return Err(Decline::new(format!("column {c} is encoded twice")));
        }
    }
    let config = obj
        .get("config")
        .ok_or_else(|| Decline::new("the encoder needs a \"config\" object"))?;
    let config_obj = object(config, "the encoder's config")?;
    if config_obj.contains_key("confluent") != format.has_confluent_section() {
        return Err(Decline::new(format!(
            "the {} encoder's config {} a \"confluent\" section",
            format.name(),
            if format.has_confluent_section() {
                "lacks"
            } else {
                "has"
            }
        )));
    }
    let row_type = config_obj
        .get("row_type")
        .ok_or_else(|| Decline::new("the encoder's config has no \"row_type\""))?;
    let row_type = FlinkType::from_json(row_type)
        .map_err(|e| Decline::new(format!("the encoder's row_type: {e}")))?;
    let fields = row_type
        .row_fields()
        .map_err(|_| Decline::new("the encoder's row_type is not a ROW"))?;
    if fields.len() != columns.len() {
        return Err(Decline::new(format!(
            "the encoder's row has {} fields for {} columns",
            fields.len(),
            columns.len()
        )));
    }
    for (field, &c) in fields.iter().zip(&columns) {
        if !same_up_to_nullability(&field.ty, outputs[c]) {
            return Err(Decline::new(format!(
                "the sink's column {} is {} but output column {c} is {} (a cast or an enforcer \
                 would run between the Calc and the sink)",
                field.name,
                summary_string(&field.ty),
                summary_string(outputs[c])
            )));
        }
    }
    if format == EncodeFormat::AvroConfluent {
        if let Some(field) = fields.iter().find(|f| has_nullable_map_key(&f.ty)) {
            return Err(Decline::new(format!(
                "the sink's column {} has a MAP with nullable keys, whose NULL keys the unfused \
                 Avro sink rejects in Java before it encodes",
                field.name
            )));
        }
    }
    Ok(Encoder {
        format,
        columns,
        row_type,
        config: config.clone(),
    })
}

/// Whether `ty` holds a MAP (or MULTISET) whose keys may be NULL.
fn has_nullable_map_key(ty: &FlinkType) -> bool {
    match &ty.kind {
        FlinkKind::Map(k, v) => k.nullable || has_nullable_map_key(k) || has_nullable_map_key(v),
        FlinkKind::Multiset(e) => e.nullable || has_nullable_map_key(e),
        FlinkKind::Array(e) => has_nullable_map_key(e),
        FlinkKind::Row(fields) => fields.iter().any(|f| has_nullable_map_key(&f.ty)),
        _ => false,
    }
}

/// Whether two types are equal except for nullability, at every level (field names of
/// nested rows included: they are the types' own).
pub(crate) fn same_up_to_nullability(a: &FlinkType, b: &FlinkType) -> bool {
    match (&a.kind, &b.kind) {
        (FlinkKind::Array(x), FlinkKind::Array(y))
        | (FlinkKind::Multiset(x), FlinkKind::Multiset(y)) => same_up_to_nullability(x, y),
        (FlinkKind::Map(ka, va), FlinkKind::Map(kb, vb)) => {
            same_up_to_nullability(ka, kb) && same_up_to_nullability(va, vb)
        }
        (FlinkKind::Row(x), FlinkKind::Row(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(f, g)| f.name == g.name && same_up_to_nullability(&f.ty, &g.ty))
        }
        (x, y) => x == y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn output() -> FlinkType {
        FlinkType::from_json(&json!({"type": "ROW", "nullable": false, "fields": [
            {"name": "a", "type": {"type": "BIGINT", "nullable": false}},
            {"name": "s", "type": {"type": "VARCHAR", "nullable": true, "length": 2147483647}}]}))
        .unwrap()
    }

    fn json_encoder(columns: serde_json::Value, fields: serde_json::Value) -> Value {
        json!({"format": "json-native", "columns": columns,
            "config": {"row_type": {"type": "ROW", "nullable": false, "fields": fields}}})
    }

    fn reason(encode: Value) -> String {
        parse_encode(Some(&encode), &output()).unwrap_err().0
    }

    #[test]
    fn a_value_and_key_stage_parses_with_the_sinks_names_and_nullability() {
        let value = json_encoder(
            json!([1, 0]),
            json!([
                {"name": "text", "type": {"type": "VARCHAR", "nullable": false, "length": 2147483647}},
                {"name": "id", "type": {"type": "BIGINT", "nullable": true}}]),
        );
        let key = json_encoder(
            json!([0]),
            json!([{"name": "id", "type": {"type": "BIGINT", "nullable": true}}]),
        );
        let stage = parse_encode(Some(&json!({"value": value, "key": key})), &output())
            .unwrap()
            .unwrap();
        assert_eq!(stage.value.columns, vec![1, 0]);
        assert_eq!(stage.value.format, EncodeFormat::Json);
        assert_eq!(stage.key.unwrap().columns, vec![0]);
        assert_eq!(parse_encode(None, &output()).unwrap(), None);
        assert_eq!(parse_encode(Some(&Value::Null), &output()).unwrap(), None);
    }

    #[test]
    fn what_the_encoders_cannot_write_exactly_declines() {
        let ok_fields = json!([{"name": "id", "type": {"type": "BIGINT", "nullable": true}}]);
        assert!(reason(json!({"key": null})).contains("needs a \"value\""));
        assert!(
            reason(json!({"value": json_encoder(json!([0]), ok_fields.clone()), "x": 1}))
                .contains("unknown key \"x\"")
        );
        assert!(
            reason(json!({"value": json_encoder(json!([2]), ok_fields.clone())}))
                .contains("not one of the 2 output columns")
        );
        assert!(reason(json!({"value": json_encoder(json!([]), json!([]))})).contains("no column"));
        assert!(reason(json!({"value": json_encoder(json!([0, 0]), json!([
            {"name": "x", "type": {"type": "BIGINT"}}, {"name": "y", "type": {"type": "BIGINT"}}]))}))
        .contains("encoded twice"));
        // A type that differs in more than nullability: Flink casts or enforces in between.
        let r = reason(json!({"value": json_encoder(json!([1]),
            json!([{"name": "s", "type": {"type": "VARCHAR", "length": 10}}]))}));
        assert!(r.contains("VARCHAR(10)"), "{r}");
        assert!(
            reason(json!({"value": json_encoder(json!([0, 1]), ok_fields.clone())}))
                .contains("1 fields for 2 columns")
        );
        let mut proto = json_encoder(json!([0]), ok_fields.clone());
        proto["format"] = json!("protobuf-native");
        assert!(reason(json!({"value": proto})).contains("descriptor set"));
        let mut csv = json_encoder(json!([0]), ok_fields.clone());
        csv["format"] = json!("csv");
        assert!(reason(json!({"value": csv})).contains("'csv'"));
        let mut confluent = json_encoder(json!([0]), ok_fields.clone());
        confluent["format"] = json!("json-confluent-native");
        assert!(reason(json!({"value": confluent})).contains("lacks a \"confluent\""));
        let mut avro = json_encoder(
            json!([0]),
            json!([{"name": "m", "type": {"type": "MAP",
            "key": {"type": "VARCHAR", "length": 3}, "value": {"type": "INT"}}}]),
        );
        avro["format"] = json!("avro-confluent-native");
        let map_out = FlinkType::from_json(&json!({"type": "ROW", "fields": [{"name": "m",
            "type": {"type": "MAP", "key": {"type": "VARCHAR", "length": 3, "nullable": false},
                     "value": {"type": "INT"}}}]}))
        .unwrap();
        let r = parse_encode(Some(&json!({"value": avro})), &map_out)
            .unwrap_err()
            .0;
        assert!(r.contains("nullable keys"), "{r}");
        let mut plain = json_encoder(json!([0]), ok_fields);
        plain["config"]["confluent"] = json!({});
        assert!(reason(json!({"value": plain})).contains("has a \"confluent\""));
    }
}
