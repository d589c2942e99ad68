//! Jackson's numeric accessors as flink-json's converters call them on number tokens
//! (`getIntValue`, `getLongValue`, `getShortValue`): integer literals are range-checked,
//! float literals are read as a double, range-checked and truncated toward zero.

use crate::java::numbers::parse_java_double;
use crate::json::tokens::Token;

const INT_RANGE: &str = "int (-2147483648 - 2147483647)";
const LONG_RANGE: &str = "long (-9223372036854775808 - 9223372036854775807)";

fn text(literal: &[u8]) -> &str {
    // Number literals are ASCII by construction of the tokenizer.
    std::str::from_utf8(literal).unwrap_or("")
}

/// The value of an integer literal when it fits an i128 (at most 38 digits), else `None`.
fn integer_literal(literal: &[u8]) -> Option<i128> {
    let (negative, digits) = match literal.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, literal),
    };
    if digits.len() <= 18 {
        let mut v: i64 = 0;
        for &d in digits {
            v = v * 10 + (d - b'0') as i64;
        }
        return Some(if negative { -v } else { v } as i128);
    }
    if digits.len() > 38 {
        return None;
    }
    let mut v: i128 = 0;
    for &d in digits {
        v = v * 10 + (d - b'0') as i128;
    }
    Some(if negative { -v } else { v })
}

/// Jackson's `getLongValue()` on an INT or FLOAT token.
pub(crate) fn jackson_long(token: Token, literal: &[u8]) -> Result<i64, String> {
    let overflow = || {
        format!(
            "Numeric value ({}) out of range of {LONG_RANGE}",
            text(literal)
        )
    };
    if token == Token::Int {
        return integer_literal(literal)
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(overflow);
    }
    let d = parse_java_double(text(literal)).map_err(|e| e.0)?;
    if !(i64::MIN as f64..=i64::MAX as f64).contains(&d) {
        return Err(overflow());
    }
    Ok(d as i64)
}

/// Jackson's `getIntValue()` on an INT or FLOAT token.
pub(crate) fn jackson_int(token: Token, literal: &[u8]) -> Result<i32, String> {
    let overflow = || {
        format!(
            "Numeric value ({}) out of range of {INT_RANGE}",
            text(literal)
        )
    };
    if token == Token::Int {
        return integer_literal(literal)
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(overflow);
    }
    let d = parse_java_double(text(literal)).map_err(|e| e.0)?;
    if !(i32::MIN as f64..=i32::MAX as f64).contains(&d) {
        return Err(overflow());
    }
    Ok(d as i32)
}

/// Jackson's `getShortValue()` on an INT token.
pub(crate) fn jackson_short(literal: &[u8]) -> Result<i16, String> {
    let v = jackson_int(Token::Int, literal)?;
    i16::try_from(v).map_err(|_| {
        format!(
            "Numeric value ({}) out of range of Java short",
            text(literal)
        )
    })
}

/// flink-json's TINYINT check on an INT token (`getIntValue()` then the byte range).
pub(crate) fn flink_byte(literal: &[u8]) -> Result<i8, String> {
    let v = jackson_int(Token::Int, literal)?;
    i8::try_from(v).map_err(|_| format!("Numeric value ({v}) out of range of Java byte."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_tokens_are_range_checked() {
        assert_eq!(jackson_int(Token::Int, b"-2147483648"), Ok(i32::MIN));
        assert!(jackson_int(Token::Int, b"2147483648").is_err());
        assert_eq!(jackson_long(Token::Int, b"-0"), Ok(0));
        assert!(jackson_long(Token::Int, b"9223372036854775808").is_err());
        assert!(jackson_long(Token::Int, &[b'1'; 60]).is_err());
        assert_eq!(jackson_short(b"-32768"), Ok(-32768));
        assert!(jackson_short(b"40000").is_err());
        assert_eq!(flink_byte(b"127"), Ok(127));
        assert!(flink_byte(b"200")
            .unwrap_err()
            .contains("out of range of Java byte"));
    }

    #[test]
    fn float_tokens_truncate_toward_zero() {
        assert_eq!(jackson_int(Token::Float, b"1.9"), Ok(1));
        assert_eq!(jackson_int(Token::Float, b"-1.9"), Ok(-1));
        assert_eq!(jackson_int(Token::Float, b"1e2"), Ok(100));
        assert!(jackson_int(Token::Float, b"2147483647.5").is_err());
        assert_eq!(jackson_long(Token::Float, b"3.99"), Ok(3));
        assert!(jackson_long(Token::Float, b"1e19").is_err());
    }
}
