//! The converters of flink-json's tree decoder (`JsonToRowDataConverters`, chosen with
//! `decode.json-parser.enabled = false`): the first JSON value is read whole into
//! Jackson's tree model, then converted node by node. Differences from the default
//! decoder (spec §1.9): numbers spelled as nodes print them, DECIMAL strings untrimmed,
//! BYTES from a non-string is NULL, duplicate keys resolved before conversion (last
//! wins), and a failed field never moves a cursor.

use crate::flink_binary::elements::ElementImages;
use crate::flink_binary::layout::{
    put, row_null_bytes, set_bit, set_offset_and_size, write_big_decimal, write_big_timestamp,
    write_var_bytes,
};
use crate::java::base64::decode_base64_tree;
use crate::java::hash_map::{binary_string_hash, decoded_map_order, JavaHashMap};
use crate::java::numbers::{
    java_trim, parse_decimal, parse_java_double, parse_java_float, parse_java_integer,
};
use crate::java::temporal::{parse_date, parse_time, parse_timestamp, parse_timestamp_ltz};
use crate::json::options::TimestampStandard;

use super::parser::Fail;
use super::plan::{Conv, RowPlan, Value};
use super::tree::{Entry, Node, NodeText};

/// The tree decoder's options and scratch buffers.
pub(crate) struct TreeConverters {
    pub(crate) ignore_parse_errors: bool,
    pub(crate) fail_on_missing_field: bool,
    pub(crate) timestamp_standard: TimestampStandard,
    pub(crate) text: NodeText,
}

