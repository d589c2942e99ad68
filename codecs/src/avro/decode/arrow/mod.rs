//! Runtime decoders: one per Arrow type, behind the private [`Decoder`] trait. Each one
//! appends the values of one column (or nested child) to its Arrow builder, applying
//! Flink's conversion of the Avro datum (spec section 2.2).

mod binary;
mod column;
mod decimal;
mod list;
mod map;
mod null;
mod primitive;
mod string;
mod structure;

use arrow_array::ArrayRef;
use arrow_schema::TimeUnit;
use serde_json::Value;

use crate::types::{FlinkKind, FlinkType};

use super::cursor::{Cursor, ReadError, ReadResult};
use super::resolve::{Read, ValueRead};

pub(crate) use list::check_block_count;
pub use structure::StructDecoder;

/// Appends decoded values of one Arrow type.
pub(crate) trait Decoder: Send {
    /// Reads one non-null value described by `read` and appends it.
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()>;
    /// Appends NULL.
    fn append_null(&mut self);
    /// Appends a reader default value (a non-null JSON default of the reader schema).
    fn append_default(&mut self, default: &Value) -> ReadResult<()>;
    /// The number of values appended since the last `finish` (a failed `decode` may
    /// leave one more, or partial children).
    fn len(&self) -> usize;
    /// Drops everything appended after the first `len` values, in this column and its
    /// children: what a failed value appended, however far it got.
    fn truncate(&mut self, len: usize);
    /// Returns the array built so far and resets the builder.
    fn finish(&mut self) -> Result<ArrayRef, ReadError>;
}

/// Builds the decoder for a Flink type.
pub(crate) fn decoder_for(ty: &FlinkType) -> Box<dyn Decoder> {
    use primitive::{PrimitiveDecoder, Reads};
    let arrow = ty.arrow_type();
    match &ty.kind {
        FlinkKind::Null => Box::new(null::NullDecoder::default()),
        FlinkKind::Boolean => Box::new(primitive::BooleanDecoder::default()),
        FlinkKind::TinyInt => Box::new(PrimitiveDecoder::<arrow_array::types::Int8Type>::new(
            arrow,
            Reads::int_wrapping,
        )),
        FlinkKind::SmallInt => Box::new(PrimitiveDecoder::<arrow_array::types::Int16Type>::new(
            arrow,
            Reads::int_wrapping,
        )),
        FlinkKind::Int | FlinkKind::IntervalYearMonth => Box::new(PrimitiveDecoder::<
            arrow_array::types::Int32Type,
        >::new(arrow, Reads::int)),
        FlinkKind::Date => Box::new(PrimitiveDecoder::<arrow_array::types::Date32Type>::new(
            arrow,
            Reads::int,
        )),
        FlinkKind::Time(_) => Box::new(
            PrimitiveDecoder::<arrow_array::types::Time32MillisecondType>::new(arrow, Reads::int),
        ),
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => Box::new(PrimitiveDecoder::<
            arrow_array::types::Int64Type,
        >::new(
            arrow, Reads::long
        )),
        FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) => match ty.arrow_type() {
            arrow_schema::DataType::Timestamp(TimeUnit::Millisecond, _) => {
                Box::new(PrimitiveDecoder::<
                    arrow_array::types::TimestampMillisecondType,
                >::new(arrow, Reads::long))
            }
            arrow_schema::DataType::Timestamp(TimeUnit::Microsecond, _) => {
                Box::new(PrimitiveDecoder::<
                    arrow_array::types::TimestampMicrosecondType,
                >::new(arrow, Reads::long))
            }
            _ => {
                let _ = p;
                Box::new(PrimitiveDecoder::<
                    arrow_array::types::TimestampNanosecondType,
                >::new(arrow, Reads::long))
            }
        },
        FlinkKind::Float => Box::new(PrimitiveDecoder::<arrow_array::types::Float32Type>::new(
            arrow,
            Reads::float,
        )),
        FlinkKind::Double => Box::new(PrimitiveDecoder::<arrow_array::types::Float64Type>::new(
            arrow,
            Reads::double,
        )),
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Box::new(string::StringDecoder::default()),
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
            Box::new(binary::BinaryDecoder::default())
        }
        FlinkKind::Decimal { precision, scale } => {
            Box::new(decimal::DecimalDecoder::new(*precision, *scale))
        }
        FlinkKind::Array(element) => Box::new(list::ListDecoder::new(element)),
        FlinkKind::Map(key, value) => Box::new(map::MapDecoder::new(key, value)),
        FlinkKind::Multiset(element) => {
            let count = FlinkType {
                nullable: true,
                kind: FlinkKind::Int,
            };
            Box::new(map::MapDecoder::new(element, &count))
        }
        FlinkKind::Row(fields) => Box::new(StructDecoder::new(fields, ty.nullable)),
    }
}

/// Decodes one value at a position where the writer may have a union.
pub(crate) fn decode_value(
    dec: &mut dyn Decoder,
    value: &ValueRead,
    cur: &mut Cursor<'_>,
) -> ReadResult<()> {
    match value.select(cur)? {
        None => {
            dec.append_null();
            Ok(())
        }
        Some(read) => dec.decode(read, cur),
    }
}

/// The error for a read a decoder cannot take (prevented by resolution; kept defensive).
pub(crate) fn unexpected(read: &Read, target: &str) -> ReadError {
    ReadError::new(format!("cannot read {read:?} into {target}"))
}

/// The error for a reader default a decoder cannot take.
pub(crate) fn bad_default(default: &Value, target: &str) -> ReadError {
    ReadError::new(format!("default value {default} is not a valid {target}"))
}
