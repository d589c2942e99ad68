//! Pass two: one row image from the occurrences [`super::scan`] recorded, column by
//! column, with protobuf's rules for repeated occurrences and oneofs and flink-protobuf's
//! rules for absent fields.

use super::super::checks::Checks;
use super::super::plan::{Absent, DefaultValue, FieldPlan, MessagePlan, Shape, ValuePlan};
use super::super::wire::{WireError, RECURSION_LIMIT};
use super::arrays::write_array;
use super::flat::write_flat;
use super::maps::write_map;
use super::scan::scan;
use super::values::{raw_at, write_default_scalar, write_empty_array, write_raw};
use super::{point_at, Chain, DecodeFail, DecodeResult, Occurrence, Scratch, NONE, WRITTEN};
use crate::flink_binary::layout::{row_null_bytes, set_bit};
use crate::types::FlinkKind;

/// Appends the row image of one message of `plan` held in `buf` (at nesting `depth`).
pub(super) fn write_row(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    out: &mut Vec<u8>,
) -> DecodeResult<()> {
    if depth > RECURSION_LIMIT {
        return Err(WireError::TooDeep.into());
    }
    if let Some(flat) = &plan.flat {
        if write_flat(flat, plan, buf, out) {
            return Ok(());
        }
    }
    write_two_pass(plan, checks, buf, depth, scratch, out)
}

/// [`write_row`] without its one-pass attempt: the scan, then the columns.
pub(super) fn write_two_pass(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    out: &mut Vec<u8>,
) -> DecodeResult<()> {
    let occurrence_base = scratch.occurrences.len();
    let chain_base = scratch.chains.len();
    let ghost_base = scratch.ghost_marks.len();
    let arity = plan.fields.len();
    let base = out.len();
    out.resize(base + row_null_bytes(arity) + 8 * arity, 0);
    let result = scan(
        plan, checks, buf, depth, scratch, chain_base, ghost_base, out, base,
    )
    .and_then(|written| {
        write_columns(
            plan, checks, buf, depth, scratch, chain_base, ghost_base, out, base, written,
        )
    });
    scratch.occurrences.truncate(occurrence_base);
    scratch.chains.truncate(chain_base);
    scratch.ghost_marks.truncate(ghost_base);
    result
}

/// The occurrence at `index`.
fn occurrence(scratch: &Scratch, index: u32) -> Occurrence {
    scratch.occurrences[index as usize]
}

/// Writes the columns the scan did not write (`written`: those below 64 it wrote, as a
/// bit set; those above carry [`Chain::DIRECT`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn write_columns(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    chain_base: usize,
    ghost_base: usize,
    out: &mut Vec<u8>,
    base: usize,
    written: u64,
) -> DecodeResult<()> {
    let arity = plan.fields.len();
    if arity <= 64 {
        // Only the columns left to write, lowest first.
        let all = if arity == 64 {
            u64::MAX
        } else {
            (1u64 << arity) - 1
        };
        let mut todo = all & !written;
        while todo != 0 {
            let i = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            write_column_at(
                plan, checks, buf, depth, scratch, chain_base, ghost_base, out, base, i,
            )?;
        }
    } else {
        for i in 0..arity {
            if (i < 64 && written & (1 << i) != 0)
                || scratch.chains[chain_base + i].first == WRITTEN
            {
                continue;
            }
            write_column_at(
                plan, checks, buf, depth, scratch, chain_base, ghost_base, out, base, i,
            )?;
        }
    }
    Ok(())
}

/// Writes column `i`, which the scan did not write, from its chain.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn write_column_at(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    chain_base: usize,
    ghost_base: usize,
    out: &mut Vec<u8>,
    base: usize,
    i: usize,
) -> DecodeResult<()> {
    let null_bytes = row_null_bytes(plan.fields.len());
    let field = &plan.fields[i];
    let slot = base + null_bytes + 8 * i;
    let chain = scratch.chains[chain_base + i];
    // A oneof member that another member displaced counts as absent.
    let from = match field.oneof {
        Some(oneof) if !oneof_winner(plan, scratch, chain_base, ghost_base, oneof, i, chain) => {
            NONE
        }
        _ => chain.first,
    };
    if from != chain.first {
        validate_until(field, checks, buf, depth, scratch, chain.first, from)?;
    }
    let written = write_column(field, checks, buf, depth, scratch, from, out, base, slot)
        .map_err(|e| e.in_field(&field.name))?;
    if !written {
        match &field.absent {
            Absent::Null => set_bit(out, base, i + 8),
            Absent::Default(default) => {
                write_default(field, default, checks, depth, scratch, out, base, slot)
                    .map_err(|e| e.in_field(&field.name))?
            }
        }
    }
    Ok(())
}

/// Whether column `column`, a member of `oneof`, is the member set last: no other member
/// (a column or not) occurs after its last occurrence. Its value is then read from all of
/// its occurrences: protobuf-java keeps a message member's builder when another member is
/// set in between, so a member set again merges into its earlier content.
fn oneof_winner(
    plan: &MessagePlan,
    scratch: &Scratch,
    chain_base: usize,
    ghost_base: usize,
    oneof: usize,
    column: usize,
    chain: Chain,
) -> bool {
    if chain.last == NONE {
        return false;
    }
    let ghost = scratch.ghost_marks[ghost_base + oneof];
    // A ghost seen when `ghost` occurrences had been recorded came after occurrence
    // `ghost - 1`.
    if ghost != NONE && ghost > chain.last {
        return false;
    }
    plan.fields.iter().enumerate().all(|(j, other)| {
        j == column || other.oneof != Some(oneof) || {
            let last = scratch.chains[chain_base + j].last;
            last == NONE || last < chain.last
        }
    })
}

