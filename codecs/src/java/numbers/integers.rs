//! `Long.parseLong`, `Integer.parseInt` and friends (radix 10).

use super::*;

/// Java `Long.parseLong(s)` / `Integer.parseInt` / `Short.parseShort` / `Byte.parseByte`
/// (radix 10) on `text` as given (callers trim), checked against [min, max]: optional
/// sign, digits as `Character.digit` accepts them (ASCII and the other BMP decimal
/// digits, e.g. `"١٢"` is 12 as in Java), no spaces; overflow is an error.
///
/// A range inside i32 parses as `Integer.parseInt` first ("For input string"), then
/// checks the narrower range ("Value out of range"), like `Short`/`Byte.parseX`.
pub(crate) fn parse_java_integer(text: &str, min: i64, max: i64) -> Result<i64, NumberError> {
    let (lo, hi) = java_parse_range(min, max);
    let value = parse_radix10(text, lo, hi).ok_or_else(|| NumberError::for_input_string(text))?;
    if value < min || value > max {
        return Err(NumberError::value_out_of_range(text));
    }
    Ok(value)
}

/// The range of the Java method that parses first: `parseInt` for ranges inside i32,
/// else `parseLong`.
fn java_parse_range(min: i64, max: i64) -> (i64, i64) {
    if min >= i64::from(i32::MIN) && max <= i64::from(i32::MAX) {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (i64::MIN, i64::MAX)
    }
}

/// Signed radix-10 digits within [lo, hi]; accumulates negatively as Java does so that
/// the minimum value parses.
fn parse_radix10(text: &str, lo: i64, hi: i64) -> Option<i64> {
    let (negative, digits) = split_sign(text);
    if digits.is_empty() {
        return None;
    }
    let mut acc: i64 = 0;
    for c in digits.chars() {
        let digit = i64::from(java_digit(c)?);
        acc = acc.checked_mul(10)?.checked_sub(digit)?;
    }
    let value = if negative { acc } else { acc.checked_neg()? };
    (lo..=hi).contains(&value).then_some(value)
}

/// Java `String.trim()`: strips chars <= U+0020 at both ends.
pub(crate) fn java_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}
