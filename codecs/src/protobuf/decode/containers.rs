//! Repeated fields (ARRAY columns) and map fields (MAP columns).

use std::borrow::Cow;
use std::collections::HashMap;

use super::super::checks::Checks;
use super::super::plan::{DefaultValue, FieldPlan, Scalar, ValuePlan};
use super::super::wire::{WireReader, WireType};
use super::row::write_row;
use super::values::{
    for_each_packed, is_kept, raw_at, read_raw, text, write_default_scalar, write_raw,
    zero_default, Raw,
};
use super::{point_at, DecodeFail, DecodeResult, Scratch, NONE};
use crate::flink_binary::elements::ElementImages;
use crate::flink_binary::layout::{put, set_offset_and_size};
use crate::types::FlinkType;

/// Writes the ARRAY of a repeated field from its occurrences starting at `from` (packed
/// and unpacked records alike, in wire order); `false` when it has no element.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_array(
    field: &FieldPlan,
    element: &ValuePlan,
    element_ty: &FlinkType,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<bool> {
    let mut elements = scratch.take_elements();
    let result = collect_elements(
        field,
        element,
        element_ty,
        checks,
        buf,
        depth,
        scratch,
        from,
        &mut elements,
    );
    let written = match result {
        Ok(0) => Ok(false),
        Ok(_) => {
            let start = out.len();
            elements
                .write_array(element_ty, out)
                .map_err(DecodeFail::from)
                .and_then(|()| point_at(out, base, slot, start))
                .map(|()| true)
        }
        Err(e) => Err(e),
    };
    scratch.give_elements(elements);
    written
}

#[allow(clippy::too_many_arguments)]
fn collect_elements(
    field: &FieldPlan,
    element: &ValuePlan,
    element_ty: &FlinkType,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    elements: &mut ElementImages,
) -> DecodeResult<usize> {
    let mut count = 0usize;
    let mut at = from;
    while at != NONE {
        let occ = scratch.occurrences[at as usize];
        at = occ.next;
        let span = &buf[occ.start as usize..occ.end as usize];
        match element {
            ValuePlan::Message(p) | ValuePlan::Group(p) => {
                elements.push_with(|images, slot| -> DecodeResult<bool> {
                    let start = images.len();
                    write_row(p, checks, span, depth + 1, scratch, images)?;
                    let size = images.len() - start;
                    set_offset_and_size(images, 0, slot, start, size)?;
                    Ok(true)
                })?;
                count += 1;
            }
            _ if occ.wire == WireType::Len && element.packable() => {
                let wire = element.wire_type();
                for_each_packed(span, wire, |raw| {
                    if is_kept(element, raw) {
                        push_raw(elements, element_ty, element, raw, field.utf8_checked)?;
                        count += 1;
                    }
                    Ok(())
                })?;
            }
            _ => {
                let raw = raw_at(buf, occ.start as usize, occ.end as usize, occ.wire)?;
                if is_kept(element, raw) {
                    push_raw(elements, element_ty, element, raw, field.utf8_checked)?;
                    count += 1;
                }
            }
        }
    }
    Ok(count)
}

fn push_raw(
    elements: &mut ElementImages,
    ty: &FlinkType,
    value: &ValuePlan,
    raw: Raw<'_>,
    utf8_checked: bool,
) -> DecodeResult<()> {
    elements.push_with(|images, slot| -> DecodeResult<bool> {
        write_raw(ty, value, raw, utf8_checked, images, 0, slot)?;
        Ok(true)
    })
}

/// One map entry as read from the wire: its key (None: the default key) and value
/// spans (a message value may occur several times and merges).
struct Entry<'a> {
    key: Option<Raw<'a>>,
    value: EntryValue<'a>,
}

