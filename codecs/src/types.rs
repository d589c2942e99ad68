//! Flink logical types as the connector hands them over (see `docs/jni-contract.md`),
//! and the Arrow type each one is decoded into.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit};
use serde_json::Value;

use crate::error::CodecError;

/// A Flink logical type, with its nullability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlinkType {
    /// Whether the type admits NULL.
    pub nullable: bool,
    /// The type itself.
    pub kind: FlinkKind,
}

/// One field of a Flink ROW type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlinkField {
    /// Column (or nested field) name.
    pub name: String,
    /// Its type.
    pub ty: FlinkType,
}

/// The kinds of Flink logical types karrow understands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlinkKind {
    /// `NULL`.
    Null,
    /// `BOOLEAN`.
    Boolean,
    /// `TINYINT`.
    TinyInt,
    /// `SMALLINT`.
    SmallInt,
    /// `INT`.
    Int,
    /// `BIGINT`.
    BigInt,
    /// `FLOAT`.
    Float,
    /// `DOUBLE`.
    Double,
    /// `CHAR(n)`.
    Char(u32),
    /// `VARCHAR(n)`; `STRING` is `VARCHAR(2147483647)`.
    VarChar(u32),
    /// `BINARY(n)`.
    Binary(u32),
    /// `VARBINARY(n)`; `BYTES` is `VARBINARY(2147483647)`.
    VarBinary(u32),
    /// `DECIMAL(p, s)`.
    Decimal {
        /// Total digits.
        precision: u8,
        /// Digits after the point.
        scale: i8,
    },
    /// `DATE`.
    Date,
    /// `TIME(p)`.
    Time(u8),
    /// `TIMESTAMP(p)` (without time zone).
    Timestamp(u8),
    /// `TIMESTAMP_LTZ(p)`.
    TimestampLtz(u8),
    /// `INTERVAL YEAR TO MONTH` (months).
    IntervalYearMonth,
    /// `INTERVAL DAY TO SECOND` (milliseconds).
    IntervalDayTime,
    /// `ARRAY<T>`.
    Array(Box<FlinkType>),
    /// `MAP<K, V>`.
    Map(Box<FlinkType>, Box<FlinkType>),
    /// `MULTISET<T>`, a map from element to its INT count.
    Multiset(Box<FlinkType>),
    /// `ROW<...>`.
    Row(Vec<FlinkField>),
}

