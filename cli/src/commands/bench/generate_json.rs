//! Deterministic JSON messages for `--format json`: one JSON object per message with a
//! random value for every column of the row type, written as text flink-json reads (spec
//! §1): numbers for the integer, FLOAT/DOUBLE and DECIMAL types, base64 strings for bytes,
//! SQL-standard date/time text (`2024-01-31`, `12:34:56.789`, `2024-01-31 12:34:56.789`,
//! `...Z` for TIMESTAMP_LTZ), arrays, objects for MAP/MULTISET (string keys) and ROW.
//! Strings mix ASCII, non-ASCII and characters JSON escapes. Same seed and options, same
//! bytes (the [`Rng`] and the limits of the Avro generator).

use base64::Engine;
use karrow_codecs::types::{FlinkKind, FlinkType};

use super::error::BenchError;
use super::generate::{
    check_limits, corpus_too_large, GenerateOptions, Rng, ALNUM, MAX_CORPUS_BYTES,
    MESSAGE_OVERHEAD, NON_ASCII,
};
use super::render::plain_decimal;

/// Characters JSON writes escaped (a quote, a backslash, control characters) or may escape.
const ESCAPED: [&str; 6] = ["\"", "\\", "\n", "\t", "\u{1}", "/"];

/// Generates `opts.count` JSON messages of `row_type`, within [`MAX_CORPUS_BYTES`].
pub fn generate(row_type: &FlinkType, opts: &GenerateOptions) -> Result<Vec<Vec<u8>>, BenchError> {
    generate_within(row_type, opts, MAX_CORPUS_BYTES)
}

fn generate_within(
    row_type: &FlinkType,
    opts: &GenerateOptions,
    budget: usize,
) -> Result<Vec<Vec<u8>>, BenchError> {
    // The smallest message is `{}`.
    check_limits(opts, 2, budget)?;
    check_type(row_type)?;
    let mut gen = JsonGenerator {
        rng: Rng::new(opts.seed),
        opts: *opts,
        used: 0,
        budget,
    };
    let mut out = Vec::with_capacity(opts.count.min(1 << 16));
    for _ in 0..opts.count {
        let mut message = Vec::with_capacity(64);
        gen.row(row_type, &mut message)?;
        gen.used += message.len() + MESSAGE_OVERHEAD;
        gen.check_room(&[], 0)?;
        out.push(message);
    }
    Ok(out)
}

/// Refuses what flink-json cannot read, before generating: MAP and MULTISET keys that are
/// not strings.
fn check_type(ty: &FlinkType) -> Result<(), BenchError> {
    match &ty.kind {
        FlinkKind::Map(key, _) | FlinkKind::Multiset(key) => {
            if !matches!(key.kind, FlinkKind::Char(_) | FlinkKind::VarChar(_)) {
                return Err(BenchError::Schema(format!(
                    "cannot generate JSON for a MAP or MULTISET keyed by {:?}: JSON object keys \
                     are strings (flink-json needs CHAR or VARCHAR keys)",
                    key.kind
                )));
            }
            match &ty.kind {
                FlinkKind::Map(_, value) => check_type(value),
                _ => Ok(()),
            }
        }
        FlinkKind::Array(element) => check_type(element),
        FlinkKind::Row(fields) => fields.iter().try_for_each(|f| check_type(&f.ty)),
        _ => Ok(()),
    }
}

struct JsonGenerator {
    rng: Rng,
    opts: GenerateOptions,
    used: usize,
    budget: usize,
}

impl JsonGenerator {
    fn check_room(&self, out: &[u8], more: usize) -> Result<(), BenchError> {
        if self.used.saturating_add(out.len()).saturating_add(more) > self.budget {
            return Err(corpus_too_large(self.budget));
        }
        Ok(())
    }

