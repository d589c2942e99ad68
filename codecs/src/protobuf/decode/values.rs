//! Single values: raw wire values read from their span, converted to the column's Flink
//! type as flink-protobuf's getters and converters do, and written into a row or array
//! slot; and the defaults of absent fields.

use std::borrow::Cow;

use super::super::plan::{DefaultValue, EnumPlan, Scalar, ValuePlan};
use super::super::wire::{zigzag_decode32, zigzag_decode64, WireError, WireReader, WireType};
use super::{DecodeFail, DecodeResult};
use crate::flink_binary::layout::{put, round8, write_var_bytes};
use crate::types::{FlinkKind, FlinkType};

/// One value as it is on the wire.
#[derive(Debug, Clone, Copy)]
pub(super) enum Raw<'a> {
    /// A varint's 64 bits.
    Varint(u64),
    /// 4 fixed bytes.
    Fixed32(u32),
    /// 8 fixed bytes.
    Fixed64(u64),
    /// A length-delimited value's bytes.
    Bytes(&'a [u8]),
}

/// Reads one value of wire type `wire` from `reader`.
#[inline]
pub(super) fn read_raw<'a>(
    reader: &mut WireReader<'a>,
    buf: &'a [u8],
    wire: WireType,
) -> DecodeResult<Raw<'a>> {
    Ok(match wire {
        WireType::Varint => Raw::Varint(reader.read_varint()?),
        WireType::Fixed32 => Raw::Fixed32(reader.read_fixed32()?),
        WireType::Fixed64 => Raw::Fixed64(reader.read_fixed64()?),
        WireType::Len => {
            let (start, end) = reader.read_len_span()?;
            Raw::Bytes(&buf[start..end])
        }
        WireType::StartGroup | WireType::EndGroup => {
            return Err(DecodeFail::new("a group is not a scalar value"))
        }
    })
}

/// The raw value of an occurrence whose span holds exactly one value.
#[inline]
pub(super) fn raw_at(
    buf: &[u8],
    start: usize,
    end: usize,
    wire: WireType,
) -> DecodeResult<Raw<'_>> {
    let span = &buf[start..end];
    Ok(match wire {
        WireType::Len => Raw::Bytes(span),
        _ => read_raw(&mut WireReader::new(span), span, wire)?,
    })
}

/// Calls `each` for every value of wire type `wire` packed in `span`.
pub(super) fn for_each_packed<'a>(
    span: &'a [u8],
    wire: WireType,
    mut each: impl FnMut(Raw<'a>) -> DecodeResult<()>,
) -> DecodeResult<()> {
    let mut reader = WireReader::new(span);
    while !reader.at_end() {
        each(read_raw(&mut reader, span, wire)?)?;
    }
    Ok(())
}

/// An integer-like scalar's value as Java holds it (unsigned types as signed bits).
#[inline]
pub(super) fn integer(scalar: Scalar, raw: Raw<'_>) -> Option<i64> {
    Some(match (scalar, raw) {
        (Scalar::Int32 | Scalar::UInt32, Raw::Varint(v)) => i64::from(v as u32 as i32),
        (Scalar::SInt32, Raw::Varint(v)) => i64::from(zigzag_decode32(v as u32)),
        (Scalar::Int64 | Scalar::UInt64, Raw::Varint(v)) => v as i64,
        (Scalar::SInt64, Raw::Varint(v)) => zigzag_decode64(v),
        (Scalar::Fixed32 | Scalar::SFixed32, Raw::Fixed32(v)) => i64::from(v as i32),
        (Scalar::Fixed64 | Scalar::SFixed64, Raw::Fixed64(v)) => v as i64,
        (Scalar::Bool, Raw::Varint(v)) => i64::from(v != 0),
        _ => return None,
    })
}

/// The enum number of a raw varint (Java reads it as an int).
#[inline]
pub(super) fn enum_number(raw: Raw<'_>) -> Option<i32> {
    match raw {
        Raw::Varint(v) => Some(v as u32 as i32),
        _ => None,
    }
}