impl TreeConverters {
    /// The null-safe wrapper: a missing or `null` node is NULL, a failure is NULL under
    /// `ignore-parse-errors`. Returns whether a non-NULL value was written.
    pub(crate) fn nullable(
        &self,
        value: &Value,
        node: &Node,
        out: &mut Vec<u8>,
        base: usize,
        slot: usize,
    ) -> Result<bool, Fail> {
        if matches!(node, Node::Null) {
            return Ok(false);
        }
        let mark = out.len();
        match self.convert(value, node, out, base, slot) {
            Ok(written) => Ok(written),
            Err(_) if self.ignore_parse_errors => {
                out.truncate(mark);
                out[slot..slot + 8].fill(0);
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    fn text(&self, node: &Node) -> Result<String, Fail> {
        let mut bytes = Vec::new();
        node.as_text(self.text, &mut bytes);
        String::from_utf8(bytes).map_err(|e| e.to_string())
    }

    fn convert(
        &self,
        value: &Value,
        node: &Node,
        out: &mut Vec<u8>,
        base: usize,
        slot: usize,
    ) -> Result<bool, Fail> {
        match &value.conv {
            Conv::Null => return Ok(false),
            Conv::Boolean => {
                out[slot] = match node {
                    Node::Bool(b) => *b as u8,
                    other => java_trim(&self.text(other)?).eq_ignore_ascii_case("true") as u8,
                }
            }
            Conv::TinyInt => {
                let v =
                    parse_java_integer(java_trim(&self.text(node)?), -128, 127).map_err(|e| e.0)?;
                out[slot] = v as i8 as u8;
            }
            Conv::SmallInt => {
                let v = parse_java_integer(
                    java_trim(&self.text(node)?),
                    i16::MIN as i64,
                    i16::MAX as i64,
                )
                .map_err(|e| e.0)?;
                put(out, slot, &(v as i16).to_le_bytes());
            }
            Conv::Int => {
                let v = match self.integral(node, i32::MIN as i128, i32::MAX as i128) {
                    Some(v) => v as i64,
                    None => parse_java_integer(
                        java_trim(&self.text(node)?),
                        i32::MIN as i64,
                        i32::MAX as i64,
                    )
                    .map_err(|e| e.0)?,
                };
                put(out, slot, &(v as i32).to_le_bytes());
            }
            Conv::BigInt => {
                let v = match self.integral(node, i64::MIN as i128, i64::MAX as i128) {
                    Some(v) => v as i64,
                    None => parse_java_integer(java_trim(&self.text(node)?), i64::MIN, i64::MAX)
                        .map_err(|e| e.0)?,
                };
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Double => {
                let v = match node {
                    Node::Float(literal) if !self.text.has_decimal => {
                        parse_java_double(lit(literal))
                    }
                    other => parse_java_double(java_trim(&self.text(other)?)),
                }
                .map_err(|e| e.0)?;
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Float => {
                let v = match node {
                    // A DoubleNode narrowed: `(float) asDouble()`.
                    Node::Float(literal) if !self.text.has_decimal => {
                        parse_java_double(lit(literal)).map(|d| d as f32)
                    }
                    other => parse_java_float(java_trim(&self.text(other)?)),
                }
                .map_err(|e| e.0)?;
                put(out, slot, &v.to_le_bytes());
            }
            Conv::Text => {
                let mut bytes = Vec::new();
                match node {
                    Node::Object(_) | Node::Array(_) => node.to_json(self.text, &mut bytes),
                    other => other.as_text(self.text, &mut bytes),
                }
                write_var_bytes(out, base, slot, &bytes).map_err(|e| e.to_string())?;
            }
            Conv::Binary => {
                // `binaryValue()` is null for anything but a string node.
                let Node::Text(text) = node else {
                    return Ok(false);
                };
                let mut bytes = Vec::new();
                decode_base64_tree(text, &mut bytes)
                    .map_err(|e| format!("Unable to deserialize byte array. {}", e.0))?;
                write_var_bytes(out, base, slot, &bytes).map_err(|e| e.to_string())?;
            }
            Conv::Decimal { precision, scale } => {
                let parsed = match node {
                    Node::Float(literal) if self.text.has_decimal => {
                        parse_decimal(lit(literal), *precision, *scale)
                    }
                    // `new BigDecimal(asText())`: strings are not trimmed here.
                    other => parse_decimal(&self.text(other)?, *precision, *scale),
                }
                .map_err(|e| e.0)?;
                let Some(unscaled) = parsed else {
                    return Ok(false);
                };
                if *precision <= 18 {
                    put(out, slot, &(unscaled as i64).to_le_bytes());
                } else {
                    write_big_decimal(out, base, slot, unscaled).map_err(|e| e.to_string())?;
                }
            }
            Conv::Date => put(
                out,
                slot,
                &parse_date(&self.text(node)?)
                    .map_err(|e| e.0)?
                    .to_le_bytes(),
            ),
            Conv::Time => put(
                out,
                slot,
                &parse_time(&self.text(node)?)
                    .map_err(|e| e.0)?
                    .to_le_bytes(),
            ),
            Conv::Timestamp { compact } | Conv::TimestampLtz { compact } => {
                let text = self.text(node)?;
                let (millis, nanos) = if matches!(value.conv, Conv::Timestamp { .. }) {
                    parse_timestamp(&text, self.timestamp_standard)
                } else {
                    parse_timestamp_ltz(&text, self.timestamp_standard)
                }
                .map_err(|e| e.0)?;
                if *compact {
                    put(out, slot, &millis.to_le_bytes());
                } else {
                    write_big_timestamp(out, base, slot, millis, nanos);
                }
            }
            Conv::Array(element) => {
                let Node::Array(items) = node else {
                    return Err(cast_error(node, "ArrayNode"));
                };
                let mut images = ElementImages::default();
                for item in items {
                    let mut failure = None;
                    images
                        .push_with(|scratch, s| {
                            self.nullable(element, item, scratch, 0, s)
                                .map_err(|e| failure = Some(e))
                        })
                        .map_err(|_| failure.take().unwrap_or_default())?;
                }
                let start = out.len();
                images
                    .write_array(&element.ty, out)
                    .map_err(|e| e.to_string())?;
                point_slot_at(out, base, slot, start)?;
            }
            Conv::Map(key, item) => {
                // `fields()` of anything but an object is empty: an empty map, no error.
                let empty = Vec::new();
                let entries = match node {
                    Node::Object(entries) => entries,
                    _ => &empty,
                };
                let (mut keys, mut values) = (ElementImages::default(), ElementImages::default());
                for entry in entries {
                    let item_node = &entry.value;
                    let mut failure = None;
                    let key_node = Node::Text(entry.key.clone());
                    keys.push_with(|scratch, s| {
                        self.nullable(key, &key_node, scratch, 0, s)
                            .map_err(|e| failure = Some(e))
                    })
                    .map_err(|_| failure.take().unwrap_or_default())?;
                    values
                        .push_with(|scratch, s| {
                            self.nullable(item, item_node, scratch, 0, s)
                                .map_err(|e| failure = Some(e))
                        })
                        .map_err(|_| failure.take().unwrap_or_default())?;
                }
                // `JsonToRowDataConverters` puts the object's fields (distinct names, in
                // the tree's order) into a `new HashMap<>()` of `BinaryStringData` keys:
                // the entries are written in its iteration order (see the streaming
                // decoder's `EntryOrder`).
                let hash_codes: Vec<i32> =
                    entries.iter().map(|e| binary_string_hash(&e.key)).collect();
                let distinct: Vec<u32> = (0..entries.len() as u32).collect();
                let mut order = Vec::with_capacity(entries.len());
                decoded_map_order(
                    &mut JavaHashMap::default(),
                    &hash_codes,
                    &distinct,
                    &mut order,
                );
                let start = out.len();
                out.resize(start + 4, 0);
                keys.write_ordered(&key.ty, out, &order)
                    .map_err(|e| e.to_string())?;
                let key_size = (out.len() - start - 4) as i32;
                put(out, start, &key_size.to_le_bytes());
                values
                    .write_ordered(&item.ty, out, &order)
                    .map_err(|e| e.to_string())?;
                point_slot_at(out, base, slot, start)?;
            }
            Conv::Row(plan) => {
                let start = out.len();
                self.row(plan, node, out)?;
                point_slot_at(out, base, slot, start)?;
            }
        }
        Ok(true)
    }

    /// `canConvertToInt/Long()` then `asInt/Long()`: integral and float nodes in range,
    /// truncated toward zero; `None` sends the caller to parsing `asText()`.
    fn integral(&self, node: &Node, min: i128, max: i128) -> Option<i128> {
        match node {
            Node::Int(literal) => lit(literal)
                .parse::<i128>()
                .ok()
                .filter(|v| (min..=max).contains(v)),
            Node::Float(literal) if self.text.has_decimal => {
                let (whole, fraction) = truncated(lit(literal))?;
                let inside = (min..=max).contains(&whole)
                    && !(fraction
                        && ((whole == max && !lit(literal).starts_with('-'))
                            || (whole == min && lit(literal).starts_with('-'))));
                inside.then_some(whole)
            }
            Node::Float(literal) => {
                // `DoubleNode.canConvertToInt/Long()` compares in double arithmetic (so
                // 2^63 is "in range") and `asInt/Long()` is a saturating cast.
                let d: f64 = lit(literal).parse().ok()?;
                if d < min as f64 || d > max as f64 {
                    return None;
                }
                Some(if max == i32::MAX as i128 {
                    d as i32 as i128
                } else {
                    d as i64 as i128
                })
            }
            _ => None,
        }
    }

    /// The row converter: an object node, fields looked up by name.
    pub(crate) fn row(&self, plan: &RowPlan, node: &Node, out: &mut Vec<u8>) -> Result<(), Fail> {
        let Node::Object(entries) = node else {
            return Err(cast_error(node, "ObjectNode"));
        };
        let arity = plan.values.len();
        let base = out.len();
        let null_bytes = row_null_bytes(arity);
        out.resize(base + null_bytes + 8 * arity, 0);
        for (i, value) in plan.values.iter().enumerate() {
            let name = &plan.names[i];
            let slot = base + null_bytes + 8 * i;
            let written = match entries.iter().find(|e| e.is_named(name)) {
                None if self.fail_on_missing_field => {
                    return Err(format!(
                        "Fail to deserialize at field: {}. Could not find field with name '{}'.",
                        String::from_utf8_lossy(name),
                        String::from_utf8_lossy(name)
                    ))
                }
                None => false,
                Some(Entry { value: field, .. }) => {
                    self.nullable(value, field, out, base, slot).map_err(|e| {
                        format!(
                            "Fail to deserialize at field: {}. {e}",
                            String::from_utf8_lossy(name)
                        )
                    })?
                }
            };
            if !written {
                set_bit(out, base, i + 8);
            }
        }
        Ok(())
    }
}

fn lit(literal: &[u8]) -> &str {
    std::str::from_utf8(literal).unwrap_or("")
}

/// The integer part of a number literal (exactly, when it has at most 38 digits) and
/// whether a non-zero fraction was cut off.
fn truncated(literal: &str) -> Option<(i128, bool)> {
    let (negative, rest) = match literal.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, literal),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int_part.bytes().chain(frac_part.bytes()).collect();
    let point = int_part.len() as i64 + exponent;
    let (whole, cut): (&[u8], &[u8]) = if point <= 0 {
        (&[], &digits[..])
    } else if point as usize >= digits.len() {
        (&digits[..], &[])
    } else {
        digits.split_at(point as usize)
    };
    let zeros = if point > digits.len() as i64 {
        (point - digits.len() as i64) as usize
    } else {
        0
    };
    let significant = whole.iter().skip_while(|&&d| d == b'0').count() + zeros;
    if significant > 38 {
        return None;
    }
    let mut v: i128 = 0;
    for &d in whole {
        v = v * 10 + (d - b'0') as i128;
    }
    for _ in 0..zeros {
        v *= 10;
    }
    let fraction = cut.iter().any(|&d| d != b'0');
    Some((if negative { -v } else { v }, fraction))
}

fn cast_error(node: &Node, target: &str) -> Fail {
    let class = match node {
        Node::Object(_) => "ObjectNode",
        Node::Array(_) => "ArrayNode",
        Node::Text(_) => "TextNode",
        Node::Int(_) => "IntNode",
        Node::Float(_) => "DoubleNode",
        Node::Bool(_) => "BooleanNode",
        Node::Null => "NullNode",
    };
    format!("class {class} cannot be cast to class {target}")
}

/// Points `slot` at the variable-part data written since `start`.
fn point_slot_at(out: &mut [u8], base: usize, slot: usize, start: usize) -> Result<(), Fail> {
    let size = out.len() - start;
    set_offset_and_size(out, base, slot, start, size).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::truncated;

    #[test]
    fn truncation_of_literals_is_exact() {
        assert_eq!(truncated("1.9"), Some((1, true)));
        assert_eq!(truncated("-1.9"), Some((-1, true)));
        assert_eq!(truncated("1e2"), Some((100, false)));
        assert_eq!(truncated("2147483647.5"), Some((2147483647, true)));
        assert_eq!(truncated("0.5e-3"), Some((0, true)));
        assert_eq!(truncated("12.30e1"), Some((123, false)));
        assert_eq!(truncated("1e40"), None);
    }
}
