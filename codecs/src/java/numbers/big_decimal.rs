//! `new BigDecimal(String)` with Flink's HALF_UP rescaling, and the texts of `BigDecimal.toString` / `toPlainString`.

use super::*;

/// A literal accepted by `new BigDecimal(String)`: its digits (possibly non-ASCII
/// decimal digits) before and after the point, and its exponent.
struct BigDecimalLiteral<'a> {
    negative: bool,
    int_digits: &'a str,
    frac_digits: &'a str,
    /// `frac_digits.len() - exponent`, checked to fit an int as Java does.
    scale: i64,
}

impl BigDecimalLiteral<'_> {
    /// The digit values in order, leading zeros included.
    fn digit_values(&self) -> impl Iterator<Item = u8> + '_ {
        let all = self.int_digits.chars().chain(self.frac_digits.chars());
        all.map(|c| java_digit(c).unwrap_or(0))
    }

    /// The digit values without leading zeros (empty for zero).
    fn significant_digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.digit_values().skip_while(|&d| d == 0)
    }
}

/// Longest unsigned literal Java parses on its "compact" path, which words an unknown
/// character differently from the long path.
const COMPACT_LITERAL_LEN: usize = 18;

/// `new BigDecimal(text)` grammar (no trimming): sign, digits, `.`, exponent `e`/`E`
/// with sign; checks and messages in Java 17's order.
fn big_decimal_literal(text: &str) -> Result<BigDecimalLiteral<'_>, NumberError> {
    if text.is_empty() {
        return Err(NumberError::msg("null"));
    }
    let (negative, unsigned) = split_sign(text);
    let (int_digits, frac_digits, exponent_text) = scan_big_decimal(unsigned)?;
    let exponent = match exponent_text {
        Some(exp) => big_decimal_exponent(exp)?,
        None => 0,
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(NumberError::msg("No digits found."));
    }
    let scale = to_i64(frac_digits.chars().count()) - exponent;
    if i32::try_from(scale).is_err() {
        return Err(NumberError::msg("Scale out of range."));
    }
    Ok(BigDecimalLiteral {
        negative,
        int_digits,
        frac_digits,
        scale,
    })
}

/// Java's left-to-right scan of the significand: digits, at most one point, then an
/// optional `e`/`E` whose remainder is the exponent text. Returns (int, frac, exponent).
fn scan_big_decimal(unsigned: &str) -> Result<(&str, &str, Option<&str>), NumberError> {
    let mut point = None;
    for (index, c) in unsigned.char_indices() {
        match c {
            '.' if point.is_some() => {
                return Err(NumberError::msg(
                    "Character array contains more than one decimal point.",
                ))
            }
            '.' => point = Some(index),
            'e' | 'E' => {
                let (int_digits, frac_digits) = split_at_point(&unsigned[..index], point);
                return Ok((int_digits, frac_digits, Some(&unsigned[index + 1..])));
            }
            _ if java_digit(c).is_some() => {}
            _ => return Err(unknown_character(c, unsigned.chars().count())),
        }
    }
    let (int_digits, frac_digits) = split_at_point(unsigned, point);
    Ok((int_digits, frac_digits, None))
}

/// Splits a significand at its point (if any), dropping the point.
fn split_at_point(significand: &str, point: Option<usize>) -> (&str, &str) {
    match point {
        Some(index) => (&significand[..index], &significand[index + 1..]),
        None => (significand, ""),
    }
}

/// Java 17's message for a character that is not part of a decimal.
fn unknown_character(c: char, unsigned_len: usize) -> NumberError {
    if unsigned_len <= COMPACT_LITERAL_LEN {
        NumberError(format!(
            "Character {c} is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark."
        ))
    } else {
        NumberError::msg("Character array is missing \"e\" notation exponential mark.")
    }
}

/// Java's `parseExp`: optional sign, then at most 10 digits (any Unicode decimal digits)
/// after leading zeros; the value must fit an int.
fn big_decimal_exponent(text: &str) -> Result<i64, NumberError> {
    let (negative, digits) = split_sign(text);
    if digits.is_empty() {
        return Err(NumberError::msg("null"));
    }
    let leading_zeros = digits
        .chars()
        .take_while(|&c| java_digit(c) == Some(0))
        .count();
    if digits.chars().count() - leading_zeros > 10 {
        return Err(NumberError::msg("Too many nonzero exponent digits."));
    }
    let mut magnitude = 0i64;
    for c in digits.chars() {
        let digit = java_digit(c).ok_or_else(|| NumberError::msg("Not a digit."))?;
        magnitude = magnitude * 10 + i64::from(digit);
    }
    let exponent = signed(magnitude, negative);
    if i32::try_from(exponent).is_err() {
        return Err(NumberError::msg("Exponent overflow."));
    }
    Ok(exponent)
}

