//! Deterministic Protobuf messages for `--format protobuf` and `protobuf-confluent`: the wire
//! bytes of one message type written field by field from its descriptor (no generated code,
//! no dynamic message, so map entries come out in a fixed order). Fields in field-number
//! order, as protobuf-java writes them; a field the message may omit is absent with
//! probability `--null-rate` (one member, or none, of each oneof); repeated fields and maps
//! with `0..=2 * --collection-len` entries, packed where the field is; enums among their
//! declared numbers; nested messages below [`MAX_DEPTH`]. Same seed and options, same bytes
//! (the [`Rng`] and the limits of the Avro generator).

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use super::error::BenchError;
use super::generate::{
    check_limits, corpus_too_large, GenerateOptions, Rng, ALNUM, MAX_CORPUS_BYTES,
    MESSAGE_OVERHEAD, NON_ASCII,
};

/// Nested messages deeper than this are left absent (a recursive type ends here).
pub const MAX_DEPTH: usize = 16;

/// Generates `opts.count` messages of `message`, each after `prefix` (the Confluent header
/// and message indexes, or nothing), within [`MAX_CORPUS_BYTES`].
pub fn generate(
    message: &MessageDescriptor,
    prefix: &[u8],
    opts: &GenerateOptions,
) -> Result<Vec<Vec<u8>>, BenchError> {
    generate_within(message, prefix, opts, MAX_CORPUS_BYTES)
}

fn generate_within(
    message: &MessageDescriptor,
    prefix: &[u8],
    opts: &GenerateOptions,
    budget: usize,
) -> Result<Vec<Vec<u8>>, BenchError> {
    // The smallest message is its prefix (an empty message is counted as one byte).
    check_limits(opts, prefix.len().max(1), budget)?;
    let mut gen = ProtoGenerator {
        rng: Rng::new(opts.seed),
        opts: *opts,
        used: 0,
        pending: 0,
        budget,
    };
    let mut out = Vec::with_capacity(opts.count.min(1 << 16));
    for _ in 0..opts.count {
        let mut bytes = prefix.to_vec();
        gen.pending = 0;
        gen.message(message, 0, &mut bytes)?;
        gen.used += bytes.len() + MESSAGE_OVERHEAD;
        gen.pending = 0;
        gen.room(0)?;
        out.push(bytes);
    }
    Ok(out)
}

struct ProtoGenerator {
    rng: Rng,
    opts: GenerateOptions,
    /// Bytes the finished messages take.
    used: usize,
    /// Bytes written so far for the message being generated (nested buffers included).
    pending: usize,
    /// The most bytes the messages may take.
    budget: usize,
}

const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;
const START_GROUP: u32 = 3;
const END_GROUP: u32 = 4;
const FIXED32: u32 = 5;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn tag(out: &mut Vec<u8>, number: u32, wire: u32) {
    varint(out, u64::from(number) << 3 | u64::from(wire));
}

/// Field `number` as a length-delimited record: its tag, the length of `body`, then `body`.
fn length_delimited(out: &mut Vec<u8>, number: u32, body: &[u8]) {
    tag(out, number, LEN);
    varint(out, body.len() as u64);
    out.extend_from_slice(body);
}

fn wire_type(kind: &Kind) -> u32 {
    match kind {
        Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => FIXED64,
        Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => FIXED32,
        Kind::String | Kind::Bytes | Kind::Message(_) => LEN,
        _ => VARINT,
    }
}

impl ProtoGenerator {
    /// Fails once the finished messages, the one being written and `more` bytes exceed
    /// the budget.
    fn room(&mut self, more: usize) -> Result<(), BenchError> {
        self.pending = self.pending.saturating_add(more);
        if self.used.saturating_add(self.pending) > self.budget {
            return Err(corpus_too_large(self.budget));
        }
        Ok(())
    }

