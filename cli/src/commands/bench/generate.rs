//! Deterministic message generation: random values for a Flink row type written as Avro
//! datums of the writer schema (a generic Avro datum writer walking the writer schema and
//! the row type together), framed the Confluent way. Same seed and options, same bytes,
//! on every platform (SplitMix64, no floating-point in the choices).

use karrow_codecs::avro::model::AvroNode;
use karrow_codecs::java::big_integer::to_byte_array;
use karrow_codecs::types::{FlinkKind, FlinkType};

use super::error::BenchError;

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct GenerateOptions {
    /// Number of messages.
    pub count: usize,
    /// Random seed.
    pub seed: u64,
    /// Probability that a nullable value is NULL, in `[0, 1]`.
    pub null_rate: f64,
    /// Mean length of strings and bytes (uniform in `0..=2 * len`).
    pub string_len: usize,
    /// Mean element count of arrays and maps (uniform in `0..=2 * len`).
    pub collection_len: usize,
}

/// SplitMix64: small, fast and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// A length in `0..=2 * mean`, uniformly (so `mean` on average).
    pub fn length(&mut self, mean: usize) -> usize {
        let bound = (mean as u64).saturating_mul(2).saturating_add(1);
        usize::try_from(self.below(bound)).unwrap_or(usize::MAX)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// True with probability `p` (resolution 2^-32).
    pub fn chance(&mut self, p: f64) -> bool {
        let threshold = (p.clamp(0.0, 1.0) * 4_294_967_296.0) as u64;
        (self.next_u64() >> 32) < threshold
    }

    /// An unscaled DECIMAL value of 1 to `precision` digits (fewer when it must fit
    /// `max_bytes` bytes of two's complement), either sign.
    pub fn decimal_unscaled(&mut self, precision: u8, max_bytes: Option<usize>) -> i128 {
        let mut max_digits = u32::from(precision);
        if let Some(n) = max_bytes {
            // Digits that always fit in n bytes of two's complement: floor((8n - 1) log10 2).
            let fit = ((8 * n as u64).saturating_sub(1) * 30103 / 100_000) as u32;
            max_digits = max_digits.min(fit.max(1));
        }
        let digits = 1 + self.below(u64::from(max_digits)) as u32;
        let bound = 10i128.pow(digits);
        let hi = i128::from(self.next_u64() >> 1);
        let lo = i128::from(self.next_u64());
        let v = ((hi << 64) | lo) % bound;
        if self.next_u64() & 1 == 0 {
            v
        } else {
            -v
        }
    }

    /// A signed integer whose magnitude has a uniformly chosen bit length up to `bits`.
    pub fn varied(&mut self, bits: u32) -> i64 {
        let len = self.below(u64::from(bits)) as u32;
        let magnitude = if len == 0 {
            0
        } else {
            self.next_u64() >> (64 - len)
        };
        let v = magnitude as i64;
        if self.next_u64() & 1 == 0 {
            v
        } else {
            v.wrapping_neg()
        }
    }
}

pub(super) const NON_ASCII: [&str; 5] = ["é", "ß", "€", "中", "🦀"];
pub(super) const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The most memory the generated corpus may take: its bytes plus [`MESSAGE_OVERHEAD`] per
/// message (the corpus is held in memory, with its decoded batches, while it is measured).
pub const MAX_CORPUS_BYTES: usize = 4 << 30;
/// What one message costs besides its bytes (its vector and the header).
pub(super) const MESSAGE_OVERHEAD: usize = 32;
/// The largest `--string-len` (mean length of strings and bytes).
pub const MAX_STRING_LEN: usize = 1 << 20;
/// The largest `--collection-len` (mean element count of arrays and maps).
pub const MAX_COLLECTION_LEN: usize = 1 << 16;

/// Generates `opts.count` Confluent-framed messages with schema id `schema_id`. A count or
/// options whose messages would take more than [`MAX_CORPUS_BYTES`] are refused (up front
/// for the count, as soon as the limit is crossed otherwise), never allocated.
pub fn generate(
    writer: &AvroNode,
    row_type: &FlinkType,
    schema_id: i32,
    opts: &GenerateOptions,
) -> Result<Vec<Vec<u8>>, BenchError> {
    generate_within(writer, row_type, schema_id, opts, MAX_CORPUS_BYTES)
}

