//! Array helpers shared by the operators: typed views of an array's values, null-buffer
//! arithmetic, and arrays of a Flink type built from plain values.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{
    make_array, Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, PrimitiveArray, StringArray,
    Time32MillisecondArray, TimestampMicrosecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};
use karrow_codecs::types::FlinkKind;
use karrow_codecs::FlinkType;

use super::internal;
use crate::error::EvalError;

/// `array` with the rows NULL in `extra` made NULL too.
pub(crate) fn with_extra_nulls(
    array: &ArrayRef,
    extra: &NullBuffer,
) -> Result<ArrayRef, EvalError> {
    let nulls = NullBuffer::union(array.nulls(), Some(extra));
    replace_nulls(array, nulls)
}

/// `array` with exactly the null buffer `nulls`.
pub(crate) fn replace_nulls(
    array: &ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef, EvalError> {
    let data = array
        .to_data()
        .into_builder()
        .nulls(nulls)
        .build()
        .map_err(|e| internal(e.to_string()))?;
    Ok(make_array(data))
}

/// The null buffer that is NULL where `a` or `b` is.
pub(crate) fn union_nulls(a: &dyn Array, b: &dyn Array) -> Option<NullBuffer> {
    NullBuffer::union(a.logical_nulls().as_ref(), b.logical_nulls().as_ref())
}

/// A null buffer from per-row validity.
pub(crate) fn nulls_from(valid: Vec<bool>) -> Option<NullBuffer> {
    if valid.iter().all(|v| *v) {
        None
    } else {
        Some(NullBuffer::new(BooleanBuffer::from(valid)))
    }
}

/// Whether row `i` of `a` is valid (not NULL).
#[inline]
pub(crate) fn valid(nulls: Option<&NullBuffer>, i: usize) -> bool {
    nulls.is_none_or(|n| n.is_valid(i))
}

/// The values of an exact numeric (or DATE/TIME/INTERVAL) array as i64, and its nulls.
pub(crate) fn i64_values(a: &ArrayRef) -> Result<(Vec<i64>, Option<NullBuffer>), EvalError> {
    fn widen<T: arrow_array::ArrowPrimitiveType>(a: &ArrayRef) -> Vec<i64>
    where
        T::Native: Into<i64>,
    {
        a.as_primitive::<T>()
            .values()
            .iter()
            .map(|v| (*v).into())
            .collect()
    }
    let values = match a.data_type() {
        DataType::Int8 => widen::<Int8Type>(a),
        DataType::Int16 => widen::<Int16Type>(a),
        DataType::Int32 => widen::<Int32Type>(a),
        DataType::Int64 => a.as_primitive::<Int64Type>().values().to_vec(),
        DataType::Date32 => widen::<Date32Type>(a),
        DataType::Time32(TimeUnit::Millisecond) => widen::<Time32MillisecondType>(a),
        other => return Err(internal(format!("{other} is not an exact integer array"))),
    };
    Ok((values, a.logical_nulls()))
}

/// The values of a numeric array as f64 (Java's widening conversion), and its nulls.
pub(crate) fn f64_values(a: &ArrayRef) -> Result<(Vec<f64>, Option<NullBuffer>), EvalError> {
    let values = match a.data_type() {
        DataType::Float64 => a.as_primitive::<Float64Type>().values().to_vec(),
        DataType::Float32 => a
            .as_primitive::<Float32Type>()
            .values()
            .iter()
            .map(|v| f64::from(*v))
            .collect(),
        DataType::Decimal128(_, scale) => {
            let scale = *scale;
            a.as_primitive::<Decimal128Type>()
                .values()
                .iter()
                .map(|v| super::decimal::to_f64(*v, scale))
                .collect()
        }
        _ => i64_values(a)?.0.into_iter().map(|v| v as f64).collect(),
    };
    Ok((values, a.logical_nulls()))
}

/// The values of a numeric array as f32 (Java's conversion to float), and its nulls.
pub(crate) fn f32_values(a: &ArrayRef) -> Result<(Vec<f32>, Option<NullBuffer>), EvalError> {
    let values = match a.data_type() {
        DataType::Float32 => a.as_primitive::<Float32Type>().values().to_vec(),
        DataType::Float64 => a
            .as_primitive::<Float64Type>()
            .values()
            .iter()
            .map(|v| *v as f32)
            .collect(),
        DataType::Decimal128(_, scale) => {
            let scale = *scale;
            a.as_primitive::<Decimal128Type>()
                .values()
                .iter()
                .map(|v| super::decimal::to_f32(*v, scale))
                .collect()
        }
        // Java converts int and long to float with one rounding, as Rust's `as` does.
        _ => i64_values(a)?.0.into_iter().map(|v| v as f32).collect(),
    };
    Ok((values, a.logical_nulls()))
}

/// The values of an exact numeric array as unscaled i128 with their scale (integers have
/// scale 0), and its nulls.
pub(crate) fn decimal_values(
    a: &ArrayRef,
) -> Result<(Vec<i128>, i8, Option<NullBuffer>), EvalError> {
    match a.data_type() {
        DataType::Decimal128(_, scale) => Ok((
            a.as_primitive::<Decimal128Type>().values().to_vec(),
            *scale,
            a.logical_nulls(),
        )),
        _ => {
            let (v, n) = i64_values(a)?;
            Ok((v.into_iter().map(i128::from).collect(), 0, n))
        }
    }
}

/// An exact integer array of `kind` from i64 values, each narrowed as Java's `(byte)`,
/// `(short)`, `(int)` casts do (keeping the low bits).
pub(crate) fn build_integer(
    kind: &FlinkKind,
    values: Vec<i64>,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef, EvalError> {
    Ok(match kind {
        FlinkKind::TinyInt => Arc::new(Int8Array::new(
            values.into_iter().map(|v| v as i8).collect(),
            nulls,
        )),
        FlinkKind::SmallInt => Arc::new(Int16Array::new(
            values.into_iter().map(|v| v as i16).collect(),
            nulls,
        )),
        FlinkKind::Int | FlinkKind::IntervalYearMonth => Arc::new(Int32Array::new(
            values.into_iter().map(|v| v as i32).collect(),
            nulls,
        )),
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => {
            Arc::new(Int64Array::new(values.into(), nulls))
        }
        FlinkKind::Date => Arc::new(Date32Array::new(
            values.into_iter().map(|v| v as i32).collect(),
            nulls,
        )),
        FlinkKind::Time(_) => Arc::new(Time32MillisecondArray::new(
            values.into_iter().map(|v| v as i32).collect(),
            nulls,
        )),
        other => return Err(internal(format!("{other:?} is not an exact integer type"))),
    })
}

/// A DOUBLE array.
pub(crate) fn build_f64(values: Vec<f64>, nulls: Option<NullBuffer>) -> ArrayRef {
    Arc::new(Float64Array::new(values.into(), nulls))
}

/// A FLOAT array.
pub(crate) fn build_f32(values: Vec<f32>, nulls: Option<NullBuffer>) -> ArrayRef {
    Arc::new(Float32Array::new(values.into(), nulls))
}

/// A DECIMAL(p, s) array (the values already fit the precision).
pub(crate) fn build_decimal(
    values: Vec<i128>,
    nulls: Option<NullBuffer>,
    precision: u8,
    scale: i8,
) -> Result<ArrayRef, EvalError> {
    let a = Decimal128Array::new(values.into(), nulls)
        .with_precision_and_scale(precision, scale)
        .map_err(|e| internal(e.to_string()))?;
    Ok(Arc::new(a))
}

/// A BOOLEAN array from values and validity.
pub(crate) fn build_bool(values: Vec<bool>, nulls: Option<NullBuffer>) -> ArrayRef {
    Arc::new(BooleanArray::new(BooleanBuffer::from(values), nulls))
}

/// The array as BOOLEAN.
pub(crate) fn as_bool(a: &ArrayRef) -> Result<&BooleanArray, EvalError> {
    a.as_any()
        .downcast_ref::<BooleanArray>()
        .ok_or_else(|| internal(format!("{} is not BOOLEAN", a.data_type())))
}

/// The array as STRING.
pub(crate) fn as_str(a: &ArrayRef) -> Result<&StringArray, EvalError> {
    a.as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| internal(format!("{} is not a string array", a.data_type())))
}

/// Timestamp values as (epoch millis, nano of milli), and their nulls.
pub(crate) type Timestamps = (Vec<(i64, i32)>, Option<NullBuffer>);

/// A timestamp array's values as (epoch millis, nano of milli), and its nulls.
pub(crate) fn timestamp_values(a: &ArrayRef) -> Result<Timestamps, EvalError> {
    let values = match a.data_type() {
        DataType::Timestamp(TimeUnit::Millisecond, _) => a
            .as_primitive::<TimestampMillisecondType>()
            .values()
            .iter()
            .map(|v| (*v, 0))
            .collect(),
        DataType::Timestamp(TimeUnit::Microsecond, _) => a
            .as_primitive::<TimestampMicrosecondType>()
            .values()
            .iter()
            .map(|v| (v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as i32))
            .collect(),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => a
            .as_primitive::<TimestampNanosecondType>()
            .values()
            .iter()
            .map(|v| (v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as i32))
            .collect(),
        other => return Err(internal(format!("{other} is not a timestamp array"))),
    };
    Ok((values, a.logical_nulls()))
}

/// A TIMESTAMP(p) / TIMESTAMP_LTZ(p) array of `ty` from (epoch millis, nano of milli).
pub(crate) fn build_timestamp(
    ty: &FlinkType,
    values: &[(i64, i32)],
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef, EvalError> {
    let DataType::Timestamp(unit, zone) = ty.arrow_type() else {
        return Err(internal(format!("{ty:?} is not a timestamp type")));
    };
    let array: ArrayRef = match unit {
        TimeUnit::Millisecond => Arc::new(
            TimestampMillisecondArray::new(values.iter().map(|v| v.0).collect(), nulls)
                .with_timezone_opt(zone),
        ),
        TimeUnit::Microsecond => Arc::new(
            TimestampMicrosecondArray::new(
                values
                    .iter()
                    .map(|v| v.0.wrapping_mul(1000).wrapping_add(i64::from(v.1 / 1000)))
                    .collect(),
                nulls,
            )
            .with_timezone_opt(zone),
        ),
        _ => Arc::new(
            TimestampNanosecondArray::new(
                values
                    .iter()
                    .map(|v| v.0.wrapping_mul(1_000_000).wrapping_add(i64::from(v.1)))
                    .collect(),
                nulls,
            )
            .with_timezone_opt(zone),
        ),
    };
    Ok(array)
}

/// A primitive array of one value repeated.
pub(crate) fn repeat<T: arrow_array::ArrowPrimitiveType>(
    v: T::Native,
    rows: usize,
) -> PrimitiveArray<T> {
    PrimitiveArray::<T>::from_value(v, rows)
}
