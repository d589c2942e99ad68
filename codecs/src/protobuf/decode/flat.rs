//! One pass for flat messages: when every column of a message is a direct column (a
//! singular scalar, string, bytes or enum name outside any oneof), the message has no
//! `required` fields and every absent column fits its slot, a message is its row image's
//! fixed part with every column absent (a template made once) overwritten by the values
//! on the wire, in wire order.
//!
//! This is the two-pass decoder ([`super::row`]) specialised, not a second set of rules:
//! values are written as its scan writes them (longs, ints, ASCII strings and bytes inline,
//! the rest by the scan's own [`super::scan::write_direct`]), and anything the template
//! cannot express — a tag that is not a column's (unknown or unread fields, a
//! wire type the field does not use), bytes that do not parse — gives the message back to
//! the two-pass decoder, which reads it (or reports its error) from the start.

use super::super::checks::Checks;
use super::super::flat_plan::{FlatOp, FlatPlan};
use super::super::plan::{Absent, DirectOp, MessagePlan, Shape, ValuePlan};
use super::super::wire::WireReader;
use super::scan::write_direct;
use super::small_values::put_small_value;
use super::values::{write_bytes, write_text};
use super::{row, Scratch};
use crate::flink_binary::layout::{put, row_null_bytes};

impl FlatPlan {
    /// The flat plan of `plan` (not of its sub-messages), or `None` when the message is
    /// not flat. `plan`'s own flat plan must be unset: the template is the two-pass
    /// decoder's image of the empty message.
    pub(crate) fn of(plan: &MessagePlan, checks: &Checks) -> Option<FlatPlan> {
        if !plan.ghosts.is_empty() || !checks.message(plan.check).required.is_empty() {
            return None;
        }
        for (i, field) in plan.fields.iter().enumerate() {
            let op = field.direct?;
            if field.oneof.is_some() || !reached_by_direct_tag(plan, i, op) {
                return None;
            }
        }
        let mut template = Vec::new();
        row::write_row(plan, checks, &[], 0, &mut Scratch::default(), &mut template).ok()?;
        let null_bytes = row_null_bytes(plan.fields.len());
        if template.len() != null_bytes + 8 * plan.fields.len() {
            // A default longer than 7 bytes lives after the slots.
            return None;
        }
        let null_bits = if plan.fields.iter().any(|f| matches!(f.absent, Absent::Null)) {
            plan.fields
                .iter()
                .enumerate()
                .map(|(i, field)| match field.absent {
                    Absent::Null => ((i + 8) >> 3, 1u8 << ((i + 8) & 7)),
                    // Never set: clearing it changes nothing.
                    Absent::Default(_) => (0, 0),
                })
                .collect()
        } else {
            Vec::new()
        };
        let ops = plan
            .fields
            .iter()
            .map(|f| match f.direct {
                Some(DirectOp::Int64) => FlatOp::Long,
                Some(DirectOp::Int32) => FlatOp::Int,
                Some(DirectOp::Text) => FlatOp::Text,
                Some(DirectOp::Bytes) => FlatOp::Bytes,
                _ => FlatOp::Other,
            })
            .collect();
        Some(FlatPlan {
            template,
            null_bits,
            ops,
        })
    }
}

/// Gives `plan` and every message plan below it its flat plan where the message is flat
/// (sub-messages first: a message's template is written by the decoder as it will run).
pub(crate) fn attach(plan: &mut MessagePlan, checks: &Checks) {
    for field in &mut plan.fields {
        let values: Vec<&mut ValuePlan> = match &mut field.shape {
            Shape::Single(value) => vec![value],
            Shape::Repeated { element, .. } => vec![element],
            Shape::Map { key, value } => vec![key, value],
        };
        for value in values {
            if let ValuePlan::Message(sub) | ValuePlan::Group(sub) = value {
                attach(sub, checks);
            }
        }
    }
    plan.flat = None;
    plan.flat = FlatPlan::of(plan, checks);
}

/// Whether the raw tag of column `i`'s field (with its direct op's wire type) leads to
/// column `i` in [`MessagePlan::direct_tags`].
fn reached_by_direct_tag(plan: &MessagePlan, i: usize, op: DirectOp) -> bool {
    let field = &plan.fields[i];
    let wire = match op {
        DirectOp::Int32
        | DirectOp::SInt32
        | DirectOp::Int64
        | DirectOp::SInt64
        | DirectOp::Bool
        | DirectOp::EnumText => 0,
        DirectOp::Fixed64 => 1,
        DirectOp::Text | DirectOp::Bytes => 2,
        DirectOp::Fixed32 => 5,
    };
    let tag = ((field.number as usize) << 3) | wire;
    plan.direct_tags.get(tag).copied() == Some((i + 1) as u16)
}

