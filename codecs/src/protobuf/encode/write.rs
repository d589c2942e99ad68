//! Writing one row image as protobuf bytes, following a [`MessageProgram`].

use std::borrow::Cow;
use std::cmp::Ordering;

use super::program::{
    EnumProgram, EnumSource, FieldProgram, FieldShape, MapKey, MapProgram, MessageProgram, Tag,
    ValueProgram,
};
use super::Scratch;
use crate::error::CodecError;
use crate::flink_binary::java_detail::ImageForm;
use crate::flink_binary::slots::{bad, read_i32, Slots};
use crate::java::hash_map::{
    bool_hash, int_hash, long_hash, string_compare, string_hash, string_hash_of_units, JavaKeys,
};
use crate::java::utf8::{java_detail_units, java_detail_utf8};
use crate::protobuf::wire::{put_int32, put_varint, varint_len, zigzag_encode32, zigzag_encode64};

/// The encoder's state while writing one row.
pub(super) struct Writer<'e> {
    /// Scratch stacks for maps.
    pub(super) scratch: &'e mut Scratch,
    /// `write-null-string-literal`.
    pub(super) null_string: &'e str,
    /// How the image being written stores strings (a marked image holds Java text).
    pub(super) form: ImageForm,
}

/// One value in wire form (without its tag).
pub(super) enum Prim<'a> {
    /// An `int32` or enum value: a varint, sign-extended to 10 bytes when negative.
    Int32(i32),
    /// A varint.
    Varint(u64),
    /// 4 little-endian bytes.
    Fixed32(u32),
    /// 8 little-endian bytes.
    Fixed64(u64),
    /// A length-delimited string or bytes value.
    Len(Cow<'a, [u8]>),
}

impl Prim<'_> {
    /// Whether this is the default value of its type (protobuf-java's check for implicit
    /// presence: zero bits, `false`, empty).
    #[inline]
    fn is_default(&self) -> bool {
        match self {
            Prim::Int32(v) => *v == 0,
            Prim::Varint(v) | Prim::Fixed64(v) => *v == 0,
            Prim::Fixed32(v) => *v == 0,
            Prim::Len(bytes) => bytes.is_empty(),
        }
    }

    /// Appends the value.
    #[inline(always)]
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Prim::Int32(v) => put_int32(out, *v),
            Prim::Varint(v) => put_varint(out, *v),
            Prim::Fixed32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Prim::Fixed64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Prim::Len(bytes) => {
                put_varint(out, bytes.len() as u64);
                out.extend_from_slice(bytes);
            }
        }
    }
}

/// The bytes protobuf-java writes for the Java string flink-protobuf gets from a
/// `StringData` (`toString()`): in Flink's layout valid UTF-8 as is and malformed sequences
/// U+FFFD by the JDK's rules; in a marked image (the Java text itself) each lone surrogate
/// `?`, as the JDK's UTF-8 encoder protobuf-java falls back to writes it.
pub(super) fn java_text(bytes: &[u8], form: ImageForm) -> Cow<'_, str> {
    match form {
        ImageForm::Flink => crate::java::utf8::java_utf8_lossy(bytes),
        ImageForm::JavaDetail => java_detail_utf8(bytes),
    }
}

/// Appends a one-byte length placeholder and returns where the content starts.
#[inline]
fn begin_len(out: &mut Vec<u8>) -> usize {
    out.push(0);
    out.len()
}

/// Fills the length placeholder before the content starting at `start`, moving the
/// content up when the length needs more than one byte.
#[inline]
fn end_len(out: &mut Vec<u8>, start: usize) -> Result<(), CodecError> {
    let len = out.len() - start;
    if len < 0x80 {
        out[start - 1] = len as u8;
        return Ok(());
    }
    if len > i32::MAX as usize {
        return Err(CodecError::ProtobufEncode(
            "a protobuf message cannot be larger than 2 GiB".into(),
        ));
    }
    let width = varint_len(len as u64);
    let extra = width - 1;
    out.resize(out.len() + extra, 0);
    out.copy_within(start..start + len, start + extra);
    let mut rest = len;
    for byte in &mut out[start - 1..start - 1 + width] {
        *byte = (rest as u8 & 0x7f) | 0x80;
        rest >>= 7;
    }
    out[start - 2 + width] &= 0x7f;
    Ok(())
}