    fn message(
        &mut self,
        message: &MessageDescriptor,
        depth: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), BenchError> {
        // One member (or none) of each real oneof.
        let mut chosen: Vec<u32> = Vec::new();
        for oneof in message.oneofs().filter(|o| !o.is_synthetic()) {
            let members: Vec<u32> = oneof.fields().map(|f| f.number()).collect();
            if !members.is_empty() && !self.rng.chance(self.opts.null_rate) {
                chosen.push(members[self.rng.below(members.len() as u64) as usize]);
            }
        }
        let mut fields: Vec<FieldDescriptor> = message.fields().collect();
        fields.sort_by_key(FieldDescriptor::number);
        for field in fields {
            let in_oneof = field.containing_oneof().is_some_and(|o| !o.is_synthetic());
            if in_oneof && !chosen.contains(&field.number()) {
                continue;
            }
            if field.is_map() {
                let Kind::Message(entry) = field.kind() else {
                    continue;
                };
                let (key, value) = (entry.map_entry_key_field(), entry.map_entry_value_field());
                for _ in 0..self.rng.length(self.opts.collection_len) {
                    let mut body = Vec::new();
                    self.field(&key, depth + 1, &mut body)?;
                    self.field(&value, depth + 1, &mut body)?;
                    length_delimited(out, field.number(), &body);
                }
            } else if field.is_list() {
                let n = self.rng.length(self.opts.collection_len);
                let kind = field.kind();
                if field.is_packed() && wire_type(&kind) != LEN {
                    let mut body = Vec::new();
                    for _ in 0..n {
                        self.value(&kind, depth, &mut body)?;
                    }
                    if n > 0 {
                        length_delimited(out, field.number(), &body);
                    }
                } else {
                    for _ in 0..n {
                        self.field(&field, depth, out)?;
                    }
                }
            } else if in_oneof || !self.rng.chance(self.opts.null_rate) {
                self.field(&field, depth, out)?;
            }
        }
        Ok(())
    }

    /// One occurrence of `field`: its tag and value.
    fn field(
        &mut self,
        field: &FieldDescriptor,
        depth: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), BenchError> {
        let kind = field.kind();
        if let Kind::Message(m) = &kind {
            if depth + 1 >= MAX_DEPTH {
                return Ok(());
            }
            if field.is_group() {
                tag(out, field.number(), START_GROUP);
                self.message(m, depth + 1, out)?;
                tag(out, field.number(), END_GROUP);
                return Ok(());
            }
        }
        tag(out, field.number(), wire_type(&kind));
        self.value(&kind, depth, out)
    }