impl FlinkType {
    /// Parses the JSON form described in `docs/jni-contract.md`.
    pub fn from_json(value: &Value) -> Result<Self, CodecError> {
        let obj = value.as_object().ok_or_else(|| {
            CodecError::InvalidType(format!("expected a JSON object, got {value}"))
        })?;
        let name = obj
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| CodecError::InvalidType(format!("missing \"type\" in {value}")))?;
        let nullable = obj.get("nullable").and_then(Value::as_bool).unwrap_or(true);
        let int = |key: &str| -> Result<i64, CodecError> {
            obj.get(key).and_then(Value::as_i64).ok_or_else(|| {
                CodecError::InvalidType(format!("{name} needs an integer \"{key}\""))
            })
        };
        let child = |key: &str| -> Result<Box<FlinkType>, CodecError> {
            let v = obj
                .get(key)
                .ok_or_else(|| CodecError::InvalidType(format!("{name} needs \"{key}\"")))?;
            Ok(Box::new(FlinkType::from_json(v)?))
        };
        let narrow = |v: i64, what: &str| -> Result<u8, CodecError> {
            u8::try_from(v)
                .map_err(|_| CodecError::InvalidType(format!("{name} {what} {v} out of range")))
        };
        let length = |v: i64| -> Result<u32, CodecError> {
            u32::try_from(v)
                .map_err(|_| CodecError::InvalidType(format!("{name} length {v} out of range")))
        };
        let kind = match name {
            "NULL" => FlinkKind::Null,
            "BOOLEAN" => FlinkKind::Boolean,
            "TINYINT" => FlinkKind::TinyInt,
            "SMALLINT" => FlinkKind::SmallInt,
            "INT" => FlinkKind::Int,
            "BIGINT" => FlinkKind::BigInt,
            "FLOAT" => FlinkKind::Float,
            "DOUBLE" => FlinkKind::Double,
            "CHAR" => FlinkKind::Char(length(int("length")?)?),
            "VARCHAR" => FlinkKind::VarChar(length(int("length")?)?),
            "BINARY" => FlinkKind::Binary(length(int("length")?)?),
            "VARBINARY" => FlinkKind::VarBinary(length(int("length")?)?),
            "DECIMAL" => {
                let precision = narrow(int("precision")?, "precision")?;
                let scale = narrow(int("scale")?, "scale")?;
                if precision == 0 || precision > 38 || scale > precision {
                    return Err(CodecError::InvalidType(format!(
                        "DECIMAL({precision}, {scale}) is outside 1 <= p <= 38, 0 <= s <= p"
                    )));
                }
                FlinkKind::Decimal {
                    precision,
                    scale: scale as i8,
                }
            }
            "DATE" => FlinkKind::Date,
            "TIME" => FlinkKind::Time(narrow(int("precision")?, "precision")?),
            "TIMESTAMP" => FlinkKind::Timestamp(narrow(int("precision")?, "precision")?),
            "TIMESTAMP_LTZ" => FlinkKind::TimestampLtz(narrow(int("precision")?, "precision")?),
            "INTERVAL_YEAR_MONTH" => FlinkKind::IntervalYearMonth,
            "INTERVAL_DAY_TIME" => FlinkKind::IntervalDayTime,
            "ARRAY" => FlinkKind::Array(child("element")?),
            "MULTISET" => FlinkKind::Multiset(child("element")?),
            "MAP" => FlinkKind::Map(child("key")?, child("value")?),
            "ROW" => {
                let fields = obj
                    .get("fields")
                    .and_then(Value::as_array)
                    .ok_or_else(|| CodecError::InvalidType("ROW needs \"fields\"".into()))?;
                let mut out = Vec::with_capacity(fields.len());
                for f in fields {
                    let fname = f.get("name").and_then(Value::as_str).ok_or_else(|| {
                        CodecError::InvalidType(format!("ROW field without name: {f}"))
                    })?;
                    let fty = f.get("type").ok_or_else(|| {
                        CodecError::InvalidType(format!("ROW field '{fname}' without type"))
                    })?;
                    out.push(FlinkField {
                        name: fname.to_string(),
                        ty: FlinkType::from_json(fty)?,
                    });
                }
                FlinkKind::Row(out)
            }
            other => return Err(CodecError::InvalidType(format!("unknown type '{other}'"))),
        };
        Ok(FlinkType { nullable, kind })
    }

    /// Parses a JSON text (see [`FlinkType::from_json`]).
    pub fn from_json_str(text: &str) -> Result<Self, CodecError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| CodecError::InvalidType(format!("not JSON: {e}")))?;
        Self::from_json(&value)
    }

    /// The fields of a ROW type, or an error naming what it is instead.
    pub fn row_fields(&self) -> Result<&[FlinkField], CodecError> {
        match &self.kind {
            FlinkKind::Row(fields) => Ok(fields),
            other => Err(CodecError::InvalidType(format!(
                "expected a ROW type, got {other:?}"
            ))),
        }
    }

    /// The Arrow type a column of this Flink type is decoded into (spec section 0.2).
    pub fn arrow_type(&self) -> DataType {
        match &self.kind {
            FlinkKind::Null => DataType::Null,
            FlinkKind::Boolean => DataType::Boolean,
            FlinkKind::TinyInt => DataType::Int8,
            FlinkKind::SmallInt => DataType::Int16,
            FlinkKind::Int | FlinkKind::IntervalYearMonth => DataType::Int32,
            FlinkKind::BigInt | FlinkKind::IntervalDayTime => DataType::Int64,
            FlinkKind::Float => DataType::Float32,
            FlinkKind::Double => DataType::Float64,
            FlinkKind::Char(_) | FlinkKind::VarChar(_) => DataType::Utf8,
            FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => DataType::Binary,
            FlinkKind::Decimal { precision, scale } => DataType::Decimal128(*precision, *scale),
            FlinkKind::Date => DataType::Date32,
            FlinkKind::Time(_) => DataType::Time32(TimeUnit::Millisecond),
            FlinkKind::Timestamp(p) => DataType::Timestamp(time_unit(*p), None),
            FlinkKind::TimestampLtz(p) => {
                DataType::Timestamp(time_unit(*p), Some(Arc::from("UTC")))
            }
            FlinkKind::Array(element) => DataType::List(Arc::new(element.arrow_field("element"))),
            FlinkKind::Map(key, value) => {
                map_type(key.arrow_field("key"), value.arrow_field("value"))
            }
            FlinkKind::Multiset(element) => map_type(
                element.arrow_field("key"),
                Field::new("value", DataType::Int32, true),
            ),
            FlinkKind::Row(fields) => DataType::Struct(row_arrow_fields(fields)),
        }
    }

    /// An Arrow field of this type. Every field is nullable on the Arrow side: Flink's
    /// formats do not enforce NOT NULL (a decimal overflow yields NULL even there).
    pub fn arrow_field(&self, name: &str) -> Field {
        Field::new(name, self.arrow_type(), true)
    }
}

