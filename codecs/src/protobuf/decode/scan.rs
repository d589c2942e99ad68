//! Pass one over a message: where each column's field occurs, and protobuf-java's
//! checks of everything else (unknown and unread fields, required fields).

use super::super::checks::{check_required, mark_required, Checks};
use super::super::plan::{FieldPlan, MessagePlan, Shape};
use super::super::wire::{WireReader, WireType};
use super::{Chain, DecodeResult, Occurrence, Scratch, NONE};

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
/// the parent's.
pub(super) fn scan(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    chain_base: usize,
    ghost_base: usize,
) -> DecodeResult<()> {
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
        let (number, wire) = reader.read_tag()?;
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
    Ok(())
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
