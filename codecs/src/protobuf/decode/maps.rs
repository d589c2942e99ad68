//! Map fields (MAP columns): entries read from the wire, deduplicated as Java keys, written
//! as key and value arrays in the order of the map flink-protobuf builds.
//!
//! flink-protobuf's generated decoder copies the message's map (protobuf-java's
//! `LinkedHashMap`: wire order, a repeated key in its first place with its last value) into
//! a `new HashMap()` keyed by Flink's internal keys (`BinaryStringData`, `Integer`, `Long`,
//! `Boolean`) and wraps it in a `GenericMapData`; every operator and encoder downstream
//! iterates that `HashMap`. The entries are written in its iteration order
//! ([`MapOrder`], a replay of the JDK's `HashMap` in `crate::java::hash_map`). As for
//! flink-json's maps, two string keys with equal hash codes in one tree bin (9 or more keys
//! in one bucket of a table of 64 or more) are ordered by `System.identityHashCode` in the
//! JDK, which nothing can reproduce; they take the left branch here.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;

use super::super::checks::Checks;
use super::super::plan::{DefaultValue, FieldPlan, Scalar, ValuePlan};
use super::super::wire::{WireReader, WireType};
use super::arrays::begin_array;
use super::row::write_row;
use super::values::{
    integer, is_kept, read_raw, text, write_bytes, write_default_scalar, write_raw, zero_default,
    Raw,
};
use super::{point_at, DecodeFail, DecodeResult, Scratch, NONE};
use crate::flink_binary::layout::{element_size, put};
use crate::java::hash_map::{
    binary_string_hash, bool_hash, int_hash, long_hash, JavaHashMap, JavaKeys,
};
use crate::types::{FlinkKind, FlinkType};

/// A map key or scalar value, located in the map field's buffer (so that entries can be
/// kept in the decoder's scratch space across messages).
#[derive(Debug, Clone, Copy)]
pub(super) enum Located {
    /// A varint's 64 bits.
    Varint(u64),
    /// 4 fixed bytes.
    Fixed32(u32),
    /// 8 fixed bytes.
    Fixed64(u64),
    /// A length-delimited value's bytes: `buf[start..end]`.
    Bytes(u32, u32),
}

impl Located {
    /// The raw value this locates in `buf`.
    #[inline]
    fn raw(self, buf: &[u8]) -> Raw<'_> {
        match self {
            Located::Varint(v) => Raw::Varint(v),
            Located::Fixed32(v) => Raw::Fixed32(v),
            Located::Fixed64(v) => Raw::Fixed64(v),
            Located::Bytes(start, end) => Raw::Bytes(&buf[start as usize..end as usize]),
        }
    }
}

/// One map entry as read from the wire: its key (None: the default key) and value.
#[derive(Debug, Clone, Copy)]
pub(super) struct MapEntry {
    key: Option<Located>,
    value: EntryValue,
}

/// The value of a [`MapEntry`].
#[derive(Debug, Clone, Copy)]
enum EntryValue {
    Missing,
    Scalar(Located),
    /// A message value: the spans `Scratch::parts[first..end]` of the buffer, merged by
    /// concatenation (a message value may occur several times in one entry).
    Message {
        first: u32,
        end: u32,
    },
}

/// The bytes of a message value made of the buffer spans `parts` (their concatenation).
fn joined<'a>(buf: &'a [u8], parts: &[(u32, u32)]) -> Cow<'a, [u8]> {
    match parts {
        [(start, end)] => Cow::Borrowed(&buf[*start as usize..*end as usize]),
        _ => {
            let mut bytes = Vec::new();
            for &(start, end) in parts {
                bytes.extend_from_slice(&buf[start as usize..end as usize]);
            }
            Cow::Owned(bytes)
        }
    }
}

