//! Byte-level helpers shared by everything that writes or reads Flink binary rows.

use crate::error::CodecError;
use crate::types::{FlinkKind, FlinkType};

/// Size of the null-bit header of a row with `arity` fields.
pub(crate) fn row_null_bytes(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

/// Size of the header (count + null bits) of an array of `count` elements.
pub(crate) fn array_header_bytes(count: usize) -> usize {
    4 + count.div_ceil(32) * 4
}

/// Bytes one element of this type takes inside a binary array.
pub(crate) fn element_size(ty: &FlinkType) -> usize {
    match ty.kind {
        FlinkKind::Boolean | FlinkKind::TinyInt => 1,
        FlinkKind::SmallInt => 2,
        FlinkKind::Int
        | FlinkKind::Float
        | FlinkKind::Date
        | FlinkKind::Time(_)
        | FlinkKind::IntervalYearMonth => 4,
        _ => 8,
    }
}

/// Whether values of this type live entirely in their slot (else the slot points into
/// the variable part, or holds a string/binary of at most 7 bytes inline).
pub(crate) fn is_fixed_length(ty: &FlinkType) -> bool {
    match ty.kind {
        FlinkKind::Char(_)
        | FlinkKind::VarChar(_)
        | FlinkKind::Binary(_)
        | FlinkKind::VarBinary(_)
        | FlinkKind::Row(_)
        | FlinkKind::Array(_)
        | FlinkKind::Map(..)
        | FlinkKind::Multiset(_) => false,
        FlinkKind::Decimal { precision, .. } => precision <= 18,
        FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) => p <= 3,
        _ => true,
    }
}

/// `n` rounded up to a multiple of 8.
pub(crate) fn round8(n: usize) -> usize {
    (n + 7) & !7
}

/// Pads `out` with zeros to a multiple of 8 (test images, which start at 0).
#[cfg(test)]
pub(crate) fn pad8(out: &mut Vec<u8>) {
    let len = round8(out.len());
    out.resize(len, 0);
}

/// Pads `out` with zeros to a multiple of 8 bytes past `base` (the start of the row or
/// array being written: Flink aligns each structure's parts to its own start).
pub(crate) fn pad_from(out: &mut Vec<u8>, base: usize) {
    let len = base + round8(out.len() - base);
    out.resize(len, 0);
}

/// Copies `bytes` into `out` at `at`.
pub(crate) fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    out[at..at + bytes.len()].copy_from_slice(bytes);
}

/// Sets bit `index` counted from byte `base`.
pub(crate) fn set_bit(out: &mut [u8], base: usize, index: usize) {
    out[base + (index >> 3)] |= 1 << (index & 7);
}

/// Puts `offset << 32 | size` (offset of `start` relative to `base`) into the slot.
pub(crate) fn set_offset_and_size(
    out: &mut [u8],
    base: usize,
    slot: usize,
    start: usize,
    size: usize,
) -> Result<(), CodecError> {
    let offset =
        u64::try_from(start - base).map_err(|_| CodecError::Rows("offset overflow".into()))?;
    let size =
        u32::try_from(size).map_err(|_| CodecError::Rows("value larger than 4 GiB".into()))?;
    put(out, slot, &((offset << 32) | size as u64).to_le_bytes());
    Ok(())
}

/// Writes a string or binary value: inline in the slot when at most 7 bytes, else in
/// the variable part at the end of `out`.
#[inline]
pub(crate) fn write_var_bytes(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    bytes: &[u8],
) -> Result<(), CodecError> {
    if bytes.len() <= 7 {
        put(out, slot, bytes);
        out[slot + 7] = 0x80 | bytes.len() as u8;
        return Ok(());
    }
    let start = out.len();
    let padded = round8(bytes.len());
    out.reserve(padded);
    out.extend_from_slice(bytes);
    out.extend_from_slice(&[0u8; 8][..padded - bytes.len()]);
    set_offset_and_size(out, base, slot, start, bytes.len())
}

/// Appends a non-compact decimal (16 bytes reserved, minimal big-endian bytes) and
/// points the slot at it.
pub(crate) fn write_big_decimal(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    unscaled: i128,
) -> Result<(), CodecError> {
    let start = out.len();
    out.resize(start + 16, 0);
    let bytes = crate::java::big_integer::to_byte_array(unscaled);
    put(out, start, &bytes);
    set_offset_and_size(out, base, slot, start, bytes.len())
}

/// Appends a non-compact timestamp (epoch millis in the variable part, nano-of-milli in
/// the slot's low word).
pub(crate) fn write_big_timestamp(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    millis: i64,
    nanos: u32,
) {
    let start = out.len();
    out.extend_from_slice(&millis.to_le_bytes());
    let offset = (start - base) as u64;
    put(out, slot, &((offset << 32) | nanos as u64).to_le_bytes());
}
