//! Test support: Flink binary row images built from plain values, as Flink's
//! `BinaryRowWriter` lays them out, for the encoders' tests.

use super::layout::{
    array_header_bytes, element_size, pad8, put, round8, row_null_bytes, set_bit,
    set_offset_and_size, write_big_decimal, write_big_timestamp, write_var_bytes,
};
use crate::types::{FlinkField, FlinkKind, FlinkType};

/// The count type of a MULTISET.
const INT: FlinkType = FlinkType {
    nullable: true,
    kind: FlinkKind::Int,
};

/// A value to put into a test image; `Null` sets the NULL bit (and leaves the slot 0,
/// as `BinaryRowWriter.setNullAt` does).
#[derive(Debug, Clone)]
pub(crate) enum V {
    Null,
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bytes(Vec<u8>),
    Dec(i128),
    Ts(i64, u32),
    Arr(Vec<V>),
    Map(Vec<(V, V)>),
    Row(Vec<V>),
}

/// A string (or binary) value.
pub(crate) fn s(text: &str) -> V {
    V::Bytes(text.as_bytes().to_vec())
}

/// The row image of `values` for the ROW type `ty`.
pub(crate) fn image(ty: &FlinkType, values: &[V]) -> Vec<u8> {
    let mut out = Vec::new();
    write_row(&mut out, ty.row_fields().unwrap(), values);
    out
}

pub(crate) fn write_row(out: &mut Vec<u8>, fields: &[FlinkField], values: &[V]) {
    assert_eq!(fields.len(), values.len(), "test row arity");
    let base = out.len();
    let null_bytes = row_null_bytes(fields.len());
    out.resize(base + null_bytes + 8 * fields.len(), 0);
    for (i, (field, value)) in fields.iter().zip(values).enumerate() {
        if matches!(value, V::Null) {
            set_bit(out, base, i + 8);
        } else {
            put_value(out, base, base + null_bytes + 8 * i, &field.ty, value);
        }
    }
}

pub(crate) fn write_array(out: &mut Vec<u8>, item: &FlinkType, values: &[V]) {
    let base = out.len();
    let header = array_header_bytes(values.len());
    let size = element_size(item);
    out.resize(base + round8(header + size * values.len()), 0);
    put(out, base, &(values.len() as i32).to_le_bytes());
    for (i, value) in values.iter().enumerate() {
        if matches!(value, V::Null) {
            set_bit(out, base + 4, i);
        } else {
            put_value(out, base, base + header + size * i, item, value);
        }
    }
}

pub(crate) fn put_value(out: &mut Vec<u8>, base: usize, slot: usize, ty: &FlinkType, value: &V) {
    match (&ty.kind, value) {
        (FlinkKind::Boolean, V::Bool(b)) => out[slot] = u8::from(*b),
        (FlinkKind::TinyInt, V::I8(v)) => put(out, slot, &v.to_le_bytes()),
        (FlinkKind::SmallInt, V::I16(v)) => put(out, slot, &v.to_le_bytes()),
        (
            FlinkKind::Int | FlinkKind::Date | FlinkKind::Time(_) | FlinkKind::IntervalYearMonth,
            V::I32(v),
        ) => put(out, slot, &v.to_le_bytes()),
        (FlinkKind::BigInt | FlinkKind::IntervalDayTime, V::I64(v)) => {
            put(out, slot, &v.to_le_bytes())
        }
        (FlinkKind::Float, V::F32(v)) => put(out, slot, &v.to_le_bytes()),
        (FlinkKind::Double, V::F64(v)) => put(out, slot, &v.to_le_bytes()),
        (
            FlinkKind::Char(_)
            | FlinkKind::VarChar(_)
            | FlinkKind::Binary(_)
            | FlinkKind::VarBinary(_),
            V::Bytes(b),
        ) => write_var_bytes(out, base, slot, b).unwrap(),
        (FlinkKind::Decimal { precision, .. }, V::Dec(u)) => {
            if *precision <= 18 {
                put(out, slot, &(*u as i64).to_le_bytes());
            } else {
                write_big_decimal(out, base, slot, *u).unwrap();
            }
        }
        (FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p), V::Ts(millis, nanos)) => {
            if *p <= 3 {
                put(out, slot, &millis.to_le_bytes());
            } else {
                write_big_timestamp(out, base, slot, *millis, *nanos);
            }
        }
        (FlinkKind::Row(fields), V::Row(values)) => {
            let start = out.len();
            write_row(out, fields, values);
            let size = out.len() - start;
            set_offset_and_size(out, base, slot, start, size).unwrap();
        }
        (FlinkKind::Array(item), V::Arr(values)) => {
            let start = out.len();
            write_array(out, item, values);
            let size = out.len() - start;
            set_offset_and_size(out, base, slot, start, size).unwrap();
        }
        (FlinkKind::Map(key, val), V::Map(entries)) => put_map(out, base, slot, key, val, entries),
        (FlinkKind::Multiset(key), V::Map(entries)) => put_map(out, base, slot, key, &INT, entries),
        (kind, value) => panic!("test value {value:?} does not fit {kind:?}"),
    }
}

pub(crate) fn put_map(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    key: &FlinkType,
    value: &FlinkType,
    entries: &[(V, V)],
) {
    let keys: Vec<V> = entries.iter().map(|(k, _)| k.clone()).collect();
    let values: Vec<V> = entries.iter().map(|(_, v)| v.clone()).collect();
    let start = out.len();
    out.resize(start + 4, 0);
    write_array(out, key, &keys);
    let key_size = out.len() - start - 4;
    put(out, start, &(key_size as i32).to_le_bytes());
    write_array(out, value, &values);
    let size = out.len() - start;
    pad8(out);
    set_offset_and_size(out, base, slot, start, size).unwrap();
}