/// Writes the MAP of a map field from its entries starting at `from`: a key seen again
/// keeps its first position and takes the later value (protobuf-java's map put); entries
/// whose closed-enum value is unknown are dropped. `false` when it has no entry.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
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
    if let (ValuePlan::Scalar(k), ValuePlan::Scalar(v)) = (key, value) {
        if write_small_map(
            field, *k, *v, key, value, key_ty, value_ty, buf, scratch, from, out, base, slot,
        )? {
            return Ok(true);
        }
    }
    let entry_base = scratch.entries.len();
    let part_base = scratch.parts.len();
    let result = (|| -> DecodeResult<bool> {
        let mut at = from;
        while at != NONE {
            let occ = scratch.occurrences[at as usize];
            at = occ.next;
            let entry = read_entry(
                key, value, buf, occ.start, occ.end, field, checks, depth, scratch,
            )?;
            if let Some(entry) = entry {
                scratch.entries.push(entry);
            }
        }
        let count = dedupe(
            scratch,
            entry_base,
            buf,
            key,
            value,
            checks,
            depth,
            field.utf8_checked,
        )?;
        if count == 0 {
            return Ok(false);
        }
        flink_map_order(scratch, entry_base, key, key_ty, buf, field.utf8_checked)?;
        let start = out.len();
        out.resize(start + 4, 0);
        let (array, first) = begin_array(out, key_ty, count)?;
        let size = element_size(key_ty);
        for i in 0..count {
            let element_slot = first + size * i;
            match scratch.entries[entry_base + i].key {
                Some(located) => write_raw(
                    key_ty,
                    key,
                    located.raw(buf),
                    field.utf8_checked,
                    out,
                    array,
                    element_slot,
                )?,
                None => {
                    write_default_scalar(key_ty, key, &zero_default(key), out, array, element_slot)?
                }
            }
        }
        let key_size = i32::try_from(out.len() - start - 4)
            .map_err(|_| DecodeFail::new("map keys larger than 2 GiB"))?;
        put(out, start, &key_size.to_le_bytes());
        let (array, first) = begin_array(out, value_ty, count)?;
        let size = element_size(value_ty);
        for i in 0..count {
            let entry_value = scratch.entries[entry_base + i].value;
            write_entry_value(
                value,
                value_ty,
                entry_value,
                field.utf8_checked,
                checks,
                buf,
                depth,
                scratch,
                out,
                array,
                first + size * i,
            )?;
        }
        point_at(out, base, slot, start)?;
        Ok(true)
    })();
    scratch.entries.truncate(entry_base);
    scratch.parts.truncate(part_base);
    result
}

/// Maps of scalar keys and values with up to this many entries on the wire take
/// [`write_small_map`].
const SMALL_MAP: usize = 16;

/// Whether two keys of type `scalar` located in `buf` are the same key in Java (strings
/// here are ASCII, so their bytes are their identity; numbers compare as Java holds
/// them).
#[inline]
fn same_key(scalar: Scalar, buf: &[u8], a: Located, b: Located) -> bool {
    match (a, b) {
        (Located::Bytes(s1, e1), Located::Bytes(s2, e2)) => {
            buf[s1 as usize..e1 as usize] == buf[s2 as usize..e2 as usize]
        }
        (a, b) => integer(scalar, a.raw(buf)) == integer(scalar, b.raw(buf)),
    }
}

/// Reads one value of type `scalar` (wire type `wire`) for [`write_small_map`] from
/// `span`, which starts at `start` of the field's buffer; `None` when it fails to read or
/// is a string that is not all ASCII (the general path then reports or converts it).
#[inline(always)]
fn small_value<'a>(
    reader: &mut WireReader<'a>,
    span: &'a [u8],
    start: u32,
    wire: WireType,
    scalar: Scalar,
) -> Option<Located> {
    match wire {
        WireType::Len => {
            let (at, end) = reader.read_len_span().ok()?;
            let ascii = scalar != Scalar::String || span[at..end].is_ascii();
            ascii.then_some(Located::Bytes(start + at as u32, start + end as u32))
        }
        WireType::Varint => reader.read_varint().ok().map(Located::Varint),
        _ => match read_raw(reader, span, wire).ok()? {
            Raw::Fixed32(v) => Some(Located::Fixed32(v)),
            Raw::Fixed64(v) => Some(Located::Fixed64(v)),
            _ => None,
        },
    }
}

/// The key and value of an entry with length-delimited key and value written as
/// protobuf writes it (`0a len key 12 len value`, lengths below 128), strings ASCII;
/// `None` for anything else.
#[inline(always)]
fn canonical_len_entry(
    span: &[u8],
    start: u32,
    key_scalar: Scalar,
    value_scalar: Scalar,
) -> Option<(Located, Located)> {
    let (&[0x0a, key_len], rest) = span.split_first_chunk::<2>()? else {
        return None;
    };
    let key_len = usize::from(key_len);
    let key = rest.get(..key_len)?;
    let (&[0x12, value_len], value) = rest[key_len..].split_first_chunk::<2>()? else {
        return None;
    };
    if key_len >= 0x80 || value_len >= 0x80 || usize::from(value_len) != value.len() {
        return None;
    }
    let ascii = |scalar: Scalar, bytes: &[u8]| scalar != Scalar::String || bytes.is_ascii();
    if !ascii(key_scalar, key) || !ascii(value_scalar, value) {
        return None;
    }
    let key_start = start + 2;
    let value_start = key_start + key_len as u32 + 2;
    Some((
        Located::Bytes(key_start, key_start + key_len as u32),
        Located::Bytes(value_start, value_start + value.len() as u32),
    ))
}

