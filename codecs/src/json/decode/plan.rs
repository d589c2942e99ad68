//! The row type compiled into what the decoder does per value (spec §1.5), checked the
//! way flink-json checks it when the format is created.

use crate::error::CodecError;
use crate::json::tokens::same_bytes;
use crate::types::{FlinkField, FlinkKind, FlinkType};

/// How one value is converted.
#[derive(Debug)]
pub(crate) enum Conv {
    /// `NULL` type: always NULL.
    Null,
    /// BOOLEAN.
    Boolean,
    /// TINYINT.
    TinyInt,
    /// SMALLINT.
    SmallInt,
    /// INT and INTERVAL YEAR TO MONTH.
    Int,
    /// BIGINT and INTERVAL DAY TO SECOND.
    BigInt,
    /// FLOAT.
    Float,
    /// DOUBLE.
    Double,
    /// CHAR / VARCHAR / STRING.
    Text,
    /// BINARY / VARBINARY / BYTES.
    Binary,
    /// DECIMAL(p, s); `compact` when p <= 18.
    Decimal {
        /// Total digits.
        precision: u8,
        /// Digits after the point.
        scale: i8,
    },
    /// DATE.
    Date,
    /// TIME(p).
    Time,
    /// TIMESTAMP(p); `compact` when p <= 3.
    Timestamp {
        /// Stored as epoch millis in the slot.
        compact: bool,
    },
    /// TIMESTAMP_LTZ(p).
    TimestampLtz {
        /// Stored as epoch millis in the slot.
        compact: bool,
    },
    /// ARRAY<T>.
    Array(Box<Value>),
    /// MAP<K, V>, and MULTISET<T> as MAP<T, INT>.
    Map(Box<Value>, Box<Value>),
    /// ROW<...>.
    Row(Box<RowPlan>),
}

/// A conversion with the Flink type it produces.
#[derive(Debug)]
pub(crate) struct Value {
    /// What to do.
    pub(crate) conv: Conv,
    /// The produced type (for binary layouts).
    pub(crate) ty: FlinkType,
}

/// One ROW: its fields in declared order and a name lookup.
#[derive(Debug)]
pub(crate) struct RowPlan {
    /// Field names as UTF-8 bytes, in declared order.
    pub(crate) names: Vec<Box<[u8]>>,
    /// Field conversions, in declared order.
    pub(crate) values: Vec<Value>,
    /// Per field, whether its name appears in JSON exactly as its bytes (no character
    /// that must be escaped), so the tokenizer may recognise it without scanning.
    pub(crate) plain_names: Vec<bool>,
}

impl RowPlan {
    /// Compiles a ROW's fields.
    pub(crate) fn new(fields: &[FlinkField]) -> Result<Self, CodecError> {
        Ok(RowPlan {
            names: fields
                .iter()
                .map(|f| f.name.as_bytes().to_vec().into_boxed_slice())
                .collect(),
            values: fields
                .iter()
                .map(|f| Value::new(&f.ty))
                .collect::<Result<_, _>>()?,
            plain_names: fields
                .iter()
                .map(|f| {
                    f.name
                        .bytes()
                        .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b < 0x80)
                })
                .collect(),
        })
    }

    /// The name of field `i` when the tokenizer may match it verbatim.
    #[inline]
    pub(crate) fn plain_name(&self, i: usize) -> Option<&[u8]> {
        match self.plain_names.get(i) {
            Some(true) => Some(&self.names[i]),
            _ => None,
        }
    }

    /// Index of the field named `name`, trying `hint` (the field after the last one
    /// matched: JSON producers mostly write fields in declared order) first.
    #[inline(always)]
    pub(crate) fn lookup(&self, name: &[u8], hint: usize) -> Option<usize> {
        if self.names.get(hint).is_some_and(|n| same_bytes(n, name)) {
            return Some(hint);
        }
        self.names.iter().position(|n| same_bytes(n, name))
    }
}

impl Value {
    /// Compiles the conversion of one type.
    pub(crate) fn new(ty: &FlinkType) -> Result<Self, CodecError> {
        let conv = match &ty.kind {
            FlinkKind::Null => Conv::Null,
            FlinkKind::Boolean => Conv::Boolean,
            FlinkKind::TinyInt => Conv::TinyInt,
            FlinkKind::SmallInt => Conv::SmallInt,
            FlinkKind::Int | FlinkKind::IntervalYearMonth => Conv::Int,
            FlinkKind::BigInt | FlinkKind::IntervalDayTime => Conv::BigInt,
            FlinkKind::Float => Conv::Float,
            FlinkKind::Double => Conv::Double,
            FlinkKind::Char(_) | FlinkKind::VarChar(_) => Conv::Text,
            FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => Conv::Binary,
            FlinkKind::Decimal { precision, scale } => Conv::Decimal {
                precision: *precision,
                scale: *scale,
            },
            FlinkKind::Date => Conv::Date,
            FlinkKind::Time(_) => Conv::Time,
            FlinkKind::Timestamp(p) => Conv::Timestamp { compact: *p <= 3 },
            FlinkKind::TimestampLtz(p) => Conv::TimestampLtz { compact: *p <= 3 },
            FlinkKind::Array(element) => Conv::Array(Box::new(Value::new(element)?)),
            FlinkKind::Map(key, value) => {
                check_map_key(key, ty)?;
                Conv::Map(Box::new(Value::new(key)?), Box::new(Value::new(value)?))
            }
            FlinkKind::Multiset(element) => {
                check_map_key(element, ty)?;
                let count = FlinkType {
                    nullable: true,
                    kind: FlinkKind::Int,
                };
                Conv::Map(
                    Box::new(Value::new(element)?),
                    Box::new(Value::new(&count)?),
                )
            }
            FlinkKind::Row(fields) => Conv::Row(Box::new(RowPlan::new(fields)?)),
        };
        Ok(Value {
            conv,
            ty: ty.clone(),
        })
    }
}

fn check_map_key(key: &FlinkType, map: &FlinkType) -> Result<(), CodecError> {
    match key.kind {
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Ok(()),
        _ => Err(CodecError::InvalidType(format!(
            "JSON format doesn't support non-string as key type of map. The type is: {}",
            crate::types::summary_string(map)
        ))),
    }
}

/// Whether a DECIMAL occurs anywhere in the type (flink-json then reads floats as
/// BigDecimal, which changes the text of numbers re-serialised into STRING columns).
pub(crate) fn has_decimal(ty: &FlinkType) -> bool {
    match &ty.kind {
        FlinkKind::Decimal { .. } => true,
        FlinkKind::Array(e) | FlinkKind::Multiset(e) => has_decimal(e),
        FlinkKind::Map(k, v) => has_decimal(k) || has_decimal(v),
        FlinkKind::Row(fields) => fields.iter().any(|f| has_decimal(&f.ty)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::json::tokens::same_bytes;

    #[test]
    fn word_compares_agree_with_slice_equality() {
        let names: Vec<Vec<u8>> = (0..24)
            .map(|n| (0..n).map(|i| b'a' + (i % 26) as u8).collect())
            .collect();
        for a in &names {
            for b in &names {
                assert_eq!(same_bytes(a, b), a == b);
                for i in 0..b.len() {
                    let mut c = b.clone();
                    c[i] ^= 1;
                    assert_eq!(same_bytes(a, &c), *a == c);
                }
            }
        }
    }
}