/// The slots of a nested row at `base`.
pub(super) fn row_slots(buf: &[u8], base: usize, arity: usize) -> Result<Slots<'_>, CodecError> {
    if base > buf.len() {
        return Err(bad(format!("a nested row at {base} is outside the image")));
    }
    Slots::row(buf, base, arity)
}

/// The slots of an array at `base` with elements of `size` bytes.
pub(super) fn array_slots(buf: &[u8], base: usize, size: usize) -> Result<Slots<'_>, CodecError> {
    if base > buf.len() {
        return Err(bad(format!("an array at {base} is outside the image")));
    }
    Slots::array(buf, base, size)
}

/// The key and value arrays of the binary map at `at`.
pub(super) fn map_slots(
    buf: &[u8],
    at: usize,
    key_size: usize,
    value_size: usize,
) -> Result<(Slots<'_>, Slots<'_>), CodecError> {
    let key_bytes = read_i32(buf, at)?;
    let key_bytes = usize::try_from(key_bytes)
        .map_err(|_| bad(format!("negative map key array size {key_bytes}")))?;
    let keys = array_slots(buf, at + 4, key_size)?;
    let values = array_slots(buf, at + 4 + key_bytes, value_size)?;
    if keys.arity != values.arity {
        return Err(bad(format!(
            "map with {} keys and {} values",
            keys.arity, values.arity
        )));
    }
    Ok((keys, values))
}

/// Reads the number of element `i` of an INT (4-byte) or BIGINT (8-byte) slot.
#[inline]
fn int_at(slots: &Slots<'_>, i: usize, size: usize) -> i32 {
    i32::from_le_bytes(slots.fixed(i, size))
}

#[inline]
fn long_at(slots: &Slots<'_>, i: usize, size: usize) -> i64 {
    i64::from_le_bytes(slots.fixed(i, size))
}

/// The enum number written for element `i` (known not to be NULL).
fn enum_number(
    e: &EnumProgram,
    slots: &Slots<'_>,
    i: usize,
    size: usize,
) -> Result<i32, CodecError> {
    Ok(match e.source {
        EnumSource::Text => e.number_of_name(slots.var(i, size)?),
        EnumSource::Int => e.resolve_number(int_at(slots, i, size)),
        // `(int) rowData.getLong(i)`.
        EnumSource::BigInt => e.resolve_number(long_at(slots, i, size) as i32),
    })
}

/// The wire form of an integer-valued scalar (or bool as 0/1, or float/double bits) held
/// as `n`.
#[inline]
fn number_prim(value: &ValueProgram, n: i64) -> Prim<'static> {
    match value {
        ValueProgram::Int32 | ValueProgram::Enum(_) => Prim::Int32(n as i32),
        ValueProgram::UInt32 => Prim::Varint(u64::from(n as u32)),
        ValueProgram::SInt32 => Prim::Varint(u64::from(zigzag_encode32(n as i32))),
        ValueProgram::Fixed32 | ValueProgram::Float => Prim::Fixed32(n as u32),
        ValueProgram::Int64 => Prim::Varint(n as u64),
        ValueProgram::SInt64 => Prim::Varint(zigzag_encode64(n)),
        ValueProgram::Fixed64 | ValueProgram::Double => Prim::Fixed64(n as u64),
        ValueProgram::Bool => Prim::Varint(u64::from(n != 0)),
        ValueProgram::String
        | ValueProgram::Bytes
        | ValueProgram::Message(_)
        | ValueProgram::Group { .. } => Prim::Varint(0),
    }
}