/// Appends the row image of the flat message in `buf` to `out`; `false` (with `out` as
/// it was) when the two-pass decoder must read it.
///
/// A value replaces every byte of its slot that the template may have set (the direct
/// writers leave no byte of an earlier value behind), so a column written once or
/// several times ends as the two-pass decoder writes it.
#[inline(always)]
pub(super) fn write_flat(
    flat: &FlatPlan,
    plan: &MessagePlan,
    buf: &[u8],
    out: &mut Vec<u8>,
) -> bool {
    let base = out.len();
    // Values mostly take the bytes they occupy on the wire, plus padding to 8 each (enum
    // names may take more: the vector grows then).
    out.reserve(flat.template.len() + buf.len() + 8 * plan.fields.len());
    out.extend_from_slice(&flat.template);
    if overwrite(flat, plan, buf, out, base) {
        return true;
    }
    out.truncate(base);
    false
}

/// Writes the values of `buf` over the template appended at `base`; `false` at the first
/// tag or value the template cannot take.
#[inline(always)]
fn overwrite(
    flat: &FlatPlan,
    plan: &MessagePlan,
    buf: &[u8],
    out: &mut Vec<u8>,
    base: usize,
) -> bool {
    let slots = base + row_null_bytes(plan.fields.len());
    let mut reader = WireReader::new(buf);
    while !reader.at_end() {
        let Ok(tag) = reader.read_varint32() else {
            return false;
        };
        let column = match plan.direct_tags.get(tag as usize) {
            Some(&entry) if entry != 0 => usize::from(entry) - 1,
            _ => return false,
        };
        let slot = slots + 8 * column;
        let Some(&op) = flat.ops.get(column) else {
            return false;
        };
        let written = match op {
            FlatOp::Long | FlatOp::Int => {
                let Ok(v) = reader.read_varint_inline() else {
                    return false;
                };
                let word = if op == FlatOp::Int {
                    u64::from(v as u32)
                } else {
                    v
                };
                put(out, slot, &word.to_le_bytes());
                true
            }
            FlatOp::Text | FlatOp::Bytes => {
                let Ok((start, end)) = reader.read_len_span() else {
                    return false;
                };
                let mark = out.len();
                match put_small_value(out, base, slot, buf, start, end) {
                    Some(ascii) if ascii || op == FlatOp::Bytes => {}
                    _ => {
                        // A longer value, or a string that is not all ASCII (what was
                        // appended for it goes; its slot is written again).
                        out.truncate(mark);
                        let bytes = &buf[start..end];
                        let written = if op == FlatOp::Text {
                            let field = &plan.fields[column];
                            write_text(out, base, slot, bytes, field.utf8_checked)
                        } else {
                            write_bytes(out, base, slot, bytes)
                        };
                        if written.is_err() {
                            return false;
                        }
                    }
                }
                true
            }
            FlatOp::Other => {
                let field = &plan.fields[column];
                match write_direct(field, &mut reader, buf, out, base, slot) {
                    Ok(written) => written,
                    Err(_) => return false,
                }
            }
        };
        // A closed enum's unknown number does not count: the column keeps what it had.
        if written {
            if let Some(&(byte, mask)) = flat.null_bits.get(column) {
                out[base + byte] &= !mask;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::super::plan::{MessagePlan, Shape, ValuePlan};
    use super::super::ProtobufRowDecoder;
    use crate::protobuf::test_support::{message, row, ty};
    use crate::protobuf::ProtobufOptions;
    use crate::types::FlinkType;

    const SCHEMA: &str = r#"
syntax = "proto2";
package f;
enum Color { RED = 1; GREEN = 2; }
message Flat2 {
  optional int32 i = 1;
  optional string s = 2;
  optional sint64 z = 3;
  optional fixed32 f = 4;
  optional double d = 5;
  optional bytes b = 6;
  optional bool ok = 7;
  optional Color c = 8;
  optional uint64 u = 9;
  optional int32 dflt = 10 [default = 42];
  optional string name = 11 [default = "abc"];
  optional sint32 far = 200;
}
message LongDefault { optional string s = 1 [default = "longer than seven"]; }
message WithRequired { required int32 r = 1; optional int32 i = 2; }
message Outer { optional Flat2 inner = 1; repeated int32 nums = 2; }
"#;

    const SCHEMA3: &str = r#"
syntax = "proto3";
package f3;
enum Kind { ZERO = 0; ONE = 1; }
message Flat3 {
  int32 i = 1;
  string s = 2;
  int64 big = 3;
  Kind k = 4;
  float f = 5;
  uint32 u = 20;
  optional string opt = 21;
}
"#;

    fn flat2_type() -> FlinkType {
        row(&[
            ("i", ty("INT")),
            ("s", ty("STRING")),
            ("z", ty("BIGINT")),
            ("f", ty("INT")),
            ("d", ty("DOUBLE")),
            ("b", ty("BYTES")),
            ("ok", ty("BOOLEAN")),
            ("c", ty("STRING")),
            ("u", ty("BIGINT")),
            ("dflt", ty("INT")),
            ("name", ty("STRING")),
            ("far", ty("INT")),
        ])
    }

    fn flat3_type() -> FlinkType {
        row(&[
            ("i", ty("INT")),
            ("s", ty("STRING")),
            ("big", ty("BIGINT")),
            ("k", ty("STRING")),
            ("f", ty("FLOAT")),
            ("u", ty("INT")),
            ("opt", ty("STRING")),
        ])
    }

    fn decoder(
        source: &str,
        name: &str,
        row_type: &FlinkType,
        defaults: bool,
    ) -> ProtobufRowDecoder {
        let options = ProtobufOptions {
            read_default_values: defaults,
            ..ProtobufOptions::default()
        };
        ProtobufRowDecoder::new(&message(source, name), row_type, options).expect("decoder")
    }

    /// The same decoder with every flat plan removed: the two-pass decoder alone.
    fn two_pass(
        source: &str,
        name: &str,
        row_type: &FlinkType,
        defaults: bool,
    ) -> ProtobufRowDecoder {
        fn clear(plan: &mut MessagePlan) {
            plan.flat = None;
            for field in &mut plan.fields {
                if let Shape::Single(ValuePlan::Message(sub) | ValuePlan::Group(sub)) =
                    &mut field.shape
                {
                    clear(sub);
                }
            }
        }
        let mut d = decoder(source, name, row_type, defaults);
        clear(&mut d.plan);
        d
    }

    #[test]
    fn only_flat_messages_get_a_flat_plan() {
        assert!(decoder(SCHEMA, "f.Flat2", &flat2_type(), false)
            .plan
            .flat
            .is_some());
        assert!(decoder(SCHEMA, "f.Flat2", &flat2_type(), true)
            .plan
            .flat
            .is_some());
        assert!(decoder(SCHEMA3, "f3.Flat3", &flat3_type(), false)
            .plan
            .flat
            .is_some());
        // A default that does not fit its slot, a required field, a sub-message column.
        let long = row(&[("s", ty("STRING"))]);
        assert!(decoder(SCHEMA, "f.LongDefault", &long, true)
            .plan
            .flat
            .is_none());
        assert!(decoder(SCHEMA, "f.LongDefault", &long, false)
            .plan
            .flat
            .is_some());
        let required = row(&[("r", ty("INT")), ("i", ty("INT"))]);
        assert!(decoder(SCHEMA, "f.WithRequired", &required, false)
            .plan
            .flat
            .is_none());
        let outer = row(&[("inner", flat2_type())]);
        let d = decoder(SCHEMA, "f.Outer", &outer, false);
        assert!(d.plan.flat.is_none());
        let Shape::Single(ValuePlan::Message(inner)) = &d.plan.fields[0].shape else {
            panic!("inner is a message column");
        };
        assert!(
            inner.flat.is_some(),
            "a flat sub-message has its own flat plan"
        );
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn text(r: &mut Rng) -> Vec<u8> {
        // Around every form and limit: inline (<= 7), appended, the one-pass writer's
        // SMALL_VALUE_MAX (64) and beyond it.
        let len = [0, 1, 3, 7, 8, 9, 15, 16, 40, 63, 64, 65, 100][r.below(13) as usize];
        let mut s: Vec<u8> = (0..len).map(|_| b'a' + r.below(26) as u8).collect();
        match r.below(10) {
            0 => s.extend_from_slice("é✓".as_bytes()),
            1 if !s.is_empty() => s[0] = 0xff, // invalid UTF-8
            _ => {}
        }
        s
    }

    /// One field of `fields` (number, wire type) with a random value of that wire type.
    fn field(r: &mut Rng, number: u64, wire: u64, out: &mut Vec<u8>) {
        varint(number << 3 | wire, out);
        match wire {
            0 => {
                let v = match r.below(4) {
                    0 => r.below(3),
                    1 => r.below(300),
                    2 => r.below(1 << 40),
                    _ => u64::MAX - r.below(5),
                };
                varint(v, out);
            }
            1 => out.extend_from_slice(&r.below(u64::MAX).to_le_bytes()),
            5 => out.extend_from_slice(&(r.below(u64::MAX) as u32).to_le_bytes()),
            _ => {
                let t = text(r);
                varint(t.len() as u64, out);
                out.extend_from_slice(&t);
            }
        }
    }

    /// Messages of `fields`: random subsets in random order, fields repeated, and a few
    /// with what only the two-pass decoder reads (unknown fields, other wire types,
    /// truncation).
    fn corpus(fields: &[(u64, u64)], count: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut r = Rng(seed);
        (0..count)
            .map(|_| {
                let mut m = Vec::new();
                for _ in 0..r.below(2 * fields.len() as u64) {
                    let (number, wire) = fields[r.below(fields.len() as u64) as usize];
                    field(&mut r, number, wire, &mut m);
                }
                match r.below(20) {
                    0 => field(&mut r, 99, 0, &mut m),
                    1 => field(&mut r, fields[0].0, 2, &mut m),
                    2 if !m.is_empty() => {
                        let cut = r.below(m.len() as u64) as usize;
                        m.truncate(cut);
                    }
                    _ => {}
                }
                m
            })
            .collect()
    }

    /// Decodes every message with the flat decoder and the two-pass decoder and asserts
    /// equal images (byte for byte) or equal errors; returns how many the flat path read.
    fn assert_same(
        source: &str,
        name: &str,
        row_type: &FlinkType,
        defaults: bool,
        fields: &[(u64, u64)],
    ) -> usize {
        let mut flat = decoder(source, name, row_type, defaults);
        let mut general = two_pass(source, name, row_type, defaults);
        assert!(flat.plan.flat.is_some(), "a flat plan");
        let mut taken = 0;
        for (n, m) in corpus(fields, 4000, 0x9e37_79b9 + defaults as u64)
            .iter()
            .enumerate()
        {
            let mut probe = Vec::new();
            let plan = &flat.plan;
            let flat_plan = plan.flat.as_ref().expect("a flat plan");
            if super::write_flat(flat_plan, plan, m, &mut probe) {
                taken += 1;
            } else {
                assert!(probe.is_empty(), "a refused message leaves nothing behind");
            }
            let (mut a, mut a_ends) = (vec![7u8; 5], Vec::new());
            let (mut b, mut b_ends) = (vec![7u8; 5], Vec::new());
            let ra = flat
                .decode_message(m, &mut a, &mut a_ends)
                .map_err(|e| e.to_string());
            let rb = general
                .decode_message(m, &mut b, &mut b_ends)
                .map_err(|e| e.to_string());
            assert_eq!(ra, rb, "message {n}: {m:02x?}");
            assert_eq!(a, b, "message {n}: {m:02x?}");
            assert_eq!(a_ends, b_ends, "message {n}");
        }
        taken
    }

    const FLAT2_FIELDS: &[(u64, u64)] = &[
        (1, 0),
        (2, 2),
        (3, 0),
        (4, 5),
        (5, 1),
        (6, 2),
        (7, 0),
        (8, 0),
        (9, 0),
        (10, 0),
        (11, 2),
        (200, 0),
    ];

    #[test]
    fn flat_images_equal_two_pass_images_proto2() {
        for defaults in [false, true] {
            let taken = assert_same(SCHEMA, "f.Flat2", &flat2_type(), defaults, FLAT2_FIELDS);
            assert!(taken > 1000, "the flat path read {taken} of 4000 messages");
        }
    }

    #[test]
    fn wide_flat_messages_use_every_null_bit_word() {
        // 70 columns: the null bits span two words (row_null_bytes(70) = 16).
        let fields: String = (1..=70)
            .map(|n| format!("  optional int32 f{n} = {n};\n"))
            .collect();
        let source = format!("syntax = \"proto2\";\npackage w;\nmessage Wide {{\n{fields}}}\n");
        let columns: Vec<(String, FlinkType)> =
            (1..=70).map(|n| (format!("f{n}"), ty("INT"))).collect();
        let named: Vec<(&str, FlinkType)> = columns
            .iter()
            .map(|(n, t)| (n.as_str(), t.clone()))
            .collect();
        let wide = row(&named);
        let numbers: Vec<(u64, u64)> = (1..=70).map(|n| (n, 0)).collect();
        let taken = assert_same(&source, "w.Wide", &wide, false, &numbers);
        assert!(taken > 1000, "the flat path read {taken} of 4000 messages");
    }

    #[test]
    fn flat_images_equal_two_pass_images_proto3() {
        let fields = &[(1, 0), (2, 2), (3, 0), (4, 0), (5, 5), (20, 0), (21, 2)];
        let taken = assert_same(SCHEMA3, "f3.Flat3", &flat3_type(), false, fields);
        assert!(taken > 1000, "the flat path read {taken} of 4000 messages");
    }
}