/// Whether `raw` is a value the field keeps: a proto2 (closed) enum drops numbers it
/// does not declare into the unknown fields, as if the value were not there.
#[inline]
pub(super) fn is_kept(value: &ValuePlan, raw: Raw<'_>) -> bool {
    match value {
        ValuePlan::Enum(e) if !e.open => enum_number(raw).is_some_and(|n| e.is_known(n)),
        _ => true,
    }
}

/// Text of a string value: checked (proto3) or converted as Java's `new String(bytes,
/// UTF_8)` does (proto2: malformed sequences become U+FFFD by the JDK's rules).
#[inline(always)]
pub(super) fn text(bytes: &[u8], utf8_checked: bool) -> DecodeResult<Cow<'_, [u8]>> {
    // Most strings are ASCII, which a word-at-a-time check confirms fastest.
    if bytes.is_ascii() {
        return Ok(Cow::Borrowed(bytes));
    }
    non_ascii_text(bytes, utf8_checked)
}

/// [`text`] of a string that is not all ASCII.
#[inline(never)]
fn non_ascii_text(bytes: &[u8], utf8_checked: bool) -> DecodeResult<Cow<'_, [u8]>> {
    match std::str::from_utf8(bytes) {
        Ok(_) => Ok(Cow::Borrowed(bytes)),
        Err(_) if utf8_checked => Err(WireError::InvalidUtf8.into()),
        Err(_) => Ok(Cow::Owned(
            crate::java::utf8::java_utf8_lossy(bytes)
                .into_owned()
                .into_bytes(),
        )),
    }
}

/// Writes a string value (its [`text`]) into `slot` of the image at `base`.
#[inline(always)]
pub(super) fn write_text(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    bytes: &[u8],
    utf8_checked: bool,
) -> DecodeResult<()> {
    if bytes.is_ascii() {
        return write_bytes(out, base, slot, bytes);
    }
    write_non_ascii_text(out, base, slot, bytes, utf8_checked)
}

/// [`write_text`] of a string that is not all ASCII.
#[inline(never)]
fn write_non_ascii_text(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    bytes: &[u8],
    utf8_checked: bool,
) -> DecodeResult<()> {
    let text = non_ascii_text(bytes, utf8_checked)?;
    write_bytes(out, base, slot, &text)
}

/// Up to 7 bytes as the low bytes of a little-endian word (the rest zero), without a
/// call to `memcpy`: two possibly overlapping loads cover every length.
#[inline(always)]
fn pack_short(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if len >= 4 {
        let lo = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let hi = u32::from_le_bytes([
            bytes[len - 4],
            bytes[len - 3],
            bytes[len - 2],
            bytes[len - 1],
        ]);
        u64::from(lo) | (u64::from(hi) << (8 * (len - 4)))
    } else if len >= 2 {
        let lo = u16::from_le_bytes([bytes[0], bytes[1]]);
        let hi = u16::from_le_bytes([bytes[len - 2], bytes[len - 1]]);
        u64::from(lo) | (u64::from(hi) << (8 * (len - 2)))
    } else if len == 1 {
        u64::from(bytes[0])
    } else {
        0
    }
}

