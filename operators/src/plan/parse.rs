//! Plan JSON text -> [`PlanSpec`]: the shape of `docs/operator-plan.md`, nothing about
//! what is supported (that is [`super::validate`]). Unknown keys are refused so that a
//! field the Java side adds without a Rust reader is a decline, never silently ignored.

use karrow_codecs::FlinkType;
use serde_json::{Map, Value};

use super::{ExprSpec, PlanSpec, PLAN_VERSION};
use crate::error::Decline;
use crate::session::Session;

/// Expressions nested deeper than this are declined (bounds recursion in every later pass;
/// serde_json itself stops at 128 levels of JSON).
pub const MAX_DEPTH: usize = 64;

/// Parses a plan's JSON text.
pub fn parse_plan(text: &str) -> Result<PlanSpec, Decline> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| Decline::new(format!("plan is not JSON: {e}")))?;
    let obj = object(&value, "plan")?;
    only_keys(
        obj,
        &[
            "version",
            "input",
            "filter",
            "projections",
            "output",
            "session",
            "encode",
            "watermark_columns",
        ],
        "plan",
    )?;
    let version = obj.get("version").and_then(Value::as_u64);
    if version != Some(PLAN_VERSION) {
        return Err(Decline::new(format!(
            "plan version {} is not {PLAN_VERSION}",
            obj.get("version")
                .map_or("missing".into(), Value::to_string)
        )));
    }
    let input = row_type(obj.get("input"), "input")?;
    let output = row_type(obj.get("output"), "output")?;
    let filter = match obj.get("filter") {
        None | Some(Value::Null) => None,
        Some(v) => Some(parse_expr(v, 0)?),
    };
    let projections = obj
        .get("projections")
        .and_then(Value::as_array)
        .ok_or_else(|| Decline::new("plan needs a \"projections\" array"))?
        .iter()
        .map(|v| parse_expr(v, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let session = match obj.get("session") {
        None => return Err(Decline::new("plan needs a \"session\" object")),
        Some(v) => parse_session(v)?,
    };
    let encode = super::encode::parse_encode(obj.get("encode"), &output)
        .map_err(|d| Decline::new(format!("encode stage: {}", d.0)))?;
    let watermark_columns = match obj.get("watermark_columns") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_u64()
                    .and_then(|i| usize::try_from(i).ok())
                    .ok_or_else(|| {
                        Decline::new(format!(
                            "\"watermark_columns\" holds {}, not a column index",
                            brief(v)
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(v) => {
            return Err(Decline::new(format!(
                "\"watermark_columns\" is not an array: {}",
                brief(v)
            )))
        }
    };
    Ok(PlanSpec {
        input,
        filter,
        projections,
        output,
        session,
        encode,
        watermark_columns,
    })
}

fn parse_session(value: &Value) -> Result<Session, Decline> {
    let obj = object(value, "session")?;
    only_keys(obj, &["time_zone", "locale"], "session")?;
    let zone = obj
        .get("time_zone")
        .and_then(Value::as_str)
        .ok_or_else(|| Decline::new("session needs a \"time_zone\" string"))?;
    let mut session = Session::new(zone)?;
    session.locale = match obj.get("locale") {
        None | Some(Value::Null) => None,
        Some(Value::String(tag)) => Some(tag.clone()),
        Some(other) => {
            return Err(Decline::new(format!(
                "session \"locale\" is not a string: {}",
                brief(other)
            )))
        }
    };
    Ok(session)
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, Decline> {
    value
        .as_object()
        .ok_or_else(|| Decline::new(format!("{what} is not a JSON object: {}", brief(value))))
}

fn only_keys(obj: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<(), Decline> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(Decline::new(format!("{what} has an unknown key \"{k}\""))),
        None => Ok(()),
    }
}

fn row_type(value: Option<&Value>, what: &str) -> Result<FlinkType, Decline> {
    let value = value.ok_or_else(|| Decline::new(format!("plan needs \"{what}\"")))?;
    let ty = flink_type(value)?;
    ty.row_fields()
        .map_err(|_| Decline::new(format!("plan \"{what}\" is not a ROW type")))?;
    Ok(ty)
}

fn flink_type(value: &Value) -> Result<FlinkType, Decline> {
    FlinkType::from_json(value).map_err(|e| Decline::new(format!("type {}: {e}", brief(value))))
}

fn node_type(obj: &Map<String, Value>, value: &Value) -> Result<FlinkType, Decline> {
    match obj.get("type") {
        Some(t) => flink_type(t),
        None => Err(Decline::new(format!(
            "expression without \"type\": {}",
            brief(value)
        ))),
    }
}

fn index(obj: &Map<String, Value>, key: &str, value: &Value) -> Result<usize, Decline> {
    obj.get(key)
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| Decline::new(format!("\"{key}\" is not an index in {}", brief(value))))
}

/// Parses one expression node.
pub(crate) fn parse_expr(value: &Value, depth: usize) -> Result<ExprSpec, Decline> {
    if depth > MAX_DEPTH {
        return Err(Decline::new(format!(
            "expression nested deeper than {MAX_DEPTH} levels"
        )));
    }
    let obj = object(value, "expression")?;
    if obj.contains_key("input") {
        only_keys(obj, &["input", "type"], "column reference")?;
        return Ok(ExprSpec::Input {
            index: index(obj, "input", value)?,
            ty: node_type(obj, value)?,
        });
    }
    if let Some(inner) = obj.get("field") {
        only_keys(obj, &["field", "index", "type"], "field access")?;
        return Ok(ExprSpec::Field {
            expr: Box::new(parse_expr(inner, depth + 1)?),
            index: index(obj, "index", value)?,
            ty: node_type(obj, value)?,
        });
    }
    if let Some(literal) = obj.get("literal") {
        only_keys(obj, &["literal", "type"], "literal")?;
        return Ok(ExprSpec::Literal {
            value: literal.clone(),
            ty: node_type(obj, value)?,
        });
    }
    if let Some(symbol) = obj.get("symbol") {
        only_keys(obj, &["symbol"], "symbol")?;
        let name = symbol
            .as_str()
            .ok_or_else(|| Decline::new(format!("symbol is not a string: {}", brief(value))))?;
        return Ok(ExprSpec::Symbol(name.to_string()));
    }
    if let Some(call) = obj.get("call") {
        only_keys(obj, &["call", "operands", "type"], "call")?;
        let op = call
            .as_str()
            .ok_or_else(|| Decline::new(format!("call name is not a string: {}", brief(value))))?;
        let operands = obj
            .get("operands")
            .and_then(Value::as_array)
            .ok_or_else(|| Decline::new(format!("call {op} needs an \"operands\" array")))?
            .iter()
            .map(|v| parse_expr(v, depth + 1))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(ExprSpec::Call {
            op: op.to_string(),
            operands,
            ty: node_type(obj, value)?,
        });
    }
    Err(Decline::new(format!(
        "unknown expression node: {}",
        brief(value)
    )))
}

/// A JSON value shortened for a message.
pub(crate) fn brief(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > 120 {
        let mut cut = 117;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("...");
    }
    text
}