    /// A JSON object of the row's fields, in declared order (a NULL field is `null`).
    fn row(&mut self, ty: &FlinkType, out: &mut Vec<u8>) -> Result<(), BenchError> {
        let FlinkKind::Row(fields) = &ty.kind else {
            return Err(BenchError::Schema("the row type is not a ROW".into()));
        };
        out.push(b'{');
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_json_string(&field.name, out);
            out.push(b':');
            self.value(&field.ty, out)?;
        }
        out.push(b'}');
        Ok(())
    }

    fn value(&mut self, ty: &FlinkType, out: &mut Vec<u8>) -> Result<(), BenchError> {
        self.check_room(out, 0)?;
        if ty.kind == FlinkKind::Null || (ty.nullable && self.rng.chance(self.opts.null_rate)) {
            out.extend_from_slice(b"null");
            return Ok(());
        }
        let text = match &ty.kind {
            FlinkKind::Null => "null".to_string(),
            FlinkKind::Boolean => (self.rng.next_u64() & 1 == 0).to_string(),
            FlinkKind::TinyInt => (self.rng.next_u64() as i8).to_string(),
            FlinkKind::SmallInt => (self.rng.next_u64() as i16).to_string(),
            FlinkKind::Int | FlinkKind::IntervalYearMonth => self
                .rng
                .varied(32)
                .clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                .to_string(),
            FlinkKind::BigInt | FlinkKind::IntervalDayTime => self.rng.varied(64).to_string(),
            // Mostly short values (a 24- or 53-bit integer over a power of two), one in four
            // any finite value (where Java's Float/Double.toString digits differ between
            // JVMs), written as Rust's shortest round-trip text (an exponent when far from 1).
            FlinkKind::Float => format!("{:?}", self.float()),
            FlinkKind::Double => format!("{:?}", self.double()),
            FlinkKind::Decimal { precision, scale } => {
                plain_decimal(self.rng.decimal_unscaled(*precision, None), *scale)
            }
            FlinkKind::Char(_) | FlinkKind::VarChar(_) => return self.string(out),
            FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
                let n = self.rng.length(self.opts.string_len);
                self.check_room(out, n.saturating_mul(4) / 3 + 4)?;
                let bytes: Vec<u8> = (0..n).map(|_| self.rng.next_u64() as u8).collect();
                format!(
                    "\"{}\"",
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                )
            }
            FlinkKind::Date => format!("\"{}\"", date_text(self.rng.below(40_000) as i64)),
            FlinkKind::Time(p) => {
                let millis = self.rng.below(86_400_000);
                format!("\"{}\"", time_text(millis * 1_000_000, (*p).min(3)))
            }
            FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) => {
                let millis = 946_684_800_000 + self.rng.below(1_262_304_000_000) as i64;
                let nanos = self.rng.below(1_000_000) as i64;
                let day = millis.div_euclid(86_400_000);
                let of_day = millis.rem_euclid(86_400_000) * 1_000_000 + nanos;
                let zone = if matches!(ty.kind, FlinkKind::TimestampLtz(_)) {
                    "Z"
                } else {
                    ""
                };
                format!(
                    "\"{} {}{zone}\"",
                    date_text(day),
                    time_text(of_day as u64, *p)
                )
            }
            FlinkKind::Array(element) => {
                let n = self.rng.length(self.opts.collection_len);
                out.push(b'[');
                for i in 0..n {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.value(element, out)?;
                }
                out.push(b']');
                return Ok(());
            }
            FlinkKind::Map(_, value) => return self.map(Some(value), out),
            FlinkKind::Multiset(_) => return self.map(None, out),
            FlinkKind::Row(_) => return self.row(ty, out),
        };
        out.extend_from_slice(text.as_bytes());
        Ok(())
    }

    fn float(&mut self) -> f32 {
        if self.rng.below(4) == 0 {
            let v = f32::from_bits(self.rng.next_u64() as u32);
            if v.is_finite() {
                return v;
            }
        }
        (self.rng.varied(24) as f32) / 64.0
    }

    fn double(&mut self) -> f64 {
        if self.rng.below(4) == 0 {
            let v = f64::from_bits(self.rng.next_u64());
            if v.is_finite() {
                return v;
            }
        }
        (self.rng.varied(53) as f64) / 1024.0
    }

    /// An object with unique keys; `value` `None` is a multiset (positive counts).
    fn map(&mut self, value: Option<&FlinkType>, out: &mut Vec<u8>) -> Result<(), BenchError> {
        let n = self.rng.length(self.opts.collection_len);
        out.push(b'{');
        for i in 0..n {
            if i > 0 {
                out.push(b',');
            }
            let key = format!(
                "k{i}_{}",
                ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char
            );
            write_json_string(&key, out);
            out.push(b':');
            match value {
                Some(ty) => self.value(ty, out)?,
                None => out.extend_from_slice((1 + self.rng.below(5)).to_string().as_bytes()),
            }
        }
        out.push(b'}');
        Ok(())
    }

    fn string(&mut self, out: &mut Vec<u8>) -> Result<(), BenchError> {
        let chars = self.rng.length(self.opts.string_len);
        let mut s = String::new();
        for i in 0..chars {
            if i % 4096 == 0 {
                self.check_room(out, s.len())?;
            }
            match self.rng.below(32) {
                0 | 1 => s.push_str(NON_ASCII[self.rng.below(NON_ASCII.len() as u64) as usize]),
                2 => s.push_str(ESCAPED[self.rng.below(ESCAPED.len() as u64) as usize]),
                _ => s.push(ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char),
            }
        }
        write_json_string(&s, out);
        self.check_room(out, 0)
    }
}

