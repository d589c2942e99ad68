//! Pass one over a message: where each column's field occurs, and protobuf-java's
//! checks of everything else (unknown and unread fields, required fields).

use super::super::checks::{check_required, mark_required, Checks};
use super::super::plan::{DirectOp, ValuePlan};
use super::super::plan::{FieldPlan, MessagePlan, Shape};
use super::super::wire::{zigzag_decode32, zigzag_decode64, WireError};
use super::super::wire::{WireReader, WireType};
use super::values::{write_bytes, write_enum, write_text};
use super::{Chain, DecodeFail, DecodeResult, Occurrence, Scratch, NONE};
use crate::flink_binary::layout::{put, row_null_bytes};

/// Whether a value with wire type `wire` is the column's field (else protobuf-java
/// treats it as an unknown field).
fn accepts(field: &FieldPlan, wire: WireType) -> bool {
    match &field.shape {
        Shape::Single(value) => value.wire_type() == wire,
        Shape::Repeated { element, .. } => {
            element.wire_type() == wire || (wire == WireType::Len && element.packable())
        }
        Shape::Map { .. } => wire == WireType::Len,
    }
}

/// Scans `buf` (one message of `plan`, at nesting `depth`): appends one chain per column
/// at `chain_base`, one ghost mark per oneof at `ghost_base`, and the occurrences after
/// the parent's. Direct columns are written at once into the row image at `base` of
/// `out` (whose fixed part exists), the last value overwriting earlier ones; returns
/// the columns below 64 so written as a bit set (those above are marked
/// [`Chain::DIRECT`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn scan(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    chain_base: usize,
    ghost_base: usize,
    out: &mut Vec<u8>,
    base: usize,
) -> DecodeResult<u64> {
    let slots = base + row_null_bytes(plan.fields.len());
    let mut written = 0u64;
    scratch
        .chains
        .resize(chain_base + plan.fields.len(), Chain::EMPTY);
    scratch
        .ghost_marks
        .resize(ghost_base + plan.oneof_count, NONE);
    let check = checks.message(plan.check);
    let mut seen_required = 0u64;
    let mut reader = WireReader::new(buf);
    while !reader.at_end() {
        let tag = reader.read_varint32()?;
        if let Some(&entry) = plan.direct_tags.get(tag as usize) {
            if entry != 0 {
                let column = usize::from(entry) - 1;
                let field = &plan.fields[column];
                if write_direct(field, &mut reader, buf, out, base, slots + 8 * column)
                    .map_err(|e| e.in_field(&field.name))?
                {
                    if column < 64 {
                        written |= 1 << column;
                    } else {
                        scratch.chains[chain_base + column] = Chain::DIRECT;
                    }
                }
                if !check.required.is_empty() {
                    mark_required(
                        check,
                        tag >> 3,
                        WireType::from_bits(tag & 7).unwrap_or(WireType::Varint),
                        &mut seen_required,
                    );
                }
                continue;
            }
        }
        let wire = WireType::from_bits(tag & 7).ok_or(WireError::InvalidTag)?;
        let number = tag >> 3;
        if number == 0 {
            return Err(WireError::InvalidTag.into());
        }
        match plan.column_of(number) {
            Some(column) if accepts(&plan.fields[column], wire) => {
                let (start, end) = match wire {
                    WireType::Varint => {
                        let at = reader.position();
                        reader.read_varint()?;
                        (at, reader.position())
                    }
                    WireType::Fixed32 => {
                        let at = reader.position();
                        reader.read_fixed32()?;
                        (at, at + 4)
                    }
                    WireType::Fixed64 => {
                        let at = reader.position();
                        reader.read_fixed64()?;
                        (at, at + 8)
                    }
                    WireType::Len => reader.read_len_span()?,
                    WireType::StartGroup => reader.group_span(number, depth + 1)?,
                    WireType::EndGroup => {
                        return Err(super::super::wire::WireError::InvalidEndTag.into())
                    }
                };
                push(scratch, chain_base + column, start, end, wire);
            }
            _ => {
                if let Some(ghost) = plan
                    .ghosts
                    .iter()
                    .find(|g| g.number == number && g.wire == wire)
                {
                    scratch.ghost_marks[ghost_base + ghost.oneof] =
                        scratch.occurrences.len() as u32;
                }
                checks.check_field(check, number, wire, &mut reader, buf, depth)?
            }
        }
        mark_required(check, number, wire, &mut seen_required);
    }
    check_required(check, seen_required)?;
    Ok(written)
}

fn push(scratch: &mut Scratch, chain: usize, start: usize, end: usize, wire: WireType) {
    let index = scratch.occurrences.len() as u32;
    scratch.occurrences.push(Occurrence {
        start: start as u32,
        end: end as u32,
        next: NONE,
        wire,
    });
    let c = &mut scratch.chains[chain];
    if c.last == NONE {
        c.first = index;
    } else {
        scratch.occurrences[c.last as usize].next = index;
    }
    c.last = index;
}

/// Reads the value of a direct column that follows its tag and writes it into `slot`;
/// `false` when the value does not count (an enum number a closed enum does not declare).
#[inline(always)]
pub(super) fn write_direct(
    field: &FieldPlan,
    reader: &mut WireReader<'_>,
    buf: &[u8],
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<bool> {
    let Some(op) = field.direct else {
        return Err(DecodeFail::new("not a direct column"));
    };
    match op {
        DirectOp::Int32 => put(
            out,
            slot,
            &(reader.read_varint_inline()? as u32).to_le_bytes(),
        ),
        DirectOp::SInt32 => {
            let v = zigzag_decode32(reader.read_varint_inline()? as u32);
            put(out, slot, &v.to_le_bytes())
        }
        DirectOp::Int64 => put(out, slot, &reader.read_varint_inline()?.to_le_bytes()),
        DirectOp::SInt64 => put(
            out,
            slot,
            &zigzag_decode64(reader.read_varint_inline()?).to_le_bytes(),
        ),
        DirectOp::Bool => out[slot] = u8::from(reader.read_varint_inline()? != 0),
        DirectOp::Fixed32 => put(out, slot, &reader.read_fixed32()?.to_le_bytes()),
        DirectOp::Fixed64 => put(out, slot, &reader.read_fixed64()?.to_le_bytes()),
        DirectOp::Text => {
            let (start, end) = reader.read_len_span()?;
            write_text(out, base, slot, &buf[start..end], field.utf8_checked)?;
        }
        DirectOp::Bytes => {
            let (start, end) = reader.read_len_span()?;
            write_bytes(out, base, slot, &buf[start..end])?;
        }
        DirectOp::EnumText => {
            let number = reader.read_varint_inline()? as u32 as i32;
            let Shape::Single(ValuePlan::Enum(e)) = &field.shape else {
                return Err(DecodeFail::new("not an enum column"));
            };
            if !e.open && !e.is_known(number) {
                return Ok(false);
            }
            write_enum(&field.ty, e, number, out, base, slot)?;
        }
    }
    Ok(true)
}