enum EntryValue<'a> {
    Missing,
    Scalar(Raw<'a>),
    Message(Cow<'a, [u8]>),
}

/// Writes the MAP of a map field from its entries starting at `from`: a key seen again
/// keeps its first position and takes the later value (protobuf-java's map put); entries
/// whose closed-enum value is unknown are dropped. `false` when it has no entry.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_map(
    field: &FieldPlan,
    key: &ValuePlan,
    value: &ValuePlan,
    key_ty: &FlinkType,
    value_ty: &FlinkType,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<bool> {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    let mut at = from;
    while at != NONE {
        let occ = scratch.occurrences[at as usize];
        at = occ.next;
        let span = &buf[occ.start as usize..occ.end as usize];
        if let Some(entry) = read_entry(key, value, span, field.utf8_checked, checks, depth)? {
            entries.push(entry);
        }
    }
    if entries.is_empty() {
        return Ok(false);
    }
    let replaced = |old: &EntryValue<'_>| -> DecodeResult<()> {
        // A replaced message value is never decoded, but protobuf-java parsed it.
        match (value, old) {
            (ValuePlan::Message(p), EntryValue::Message(bytes)) => {
                Ok(checks.check_message(p.check, bytes, depth + 2)?)
            }
            _ => Ok(()),
        }
    };
    let entries = dedupe(entries, key, replaced, field.utf8_checked)?;
    let mut keys = scratch.take_elements();
    let mut values = scratch.take_elements();
    let result = (|| -> DecodeResult<()> {
        for entry in &entries {
            keys.push_with(|images, slot| -> DecodeResult<bool> {
                match entry.key {
                    Some(raw) => write_raw(key_ty, key, raw, field.utf8_checked, images, 0, slot)?,
                    None => write_default_scalar(key_ty, key, &zero_default(key), images, 0, slot)?,
                }
                Ok(true)
            })?;
            values.push_with(|images, slot| -> DecodeResult<bool> {
                write_entry_value(
                    value,
                    value_ty,
                    &entry.value,
                    field.utf8_checked,
                    checks,
                    depth,
                    scratch,
                    images,
                    slot,
                )?;
                Ok(true)
            })?;
        }
        let start = out.len();
        out.resize(start + 4, 0);
        keys.write_array(key_ty, out)?;
        let key_size = i32::try_from(out.len() - start - 4)
            .map_err(|_| DecodeFail::new("map keys larger than 2 GiB"))?;
        put(out, start, &key_size.to_le_bytes());
        values.write_array(value_ty, out)?;
        point_at(out, base, slot, start)?;
        Ok(())
    })();
    scratch.give_elements(keys);
    scratch.give_elements(values);
    result.map(|()| true)
}

/// Reads one entry; `None` when protobuf-java would keep it in the unknown fields (a
/// closed enum value it does not declare). Every string read is UTF-8 checked when the
/// field's strings are (protobuf-java checks each as it parses, also those a later one
/// replaces), and each occurrence of a message value is checked on its own.
fn read_entry<'a>(
    key: &ValuePlan,
    value: &ValuePlan,
    span: &'a [u8],
    utf8_checked: bool,
    checks: &Checks,
    depth: usize,
) -> DecodeResult<Option<Entry<'a>>> {
    let checked = |raw: Raw<'a>, plan: &ValuePlan| -> DecodeResult<Raw<'a>> {
        if let (ValuePlan::Scalar(Scalar::String), Raw::Bytes(b)) = (plan, raw) {
            text(b, utf8_checked)?;
        }
        Ok(raw)
    };
    let mut entry = Entry {
        key: None,
        value: EntryValue::Missing,
    };
    let mut reader = WireReader::new(span);
    while !reader.at_end() {
        let (number, wire) = reader.read_tag()?;
        match number {
            1 if wire == key.wire_type() => {
                entry.key = Some(checked(read_raw(&mut reader, span, wire)?, key)?)
            }
            2 if wire == value.wire_type() => match value {
                ValuePlan::Message(p) => {
                    let (start, end) = reader.read_len_span()?;
                    let more = &span[start..end];
                    checks.check_message(p.check, more, depth + 2)?;
                    entry.value = EntryValue::Message(
                        match std::mem::replace(&mut entry.value, EntryValue::Missing) {
                            EntryValue::Message(before) => {
                                let mut joined = before.into_owned();
                                joined.extend_from_slice(more);
                                Cow::Owned(joined)
                            }
                            _ => Cow::Borrowed(more),
                        },
                    );
                }
                _ => {
                    let raw = checked(read_raw(&mut reader, span, wire)?, value)?;
                    entry.value = EntryValue::Scalar(raw)
                }
            },
            _ => reader.skip(number, wire, depth + 1)?,
        }
    }
    if let EntryValue::Scalar(raw) = entry.value {
        if !is_kept(value, raw) {
            return Ok(None);
        }
    }
    Ok(Some(entry))
}

/// A key's identity as Java compares it (strings after their UTF-8 conversion).
#[derive(PartialEq, Eq, Hash)]
enum KeyId<'a> {
    Default,
    Number(u64),
    Text(Cow<'a, [u8]>),
}

