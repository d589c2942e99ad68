//! Typed literals: the contract's JSON encoding per type, and the arrays they broadcast to.

use std::sync::Arc;

use arrow_array::types::{
    Date32Type, Int16Type, Int32Type, Int64Type, Int8Type, Time32MillisecondType,
};
use arrow_array::{
    new_null_array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array,
    Float64Array, StringArray,
};
use karrow_codecs::types::FlinkKind;
use karrow_codecs::FlinkType;
use serde_json::Value;

use crate::error::{Decline, EvalError};
use crate::expr::internal;
use crate::expr::kernels::{build_timestamp, repeat};

/// A literal's value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    /// NULL of the node's type.
    Null,
    /// BOOLEAN.
    Bool(bool),
    /// TINYINT..BIGINT, DATE (days), TIME (millis of day), intervals.
    Int(i64),
    /// FLOAT / DOUBLE (a FLOAT literal holds the f32 value widened).
    Float(f64),
    /// DECIMAL(p, s): the unscaled value.
    Decimal(i128),
    /// CHAR / VARCHAR.
    Text(String),
    /// BINARY / VARBINARY.
    Bytes(Vec<u8>),
    /// TIMESTAMP / TIMESTAMP_LTZ: epoch millis and nano of milli.
    Timestamp(i64, i32),
}

fn bad(ty: &FlinkType, value: &Value) -> Decline {
    Decline::new(format!(
        "literal {} is not a valid {} literal",
        crate::plan::parse::brief(value),
        karrow_codecs::types::summary_string(ty)
    ))
}

