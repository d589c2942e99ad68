//! The converters of flink-json's default, streaming decoder
//! (`JsonParserToRowDataConverters` in 2.2.0), writing Flink binary row images while
//! they pull tokens. They follow the Java algorithm step for step, because its results
//! depend on where the cursor stands: the matched-field counter, fields skipped once the
//! counter reaches the arity, and, under `ignore-parse-errors`, a failed field leaving
//! the cursor wherever the failure happened (spec §1.4, §1.7).

use crate::flink_binary::elements::ElementImages;
use crate::flink_binary::layout::{
    put, row_null_bytes, set_bit, set_offset_and_size, write_big_decimal, write_big_timestamp,
    write_var_bytes,
};
use crate::java::base64::decode_base64_parser_at;
use crate::java::hash_map::{binary_string_hash, decoded_map_order, JavaHashMap};
use crate::java::numbers::{
    java_trim, parse_decimal, parse_java_double, parse_java_float, parse_java_integer,
};
use crate::java::temporal::{
    parse_date, parse_time, parse_timestamp, parse_timestamp_ltz, plain_sql_timestamp,
};
use crate::json::options::TimestampStandard;
use crate::json::tokens::{Token, Tokens};

use super::plan::{Conv, RowPlan, Value};
use super::scalars::{flink_byte, jackson_int, jackson_long, jackson_short};
use super::tree::{container_text, NodeText};

/// Why a conversion failed (the message flink-json's exception would carry).
pub(crate) type Fail = String;

/// Converter state kept between messages (reused element buffers).
pub(crate) struct ParserConverters {
    pub(crate) ignore_parse_errors: bool,
    pub(crate) fail_on_missing_field: bool,
    pub(crate) timestamp_standard: TimestampStandard,
    pub(crate) text: NodeText,
    pool: Vec<ElementImages>,
    bytes: Vec<u8>,
    map_keys: Vec<MapKey>,
    key_text: Vec<u8>,
    entry_order: EntryOrder,
}

impl ParserConverters {
    /// Converters with the given options.
    pub(crate) fn new(
        ignore_parse_errors: bool,
        fail_on_missing_field: bool,
        timestamp_standard: TimestampStandard,
        text: NodeText,
    ) -> Self {
        ParserConverters {
            ignore_parse_errors,
            fail_on_missing_field,
            timestamp_standard,
            text,
            pool: Vec::new(),
            bytes: Vec::new(),
            map_keys: Vec::new(),
            key_text: Vec::new(),
            entry_order: EntryOrder::default(),
        }
    }

    /// The null-safe wrapper around every converter (`wrapIntoNullableConverter`): a
    /// `null` token is NULL; a failure is NULL under `ignore-parse-errors` (the cursor
    /// stays where the failure left it), else it propagates. Writes the value into
    /// `slot` of the image at `base`; returns whether it is non-NULL.
    #[inline]
    pub(crate) fn nullable(
        &mut self,
        value: &Value,
        t: &mut Tokens<'_>,
        out: &mut Vec<u8>,
        base: usize,
        slot: usize,
    ) -> Result<bool, Fail> {
        if matches!(t.current(), None | Some(Token::Null)) {
            return Ok(false);
        }
        let mark = out.len();
        match self.convert(value, t, out, base, slot) {
            Ok(written) => Ok(written),
            Err(e) => {
                if !self.ignore_parse_errors {
                    return Err(e);
                }
                out.truncate(mark);
                out[slot..slot + 8].fill(0);
                Ok(false)
            }
        }
    }