/// Refuses options beyond their limits before anything is generated: `--string-len` and
/// `--collection-len` above theirs, and more messages than `budget` holds when each takes at
/// least `smallest_message` bytes.
pub fn check_limits(
    opts: &GenerateOptions,
    smallest_message: usize,
    budget: usize,
) -> Result<(), BenchError> {
    for (option, value, max) in [
        ("--string-len", opts.string_len, MAX_STRING_LEN),
        ("--collection-len", opts.collection_len, MAX_COLLECTION_LEN),
    ] {
        if value > max {
            return Err(BenchError::Usage(format!(
                "{option} {value}: at most {max}"
            )));
        }
    }
    let max_messages = budget / (MESSAGE_OVERHEAD + smallest_message);
    if opts.count > max_messages {
        return Err(BenchError::Usage(format!(
            "--generate {}: at most {max_messages} messages fit the {} a generated corpus may take",
            opts.count,
            size_text(budget)
        )));
    }
    Ok(())
}

/// The error of generated messages that outgrow `budget`, the corpus limit.
pub fn corpus_too_large(budget: usize) -> BenchError {
    BenchError::Usage(format!(
        "the generated messages exceed the {} a generated corpus may take; generate fewer \
         or smaller ones (--generate, --string-len, --collection-len)",
        size_text(budget)
    ))
}

/// [`generate`] with a corpus limit of `budget` bytes.
fn generate_within(
    writer: &AvroNode,
    row_type: &FlinkType,
    schema_id: i32,
    opts: &GenerateOptions,
    budget: usize,
) -> Result<Vec<Vec<u8>>, BenchError> {
    // The smallest message is its Confluent header.
    check_limits(opts, 5, budget)?;
    let mut gen = Generator {
        rng: Rng::new(opts.seed),
        opts: *opts,
        used: 0,
        budget,
    };
    // Grown as messages come: a count near the limit reserves nothing up front.
    let mut out = Vec::with_capacity(opts.count.min(1 << 16));
    for _ in 0..opts.count {
        let mut message = Vec::with_capacity(64);
        message.push(0);
        message.extend_from_slice(&schema_id.to_be_bytes());
        gen.value(writer, row_type, &mut message)?;
        gen.used += message.len() + MESSAGE_OVERHEAD;
        gen.check_budget(&[])?;
        out.push(message);
    }
    Ok(out)
}

struct Generator {
    rng: Rng,
    opts: GenerateOptions,
    /// Bytes the finished messages take (see [`MAX_CORPUS_BYTES`]).
    used: usize,
    /// The most bytes the messages may take.
    budget: usize,
}

/// `4 GiB`, or bytes when not a whole number of GiB.
pub(super) fn size_text(bytes: usize) -> String {
    if bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{bytes} bytes")
    }
}