/// Reads element `i` (slots of `size` bytes, not NULL) of a scalar or enum value.
#[inline(always)]
fn read_prim<'a>(
    value: &ValueProgram,
    slots: &Slots<'a>,
    i: usize,
    size: usize,
    form: ImageForm,
) -> Result<Prim<'a>, CodecError> {
    Ok(match value {
        ValueProgram::Int32
        | ValueProgram::UInt32
        | ValueProgram::SInt32
        | ValueProgram::Fixed32 => number_prim(value, i64::from(int_at(slots, i, size))),
        ValueProgram::Int64 | ValueProgram::SInt64 | ValueProgram::Fixed64 => {
            number_prim(value, long_at(slots, i, size))
        }
        ValueProgram::Float => Prim::Fixed32(u32::from_le_bytes(slots.fixed(i, size))),
        ValueProgram::Double => Prim::Fixed64(u64::from_le_bytes(slots.fixed(i, size))),
        ValueProgram::Bool => Prim::Varint(u64::from(slots.fixed::<1>(i, size)[0] != 0)),
        ValueProgram::String => {
            let bytes = slots.var(i, size)?;
            // ASCII is valid UTF-8 and the common case: no validation pass.
            Prim::Len(if bytes.is_ascii() {
                Cow::Borrowed(bytes)
            } else {
                match java_text(bytes, form) {
                    Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
                    Cow::Owned(text) => Cow::Owned(text.into_bytes()),
                }
            })
        }
        ValueProgram::Bytes => Prim::Len(Cow::Borrowed(slots.var(i, size)?)),
        ValueProgram::Enum(e) => Prim::Int32(enum_number(e, slots, i, size)?),
        ValueProgram::Message(_) | ValueProgram::Group { .. } => Prim::Varint(0),
    })
}

/// Writes a singular scalar or enum field from column `column` (not NULL): its tag and
/// value, or nothing for a default under implicit presence. The common types go from the
/// slot to the wire directly; the rest (enums, non-ASCII strings) through [`Prim`].
#[inline(always)]
fn write_single(
    tag: &Tag,
    value: &ValueProgram,
    implicit: bool,
    row: &Slots<'_>,
    column: usize,
    out: &mut Vec<u8>,
    form: ImageForm,
) -> Result<(), CodecError> {
    match value {
        ValueProgram::Int64 => {
            let v = long_at(row, column, 8);
            if !(implicit && v == 0) {
                tag.put(out);
                put_varint(out, v as u64);
            }
        }
        ValueProgram::Int32 => {
            let v = int_at(row, column, 8);
            if !(implicit && v == 0) {
                tag.put(out);
                put_int32(out, v);
            }
        }
        ValueProgram::String | ValueProgram::Bytes => {
            let bytes = row.var(column, 8)?;
            if implicit && bytes.is_empty() {
                return Ok(());
            }
            if matches!(value, ValueProgram::String) && !bytes.is_ascii() {
                let prim = read_prim(value, row, column, 8, form)?;
                tag.put(out);
                prim.put(out);
                return Ok(());
            }
            tag.put(out);
            put_varint(out, bytes.len() as u64);
            out.extend_from_slice(bytes);
        }
        _ => {
            let prim = read_prim(value, row, column, 8, form)?;
            if !(implicit && prim.is_default()) {
                tag.put(out);
                prim.put(out);
            }
        }
    }
    Ok(())
}