/// The fast path of [`write_map`] for scalar keys and values: at most [`SMALL_MAP`]
/// entries, each holding exactly its key and value fields (in any order, repeated or
/// not), strings all ASCII. Writes the same image as the general path and returns
/// `true`; returns `false` and writes nothing for any other map, malformed ones
/// included, which the general path then reads (or reports as it does).
#[allow(clippy::too_many_arguments)]
fn write_small_map(
    field: &FieldPlan,
    key_scalar: Scalar,
    value_scalar: Scalar,
    key: &ValuePlan,
    value: &ValuePlan,
    key_ty: &FlinkType,
    value_ty: &FlinkType,
    buf: &[u8],
    scratch: &mut Scratch,
    from: u32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<bool> {
    if matches!(key_scalar, Scalar::Float | Scalar::Double | Scalar::Bytes) {
        return Ok(false);
    }
    let entry_base = scratch.entries.len();
    let count = read_small_entries(key_scalar, value_scalar, buf, scratch, from);
    if count == 0 {
        scratch.entries.truncate(entry_base);
        return Ok(false);
    }
    if let Err(e) = flink_map_order(scratch, entry_base, key, key_ty, buf, field.utf8_checked) {
        scratch.entries.truncate(entry_base);
        return Err(e);
    }
    let result = write_small_entries(
        field,
        key,
        value,
        key_ty,
        value_ty,
        buf,
        &scratch.entries[entry_base..],
        out,
        base,
        slot,
    );
    scratch.entries.truncate(entry_base);
    result.map(|()| true)
}

/// Reads the entries of a small scalar map (see [`write_small_map`]) into
/// `scratch.entries`, one per key (the first position, the last value); 0 when the map
/// needs the general path.
#[inline(always)]
fn read_small_entries(
    key_scalar: Scalar,
    value_scalar: Scalar,
    buf: &[u8],
    scratch: &mut Scratch,
    from: u32,
) -> usize {
    let key_wire = key_scalar.wire_type();
    let value_wire = value_scalar.wire_type();
    let key_tag = 0x08 | key_wire.bits();
    let value_tag = 0x10 | value_wire.bits();
    let both_len = key_wire == WireType::Len && value_wire == WireType::Len;
    let entry_base = scratch.entries.len();
    let mut seen = 0usize;
    let mut at = from;
    while at != NONE {
        let occ = scratch.occurrences[at as usize];
        at = occ.next;
        seen += 1;
        if seen > SMALL_MAP {
            return 0;
        }
        let span = &buf[occ.start as usize..occ.end as usize];
        let (mut entry_key, mut entry_value) = (None, None);
        if both_len {
            if let Some((k, v)) = canonical_len_entry(span, occ.start, key_scalar, value_scalar) {
                entry_key = Some(k);
                entry_value = Some(v);
            }
        }
        let mut reader = WireReader::new(if entry_key.is_some() { &[] } else { span });
        while !reader.at_end() {
            let Ok(tag) = reader.read_varint32() else {
                return 0;
            };
            if tag == key_tag {
                entry_key = small_value(&mut reader, span, occ.start, key_wire, key_scalar);
                if entry_key.is_none() {
                    return 0;
                }
            } else if tag == value_tag {
                entry_value = small_value(&mut reader, span, occ.start, value_wire, value_scalar);
                if entry_value.is_none() {
                    return 0;
                }
            } else {
                return 0;
            }
        }
        let (Some(k), Some(v)) = (entry_key, entry_value) else {
            return 0;
        };
        // A key seen again keeps its first position and takes the later value.
        let kept = &mut scratch.entries[entry_base..];
        match kept.iter_mut().find(|e| match e.key {
            Some(other) => same_key(key_scalar, buf, other, k),
            None => false,
        }) {
            Some(e) => e.value = EntryValue::Scalar(v),
            None => scratch.entries.push(MapEntry {
                key: Some(k),
                value: EntryValue::Scalar(v),
            }),
        }
    }
    scratch.entries.len() - entry_base
}

/// Writes the MAP image of the deduplicated `entries` of a small scalar map (every key
/// and value present) and points `slot` at it, as the general path lays it out.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn write_small_entries(
    field: &FieldPlan,
    key: &ValuePlan,
    value: &ValuePlan,
    key_ty: &FlinkType,
    value_ty: &FlinkType,
    buf: &[u8],
    entries: &[MapEntry],
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    let count = entries.len();
    let start = out.len();
    out.resize(start + 4, 0);
    let (array, first) = begin_array(out, key_ty, count)?;
    let size = element_size(key_ty);
    for (i, e) in entries.iter().enumerate() {
        let Some(k) = e.key else {
            return Err(DecodeFail::new("a small map entry without its key"));
        };
        write_small(
            key_ty,
            key,
            k,
            buf,
            field.utf8_checked,
            out,
            array,
            first + size * i,
        )?;
    }
    let key_size = i32::try_from(out.len() - start - 4)
        .map_err(|_| DecodeFail::new("map keys larger than 2 GiB"))?;
    put(out, start, &key_size.to_le_bytes());
    let (array, first) = begin_array(out, value_ty, count)?;
    let size = element_size(value_ty);
    for (i, e) in entries.iter().enumerate() {
        let EntryValue::Scalar(v) = e.value else {
            return Err(DecodeFail::new("a small map entry without its value"));
        };
        write_small(
            value_ty,
            value,
            v,
            buf,
            field.utf8_checked,
            out,
            array,
            first + size * i,
        )?;
    }
    point_at(out, base, slot, start)
}