    fn convert(
        &mut self,
        value: &Value,
        t: &mut Tokens<'_>,
        out: &mut Vec<u8>,
        base: usize,
        slot: usize,
    ) -> Result<bool, Fail> {
        let token = t.current().unwrap_or(Token::Null);
        match &value.conv {
            Conv::Null => return Ok(false),
            Conv::Boolean => {
                out[slot] = match token {
                    Token::True => 1,
                    Token::False => 0,
                    _ => java_trim(text(t)?).eq_ignore_ascii_case("true") as u8,
                }
            }
            Conv::TinyInt => {
                let v = match token {
                    Token::Int => flink_byte(t.literal())?,
                    _ => parse_java_integer(java_trim(text(t)?), -128, 127).map_err(|e| e.0)? as i8,
                };
                out[slot] = v as u8;
            }
            Conv::SmallInt => {
                let v = match token {
                    Token::Int => jackson_short(t.literal())?,
                    _ => parse_java_integer(java_trim(text(t)?), i16::MIN as i64, i16::MAX as i64)
                        .map_err(|e| e.0)? as i16,
                };
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Int => {
                let v = match token {
                    Token::Int => {
                        match short_integer(t.literal()).and_then(|v| i32::try_from(v).ok()) {
                            Some(v) => v,
                            None => jackson_int(token, t.literal())?,
                        }
                    }
                    Token::Float => jackson_int(token, t.literal())?,
                    _ => parse_java_integer(java_trim(text(t)?), i32::MIN as i64, i32::MAX as i64)
                        .map_err(|e| e.0)? as i32,
                };
                put(out, slot, &v.to_le_bytes());
            }
            Conv::BigInt => {
                let v = match token {
                    Token::Int => match short_integer(t.literal()) {
                        Some(v) => v,
                        None => jackson_long(token, t.literal())?,
                    },
                    Token::Float => jackson_long(token, t.literal())?,
                    _ => parse_java_integer(java_trim(text(t)?), i64::MIN, i64::MAX)
                        .map_err(|e| e.0)?,
                };
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Float => {
                let v = match token {
                    Token::Float => parse_java_float(literal_str(t)),
                    _ => parse_java_float(java_trim(text(t)?)),
                }
                .map_err(|e| e.0)?;
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Double => {
                let v = match token {
                    Token::Float => parse_java_double(literal_str(t)),
                    _ => parse_java_double(java_trim(text(t)?)),
                }
                .map_err(|e| e.0)?;
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Text => {
                if matches!(token, Token::StartObject | Token::StartArray) {
                    let mut bytes = std::mem::take(&mut self.bytes);
                    bytes.clear();
                    let r = container_text(t, self.text, &mut bytes);
                    let r = r.and_then(|_| {
                        write_var_bytes(out, base, slot, &bytes).map_err(|e| e.to_string())
                    });
                    self.bytes = bytes;
                    r?;
                } else {
                    let bytes = t.text()?;
                    write_var_bytes(out, base, slot, bytes).map_err(|e| e.to_string())?;
                }
            }
            Conv::Binary => {
                if token != Token::String {
                    return Err(format!(
                        "Current token ({}) not VALUE_STRING or VALUE_EMBEDDED_OBJECT, can not access as binary",
                        jackson_name(token)
                    ));
                }
                let mut bytes = std::mem::take(&mut self.bytes);
                bytes.clear();
                // Jackson decodes base64 straight from the raw (still escaped) string; on
                // failure its cursor stays where the decoding stopped.
                let r = match decode_base64_parser_at(t.raw_string().0, &mut bytes) {
                    Ok(()) => Ok(()),
                    Err((e, consumed)) => {
                        t.base64_failed_at(consumed);
                        Err(e.0)
                    }
                };
                let r = r.and_then(|_| {
                    write_var_bytes(out, base, slot, &bytes).map_err(|e| e.to_string())
                });
                self.bytes = bytes;
                r?;
            }
            Conv::Decimal { precision, scale } => {
                let parsed = match token {
                    Token::String => parse_decimal(java_trim(text(t)?), *precision, *scale),
                    Token::Int | Token::Float => parse_decimal(literal_str(t), *precision, *scale),
                    other => {
                        return Err(format!(
                            "Current token ({}) not numeric, can not use numeric value accessors",
                            jackson_name(other)
                        ))
                    }
                }
                .map_err(|e| e.0)?;
                let Some(unscaled) = parsed else {
                    // More digits than the precision after rounding: NULL, no error.
                    return Ok(false);
                };
                if *precision <= 18 {
                    put(out, slot, &(unscaled as i64).to_le_bytes());
                } else {
                    write_big_decimal(out, base, slot, unscaled).map_err(|e| e.to_string())?;
                }
            }
            Conv::Date => {
                let days = parse_date(text(t)?).map_err(|e| e.0)?;
                put(out, slot, &days.to_le_bytes());
            }
            Conv::Time => {
                let millis = parse_time(text(t)?).map_err(|e| e.0)?;
                put(out, slot, &millis.to_le_bytes());
            }
            Conv::Timestamp { compact } | Conv::TimestampLtz { compact } => {
                let standard = self.timestamp_standard;
                let sql = standard == TimestampStandard::Sql
                    && matches!(value.conv, Conv::Timestamp { .. });
                // The common `yyyy-MM-dd HH:mm:ss[.f]` shape skips the general grammar.
                let plain = if sql {
                    plain_sql_timestamp(t.text()?)
                } else {
                    None
                };
                let (millis, nanos) = match plain {
                    Some(parsed) => parsed,
                    None => {
                        let text = text(t)?;
                        if matches!(value.conv, Conv::Timestamp { .. }) {
                            parse_timestamp(text, standard)
                        } else {
                            parse_timestamp_ltz(text, standard)
                        }
                        .map_err(|e| e.0)?
                    }
                };
                if *compact {
                    put(out, slot, &millis.to_le_bytes());
                } else {
                    write_big_timestamp(out, base, slot, millis, nanos);
                }
            }
            Conv::Array(element) => {
                if token != Token::StartArray {
                    return Err("Illegal JSON array data...".into());
                }
                let mut items = self.pool.pop().unwrap_or_default();
                items.clear();
                let r = self.array_items(element, t, &mut items).and_then(|_| {
                    let start = out.len();
                    items
                        .write_array(&element.ty, out)
                        .map_err(|e| e.to_string())?;
                    point_slot_at(out, base, slot, start).map_err(|e| e.to_string())
                });
                self.pool.push(items);
                r?;
            }
            Conv::Map(key, item) => {
                if token != Token::StartObject {
                    return Err("Illegal JSON map data...".into());
                }
                self.map(key, item, t, out, base, slot)?;
            }
            Conv::Row(plan) => {
                let start = out.len();
                self.row(plan, t, out)?;
                point_slot_at(out, base, slot, start).map_err(|e| e.to_string())?;
            }
        }
        Ok(true)
    }

    fn array_items(
        &mut self,
        element: &Value,
        t: &mut Tokens<'_>,
        items: &mut ElementImages,
    ) -> Result<(), Fail> {
        loop {
            match t.next().map_err(|e| e.0)? {
                Some(Token::EndArray) => return Ok(()),
                // Only reachable after a failed element moved the cursor past the array's
                // end; flink-json would read null elements forever here.
                None => return Err("Unexpected end-of-input in an array".into()),
                Some(_) => {}
            }
            let mut failure = None;
            items
                .push_with(|scratch, slot| {
                    self.nullable(element, t, scratch, 0, slot)
                        .map_err(|e| failure = Some(e))
                })
                .map_err(|_| failure.take().unwrap_or_default())?;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn map(
        &mut self,
        key: &Value,
        item: &Value,
        t: &mut Tokens<'_>,
        out: &mut Vec<u8>,
        base: usize,
        slot: usize,
    ) -> Result<(), Fail> {
        let mut keys = self.pool.pop().unwrap_or_default();
        let mut values = self.pool.pop().unwrap_or_default();
        keys.clear();
        values.clear();
        let mut key_spans = std::mem::take(&mut self.map_keys);
        let mut key_text = std::mem::take(&mut self.key_text);
        key_spans.clear();
        key_text.clear();
        let r = self.map_entries(
            item,
            t,
            &mut keys,
            &mut values,
            &mut key_spans,
            &mut key_text,
        );
        let order = &mut self.entry_order;
        let r = r.and_then(|_| {
            let order = order.of(&key_text, &key_spans);
            let start = out.len();
            out.resize(start + 4, 0);
            keys.write_ordered(&key.ty, out, order)
                .map_err(|e| e.to_string())?;
            let key_size = (out.len() - start - 4) as i32;
            put(out, start, &key_size.to_le_bytes());
            values
                .write_ordered(&item.ty, out, order)
                .map_err(|e| e.to_string())?;
            point_slot_at(out, base, slot, start).map_err(|e| e.to_string())
        });
        self.map_keys = key_spans;
        self.key_text = key_text;
        self.pool.push(values);
        self.pool.push(keys);
        r
    }

    /// Reads entries as flink-json's map converter does: a key through the (null-safe)
    /// string converter at whatever token the cursor is on, the next token as the value.
    #[allow(clippy::too_many_arguments)]
    fn map_entries(
        &mut self,
        item: &Value,
        t: &mut Tokens<'_>,
        keys: &mut ElementImages,
        values: &mut ElementImages,
        key_spans: &mut Vec<MapKey>,
        key_text: &mut Vec<u8>,
    ) -> Result<(), Fail> {
        loop {
            match t.next().map_err(|e| e.0)? {
                Some(Token::EndObject) => return Ok(()),
                None => return Err("Unexpected end-of-input in an object".into()),
                Some(_) => {}
            }
            let key = self.map_key(t, key_text)?;
            key_spans.push(key);
            match key {
                MapKey::Null => keys.push_null(),
                MapKey::Text { start, end, .. } => keys
                    .push_with(|scratch, slot| {
                        write_var_bytes(scratch, 0, slot, &key_text[start..end]).map(|_| true)
                    })
                    .map_err(|e| e.to_string())?,
            }
            t.next().map_err(|e| e.0)?;
            let mut failure = None;
            values
                .push_with(|scratch, slot| {
                    self.nullable(item, t, scratch, 0, slot)
                        .map_err(|e| failure = Some(e))
                })
                .map_err(|_| failure.take().unwrap_or_default())?;
        }
    }

    /// The key converter (null-safe STRING) at the current token, its text appended to
    /// `key_text`.
    fn map_key(&mut self, t: &mut Tokens<'_>, key_text: &mut Vec<u8>) -> Result<MapKey, Fail> {
        let start = key_text.len();
        let converted = match t.current() {
            None | Some(Token::Null) => return Ok(MapKey::Null),
            Some(Token::StartObject) | Some(Token::StartArray) => {
                container_text(t, self.text, key_text)
            }
            Some(_) => t.text().map(|text| key_text.extend_from_slice(text)),
        };
        match converted {
            Ok(()) => Ok(MapKey::Text {
                start,
                end: key_text.len(),
                lossy: t.text_was_lossy(),
            }),
            Err(_) if self.ignore_parse_errors => {
                key_text.truncate(start);
                Ok(MapKey::Null)
            }
            Err(e) => Err(e),
        }
    }

    /// The row converter: the current token must start an object; appends the row image
    /// to `out`, leaving the cursor on the token that ended the row.
    pub(crate) fn row(
        &mut self,
        plan: &RowPlan,
        t: &mut Tokens<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), Fail> {
        if t.current() != Some(Token::StartObject) {
            return Err("Illegal JSON object data...".into());
        }
        let arity = plan.values.len();
        let base = out.len();
        let null_bytes = row_null_bytes(arity);
        out.resize(base + null_bytes + 8 * arity, 0);
        // Every field starts NULL (absent); a converted field clears or sets its bit.
        for i in 0..arity {
            set_bit(out, base, i + 8);
        }
        let mut count = 0;
        let mut hint = 0;
        t.next_expecting(plan.plain_name(0)).map_err(|e| e.0)?;
        loop {
            match t.current() {
                Some(Token::EndObject) => break,
                None => return Err("Unexpected end-of-input within an object".into()),
                _ => {}
            }
            if count >= arity {
                skip_to_next_field(t)?;
                continue;
            }
            let index = if t.matched_expected() {
                Some(hint)
            } else {
                let (raw, plain) = t.raw_string();
                if plain && t.current() == Some(Token::FieldName) {
                    plan.lookup(raw, hint)
                } else {
                    let name = t.text()?;
                    plan.lookup(name, hint)
                }
            };
            t.next().map_err(|e| e.0)?;
            match index {
                Some(i) => {
                    let slot = base + null_bytes + 8 * i;
                    let written = self
                        .nullable(&plan.values[i], t, out, base, slot)
                        .map_err(|e| field_failure(&plan.names[i], e))?;
                    let bit = i + 8;
                    if written {
                        out[base + (bit >> 3)] &= !(1 << (bit & 7));
                    } else {
                        out[base + (bit >> 3)] |= 1 << (bit & 7);
                    }
                    count += 1;
                    hint = i + 1;
                    let expected = if count < arity {
                        plan.plain_name(hint)
                    } else {
                        None
                    };
                    t.next_expecting(expected).map_err(|e| e.0)?;
                }
                None => skip_to_next_field(t)?,
            }
        }
        if count < arity && self.fail_on_missing_field {
            return Err("Some field is missing in the JSON data.".into());
        }
        Ok(())
    }
}

/// One decoded map key: NULL, or its stored text in the key buffer.
#[derive(Clone, Copy)]
pub(crate) enum MapKey {
    /// A NULL key (a `null` token reached as a key after the cursor moved).
    Null,
    /// Text at `start..end`; `lossy` when Java's string had lone surrogates that the
    /// stored UTF-8 replaced with `?` (such keys equal only identical spellings).
    Text {
        start: usize,
        end: usize,
        lossy: bool,
    },
}

/// Maps with more entries than this find repeated keys through a hash map instead of
/// comparing every pair (which made one message of n entries cost n^2).
const LINEAR_KEYS: usize = 16;

/// The order a decoded map's entries are written in, with its reused buffers.
///
/// flink-json's map converter `put`s every entry, in input order, into a
/// `new HashMap<>()` keyed by `BinaryStringData` and returns it as a `GenericMapData`;
/// everything downstream (the `BinaryMapData` Flink copies it into between operators,
/// every encoder) sees that `HashMap`'s iteration order, and a repeated key keeps its first
/// place with the last value. The row image is written in that order
/// (`crate::java::hash_map::decoded_map_order`), so a pass-through job writes the bytes
/// the stock job writes.
#[derive(Default)]
struct EntryOrder {
    map: JavaHashMap,
    hash_codes: Vec<i32>,
    first_equal: Vec<u32>,
    order: Vec<u32>,
}

impl EntryOrder {
    /// The entry indexes to write, in order.
    fn of(&mut self, text: &[u8], keys: &[MapKey]) -> &[u32] {
        self.hash_codes.clear();
        self.hash_codes.extend(keys.iter().map(|key| match *key {
            // `HashMap.hash(null)` is 0.
            MapKey::Null => 0,
            // The stored UTF-8 is what `BinaryStringData` hashes once materialized (a lone
            // surrogate as `?`, as Flink's `StringUtf8Utils.encodeUTF8` writes it).
            MapKey::Text { start, end, .. } => binary_string_hash(&text[start..end]),
        }));
        first_of_each_key(text, keys, &mut self.first_equal);
        decoded_map_order(
            &mut self.map,
            &self.hash_codes,
            &self.first_equal,
            &mut self.order,
        );
        &self.order
    }
}

/// Per entry, the index of the first entry with an equal key (Java `HashMap` equality).
fn first_of_each_key(text: &[u8], keys: &[MapKey], first: &mut Vec<u32>) {
    first.clear();
    if keys.len() <= LINEAR_KEYS {
        first.extend((0..keys.len()).map(|i| {
            (0..i)
                .find(|&j| same_key(text, keys[j], keys[i]))
                .unwrap_or(i) as u32
        }));
        return;
    }
    let mut seen = std::collections::HashMap::with_capacity(keys.len());
    let mut null = None;
    for (i, key) in keys.iter().enumerate() {
        let i = i as u32;
        first.push(match *key {
            MapKey::Null => *null.get_or_insert(i),
            // A lossy key equals no other key.
            MapKey::Text { lossy: true, .. } => i,
            MapKey::Text { start, end, .. } => *seen.entry(&text[start..end]).or_insert(i),
        });
    }
}

/// Java `HashMap` key equality of two decoded keys.
fn same_key(text: &[u8], a: MapKey, b: MapKey) -> bool {
    match (a, b) {
        (MapKey::Null, MapKey::Null) => true,
        (
            MapKey::Text {
                start: s1,
                end: e1,
                lossy: l1,
            },
            MapKey::Text {
                start: s2,
                end: e2,
                lossy: l2,
            },
        ) => !l1 && !l2 && text[s1..e1] == text[s2..e2],
        _ => false,
    }
}

/// flink-json's `skipToNextField`: skips a container the cursor is on (counting start
/// and end tokens), then moves one token on.
fn skip_to_next_field(t: &mut Tokens<'_>) -> Result<(), Fail> {
    if matches!(
        t.current(),
        Some(Token::StartObject) | Some(Token::StartArray)
    ) {
        let mut open = 1usize;
        while open > 0 {
            match t.next().map_err(|e| e.0)? {
                Some(Token::EndObject) | Some(Token::EndArray) => open -= 1,
                Some(Token::StartObject) | Some(Token::StartArray) => open += 1,
                None => return Err("Unexpected end-of-input while skipping a value".into()),
                _ => {}
            }
        }
    }
    t.next().map_err(|e| e.0)?;
    Ok(())
}

/// An integer literal of at most 18 digits (always inside the long range), parsed
/// without the general path.
#[inline]
fn short_integer(literal: &[u8]) -> Option<i64> {
    let (negative, digits) = match literal.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, literal),
    };
    if digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        v = v * 10 + (d - b'0') as i64;
    }
    Some(if negative { -v } else { v })
}

/// Points `slot` at the variable-part data written since `start`.
fn point_slot_at(
    out: &mut [u8],
    base: usize,
    slot: usize,
    start: usize,
) -> Result<(), crate::CodecError> {
    let size = out.len() - start;
    set_offset_and_size(out, base, slot, start, size)
}

fn field_failure(name: &[u8], cause: Fail) -> Fail {
    format!(
        "Fail to deserialize at field: {}. {cause}",
        String::from_utf8_lossy(name)
    )
}

fn text<'t>(t: &'t mut Tokens<'_>) -> Result<&'t str, Fail> {
    let bytes = t.text()?;
    std::str::from_utf8(bytes).map_err(|e| e.to_string())
}

fn literal_str<'a>(t: &Tokens<'a>) -> &'a str {
    std::str::from_utf8(t.literal()).unwrap_or("")
}

/// Jackson's name of a token, for messages.
pub(crate) fn jackson_name(token: Token) -> &'static str {
    match token {
        Token::StartObject => "START_OBJECT",
        Token::EndObject => "END_OBJECT",
        Token::StartArray => "START_ARRAY",
        Token::EndArray => "END_ARRAY",
        Token::FieldName => "FIELD_NAME",
        Token::String => "VALUE_STRING",
        Token::Int => "VALUE_NUMBER_INT",
        Token::Float => "VALUE_NUMBER_FLOAT",
        Token::True => "VALUE_TRUE",
        Token::False => "VALUE_FALSE",
        Token::Null => "VALUE_NULL",
    }
}