impl Literal {
    /// Reads the contract's encoding of a literal of `ty`.
    pub fn from_json(value: &Value, ty: &FlinkType) -> Result<Literal, Decline> {
        if value.is_null() {
            return Ok(Literal::Null);
        }
        let int = || value.as_i64().ok_or_else(|| bad(ty, value));
        Ok(match &ty.kind {
            FlinkKind::Boolean => Literal::Bool(value.as_bool().ok_or_else(|| bad(ty, value))?),
            FlinkKind::TinyInt => {
                Literal::Int(i64::from(i8::try_from(int()?).map_err(|_| bad(ty, value))?))
            }
            FlinkKind::SmallInt => Literal::Int(i64::from(
                i16::try_from(int()?).map_err(|_| bad(ty, value))?,
            )),
            FlinkKind::Int
            | FlinkKind::Date
            | FlinkKind::Time(_)
            | FlinkKind::IntervalYearMonth => Literal::Int(i64::from(
                i32::try_from(int()?).map_err(|_| bad(ty, value))?,
            )),
            FlinkKind::BigInt | FlinkKind::IntervalDayTime => Literal::Int(int()?),
            FlinkKind::Float | FlinkKind::Double => {
                let text = value.as_str().ok_or_else(|| bad(ty, value))?;
                let v = match text {
                    "NaN" => f64::NAN,
                    "Infinity" => f64::INFINITY,
                    "-Infinity" => f64::NEG_INFINITY,
                    // Double.toString output is a valid Rust float literal (digits, '.', 'E').
                    t => t.parse::<f64>().map_err(|_| bad(ty, value))?,
                };
                if ty.kind == FlinkKind::Float {
                    Literal::Float(f64::from(v as f32))
                } else {
                    Literal::Float(v)
                }
            }
            FlinkKind::Decimal { precision, scale } => {
                let text = value.as_str().ok_or_else(|| bad(ty, value))?;
                Literal::Decimal(
                    parse_plain_decimal(text, *precision, *scale).ok_or_else(|| bad(ty, value))?,
                )
            }
            FlinkKind::Char(_) | FlinkKind::VarChar(_) => {
                Literal::Text(value.as_str().ok_or_else(|| bad(ty, value))?.to_string())
            }
            FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
                let text = value.as_str().ok_or_else(|| bad(ty, value))?;
                Literal::Bytes(decode_base64(text).ok_or_else(|| bad(ty, value))?)
            }
            FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => {
                let obj = value.as_object().ok_or_else(|| bad(ty, value))?;
                let millis = obj
                    .get("millis")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| bad(ty, value))?;
                let nanos = obj
                    .get("nanos")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| bad(ty, value))?;
                if !(0..1_000_000).contains(&nanos) || obj.len() != 2 {
                    return Err(bad(ty, value));
                }
                Literal::Timestamp(millis, nanos as i32)
            }
            _ => {
                return Err(Decline::new(format!(
                    "literals of type {} are not supported",
                    karrow_codecs::types::summary_string(ty)
                )))
            }
        })
    }

    /// The literal repeated `rows` times as an array of `ty`.
    pub fn to_array(&self, ty: &FlinkType, rows: usize) -> Result<ArrayRef, EvalError> {
        let dt = ty.arrow_type();
        if matches!(self, Literal::Null) {
            return Ok(new_null_array(&dt, rows));
        }
        let mismatch = || internal(format!("literal {self:?} of type {ty:?}"));
        Ok(match (&ty.kind, self) {
            (FlinkKind::Boolean, Literal::Bool(b)) => Arc::new(BooleanArray::from(vec![*b; rows])),
            (FlinkKind::TinyInt, Literal::Int(v)) => Arc::new(repeat::<Int8Type>(*v as i8, rows)),
            (FlinkKind::SmallInt, Literal::Int(v)) => {
                Arc::new(repeat::<Int16Type>(*v as i16, rows))
            }
            (FlinkKind::Int | FlinkKind::IntervalYearMonth, Literal::Int(v)) => {
                Arc::new(repeat::<Int32Type>(*v as i32, rows))
            }
            (FlinkKind::BigInt | FlinkKind::IntervalDayTime, Literal::Int(v)) => {
                Arc::new(repeat::<Int64Type>(*v, rows))
            }
            (FlinkKind::Date, Literal::Int(v)) => Arc::new(repeat::<Date32Type>(*v as i32, rows)),
            (FlinkKind::Time(_), Literal::Int(v)) => {
                Arc::new(repeat::<Time32MillisecondType>(*v as i32, rows))
            }
            (FlinkKind::Float, Literal::Float(v)) => {
                Arc::new(Float32Array::from(vec![*v as f32; rows]))
            }
            (FlinkKind::Double, Literal::Float(v)) => Arc::new(Float64Array::from(vec![*v; rows])),
            (FlinkKind::Decimal { precision, scale }, Literal::Decimal(v)) => Arc::new(
                Decimal128Array::from(vec![*v; rows])
                    .with_precision_and_scale(*precision, *scale)
                    .map_err(|e| internal(e.to_string()))?,
            ),
            (FlinkKind::Char(_) | FlinkKind::VarChar(_), Literal::Text(s)) => {
                Arc::new(StringArray::from(vec![s.as_str(); rows]))
            }
            (FlinkKind::Binary(_) | FlinkKind::VarBinary(_), Literal::Bytes(b)) => {
                Arc::new(BinaryArray::from(vec![b.as_slice(); rows]))
            }
            (FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_), Literal::Timestamp(m, n)) => {
                build_timestamp(ty, &vec![(*m, *n); rows], None)?
            }
            _ => return Err(mismatch()),
        })
    }
}

/// `BigDecimal.toPlainString()` text at exactly `scale` digits after the point, within
/// `precision` digits: its unscaled value.
fn parse_plain_decimal(text: &str, precision: u8, scale: i8) -> Option<i128> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() != usize::from(scale.unsigned_abs())
        || scale < 0
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let unscaled: i128 = digits.parse().ok()?;
    let significant = unscaled.to_string().len();
    if significant > usize::from(precision) {
        return None;
    }
    Some(if negative { -unscaled } else { unscaled })
}

/// Standard base64 with padding.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let last = i + 1 == bytes.len() / 4;
        let pad = chunk.iter().rev().take_while(|c| **c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for c in &chunk[..4 - pad] {
            n = (n << 6) | value(*c)?;
        }
        n <<= 6 * pad as u32;
        let b = n.to_be_bytes();
        out.extend_from_slice(&b[1..4 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_base64() {
        assert_eq!(parse_plain_decimal("-12.30", 5, 2), Some(-1230));
        assert_eq!(parse_plain_decimal("12.3", 5, 2), None);
        assert_eq!(parse_plain_decimal("1234.00", 5, 2), None);
        assert_eq!(decode_base64("AAEC/w=="), Some(vec![0, 1, 2, 255]));
        assert_eq!(decode_base64("AAE="), Some(vec![0, 1]));
        assert_eq!(decode_base64(""), Some(vec![]));
        assert_eq!(decode_base64("AA=A"), None);
    }
}