/// [`write_raw`] of a small map's key or value (strings are known to be ASCII there).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn write_small(
    ty: &FlinkType,
    plan: &ValuePlan,
    located: Located,
    buf: &[u8],
    utf8_checked: bool,
    out: &mut Vec<u8>,
    array: usize,
    slot: usize,
) -> DecodeResult<()> {
    match located {
        Located::Bytes(start, end) => {
            write_bytes(out, array, slot, &buf[start as usize..end as usize])
        }
        located => write_raw(ty, plan, located.raw(buf), utf8_checked, out, array, slot),
    }
}

/// Reads the entry in `buf[start..end]`; `None` when protobuf-java would keep it in the
/// unknown fields (a closed enum value it does not declare). Every string read is UTF-8
/// checked when the field's strings are (protobuf-java checks each as it parses, also
/// those a later one replaces), and each occurrence of a message value is checked on its
/// own.
#[allow(clippy::too_many_arguments)]
fn read_entry(
    key: &ValuePlan,
    value: &ValuePlan,
    buf: &[u8],
    start: u32,
    end: u32,
    field: &FieldPlan,
    checks: &Checks,
    depth: usize,
    scratch: &mut Scratch,
) -> DecodeResult<Option<MapEntry>> {
    let span = &buf[start as usize..end as usize];
    let utf8_checked = field.utf8_checked;
    let mut entry = MapEntry {
        key: None,
        value: EntryValue::Missing,
    };
    let mut reader = WireReader::new(span);
    while !reader.at_end() {
        let (number, wire) = reader.read_tag()?;
        match number {
            1 if wire == key.wire_type() => {
                entry.key = Some(locate(&mut reader, span, start, wire, key, utf8_checked)?)
            }
            2 if wire == value.wire_type() => match value {
                ValuePlan::Message(p) => {
                    let (s, e) = reader.read_len_span()?;
                    checks.check_message(p.check, &span[s..e], depth + 2)?;
                    let part = (start + s as u32, start + e as u32);
                    entry.value = match entry.value {
                        // Only this entry pushes parts while it is read: its value's
                        // parts are the last ones.
                        EntryValue::Message { first, end } => {
                            scratch.parts.push(part);
                            EntryValue::Message {
                                first,
                                end: end + 1,
                            }
                        }
                        _ => {
                            let first = scratch.parts.len() as u32;
                            scratch.parts.push(part);
                            EntryValue::Message {
                                first,
                                end: first + 1,
                            }
                        }
                    };
                }
                _ => {
                    let located = locate(&mut reader, span, start, wire, value, utf8_checked)?;
                    entry.value = EntryValue::Scalar(located)
                }
            },
            _ => reader.skip(number, wire, depth + 1)?,
        }
    }
    if let EntryValue::Scalar(located) = entry.value {
        if !is_kept(value, located.raw(buf)) {
            return Ok(None);
        }
    }
    Ok(Some(entry))
}