impl<'e> Writer<'e> {
    /// The value flink-protobuf puts in place of a NULL element or map key/value of a
    /// scalar or enum type.
    fn null_prim(&self, value: &ValueProgram) -> Prim<'e> {
        match value {
            ValueProgram::String => Prim::Len(Cow::Borrowed(self.null_string.as_bytes())),
            ValueProgram::Bytes => Prim::Len(Cow::Borrowed(&[])),
            ValueProgram::Enum(e) => Prim::Int32(e.first),
            other => number_prim(other, 0),
        }
    }

    /// Writes the fields of the row `row` of `program` in field-number order.
    pub(super) fn write_message(
        &mut self,
        program: &MessageProgram,
        row: &Slots<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        for field in &program.fields {
            let column = field.column;
            if row.is_null(column) || field.rivals.iter().any(|&c| !row.is_null(c)) {
                continue;
            }
            self.write_field(field, row, out)?;
        }
        Ok(())
    }

    fn write_field(
        &mut self,
        field: &FieldProgram,
        row: &Slots<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let column = field.column;
        match &field.shape {
            FieldShape::Single { tag, value } => match value {
                ValueProgram::Message(_) | ValueProgram::Group { .. } => {
                    self.write_sub_message(tag, value, row, column, 8, out)
                }
                _ => write_single(tag, value, field.implicit, row, column, out, self.form),
            },
            FieldShape::Packed { tag, value, size } => {
                let (at, _) = row.reference(column, 8);
                let items = array_slots(row.buf, at, *size)?;
                self.write_packed(tag, value, &items, *size, out)
            }
            FieldShape::Repeated { tag, value, size } => {
                let (at, _) = row.reference(column, 8);
                let items = array_slots(row.buf, at, *size)?;
                for j in 0..items.arity {
                    self.write_element(tag, value, &items, j, *size, out)?;
                }
                Ok(())
            }
            FieldShape::Map(map) => {
                let (at, _) = row.reference(column, 8);
                let (keys, values) = map_slots(row.buf, at, map.key_size, map.value_size)?;
                self.write_map(map, &keys, &values, out)
            }
        }
    }

    /// Writes a message or group value from element `i` of `slots`; NULL elements are
    /// the default instance (an empty message).
    fn write_sub_message(
        &mut self,
        tag: &Tag,
        value: &ValueProgram,
        slots: &Slots<'_>,
        i: usize,
        size: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        tag.put(out);
        match value {
            ValueProgram::Message(message) => {
                let start = begin_len(out);
                if !slots.is_null(i) {
                    let (at, _) = slots.reference(i, size);
                    let nested = row_slots(slots.buf, at, message.arity)?;
                    self.write_message(message, &nested, out)?;
                }
                end_len(out, start)
            }
            ValueProgram::Group { message, end } => {
                if !slots.is_null(i) {
                    let (at, _) = slots.reference(i, size);
                    let nested = row_slots(slots.buf, at, message.arity)?;
                    self.write_message(message, &nested, out)?;
                }
                end.put(out);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Writes element `j` of a non-packed repeated field as one record.
    fn write_element(
        &mut self,
        tag: &Tag,
        value: &ValueProgram,
        items: &Slots<'_>,
        j: usize,
        size: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        if value.message().is_some() {
            return self.write_sub_message(tag, value, items, j, size, out);
        }
        tag.put(out);
        if items.is_null(j) {
            self.null_prim(value).put(out);
        } else {
            read_prim(value, items, j, size, self.form)?.put(out);
        }
        Ok(())
    }

    /// Writes a packed field: nothing for an empty array, else one length-delimited record.
    fn write_packed(
        &mut self,
        tag: &Tag,
        value: &ValueProgram,
        items: &Slots<'_>,
        size: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let count = items.arity;
        if count == 0 {
            return Ok(());
        }
        tag.put(out);
        if let Some(width) = value.fixed_width() {
            put_varint(out, (count * width) as u64);
            out.reserve(count * width);
            for j in 0..count {
                if items.is_null(j) {
                    self.null_prim(value).put(out);
                } else {
                    read_prim(value, items, j, size, self.form)?.put(out);
                }
            }
            return Ok(());
        }
        let start = begin_len(out);
        for j in 0..count {
            if items.is_null(j) {
                self.null_prim(value).put(out);
            } else {
                read_prim(value, items, j, size, self.form)?.put(out);
            }
        }
        end_len(out, start)
    }

    /// Writes a map's entries in `java.util.HashMap` order, key and value always present.
    fn write_map(
        &mut self,
        map: &MapProgram,
        keys: &Slots<'_>,
        values: &Slots<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        if keys.arity == 0 {
            return Ok(());
        }
        let MapProgram {
            tag,
            key,
            key_tag,
            value,
            value_tag,
            value_size,
            ..
        } = map;
        let value_size = *value_size;
        let marks = self.order_map(key, keys, map.key_size)?;
        let end = self.scratch.order.len();
        let result = (|| {
            for n in marks.order..end {
                let (k, v) = self.scratch.order[n];
                tag.put(out);
                let start = begin_len(out);
                key_tag.put(out);
                let map_key = self.scratch.keys[marks.keys + k as usize];
                match key {
                    ValueProgram::String => {
                        let (from, to) = map_key.text;
                        let text = &self.scratch.key_text.as_bytes()[from as usize..to as usize];
                        put_varint(out, text.len() as u64);
                        out.extend_from_slice(text);
                    }
                    other => number_prim(other, map_key.number).put(out),
                }
                let v = v as usize;
                if value.message().is_some() {
                    self.write_sub_message(value_tag, value, values, v, value_size, out)?;
                } else {
                    value_tag.put(out);
                    if values.is_null(v) {
                        self.null_prim(value).put(out);
                    } else {
                        read_prim(value, values, v, value_size, self.form)?.put(out);
                    }
                }
                end_len(out, start)?;
            }
            Ok(())
        })();
        self.release(&marks);
        result
    }

    /// Converts the keys of a map as flink-protobuf does (NULL becomes the default) and
    /// replays their `HashMap.put`s: pushes the keys onto the scratch key stack and the
    /// (key, last value) pairs in iteration order onto the order stack. Release with
    /// [`Writer::release`].
    pub(super) fn order_map(
        &mut self,
        key: &ValueProgram,
        keys: &Slots<'_>,
        key_size: usize,
    ) -> Result<Marks, CodecError> {
        let marks = Marks {
            keys: self.scratch.keys.len(),
            text: self.scratch.key_text.len(),
            java: self.scratch.key_java.len(),
            order: self.scratch.order.len(),
        };
        let marked = self.form == ImageForm::JavaDetail;
        let count = keys.arity;
        let strings = matches!(key, ValueProgram::String);
        for j in 0..count {
            let null = keys.is_null(j);
            let entry = if strings {
                let from = self.scratch.key_text.len();
                let java_from = self.scratch.key_java.len();
                let mut hash = None;
                if null {
                    self.scratch.key_text.push_str(self.null_string);
                } else {
                    let bytes = keys.var(j, key_size)?;
                    self.scratch.key_text.push_str(&java_text(bytes, self.form));
                    if marked {
                        // flink-protobuf's HashMap<String, _> hashes and compares the Java
                        // string, lone surrogates and all; protobuf-java writes them as '?'.
                        hash = Some(string_hash_of_units(java_detail_units(bytes)));
                        self.scratch.key_java.extend_from_slice(bytes);
                    }
                }
                let to = self.scratch.key_text.len();
                if marked && null {
                    self.scratch
                        .key_java
                        .extend_from_slice(self.null_string.as_bytes());
                }
                let java_to = self.scratch.key_java.len();
                MapKey {
                    hash: hash.unwrap_or_else(|| string_hash(&self.scratch.key_text[from..to])),
                    number: 0,
                    text: (text_offset(from)?, text_offset(to)?),
                    java: (text_offset(java_from)?, text_offset(java_to)?),
                }
            } else {
                let (number, hash) = match key {
                    ValueProgram::Bool => {
                        let b = !null && keys.fixed::<1>(j, key_size)[0] != 0;
                        (i64::from(b), bool_hash(b))
                    }
                    ValueProgram::Int64 | ValueProgram::SInt64 | ValueProgram::Fixed64 => {
                        let n = if null { 0 } else { long_at(keys, j, key_size) };
                        (n, long_hash(n))
                    }
                    _ => {
                        let n = if null { 0 } else { int_at(keys, j, key_size) };
                        (i64::from(n), int_hash(n))
                    }
                };
                MapKey {
                    hash,
                    number,
                    text: (0, 0),
                    java: (0, 0),
                }
            };
            self.scratch.keys.push(entry);
        }
        if count == 1 {
            self.scratch.order.push((0, 0));
            return Ok(marks);
        }
        let Scratch {
            map,
            keys: key_stack,
            key_text,
            key_java,
            order,
        } = &mut *self.scratch;
        let view = KeyView {
            keys: &key_stack[marks.keys..],
            text: key_text,
            java: marked.then_some(key_java.as_slice()),
            strings,
        };
        map.clear();
        for (j, k) in view.keys.iter().enumerate() {
            map.put(k.hash, j as u32, j as u32, &view);
        }
        map.for_each(|k, v| order.push((k, v)));
        Ok(marks)
    }

    /// Pops what [`Writer::order_map`] pushed.
    pub(super) fn release(&mut self, marks: &Marks) {
        self.scratch.keys.truncate(marks.keys);
        self.scratch.key_text.truncate(marks.text);
        self.scratch.key_java.truncate(marks.java);
        self.scratch.order.truncate(marks.order);
    }
}

/// The heights of the scratch stacks before a map pushed onto them.
pub(super) struct Marks {
    /// Start of the map's keys in the key stack.
    pub(super) keys: usize,
    /// Start of the map's key text.
    pub(super) text: usize,
    /// Start of the map's Java key text (marked images).
    pub(super) java: usize,
    /// Start of the map's entries in the order stack.
    pub(super) order: usize,
}

fn text_offset(n: usize) -> Result<u32, CodecError> {
    u32::try_from(n).map_err(|_| CodecError::ProtobufEncode("map keys larger than 4 GiB".into()))
}

/// The keys of one map, compared as the Java key objects.
struct KeyView<'s> {
    keys: &'s [MapKey],
    text: &'s str,
    /// The Java text of the string keys of a marked image (lone surrogates kept), which
    /// is what the Java keys compare by; `None` for Flink's layout, whose key text is it.
    java: Option<&'s [u8]>,
    strings: bool,
}

impl KeyView<'_> {
    fn text_of(&self, k: u32) -> &str {
        let (from, to) = self.keys[k as usize].text;
        self.text
            .get(from as usize..to as usize)
            .unwrap_or_default()
    }

    fn java_of<'j>(&self, java: &'j [u8], k: u32) -> &'j [u8] {
        let (from, to) = self.keys[k as usize].java;
        java.get(from as usize..to as usize).unwrap_or_default()
    }
}

impl JavaKeys for KeyView<'_> {
    fn same(&self, a: u32, b: u32) -> bool {
        if let (true, Some(java)) = (self.strings, self.java) {
            // One UTF-16 text has one marked encoding, so equal bytes are equal strings.
            self.java_of(java, a) == self.java_of(java, b)
        } else if self.strings {
            self.text_of(a) == self.text_of(b)
        } else {
            self.keys[a as usize].number == self.keys[b as usize].number
        }
    }

    fn compare(&self, a: u32, b: u32) -> Ordering {
        if let (true, Some(java)) = (self.strings, self.java) {
            java_detail_units(self.java_of(java, a)).cmp(java_detail_units(self.java_of(java, b)))
        } else if self.strings {
            string_compare(self.text_of(a), self.text_of(b))
        } else {
            self.keys[a as usize]
                .number
                .cmp(&self.keys[b as usize].number)
        }
    }
}