/// `s` as a JSON string: `"` and `\` escaped, control characters as `\u00XX` (or `\n`,
/// `\t`), everything else as UTF-8.
fn write_json_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes());
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// `yyyy-MM-dd` of a day count since 1970-01-01 (proleptic Gregorian; days from 0001 on).
fn date_text(days: i64) -> String {
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `HH:mm:ss` of nanoseconds of the day, with `digits` fraction digits (none for 0).
fn time_text(nano_of_day: u64, digits: u8) -> String {
    let secs = nano_of_day / 1_000_000_000;
    let mut text = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if digits > 0 {
        let fraction = format!("{:09}", nano_of_day % 1_000_000_000);
        text.push('.');
        text.push_str(&fraction[..usize::from(digits.min(9))]);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::super::ddl::parse_columns;
    use super::*;

    #[test]
    fn every_message_is_one_json_object_of_the_columns() {
        let row = parse_columns(
            "b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, m DECIMAL(12, 3), s STRING, \
             y BYTES, dt DATE, t TIME(3), ts TIMESTAMP(6), tl TIMESTAMP_LTZ(3), \
             a ARRAY<INT>, mp MAP<STRING, ROW<x INT>>, ms MULTISET<STRING>, r ROW<z STRING>",
        )
        .unwrap();
        let messages = generate(&row, &GenerateOptions::for_tests(50)).unwrap();
        assert_eq!(messages.len(), 50);
        for m in &messages {
            let v: serde_json::Value = serde_json::from_slice(m).unwrap();
            let o = v.as_object().unwrap();
            assert_eq!(o.len(), 16, "{v}");
            assert!(m.starts_with(b"{\"b\":"), "declared order: {v}");
        }
        assert_eq!(
            messages,
            generate(&row, &GenerateOptions::for_tests(50)).unwrap(),
            "deterministic"
        );
    }

    #[test]
    fn dates_and_times_are_sql_text() {
        assert_eq!(date_text(0), "1970-01-01");
        assert_eq!(date_text(19_753), "2024-01-31");
        assert_eq!(date_text(-1), "1969-12-31");
        assert_eq!(time_text(45_296_789_000_000, 3), "12:34:56.789");
        assert_eq!(time_text(45_296_789_123_456, 6), "12:34:56.789123");
        assert_eq!(time_text(45_296_789_000_000, 0), "12:34:56");
    }

    #[test]
    fn non_string_map_keys_and_oversized_corpora_are_refused() {
        let row = parse_columns("m MAP<INT, STRING>").unwrap();
        let e = generate(&row, &GenerateOptions::for_tests(1)).unwrap_err();
        assert!(e.to_string().contains("CHAR or VARCHAR keys"), "{e}");
        let row = parse_columns("a ARRAY<ARRAY<BIGINT>>").unwrap();
        let big = GenerateOptions {
            collection_len: 1000,
            ..GenerateOptions::for_tests(10)
        };
        let e = generate_within(&row, &big, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("exceed the 1048576 bytes"), "{e}");
    }
}
