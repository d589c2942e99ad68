//! Flink row types written the way SQL writes them (`ROW<id BIGINT NOT NULL, tags
//! ARRAY<INT>>`), so that the targets' schemas read like the tables they stand for.

use karrow_codecs::types::{FlinkField, FlinkKind};
use karrow_codecs::FlinkType;

/// Parses a type; panics on a typo (the types are the harness's own constants).
pub fn parse(text: &str) -> FlinkType {
    let tokens = tokenize(text);
    let mut at = 0;
    let ty = parse_type(&tokens, &mut at);
    assert_eq!(at, tokens.len(), "trailing tokens in {text}");
    ty
}

fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

fn next<'t>(tokens: &'t [String], at: &mut usize) -> &'t str {
    let t = tokens.get(*at).map(String::as_str).unwrap_or("");
    *at += 1;
    t
}

fn peek<'t>(tokens: &'t [String], at: usize) -> &'t str {
    tokens.get(at).map(String::as_str).unwrap_or("")
}

fn expect(tokens: &[String], at: &mut usize, want: &str) {
    let got = next(tokens, at);
    assert_eq!(got, want, "expected {want}");
}

fn number(tokens: &[String], at: &mut usize) -> u32 {
    next(tokens, at).parse().expect("a number")
}

fn parse_type(tokens: &[String], at: &mut usize) -> FlinkType {
    let name = next(tokens, at).to_ascii_uppercase();
    let args = |at: &mut usize| -> Vec<u32> {
        let mut out = Vec::new();
        if peek(tokens, *at) == "(" {
            *at += 1;
            loop {
                out.push(number(tokens, at));
                if next(tokens, at) == ")" {
                    break;
                }
            }
        }
        out
    };
    let kind = match name.as_str() {
        "NULL" => FlinkKind::Null,
        "BOOLEAN" => FlinkKind::Boolean,
        "TINYINT" => FlinkKind::TinyInt,
        "SMALLINT" => FlinkKind::SmallInt,
        "INT" => FlinkKind::Int,
        "BIGINT" => FlinkKind::BigInt,
        "FLOAT" => FlinkKind::Float,
        "DOUBLE" => FlinkKind::Double,
        "STRING" => FlinkKind::VarChar(i32::MAX as u32),
        "BYTES" => FlinkKind::VarBinary(i32::MAX as u32),
        "CHAR" => FlinkKind::Char(args(at).first().copied().unwrap_or(1)),
        "VARCHAR" => FlinkKind::VarChar(args(at).first().copied().unwrap_or(1)),
        "BINARY" => FlinkKind::Binary(args(at).first().copied().unwrap_or(1)),
        "VARBINARY" => FlinkKind::VarBinary(args(at).first().copied().unwrap_or(1)),
        "DECIMAL" => {
            let a = args(at);
            FlinkKind::Decimal {
                precision: a.first().copied().unwrap_or(10) as u8,
                scale: a.get(1).copied().unwrap_or(0) as i8,
            }
        }
        "DATE" => FlinkKind::Date,
        "TIME" => FlinkKind::Time(args(at).first().copied().unwrap_or(0) as u8),
        "TIMESTAMP" => FlinkKind::Timestamp(args(at).first().copied().unwrap_or(6) as u8),
        "TIMESTAMP_LTZ" => FlinkKind::TimestampLtz(args(at).first().copied().unwrap_or(6) as u8),
        "ARRAY" | "MULTISET" => {
            expect(tokens, at, "<");
            let element = Box::new(parse_type(tokens, at));
            expect(tokens, at, ">");
            if name == "ARRAY" {
                FlinkKind::Array(element)
            } else {
                FlinkKind::Multiset(element)
            }
        }
        "MAP" => {
            expect(tokens, at, "<");
            let key = Box::new(parse_type(tokens, at));
            expect(tokens, at, ",");
            let value = Box::new(parse_type(tokens, at));
            expect(tokens, at, ">");
            FlinkKind::Map(key, value)
        }
        "ROW" => {
            expect(tokens, at, "<");
            let mut fields = Vec::new();
            if peek(tokens, *at) == ">" {
                *at += 1;
            } else {
                loop {
                    let name = next(tokens, at).to_string();
                    let ty = parse_type(tokens, at);
                    fields.push(FlinkField { name, ty });
                    if next(tokens, at) == ">" {
                        break;
                    }
                }
            }
            FlinkKind::Row(fields)
        }
        other => panic!("unknown type {other}"),
    };
    let mut nullable = true;
    if peek(tokens, *at).eq_ignore_ascii_case("NOT") {
        *at += 1;
        expect(tokens, at, "NULL");
        nullable = false;
    }
    FlinkType { nullable, kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_types() {
        let t = parse("ROW<a BIGINT NOT NULL, b ARRAY<ROW<>>, c MAP<STRING, DECIMAL(10, 2)>>");
        let FlinkKind::Row(fields) = &t.kind else {
            panic!()
        };
        assert_eq!(fields.len(), 3);
        assert!(!fields[0].ty.nullable);
    }
}