/// The Arrow fields of a Flink ROW, one per column.
pub fn row_arrow_fields(fields: &[FlinkField]) -> Fields {
    fields.iter().map(|f| f.ty.arrow_field(&f.name)).collect()
}

fn time_unit(precision: u8) -> TimeUnit {
    match precision {
        0..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

fn map_type(key: Field, value: Field) -> DataType {
    let key = key.with_nullable(false);
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![key, value])),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

/// The type as Flink's `LogicalType.asSummaryString()` prints it (for error messages):
/// `NOT NULL` suffixes, `STRING`/`BYTES` for the maximal lengths, default interval
/// precisions, back-quoted ROW field names.
pub fn summary_string(ty: &FlinkType) -> String {
    let text = match &ty.kind {
        FlinkKind::Null => return "NULL".into(),
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
        FlinkKind::IntervalYearMonth => "INTERVAL YEAR(2) TO MONTH".into(),
        FlinkKind::IntervalDayTime => "INTERVAL DAY(2) TO SECOND(3)".into(),
        FlinkKind::Array(item) => format!("ARRAY<{}>", summary_string(item)),
        FlinkKind::Map(key, value) => {
            format!("MAP<{}, {}>", summary_string(key), summary_string(value))
        }
        FlinkKind::Multiset(item) => format!("MULTISET<{}>", summary_string(item)),
        FlinkKind::Row(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("`{}` {}", f.name.replace('`', "``"), summary_string(&f.ty)))
                .collect();
            format!("ROW<{}>", inner.join(", "))
        }
    };
    if ty.nullable {
        text
    } else {
        format!("{text} NOT NULL")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_row_json() {
        let ty = FlinkType::from_json_str(
            r#"{"type":"ROW","nullable":false,"fields":[
                {"name":"a","type":{"type":"BIGINT","nullable":true}},
                {"name":"m","type":{"type":"MAP","nullable":true,
                    "key":{"type":"VARCHAR","nullable":false,"length":2147483647},
                    "value":{"type":"DECIMAL","nullable":true,"precision":10,"scale":2}}}]}"#,
        )
        .unwrap();
        let fields = ty.row_fields().unwrap();
        assert_eq!(fields.len(), 2);
        assert_eq!(fields[0].ty.kind, FlinkKind::BigInt);
        assert!(matches!(ty.arrow_type(), DataType::Struct(_)));
        assert!(matches!(fields[1].ty.arrow_type(), DataType::Map(_, false)));
    }

    #[test]
    fn rejects_unknown_types_and_bad_decimals() {
        assert!(FlinkType::from_json_str(r#"{"type":"RAW"}"#).is_err());
        assert!(
            FlinkType::from_json_str(r#"{"type":"DECIMAL","precision":40,"scale":1}"#).is_err()
        );
        assert!(FlinkType::from_json_str("[1]").is_err());
    }
}