/// Writes a string or binary value into `slot` of the image at `base` as
/// [`crate::flink_binary::layout::write_var_bytes`] does into a zeroed slot (inline when
/// at most 7 bytes, else padded to 8 at the end of `out`), with the decoder's one-word
/// error. Every byte of the slot is replaced: nothing of an earlier value (or a default)
/// stays behind.
#[inline(always)]
pub(super) fn write_bytes(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    bytes: &[u8],
) -> DecodeResult<()> {
    let len = bytes.len();
    if len > 7 {
        return write_long_bytes(out, base, slot, bytes);
    }
    let Some(word) = out.get_mut(slot..slot + 8) else {
        return Err(DecodeFail::new("slot outside the image"));
    };
    // The value's bytes, zeros, then its length in the last byte.
    let value = pack_short(bytes) | (u64::from(0x80 | len as u8) << 56);
    word.copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// [`write_bytes`] of a value longer than 7 bytes: it goes to the end of `out`.
#[inline(never)]
fn write_long_bytes(out: &mut Vec<u8>, base: usize, slot: usize, bytes: &[u8]) -> DecodeResult<()> {
    let len = bytes.len();
    let start = out.len();
    let Some(word) = out.get_mut(slot..slot + 8) else {
        return Err(DecodeFail::new("slot outside the image"));
    };
    let Ok(size) = u32::try_from(len) else {
        return Err(DecodeFail::new("value larger than 4 GiB"));
    };
    let offset = (start - base) as u64;
    word.copy_from_slice(&((offset << 32) | u64::from(size)).to_le_bytes());
    let padded = round8(len);
    out.reserve(padded);
    out.extend_from_slice(bytes);
    // Zeros up to the next multiple of 8, with one 8-byte store.
    crate::protobuf::wire::put_prefix(out, &[0u8; 8], padded - len);
    Ok(())
}

/// Writes an integer into a slot of the column type's width.
#[inline]
fn put_integer(ty: &FlinkType, value: i64, out: &mut [u8], slot: usize) -> DecodeResult<()> {
    match ty.kind {
        FlinkKind::Boolean => out[slot] = (value != 0) as u8,
        FlinkKind::TinyInt => out[slot] = value as i8 as u8,
        FlinkKind::SmallInt => put(out, slot, &(value as i16).to_le_bytes()),
        FlinkKind::Int => put(out, slot, &(value as i32).to_le_bytes()),
        FlinkKind::BigInt => put(out, slot, &value.to_le_bytes()),
        _ => return Err(type_mismatch(ty)),
    }
    Ok(())
}

fn type_mismatch(ty: &FlinkType) -> DecodeFail {
    DecodeFail::new(format!(
        "cannot write a protobuf value into a {} column",
        crate::types::summary_string(ty)
    ))
}

/// Writes one non-message value into `slot` of the image starting at `base` (strings and
/// bytes longer than 7 bytes go to the end of `out`).
#[inline]
pub(super) fn write_raw(
    ty: &FlinkType,
    value: &ValuePlan,
    raw: Raw<'_>,
    utf8_checked: bool,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    match value {
        ValuePlan::Scalar(scalar) => match (scalar, raw) {
            (Scalar::Float, Raw::Fixed32(bits)) => put(out, slot, &bits.to_le_bytes()),
            (Scalar::Double, Raw::Fixed64(bits)) => put(out, slot, &bits.to_le_bytes()),
            (Scalar::String, Raw::Bytes(bytes)) => {
                write_text(out, base, slot, bytes, utf8_checked)?;
            }
            (Scalar::Bytes, Raw::Bytes(bytes)) => write_bytes(out, base, slot, bytes)?,
            (scalar, raw) => {
                let v = integer(*scalar, raw)
                    .ok_or_else(|| DecodeFail::new(format!("unexpected {raw:?} for {scalar:?}")))?;
                put_integer(ty, v, out, slot)?;
            }
        },
        ValuePlan::Enum(e) => {
            let number = enum_number(raw)
                .ok_or_else(|| DecodeFail::new(format!("unexpected {raw:?} for an enum")))?;
            write_enum(ty, e, number, out, base, slot)?;
        }
        ValuePlan::Message(_) | ValuePlan::Group(_) => {
            return Err(DecodeFail::new("a message is not a scalar value"))
        }
    }
    Ok(())
}

/// Writes an enum value: its name (`UNRECOGNIZED` for an unknown number of an open
/// enum) or its number.
pub(super) fn write_enum(
    ty: &FlinkType,
    e: &EnumPlan,
    number: i32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    let name = e.name_of(number);
    if matches!(ty.kind, FlinkKind::Char(_) | FlinkKind::VarChar(_)) {
        let name = name.unwrap_or("UNRECOGNIZED");
        return write_bytes(out, base, slot, name.as_bytes());
    }
    if name.is_none() {
        // Java's `UNRECOGNIZED.getNumber()`.
        return Err(DecodeFail::new(format!(
            "Can't get the number of an unknown enum value ({number} of {}).",
            e.full_name
        )));
    }
    put_integer(ty, i64::from(number), out, slot)
}

/// Writes the default of a non-message, non-container value into `slot`.
pub(super) fn write_default_scalar(
    ty: &FlinkType,
    value: &ValuePlan,
    default: &DefaultValue,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    match (default, value) {
        (DefaultValue::Enum(n), ValuePlan::Enum(e)) => write_enum(ty, e, *n, out, base, slot),
        (DefaultValue::Bool(b), _) => put_integer(ty, i64::from(*b), out, slot),
        (DefaultValue::I32(v), _) => put_integer(ty, i64::from(*v), out, slot),
        (DefaultValue::I64(v), _) => put_integer(ty, *v, out, slot),
        (DefaultValue::F32(v), _) => {
            put(out, slot, &v.to_bits().to_le_bytes());
            Ok(())
        }
        (DefaultValue::F64(v), _) => {
            put(out, slot, &v.to_bits().to_le_bytes());
            Ok(())
        }
        (DefaultValue::Bytes(b), _) => Ok(write_var_bytes(out, base, slot, b)?),
        (other, _) => Err(DecodeFail::new(format!(
            "default {other:?} is not a scalar default"
        ))),
    }
}

/// The default of a map key or value (a proto3-style zero, or an enum's first value),
/// for entries that lack it.
pub(super) fn zero_default(value: &ValuePlan) -> DefaultValue {
    match value {
        ValuePlan::Scalar(s) => match s {
            Scalar::Bool => DefaultValue::Bool(false),
            Scalar::Float => DefaultValue::F32(0.0),
            Scalar::Double => DefaultValue::F64(0.0),
            Scalar::String | Scalar::Bytes => DefaultValue::Bytes(Vec::new()),
            Scalar::Int64
            | Scalar::UInt64
            | Scalar::SInt64
            | Scalar::Fixed64
            | Scalar::SFixed64 => DefaultValue::I64(0),
            _ => DefaultValue::I32(0),
        },
        ValuePlan::Enum(e) => DefaultValue::Enum(e.first().0),
        ValuePlan::Message(_) | ValuePlan::Group(_) => DefaultValue::Message,
    }
}

/// Appends an empty array image (element count 0).
pub(super) fn write_empty_array(out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + round8(4), 0);
}

#[cfg(test)]
mod tests {
    use super::write_bytes;
    use crate::flink_binary::layout::write_var_bytes;

    #[test]
    fn write_bytes_writes_what_write_var_bytes_writes_into_a_zeroed_slot() {
        for len in 0..=40usize {
            let bytes: Vec<u8> = (0..len).map(|i| 0x41 + i as u8).collect();
            // An image that starts at 8, its slot at 16 zeroed.
            let mut a = vec![0xaa; 32];
            a[16..24].fill(0);
            let mut expected = a.clone();
            write_var_bytes(&mut expected, 8, 16, &bytes).unwrap();
            write_bytes(&mut a, 8, 16, &bytes).unwrap();
            assert_eq!(a, expected, "length {len}, zeroed slot");
            // The same slot holding an earlier value: every byte of it is replaced.
            let mut b = vec![0xaa; 32];
            write_bytes(&mut b, 8, 16, &bytes).unwrap();
            assert_eq!(b, expected, "length {len}, stale slot");
        }
        assert!(write_bytes(&mut vec![0; 8], 0, 4, b"x").is_err());
    }
}