/// Reads the value that follows a tag of wire type `wire` in `span` (which starts at
/// `start` of the field's buffer) and locates it in that buffer; strings are UTF-8
/// checked (or found convertible) as they are read.
#[inline]
fn locate<'a>(
    reader: &mut WireReader<'a>,
    span: &'a [u8],
    start: u32,
    wire: WireType,
    plan: &ValuePlan,
    utf8_checked: bool,
) -> DecodeResult<Located> {
    Ok(match wire {
        WireType::Varint => Located::Varint(reader.read_varint()?),
        WireType::Len => {
            let (at, end) = reader.read_len_span()?;
            if let ValuePlan::Scalar(Scalar::String) = plan {
                text(&span[at..end], utf8_checked)?;
            }
            Located::Bytes(start + at as u32, start + end as u32)
        }
        _ => match read_raw(reader, span, wire)? {
            Raw::Fixed32(v) => Located::Fixed32(v),
            Raw::Fixed64(v) => Located::Fixed64(v),
            _ => return Err(DecodeFail::new("unexpected value in a map entry")),
        },
    })
}

/// Reused buffers of [`flink_map_order`].
#[derive(Debug, Default)]
pub(super) struct MapOrder {
    map: JavaHashMap,
    hash_codes: Vec<i32>,
    /// The key of each entry as a number (`Integer`, `Long`, `Boolean` as 0/1), for
    /// `compareTo` inside tree bins; unused for strings.
    numbers: Vec<i64>,
    strings: bool,
    order: Vec<u32>,
    permuted: Vec<MapEntry>,
}

impl JavaKeys for MapOrder {
    fn same(&self, a: u32, b: u32) -> bool {
        // Only the deduplicated entries are put: no two keys are equal.
        a == b
    }

    fn compare(&self, a: u32, b: u32) -> Ordering {
        if self.strings {
            // `BinaryStringData` is not `Comparable` to itself: the JDK breaks the tie by
            // identity hash (see the module documentation).
            return Ordering::Less;
        }
        self.numbers[a as usize].cmp(&self.numbers[b as usize])
    }
}

/// Puts the deduplicated entries `scratch.entries[entry_base..]` in the order the
/// `HashMap` flink-protobuf fills with them iterates (see the module documentation).
fn flink_map_order(
    scratch: &mut Scratch,
    entry_base: usize,
    key: &ValuePlan,
    key_ty: &FlinkType,
    buf: &[u8],
    utf8_checked: bool,
) -> DecodeResult<()> {
    let entries = &mut scratch.entries[entry_base..];
    if entries.len() < 2 {
        return Ok(());
    }
    let o = &mut scratch.map_order;
    o.hash_codes.clear();
    o.numbers.clear();
    o.strings = matches!(key_ty.kind, FlinkKind::Char(_) | FlinkKind::VarChar(_));
    for entry in entries.iter() {
        let raw = entry.key.map(|l| l.raw(buf));
        let (hash, number) = match (&key_ty.kind, raw) {
            (FlinkKind::Char(_) | FlinkKind::VarChar(_), None) => (binary_string_hash(b""), 0),
            (FlinkKind::Char(_) | FlinkKind::VarChar(_), Some(Raw::Bytes(b))) => {
                (binary_string_hash(&text(b, utf8_checked)?), 0)
            }
            (kind, raw) => {
                let value = match (key, raw) {
                    (_, None) => 0,
                    (ValuePlan::Scalar(scalar), Some(raw)) => {
                        integer(*scalar, raw).ok_or_else(|| {
                            DecodeFail::new(format!("unexpected {raw:?} for a map key"))
                        })?
                    }
                    _ => return Err(DecodeFail::new("a map key must be a scalar")),
                };
                let hash = match kind {
                    FlinkKind::Int => int_hash(value as i32),
                    FlinkKind::BigInt => long_hash(value),
                    FlinkKind::Boolean => bool_hash(value != 0),
                    _ => {
                        return Err(DecodeFail::new(format!(
                            "no Java key class for a map key of {}",
                            crate::types::summary_string(key_ty)
                        )))
                    }
                };
                (hash, value)
            }
        };
        o.hash_codes.push(hash);
        o.numbers.push(number);
    }
    let mut map = std::mem::take(&mut o.map);
    map.clear();
    for (i, &hash) in o.hash_codes.iter().enumerate() {
        map.put(hash, i as u32, i as u32, &*o);
    }
    o.order.clear();
    map.for_each(|k, _| o.order.push(k));
    o.map = map;
    o.permuted.clear();
    o.permuted
        .extend(o.order.iter().map(|&k| entries[k as usize]));
    entries.copy_from_slice(&o.permuted);
    Ok(())
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

/// Keeps one entry per key among `scratch.entries[entry_base..]`, compacted in place:
/// the first position, the last value. A message value a later entry replaces is never
/// decoded, but protobuf-java parsed it: it is checked. Returns the number kept.
#[allow(clippy::too_many_arguments)]
fn dedupe(
    scratch: &mut Scratch,
    entry_base: usize,
    buf: &[u8],
    key: &ValuePlan,
    value: &ValuePlan,
    checks: &Checks,
    depth: usize,
    utf8_checked: bool,
) -> DecodeResult<usize> {
    let total = scratch.entries.len() - entry_base;
    if total < 2 {
        return Ok(total);
    }
    let replaced = |scratch: &Scratch, old: EntryValue| -> DecodeResult<()> {
        match (value, old) {
            (ValuePlan::Message(p), EntryValue::Message { first, end }) => {
                let bytes = joined(buf, &scratch.parts[first as usize..end as usize]);
                Ok(checks.check_message(p.check, &bytes, depth + 2)?)
            }
            _ => Ok(()),
        }
    };
    fn key_of<'b>(
        scratch: &Scratch,
        at: usize,
        buf: &'b [u8],
        key: &ValuePlan,
        utf8_checked: bool,
    ) -> DecodeResult<KeyId<'b>> {
        key_id(
            key,
            scratch.entries[at].key.map(|l| l.raw(buf)),
            utf8_checked,
        )
    }
    // Large maps only: creating a hash map costs more than comparing a few keys.
    let mut position: Option<HashMap<KeyId<'_>, usize>> =
        (total > LINEAR_DEDUPE).then(HashMap::new);
    let mut kept = 0;
    for i in 0..total {
        let id = key_of(scratch, entry_base + i, buf, key, utf8_checked)?;
        let seen = if let Some(position) = position.as_mut() {
            match position.get(&id) {
                Some(&j) => Some(j),
                None => {
                    position.insert(id, kept);
                    None
                }
            }
        } else {
            let mut seen = None;
            for j in 0..kept {
                if key_of(scratch, entry_base + j, buf, key, utf8_checked)? == id {
                    seen = Some(j);
                    break;
                }
            }
            seen
        };
        match seen {
            Some(j) => {
                let later = scratch.entries[entry_base + i].value;
                replaced(scratch, scratch.entries[entry_base + j].value)?;
                scratch.entries[entry_base + j].value = later;
            }
            None => {
                scratch.entries.swap(entry_base + kept, entry_base + i);
                kept += 1;
            }
        }
    }
    scratch.entries.truncate(entry_base + kept);
    Ok(kept)
}