fn write_long(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

fn mismatch(node: &AvroNode, ty: &FlinkType) -> BenchError {
    BenchError::Schema(format!(
        "cannot generate a {} value for the column type {:?}",
        node.type_name(),
        ty.kind
    ))
}

impl Generator {
    /// Fails once the finished messages and the one being written (`out`) exceed
    /// [`MAX_CORPUS_BYTES`].
    fn check_budget(&self, out: &[u8]) -> Result<(), BenchError> {
        self.check_room(out, 0)
    }

    /// As [`Generator::check_budget`], with `more` bytes about to be written.
    fn check_room(&self, out: &[u8], more: usize) -> Result<(), BenchError> {
        if self.used.saturating_add(out.len()).saturating_add(more) > self.budget {
            return Err(corpus_too_large(self.budget));
        }
        Ok(())
    }

    fn string(&mut self, out: &mut Vec<u8>) -> Result<(), BenchError> {
        let chars = self.rng.length(self.opts.string_len);
        let mut s = String::new();
        for i in 0..chars {
            if i % 4096 == 0 {
                self.check_budget(s.as_bytes())?;
            }
            if self.rng.below(16) == 0 {
                s.push_str(NON_ASCII[self.rng.below(NON_ASCII.len() as u64) as usize]);
            } else {
                s.push(ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char);
            }
        }
        write_long(out, s.len() as i64);
        out.extend_from_slice(s.as_bytes());
        self.check_budget(out)
    }

    fn value(
        &mut self,
        node: &AvroNode,
        ty: &FlinkType,
        out: &mut Vec<u8>,
    ) -> Result<(), BenchError> {
        match (node, &ty.kind) {
            (AvroNode::Union(branches), _) => {
                let null_at = branches.iter().position(|b| matches!(b, AvroNode::Null));
                let value_at = branches.iter().position(|b| !matches!(b, AvroNode::Null));
                let pick_null = match (null_at, value_at) {
                    (Some(_), None) => true,
                    (Some(_), Some(_)) => ty.nullable && self.rng.chance(self.opts.null_rate),
                    _ => false,
                };
                let index =
                    if pick_null { null_at } else { value_at }.ok_or_else(|| mismatch(node, ty))?;
                write_long(out, index as i64);
                self.value(&branches[index], ty, out)
            }
            (AvroNode::Null, _) => Ok(()),
            (AvroNode::Boolean, FlinkKind::Boolean) => {
                out.push((self.rng.next_u64() & 1) as u8);
                Ok(())
            }
            (AvroNode::Int, kind) => {
                let v: i64 = match kind {
                    FlinkKind::TinyInt => i64::from(self.rng.next_u64() as i8),
                    FlinkKind::SmallInt => i64::from(self.rng.next_u64() as i16),
                    FlinkKind::Int => self
                        .rng
                        .varied(32)
                        .clamp(i64::from(i32::MIN), i64::from(i32::MAX)),
                    FlinkKind::Date => self.rng.below(40_000) as i64,
                    FlinkKind::Time(_) => self.rng.below(86_400_000) as i64,
                    _ => return Err(mismatch(node, ty)),
                };
                write_long(out, v);
                Ok(())
            }
            (AvroNode::Long, kind) => {
                let v = match kind {
                    FlinkKind::BigInt => self.rng.varied(64),
                    FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => {
                        946_684_800_000 + self.rng.below(1_262_304_000_000) as i64
                    }
                    FlinkKind::Time(_) => self.rng.below(86_400_000_000) as i64,
                    _ => return Err(mismatch(node, ty)),
                };
                write_long(out, v);
                Ok(())
            }
            (AvroNode::Float, FlinkKind::Float) => {
                let v = (self.rng.varied(24) as f32) / 64.0;
                out.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            (AvroNode::Double, FlinkKind::Double) => {
                let v = (self.rng.varied(53) as f64) / 1024.0;
                out.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            (AvroNode::String, FlinkKind::VarChar(_) | FlinkKind::Char(_)) => self.string(out),
            (AvroNode::Bytes, FlinkKind::VarBinary(_) | FlinkKind::Binary(_)) => {
                let n = self.rng.length(self.opts.string_len);
                write_long(out, n as i64);
                for i in 0..n {
                    if i % 4096 == 0 {
                        self.check_budget(out)?;
                    }
                    out.push(self.rng.next_u64() as u8);
                }
                self.check_budget(out)
            }
            (AvroNode::Bytes, FlinkKind::Decimal { precision, .. }) => {
                let bytes = to_byte_array(self.rng.decimal_unscaled(*precision, None));
                write_long(out, bytes.len() as i64);
                out.extend_from_slice(&bytes);
                Ok(())
            }
            (AvroNode::Fixed(f), FlinkKind::Decimal { precision, .. }) => {
                self.check_room(out, f.size)?;
                let v = self.rng.decimal_unscaled(*precision, Some(f.size));
                let full = v.to_be_bytes();
                if f.size <= 16 {
                    out.extend_from_slice(&full[16 - f.size..]);
                } else {
                    let fill = if v < 0 { 0xFF } else { 0 };
                    out.extend(std::iter::repeat_n(fill, f.size - 16));
                    out.extend_from_slice(&full);
                }
                Ok(())
            }
            (AvroNode::Fixed(f), FlinkKind::VarBinary(_) | FlinkKind::Binary(_)) => {
                self.check_room(out, f.size)?;
                for _ in 0..f.size {
                    out.push(self.rng.next_u64() as u8);
                }
                Ok(())
            }
            (AvroNode::Enum(e), FlinkKind::VarChar(_) | FlinkKind::Char(_))
                if !e.symbols.is_empty() =>
            {
                write_long(out, self.rng.below(e.symbols.len() as u64) as i64);
                Ok(())
            }
            (AvroNode::Array(items), FlinkKind::Array(element)) => {
                let n = self.rng.length(self.opts.collection_len);
                if n > 0 {
                    write_long(out, n as i64);
                    for _ in 0..n {
                        self.check_budget(out)?;
                        self.value(items, element, out)?;
                    }
                }
                out.push(0);
                Ok(())
            }
            (AvroNode::Map(values), FlinkKind::Map(_, value_ty)) => {
                self.map(values, Some(value_ty), out)
            }
            (AvroNode::Map(values), FlinkKind::Multiset(_)) => self.map(values, None, out),
            (AvroNode::Record(rec), FlinkKind::Row(fields)) if rec.fields.len() == fields.len() => {
                for (f, column) in rec.fields.iter().zip(fields) {
                    self.value(&f.schema, &column.ty, out)?;
                }
                Ok(())
            }
            _ => Err(mismatch(node, ty)),
        }
    }

    /// A map with unique keys; `value_ty` `None` is a multiset (positive counts).
    fn map(
        &mut self,
        values: &AvroNode,
        value_ty: Option<&FlinkType>,
        out: &mut Vec<u8>,
    ) -> Result<(), BenchError> {
        let n = self.rng.length(self.opts.collection_len);
        if n > 0 {
            write_long(out, n as i64);
            for i in 0..n {
                self.check_budget(out)?;
                let key = format!(
                    "k{i}_{}",
                    ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char
                );
                write_long(out, key.len() as i64);
                out.extend_from_slice(key.as_bytes());
                match value_ty {
                    Some(ty) => self.value(values, ty, out)?,
                    None => {
                        let count = 1 + self.rng.below(5) as i64;
                        match values {
                            AvroNode::Int => write_long(out, count),
                            AvroNode::Union(b) => {
                                let at = b
                                    .iter()
                                    .position(|x| matches!(x, AvroNode::Int))
                                    .ok_or_else(|| {
                                        BenchError::Schema(
                                            "a MULTISET's Avro map values are not int".into(),
                                        )
                                    })?;
                                write_long(out, at as i64);
                                write_long(out, count);
                            }
                            _ => {
                                return Err(BenchError::Schema(
                                    "a MULTISET's Avro map values are not int".into(),
                                ))
                            }
                        }
                    }
                }
            }
        }
        out.push(0);
        Ok(())
    }
}

#[cfg(test)]
impl GenerateOptions {
    /// `count` messages of short strings and collections, some fields NULL (the JSON and
    /// Protobuf generators' unit tests).
    pub fn for_tests(count: usize) -> Self {
        GenerateOptions {
            count,
            seed: 7,
            null_rate: 0.2,
            string_len: 8,
            collection_len: 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_that_outgrow_the_corpus_limit_are_refused_while_generated() {
        let row = FlinkType::from_json_str(
            r#"{"type":"ROW","nullable":false,"fields":[{"name":"a","type":{"type":"ARRAY","nullable":false,
               "element":{"type":"ARRAY","nullable":false,"element":{"type":"BIGINT","nullable":false}}}}]}"#,
        )
        .unwrap();
        let writer =
            AvroNode::parse(&karrow_codecs::avro::derive::derive_schema_json(&row).unwrap())
                .unwrap();
        let opts = GenerateOptions {
            count: 10,
            seed: 1,
            null_rate: 0.0,
            string_len: 4,
            collection_len: 1000,
        };
        let error = generate_within(&writer, &row, 1, &opts, 1 << 20).unwrap_err();
        assert!(
            error.to_string().contains("exceed the 1048576 bytes"),
            "{error}"
        );
        let error = generate_within(
            &writer,
            &row,
            1,
            &GenerateOptions {
                count: 1 << 20,
                ..opts
            },
            1 << 20,
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("at most 28339 messages"),
            "{error}"
        );
        assert_eq!(
            generate_within(
                &writer,
                &row,
                1,
                &GenerateOptions {
                    collection_len: 2,
                    ..opts
                },
                1 << 20
            )
            .unwrap()
            .len(),
            10
        );
    }

    #[test]
    fn zigzag() {
        let mut out = Vec::new();
        write_long(&mut out, -1);
        write_long(&mut out, 64);
        assert_eq!(out, vec![1, 0x80, 1]);
    }
}
