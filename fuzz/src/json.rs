//! JSON: the tables the decoder targets pick from, and the option sets of the `json` format.

use karrow_codecs::json::{JavaFloatText, JsonDecodeOptions, TimestampStandard};

/// Tables chosen by an input byte: every type flink-json reads, nested rows, arrays and
/// maps, and a deep self-similar shape for nesting.
pub const ROWS: &[&str] = &[
    "ROW<id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), score DOUBLE, \
     tags ARRAY<INT>, ok BOOLEAN>",
    "ROW<b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, c CHAR(3), \
     str STRING, bin BYTES, dt DATE, tm TIME(3), ts9 TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), \
     big DECIMAL(38, 18), m MAP<STRING, INT>, ms MULTISET<STRING>>",
    "ROW<items ARRAY<ROW<k STRING, v ARRAY<BIGINT>>>, m MAP<STRING, ROW<x INT, y MAP<STRING, \
     STRING>>>, nested ROW<inner ROW<deep ARRAY<ARRAY<DOUBLE>>>>>",
    "ROW<a ROW<a ROW<a ROW<a ROW<a ROW<a ROW<a ROW<a INT>>>>>>>, j STRING, \
     x ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<STRING>>>>>>>",
    "ROW<e ROW<>, z ARRAY<ROW<>>, n MAP<STRING, ROW<>>>",
];

/// The option set an input byte selects: parser or tree decoder, `ignore-parse-errors`,
/// `fail-on-missing-field` (never both: the factory refuses that), timestamp standard, and the
/// JVM whose float digits the tree decoder prints (JDK 19+ or the older `FloatingDecimal`).
pub fn options(bits: u8) -> JsonDecodeOptions {
    let ignore_parse_errors = bits & 2 != 0;
    JsonDecodeOptions {
        json_parser: bits & 1 == 0,
        ignore_parse_errors,
        fail_on_missing_field: !ignore_parse_errors && bits & 4 != 0,
        timestamp_standard: if bits & 8 != 0 {
            TimestampStandard::Iso8601
        } else {
            TimestampStandard::Sql
        },
        float_text: if bits & 16 != 0 {
            JavaFloatText::FloatingDecimal
        } else {
            JavaFloatText::Shortest
        },
    }
}

/// A JSON text of a value of `ty` (`variant` varies the spellings), for seeds.
pub fn value(ty: &karrow_codecs::FlinkType, variant: usize, iso: bool, out: &mut String) {
    use karrow_codecs::types::FlinkKind as K;
    use std::fmt::Write;
    if variant % 7 == 6 && ty.nullable {
        out.push_str("null");
        return;
    }
    let pick = |options: &[&str]| options[variant % options.len()].to_string();
    let text = match &ty.kind {
        K::Null => "null".into(),
        K::Boolean => pick(&["true", "false", "\"true\""]),
        K::TinyInt | K::SmallInt | K::Int | K::BigInt => pick(&["1", "-7", "\"12\"", "0", "1e2"]),
        K::Float | K::Double => pick(&["1.5", "-0.0", "1e-7", "\"NaN\"", "3"]),
        K::Decimal { .. } => pick(&["12.34", "-0.5", "\"7\"", "1E+3"]),
        K::Char(_) | K::VarChar(_) => {
            pick(&["\"x\"", "\"h\\u00e9llo\"", "\"\"", "12", "{\"a\":[1]}"])
        }
        K::Binary(_) | K::VarBinary(_) => pick(&["\"AQI=\"", "\"\"", "\"3q2+7w==\""]),
        K::Date => pick(&["\"2024-01-02\"", "\"1970-01-01\""]),
        K::Time(_) => pick(&["\"12:34:56\"", "\"23:59:59.999\""]),
        K::Timestamp(_) if iso => pick(&["\"2024-01-02T12:34:56.123\"", "\"2024-01-02T12:34\""]),
        K::Timestamp(_) => pick(&["\"2024-01-02 12:34:56.123\"", "\"2024-01-02 12:34:56\""]),
        K::TimestampLtz(_) if iso => pick(&["\"2024-01-02T12:34:56.123Z\""]),
        K::TimestampLtz(_) => pick(&["\"2024-01-02 12:34:56.123Z\""]),
        K::IntervalYearMonth | K::IntervalDayTime => "1".into(),
        K::Array(element) => {
            let mut s = String::from("[");
            for i in 0..variant % 3 {
                if i > 0 {
                    s.push(',');
                }
                value(element, variant + i, iso, &mut s);
            }
            s.push(']');
            s
        }
        K::Map(_, v) | K::Multiset(v) => {
            let mut s = String::from("{");
            for i in 0..variant % 3 {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "\"k{i}\":");
                value(v, variant + i, iso, &mut s);
            }
            s.push('}');
            s
        }
        K::Row(fields) => {
            let mut s = String::from("{");
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "\"{}\":", f.name);
                value(&f.ty, variant + i, iso, &mut s);
            }
            s.push('}');
            s
        }
    };
    out.push_str(&text);
}

/// Seeds: per table and a few option sets, objects of every field, a top-level array of
/// rows, and nesting near Jackson's limit in an extra key.
pub fn seeds(framed: bool) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, row) in ROWS.iter().enumerate() {
        let ty = crate::sql_types::parse(row);
        for (variant, bits) in [0u8, 1, 2, 3, 4, 8, 9].into_iter().enumerate() {
            let mut text = String::new();
            value(&ty, variant, bits & 8 != 0, &mut text);
            if variant % 3 == 1 {
                text = format!("[{text},{text}]");
            }
            let mut seed = vec![
                i as u8,
                bits | if framed && variant % 2 == 0 { 0x10 } else { 0 },
            ];
            if framed {
                seed.extend(crate::confluent_header(if variant == 5 { 404 } else { 3 }));
            }
            seed.extend_from_slice(text.as_bytes());
            seeds.push(seed);
        }
    }
    let deep = format!("{{\"x\":{}{},\"id\":1}}", "[".repeat(990), "]".repeat(990));
    let mut seed = vec![0, 0];
    if framed {
        seed.extend(crate::confluent_header(3));
    }
    seed.extend_from_slice(deep.as_bytes());
    seeds.push(seed);
    seeds
}