/// Writes one map value into `slot` of the value array at `array`.
#[allow(clippy::too_many_arguments)]
fn write_entry_value(
    value: &ValuePlan,
    ty: &FlinkType,
    entry_value: EntryValue,
    utf8_checked: bool,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    out: &mut Vec<u8>,
    array: usize,
    slot: usize,
) -> DecodeResult<()> {
    match (value, entry_value) {
        (ValuePlan::Message(p) | ValuePlan::Group(p), entry_value) => {
            let bytes = match entry_value {
                EntryValue::Message { first, end } => {
                    joined(buf, &scratch.parts[first as usize..end as usize])
                }
                _ => Cow::Borrowed(&[][..]),
            };
            let start = out.len();
            write_row(p, checks, &bytes, depth + 2, scratch, out)?;
            point_at(out, array, slot, start)?;
        }
        (_, EntryValue::Scalar(located)) => {
            write_raw(ty, value, located.raw(buf), utf8_checked, out, array, slot)?
        }
        (_, _) => {
            let default = match zero_default(value) {
                DefaultValue::Message => {
                    return Err(DecodeFail::new("a message default for a scalar map value"))
                }
                d => d,
            };
            write_default_scalar(ty, value, &default, out, array, slot)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::ProtobufRowDecoder;

    use crate::protobuf::test_support::{map, message, row, ty};
    use crate::protobuf::ProtobufOptions;
    use crate::types::FlinkType;

    fn len_field(number: u8, bytes: &[u8], into: &mut Vec<u8>) {
        into.push((number << 3) | 2);
        into.push(bytes.len() as u8);
        into.extend_from_slice(bytes);
    }

    const MAPS: &str = r#"
syntax = "proto3";
package m;
message M {
  map<string, string> ss = 1;
  map<int32, int64> ii = 2;
  map<bool, double> bd = 3;
  map<string, bytes> sb = 4;
  map<sint64, fixed32> zf = 5;
  map<uint32, float> uf = 6;
  map<fixed64, sint32> fs = 7;
}
"#;

    /// The image of the one row of `M` decoded from `bytes`.
    fn decode_maps(row_type: &FlinkType, bytes: &[u8]) -> Result<Vec<u8>, String> {
        let descriptor = message(MAPS, "m.M");
        let mut d = ProtobufRowDecoder::new(&descriptor, row_type, ProtobufOptions::default())
            .map_err(|e| e.to_string())?;
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        d.decode_message(bytes, &mut out, &mut ends)
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// A varint's bytes.
    fn varint(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }

    /// The map field `number` with one record per entry; each entry's fields as given
    /// (raw bytes after the length prefix), plus an unknown varint field 3 when `padded`.
    fn map_field(number: u8, entries: &[Vec<u8>], padded: bool) -> Vec<u8> {
        let mut wire = Vec::new();
        for e in entries {
            let mut e = e.clone();
            if padded {
                e.extend_from_slice(&[0x18, 0x01]);
            }
            wire.push((number << 3) | 2);
            wire.extend_from_slice(&varint(e.len() as u64));
            wire.extend_from_slice(&e);
        }
        wire
    }

    fn len_entry(key: &[u8], value: &[u8]) -> Vec<u8> {
        let mut e = Vec::new();
        len_field(1, key, &mut e);
        len_field(2, value, &mut e);
        e
    }

    #[test]
    fn small_scalar_maps_write_what_the_general_path_writes() {
        let s = || ty("STRING");
        let t = row(&[
            ("ss", map(s(), s())),
            ("ii", map(ty("INT"), ty("BIGINT"))),
            ("bd", map(ty("BOOLEAN"), ty("DOUBLE"))),
            ("sb", map(s(), ty("BYTES"))),
            ("zf", map(ty("BIGINT"), ty("INT"))),
            ("uf", map(ty("INT"), ty("FLOAT"))),
            ("fs", map(ty("BIGINT"), ty("INT"))),
        ]);
        let long = b"a key longer than seven bytes".to_vec();
        // Strings: canonical entries, a duplicate key (first position, last value), long
        // keys and values, empty ones, value before key, a key field repeated inside an
        // entry, a non-minimal length varint, non-ASCII text (general path either way).
        let mut odd_length = vec![0x0a, 0x81, 0x00, b'q'];
        len_field(2, b"v", &mut odd_length);
        let mut reversed = Vec::new();
        len_field(2, b"rv", &mut reversed);
        len_field(1, b"rk", &mut reversed);
        let mut twice = Vec::new();
        len_field(1, b"gone", &mut twice);
        len_field(2, b"tv", &mut twice);
        len_field(1, b"tk", &mut twice);
        let string_cases: Vec<Vec<Vec<u8>>> = vec![
            vec![len_entry(b"gift", b"yes"), len_entry(b"src", b"s1")],
            vec![
                len_entry(b"k", b"a"),
                len_entry(b"j", b"b"),
                len_entry(b"k", b"c"),
                len_entry(b"", b""),
                len_entry(b"j", &long),
            ],
            vec![len_entry(&long, &long), len_entry(b"x", b"")],
            vec![reversed, twice, odd_length, len_entry(b"tk", b"again")],
            vec![
                len_entry("h\u{e9}".as_bytes(), b"v"),
                len_entry(b"k", "\u{e9}".as_bytes()),
            ],
            (0..16u8)
                .map(|i| len_entry(&[b'a' + i % 5], &[b'0' + i]))
                .collect(),
        ];
        for entries in &string_cases {
            for number in [1u8, 4] {
                let fast = decode_maps(&t, &map_field(number, entries, false)).unwrap();
                let general = decode_maps(&t, &map_field(number, entries, true)).unwrap();
                assert_eq!(fast, general, "field {number}, {entries:02x?}");
            }
        }
        // Numbers: keys equal in Java (int32 2^32+5 and 5; bool 1 and 2; sint64 and
        // fixed64 keys), 10-byte varints, values of every fixed width.
        let num = |key: Vec<u8>, value: Vec<u8>| -> Vec<u8> { [key, value].concat() };
        let int_cases: Vec<(u8, Vec<Vec<u8>>)> = vec![
            (
                2,
                vec![
                    num(
                        [vec![0x08], varint((1 << 32) + 5)].concat(),
                        [vec![0x10], varint(7)].concat(),
                    ),
                    num(
                        [vec![0x08], varint(9)].concat(),
                        [vec![0x10], varint(u64::MAX)].concat(),
                    ),
                    num(
                        [vec![0x08], varint(5)].concat(),
                        [vec![0x10], varint(300)].concat(),
                    ),
                    num(
                        [vec![0x08], varint(0)].concat(),
                        [vec![0x10], varint(1)].concat(),
                    ),
                ],
            ),
            (
                3,
                vec![
                    num(
                        vec![0x08, 0x01],
                        [vec![0x11], 1.5f64.to_le_bytes().to_vec()].concat(),
                    ),
                    num(
                        vec![0x08, 0x00],
                        [vec![0x11], (-0.0f64).to_le_bytes().to_vec()].concat(),
                    ),
                    num(
                        vec![0x08, 0x02],
                        [vec![0x11], f64::NAN.to_le_bytes().to_vec()].concat(),
                    ),
                ],
            ),
            (
                5,
                vec![
                    num([vec![0x08], varint(3)].concat(), vec![0x15, 1, 2, 3, 4]),
                    num([vec![0x08], varint(4)].concat(), vec![0x15, 5, 6, 7, 8]),
                    num([vec![0x08], varint(3)].concat(), vec![0x15, 9, 9, 9, 9]),
                ],
            ),
            (
                6,
                vec![
                    num(
                        [vec![0x08], varint(1 << 35)].concat(),
                        vec![0x15, 0, 0, 0xc0, 0x3f],
                    ),
                    num(
                        [vec![0x08], varint(0)].concat(),
                        vec![0x15, 0, 0, 0x80, 0x7f],
                    ),
                ],
            ),
            (
                7,
                vec![
                    num(
                        [vec![0x09], 7u64.to_le_bytes().to_vec()].concat(),
                        [vec![0x10], varint(3)].concat(),
                    ),
                    num(
                        [vec![0x09], u64::MAX.to_le_bytes().to_vec()].concat(),
                        [vec![0x10], varint(4)].concat(),
                    ),
                    num(
                        [vec![0x09], 7u64.to_le_bytes().to_vec()].concat(),
                        [vec![0x10], varint(5)].concat(),
                    ),
                ],
            ),
        ];
        for (number, entries) in &int_cases {
            let fast = decode_maps(&t, &map_field(*number, entries, false)).unwrap();
            let general = decode_maps(&t, &map_field(*number, entries, true)).unwrap();
            assert_eq!(fast, general, "field {number}, {entries:02x?}");
        }
        // Dedupe really happened: int32 key 2^32+5 is key 5, and bool 2 is true; the
        // entries come in `HashMap<Integer, _>` order (the wire has 5, 9, 0).
        let render = |image: &[u8]| crate::protobuf::test_support::render(image, &t);
        let image = decode_maps(&t, &map_field(2, &int_cases[0].1, false)).unwrap();
        assert!(
            render(&image).contains("{0=1, 5=300, 9=-1}"),
            "{}",
            render(&image)
        );
        // Malformed entries fail as on the general path.
        for bad in [
            &[0x0a, 0x03, 0x0a, 0x05, 0x61][..],
            &[0x0a, 0x02, 0x0a, 0x80][..],
        ] {
            assert!(decode_maps(&t, bad).is_err());
        }
    }

    #[test]
    fn canonical_entries_are_recognised_exactly() {
        use super::{canonical_len_entry, Located};
        use crate::protobuf::plan::Scalar;
        let e = len_entry(b"key", b"value");
        match canonical_len_entry(&e, 10, Scalar::String, Scalar::String) {
            Some((Located::Bytes(12, 15), Located::Bytes(17, 22))) => {}
            other => panic!("{other:?}"),
        }
        // A length byte with its continuation bit, a length past the end, trailing
        // bytes, another order or tag, non-ASCII text: not canonical.
        let mut long_len = vec![0x0a, 0x01, b'k', 0x12, 0x81];
        long_len.extend_from_slice(&[b'v'; 129]);
        let mut trailing = e.clone();
        trailing.push(0);
        let mut reversed = Vec::new();
        len_field(2, b"v", &mut reversed);
        len_field(1, b"k", &mut reversed);
        for span in [
            long_len,
            vec![0x0a, 0x05, b'k'],
            trailing,
            reversed,
            len_entry("\u{e9}".as_bytes(), b"v"),
        ] {
            assert!(
                canonical_len_entry(&span, 0, Scalar::String, Scalar::String).is_none(),
                "{span:02x?}"
            );
        }
        // Bytes values are not checked for ASCII.
        assert!(
            canonical_len_entry(&len_entry(b"k", &[0xff]), 0, Scalar::String, Scalar::Bytes)
                .is_some()
        );
    }
}