/// An exact decimal from `text` (a JSON number literal, or text accepted by
/// `new BigDecimal(String)`), rounded HALF_UP to `scale`, then `Ok(None)` when the rounded
/// value needs more than `precision` digits; returns the unscaled value. Mirrors Flink's
/// `DecimalData.fromBigDecimal(bd, p, s)`; exact for any literal, never via f64.
///
/// Java's `setScale` throws (an ArithmeticException) for non-zero values whose rescale
/// needs a power of ten beyond BigInteger's range; that is an error here too. Between
/// that limit and ordinary sizes (`1e100000000` at scale 2) Java computes for minutes and
/// this answers at once. `precision` is 1..=38 (more is treated as 38).
pub(crate) fn parse_decimal(
    text: &str,
    precision: u8,
    scale: i8,
) -> Result<Option<i128>, NumberError> {
    let literal = big_decimal_literal(text)?;
    if literal.significant_digits().next().is_none() {
        return Ok(Some(0));
    }
    check_rescale_supported(i64::from(scale) - literal.scale)?;
    let precision = u32::from(precision.min(38));
    let magnitude = rescale_half_up(&literal, i64::from(scale), precision);
    Ok(magnitude.map(|m| signed(m, literal.negative)))
}

/// Smallest power of ten Java 17's `BigInteger.TEN.pow` refuses (measured).
const JAVA_TEN_POW_LIMIT: i64 = 536_870_920;

/// Java 17's `setScale` on a non-zero value: the scale change must fit an int
/// ("Underflow") and its power of ten must be computable ("BigInteger would overflow
/// supported range").
fn check_rescale_supported(scale_change: i64) -> Result<(), NumberError> {
    let magnitude = scale_change.unsigned_abs();
    if magnitude > u64::from(i32::MAX.unsigned_abs()) {
        return Err(NumberError::msg("Underflow"));
    }
    if magnitude >= JAVA_TEN_POW_LIMIT.unsigned_abs() {
        return Err(NumberError::msg(
            "BigInteger would overflow supported range",
        ));
    }
    Ok(())
}

/// |literal| rounded HALF_UP to `target_scale` as an unscaled integer, `None` when it
/// needs more than `precision` digits.
fn rescale_half_up(
    literal: &BigDecimalLiteral<'_>,
    target_scale: i64,
    precision: u32,
) -> Option<i128> {
    let limit = 10i128.checked_pow(precision)?;
    let significant = literal.significant_digits().count();
    // Digits of the unscaled result before rounding: significant + (target - scale).
    let shift = target_scale - literal.scale;
    let kept = to_i64(significant).saturating_add(shift);
    if kept > i64::from(precision) {
        return None;
    }
    let unscaled = if shift >= 0 {
        let head = digits_to_i128(literal.significant_digits())?;
        head.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?
    } else {
        truncate_half_up(literal, kept)?
    };
    (unscaled < limit).then_some(unscaled)
}

/// The first `kept` significant digits, plus one when the next digit is 5 or more
/// (zero when `kept` < 0).
fn truncate_half_up(literal: &BigDecimalLiteral<'_>, kept: i64) -> Option<i128> {
    let Ok(kept) = usize::try_from(kept) else {
        return Some(0);
    };
    let head = digits_to_i128(literal.significant_digits().take(kept))?;
    let next = literal.significant_digits().nth(kept).unwrap_or(0);
    Some(head + i128::from(next >= 5))
}

/// Digits (at most 38 of them by construction) as an integer.
fn digits_to_i128(mut digits: impl Iterator<Item = u8>) -> Option<i128> {
    digits.try_fold(0i128, |acc, d| {
        acc.checked_mul(10)?.checked_add(i128::from(d))
    })
}

/// `new BigDecimal(literal).toString()` (`1e3` -> `1E+3`, `2.50` -> `2.50`,
/// `0.0000001` -> `1E-7`). Note that Jackson 2.18's `DecimalNode` (tree model with
/// `USE_BIG_DECIMAL_FOR_FLOATS`) strips trailing zeros first: see [`decimal_node_text`].
#[cfg(test)]
pub(crate) fn big_decimal_text(literal: &str) -> Result<String, NumberError> {
    big_decimal_text_with(literal, false)
}

/// The text of Jackson 2.18's `DecimalNode` for a float literal (tree model with
/// `USE_BIG_DECIMAL_FOR_FLOATS`): `new BigDecimal(literal).stripTrailingZeros().toString()`
/// (`2.50` -> `2.5`, `100.0` -> `1E+2`, `-0.0` -> `0`), as run with flink-shaded-jackson.
pub(crate) fn decimal_node_text(literal: &str) -> Result<String, NumberError> {
    big_decimal_text_with(literal, true)
}