/// protobuf-java parses every occurrence, also those a later one replaces: checks the
/// occurrences from `first` up to (not including) `until`.
fn validate_until(
    field: &FieldPlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &Scratch,
    first: u32,
    until: u32,
) -> DecodeResult<()> {
    let mut at = first;
    while at != NONE && at != until {
        let occ = occurrence(scratch, at);
        validate(field, checks, buf, depth, occ).map_err(|e| e.in_field(&field.name))?;
        at = occ.next;
    }
    Ok(())
}

/// Checks one occurrence that is not decoded (a replaced value).
fn validate(
    field: &FieldPlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    occ: Occurrence,
) -> DecodeResult<()> {
    let span = &buf[occ.start as usize..occ.end as usize];
    match &field.shape {
        Shape::Single(ValuePlan::Message(p) | ValuePlan::Group(p)) => {
            checks.check_message(p.check, span, depth + 1)?;
        }
        Shape::Single(ValuePlan::Scalar(super::super::plan::Scalar::String)) => {
            super::values::text(span, field.utf8_checked)?;
        }
        _ => {}
    }
    Ok(())
}

/// Writes the column from its occurrences starting at `from`; `false` when none counts.
#[allow(clippy::too_many_arguments)]
fn write_column(
    field: &FieldPlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<bool> {
    if from == NONE {
        return Ok(false);
    }
    match &field.shape {
        Shape::Single(ValuePlan::Message(p) | ValuePlan::Group(p)) => {
            write_merged_message(p, checks, buf, depth, scratch, from, out, base, slot)?;
            Ok(true)
        }
        Shape::Single(value) => {
            // The last kept value wins; the ones before are still parsed.
            let mut chosen: Option<Occurrence> = None;
            let mut at = from;
            while at != NONE {
                let occ = occurrence(scratch, at);
                let raw = raw_at(buf, occ.start as usize, occ.end as usize, occ.wire)?;
                if super::values::is_kept(value, raw) {
                    if let Some(previous) = chosen {
                        validate(field, checks, buf, depth, previous)?;
                    }
                    chosen = Some(occ);
                }
                at = occ.next;
            }
            let Some(occ) = chosen else {
                return Ok(false);
            };
            let raw = raw_at(buf, occ.start as usize, occ.end as usize, occ.wire)?;
            write_raw(&field.ty, value, raw, field.utf8_checked, out, base, slot)?;
            Ok(true)
        }
        Shape::Repeated { element, .. } => {
            let FlinkKind::Array(element_ty) = &field.ty.kind else {
                return Err(DecodeFail::new("a repeated field needs an ARRAY column"));
            };
            write_array(
                field, element, element_ty, checks, buf, depth, scratch, from, out, base, slot,
            )
        }
        Shape::Map { key, value } => {
            let FlinkKind::Map(key_ty, value_ty) = &field.ty.kind else {
                return Err(DecodeFail::new("a map field needs a MAP column"));
            };
            write_map(
                field, key, value, key_ty, value_ty, checks, buf, depth, scratch, from, out, base,
                slot,
            )
        }
    }
}

/// Writes a sub-message whose occurrences from `from` on merge into one (protobuf's
/// merge of serialized messages is their concatenation).
#[allow(clippy::too_many_arguments)]
fn write_merged_message(
    plan: &MessagePlan,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    let first = occurrence(scratch, from);
    let start = out.len();
    if first.next == NONE {
        let span = &buf[first.start as usize..first.end as usize];
        write_row(plan, checks, span, depth + 1, scratch, out)?;
    } else {
        // protobuf-java parses each occurrence on its own before merging: a part that is
        // malformed alone fails even if the concatenation would read.
        let mut merged = scratch.take_bytes();
        let mut at = from;
        while at != NONE {
            let occ = occurrence(scratch, at);
            let part = &buf[occ.start as usize..occ.end as usize];
            if let Err(e) = checks.check_message(plan.check, part, depth + 1) {
                scratch.give_bytes(merged);
                return Err(e.into());
            }
            merged.extend_from_slice(part);
            at = occ.next;
        }
        let result = write_row(plan, checks, &merged, depth + 1, scratch, out);
        scratch.give_bytes(merged);
        result?;
    }
    point_at(out, base, slot, start)?;
    Ok(())
}

/// Writes the getter's default of an absent field.
#[allow(clippy::too_many_arguments)]
fn write_default(
    field: &FieldPlan,
    default: &DefaultValue,
    checks: &Checks,
    depth: usize,
    scratch: &mut Scratch,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    match (default, &field.shape) {
        (DefaultValue::EmptyArray, _) => {
            let start = out.len();
            write_empty_array(out);
            point_at(out, base, slot, start)?;
        }
        (DefaultValue::EmptyMap, _) => {
            let start = out.len();
            write_empty_map(out);
            point_at(out, base, slot, start)?;
        }
        (_, Shape::Single(ValuePlan::Message(p) | ValuePlan::Group(p))) => {
            let start = out.len();
            write_row(p, checks, &[], depth + 1, scratch, out)?;
            point_at(out, base, slot, start)?;
        }
        (default, Shape::Single(value)) => {
            write_default_scalar(&field.ty, value, default, out, base, slot)?;
        }
        (default, _) => {
            return Err(DecodeFail::new(format!(
                "no default {default:?} for a container column"
            )))
        }
    }
    Ok(())
}

/// Appends an empty map image: the key array's size, an empty key and value array.
pub(super) fn write_empty_map(out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + 4, 0);
    write_empty_array(out);
    let key_size = (out.len() - start - 4) as i32;
    out[start..start + 4].copy_from_slice(&key_size.to_le_bytes());
    write_empty_array(out);
}