/// The identity of a key: its value as Java holds it (`bool` 0/1, 32-bit types cut to
/// an int, strings after their UTF-8 conversion), so that keys equal in Java are equal;
/// a missing key is the default key (0, false or "").
fn key_id<'a>(
    key: &ValuePlan,
    raw: Option<Raw<'a>>,
    utf8_checked: bool,
) -> DecodeResult<KeyId<'a>> {
    Ok(match (key, raw) {
        (_, None) => KeyId::Default,
        (_, Some(Raw::Bytes(b))) => {
            let t = text(b, utf8_checked)?;
            if t.is_empty() {
                KeyId::Default
            } else {
                KeyId::Text(t)
            }
        }
        (ValuePlan::Scalar(scalar), Some(raw)) => {
            let value = super::values::integer(*scalar, raw)
                .ok_or_else(|| DecodeFail::new(format!("unexpected {raw:?} for a map key")))?;
            if value == 0 {
                KeyId::Default
            } else {
                KeyId::Number(value as u64)
            }
        }
        (_, Some(_)) => return Err(DecodeFail::new("a map key must be a scalar")),
    })
}

/// Maps up to this size are deduplicated by comparing keys pairwise, larger ones with a
/// hash map.
const LINEAR_DEDUPE: usize = 16;

/// Keeps one entry per key: the first position, the last value; `replaced` sees every
/// value a later entry replaces.
fn dedupe<'a>(
    entries: Vec<Entry<'a>>,
    key: &ValuePlan,
    mut replaced: impl FnMut(&EntryValue<'a>) -> DecodeResult<()>,
    utf8_checked: bool,
) -> DecodeResult<Vec<Entry<'a>>> {
    if entries.len() < 2 {
        return Ok(entries);
    }
    if entries.len() <= LINEAR_DEDUPE {
        return dedupe_in_place(entries, key, replaced, utf8_checked);
    }
    let mut kept: Vec<Entry<'a>> = Vec::with_capacity(entries.len());
    let mut position: HashMap<KeyId<'a>, usize> = HashMap::new();
    for entry in entries {
        let id = key_id(key, entry.key, utf8_checked)?;
        match position.get(&id) {
            Some(&i) => {
                replaced(&kept[i].value)?;
                kept[i].value = entry.value;
            }
            None => {
                position.insert(id, kept.len());
                kept.push(entry);
            }
        }
    }
    Ok(kept)
}

/// [`dedupe`] for small maps: keys compared pairwise, entries compacted in place (no
/// allocation).
fn dedupe_in_place<'a>(
    mut entries: Vec<Entry<'a>>,
    key: &ValuePlan,
    mut replaced: impl FnMut(&EntryValue<'a>) -> DecodeResult<()>,
    utf8_checked: bool,
) -> DecodeResult<Vec<Entry<'a>>> {
    let mut kept = 0;
    for i in 0..entries.len() {
        let id = key_id(key, entries[i].key, utf8_checked)?;
        let mut seen = None;
        for (j, earlier) in entries[..kept].iter().enumerate() {
            if key_id(key, earlier.key, utf8_checked)? == id {
                seen = Some(j);
                break;
            }
        }
        match seen {
            Some(j) => {
                let value = std::mem::replace(&mut entries[i].value, EntryValue::Missing);
                replaced(&entries[j].value)?;
                entries[j].value = value;
            }
            None => {
                entries.swap(kept, i);
                kept += 1;
            }
        }
    }
    entries.truncate(kept);
    Ok(entries)
}

#[allow(clippy::too_many_arguments)]
fn write_entry_value(
    value: &ValuePlan,
    ty: &FlinkType,
    entry_value: &EntryValue<'_>,
    utf8_checked: bool,
    checks: &Checks,
    depth: usize,
    scratch: &mut Scratch,
    images: &mut Vec<u8>,
    slot: usize,
) -> DecodeResult<()> {
    match (value, entry_value) {
        (ValuePlan::Message(p) | ValuePlan::Group(p), entry_value) => {
            let bytes: &[u8] = match entry_value {
                EntryValue::Message(b) => b,
                _ => &[],
            };
            let start = images.len();
            write_row(p, checks, bytes, depth + 2, scratch, images)?;
            point_at(images, 0, slot, start)?;
        }
        (_, EntryValue::Scalar(raw)) => write_raw(ty, value, *raw, utf8_checked, images, 0, slot)?,
        (_, _) => {
            let default = match zero_default(value) {
                DefaultValue::Message => {
                    return Err(DecodeFail::new("a message default for a scalar map value"))
                }
                d => d,
            };
            write_default_scalar(ty, value, &default, images, 0, slot)?;
        }
    }
    Ok(())
}