/// `BigDecimal.toString()` of a parsed literal, optionally after `stripTrailingZeros()`.
fn big_decimal_text_with(literal: &str, strip: bool) -> Result<String, NumberError> {
    let parsed = big_decimal_literal(literal)?;
    let mut digits: Vec<u8> = parsed.significant_digits().map(|d| b'0' + d).collect();
    let negative = parsed.negative && !digits.is_empty();
    if digits.is_empty() {
        digits.push(b'0');
    }
    let (digits, scale) = if strip {
        strip_trailing_zeros(&digits, parsed.scale)
    } else {
        (&digits[..], parsed.scale)
    };
    let mut out = Vec::with_capacity(digits.len() + 8);
    write_big_decimal_string(negative, digits, scale, &mut out);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `BigDecimal.valueOf(unscaled, scale)` printed as flink-json's encoder does:
/// `plain == false` -> `stripTrailingZeros().toString()` (`1E+2`, `1E-7`, `0`);
/// `plain == true` -> `toPlainString()` with the declared scale kept (`100.00`, `0.00`).
pub(crate) fn write_java_decimal(unscaled: i128, scale: i8, plain: bool, out: &mut Vec<u8>) {
    let mut buffer = [0u8; 40];
    let digits = unsigned_digits(unscaled.unsigned_abs(), &mut buffer);
    let negative = unscaled < 0;
    if plain {
        write_plain_string(negative, digits, i64::from(scale), out);
    } else {
        let (digits, scale) = strip_trailing_zeros(digits, i64::from(scale));
        write_big_decimal_string(negative, digits, scale, out);
    }
}

/// Decimal digits of `value` written at the end of `buffer`.
fn unsigned_digits(mut value: u128, buffer: &mut [u8; 40]) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        buffer[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    &buffer[start..]
}

/// `stripTrailingZeros()`: drops trailing zero digits, lowering the scale; zero becomes
/// `0` with scale 0 (Java 8+).
fn strip_trailing_zeros(digits: &[u8], scale: i64) -> (&[u8], i64) {
    if digits == b"0" {
        return (digits, 0);
    }
    let zeros = digits.iter().rev().take_while(|&&d| d == b'0').count();
    (&digits[..digits.len() - zeros], scale - to_i64(zeros))
}

/// `BigDecimal.toString()` of `digits` (no leading zeros, `0` for zero) at `scale`:
/// plain when scale >= 0 and the adjusted exponent >= -6, else `d.dddE±n`.
fn write_big_decimal_string(negative: bool, digits: &[u8], scale: i64, out: &mut Vec<u8>) {
    let adjusted = to_i64(digits.len()) - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        write_plain_string(negative, digits, scale, out);
        return;
    }
    if negative {
        out.push(b'-');
    }
    out.push(digits[0]);
    if digits.len() > 1 {
        out.push(b'.');
        out.extend_from_slice(&digits[1..]);
    }
    if adjusted != 0 {
        out.push(b'E');
        if adjusted > 0 {
            out.push(b'+');
        }
        push_display(adjusted, out);
    }
}

/// `BigDecimal.toPlainString()`: digits with the point `scale` places from the right
/// (zeros appended for a negative scale; zero with a negative scale is `0`).
fn write_plain_string(negative: bool, digits: &[u8], scale: i64, out: &mut Vec<u8>) {
    if negative {
        out.push(b'-');
    }
    if scale <= 0 {
        out.extend_from_slice(digits);
        if digits != b"0" {
            push_zeros(scale.unsigned_abs(), out);
        }
        return;
    }
    let int_len = to_i64(digits.len()) - scale;
    if int_len > 0 {
        let (int_part, frac_part) = digits.split_at(usize::try_from(int_len).unwrap_or(0));
        out.extend_from_slice(int_part);
        out.push(b'.');
        out.extend_from_slice(frac_part);
    } else {
        out.extend_from_slice(b"0.");
        push_zeros(int_len.unsigned_abs(), out);
        out.extend_from_slice(digits);
    }
}

/// Appends `count` ASCII zeros.
pub(super) fn push_zeros(count: u64, out: &mut Vec<u8>) {
    out.extend(std::iter::repeat_n(
        b'0',
        usize::try_from(count).unwrap_or(0),
    ));
}

/// Appends the decimal text of `value`.
pub(super) fn push_display(value: i64, out: &mut Vec<u8>) {
    let mut text = StackText::new();
    let _ = write!(text, "{value}");
    out.extend_from_slice(text.as_bytes());
}