    /// A value of `kind` without its tag (length-prefixed where the wire type is LEN).
    fn value(&mut self, kind: &Kind, depth: usize, out: &mut Vec<u8>) -> Result<(), BenchError> {
        let start = out.len();
        match kind {
            Kind::Int32 => varint(out, self.rng.varied(32) as i32 as i64 as u64),
            Kind::Int64 => varint(out, self.rng.varied(64) as u64),
            Kind::Uint32 => varint(out, u64::from(self.rng.varied(32) as u32)),
            Kind::Uint64 => varint(out, self.rng.varied(64) as u64),
            Kind::Sint32 => {
                let v = self.rng.varied(32) as i32;
                varint(out, u64::from(((v << 1) ^ (v >> 31)) as u32));
            }
            Kind::Sint64 => {
                let v = self.rng.varied(64);
                varint(out, ((v << 1) ^ (v >> 63)) as u64);
            }
            Kind::Bool => varint(out, self.rng.below(2)),
            Kind::Enum(e) => {
                let numbers: Vec<i32> = e.values().map(|v| v.number()).collect();
                let n = numbers
                    .get(self.rng.below(numbers.len().max(1) as u64) as usize)
                    .copied()
                    .unwrap_or(0);
                varint(out, i64::from(n) as u64);
            }
            Kind::Fixed32 | Kind::Sfixed32 => {
                out.extend_from_slice(&(self.rng.varied(32) as u32).to_le_bytes());
            }
            Kind::Fixed64 | Kind::Sfixed64 => {
                out.extend_from_slice(&self.rng.varied(64).to_le_bytes());
            }
            Kind::Float => out.extend_from_slice(&self.float().to_le_bytes()),
            Kind::Double => out.extend_from_slice(&self.double().to_le_bytes()),
            Kind::String => {
                let s = self.string()?;
                varint(out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
            Kind::Bytes => {
                let n = self.rng.length(self.opts.string_len);
                self.room(n)?;
                varint(out, n as u64);
                for _ in 0..n {
                    out.push(self.rng.next_u64() as u8);
                }
            }
            Kind::Message(m) => {
                let mut body = Vec::new();
                if depth + 1 < MAX_DEPTH {
                    self.message(m, depth + 1, &mut body)?;
                }
                varint(out, body.len() as u64);
                out.extend_from_slice(&body);
            }
        }
        self.room(out.len() - start)
    }

    fn float(&mut self) -> f32 {
        match self.rng.below(32) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => -0.0,
            _ => (self.rng.varied(24) as f32) / 64.0,
        }
    }

    fn double(&mut self) -> f64 {
        match self.rng.below(32) {
            0 => f64::NAN,
            1 => f64::NEG_INFINITY,
            2 => -0.0,
            _ => (self.rng.varied(53) as f64) / 1024.0,
        }
    }

    fn string(&mut self) -> Result<String, BenchError> {
        let chars = self.rng.length(self.opts.string_len);
        let mut s = String::new();
        for i in 0..chars {
            if i % 4096 == 0
                && self
                    .used
                    .saturating_add(self.pending)
                    .saturating_add(s.len())
                    > self.budget
            {
                self.room(s.len())?;
            }
            if self.rng.below(16) == 0 {
                s.push_str(NON_ASCII[self.rng.below(NON_ASCII.len() as u64) as usize]);
            } else {
                s.push(ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char);
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str, name: &str) -> MessageDescriptor {
        let dir = std::env::temp_dir().join(format!("karrow-gen-proto-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.proto"));
        std::fs::write(&path, text).unwrap();
        super::super::protobuf::load(&path, &format!("t.{name}"))
            .unwrap()
            .message
    }

    #[test]
    fn messages_parse_and_repeat_for_a_seed() {
        let m = message(
            "syntax = \"proto3\"; package t; enum E { A = 0; B = 5; } \
             message Inner { repeated int64 xs = 1; map<string, Inner> kids = 2; } \
             message Gen { int32 a = 1; sint64 b = 2; optional string c = 3; E e = 4; \
             oneof o { double d = 5; bytes y = 6; } map<int32, string> m = 7; Inner in = 8; \
             repeated float fs = 9; fixed64 f = 10; }",
            "Gen",
        );
        let a = generate(&m, &[0, 0, 0, 0, 1, 0], &GenerateOptions::for_tests(200)).unwrap();
        assert_eq!(
            a,
            generate(&m, &[0, 0, 0, 0, 1, 0], &GenerateOptions::for_tests(200)).unwrap()
        );
        for bytes in &a {
            assert_eq!(&bytes[..6], &[0, 0, 0, 0, 1, 0]);
            let parsed = prost_reflect::DynamicMessage::decode(m.clone(), &bytes[6..]).unwrap();
            // Only the declared enum numbers.
            if let Some(v) = parsed
                .get_field_by_name("e")
                .and_then(|v| v.as_enum_number())
            {
                assert!(v == 0 || v == 5, "{v}");
            }
        }
    }

    #[test]
    fn a_recursive_message_ends_at_the_depth_limit_and_the_budget_holds() {
        let m = message(
            "syntax = \"proto3\"; package t; message Rec { Rec next = 1; string s = 2; }",
            "Rec",
        );
        let mut o = GenerateOptions::for_tests(50);
        o.null_rate = 0.0;
        let out = generate(&m, &[], &o).unwrap();
        assert!(out
            .iter()
            .all(|b| prost_reflect::DynamicMessage::decode(m.clone(), b.as_slice()).is_ok()));
        let err = generate_within(&m, &[], &GenerateOptions::for_tests(100), 4096).unwrap_err();
        assert!(err.to_string().contains("exceed"), "{err}");
    }
}
