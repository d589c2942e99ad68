//! Java's number grammars and spellings as flink-json 2.2.0 relies on them (spec §1.5,
//! §1.8): `Long.parseLong` and friends, `Double.parseDouble` / `Float.parseFloat` (decimal
//! and hexadecimal literals, type suffixes, `NaN`/`Infinity`), `new BigDecimal(String)`
//! with Flink's HALF_UP rescaling, and the texts of `Double.toString`, `Float.toString`
//! and `BigDecimal.toString` / `toPlainString`.
//!
//! Error messages are those of Java 17's `NumberFormatException` (the test JVM). Where
//! Java's message is `null` the text is `"null"`.
//!
//! Float printing follows JDK 19+ (shortest round-trip digits, closest and even on ties,
//! JDK-4511638). JDK 17 prints longer digits for many large values (doubles ≥ ~1e16,
//! floats ≥ ~1e7), for about 17% of powers of two, and `1.0E-323` for `9.9E-324`; see the
//! `java17_differs` tests.
//!
//! `parse_decimal` errors for rescales Java's BigInteger cannot do carry Java's
//! ArithmeticException messages ("Underflow", "BigInteger would overflow supported
//! range").

use std::fmt::{self, Write as _};
use std::str::FromStr;

/// Why a number text did not parse, with Java's NumberFormatException-like message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NumberError(pub(crate) String);

impl NumberError {
    fn for_input_string(text: &str) -> Self {
        NumberError(format!("For input string: \"{text}\""))
    }

    fn value_out_of_range(text: &str) -> Self {
        NumberError(format!("Value out of range. Value:\"{text}\" Radix:10"))
    }

    fn msg(text: &str) -> Self {
        NumberError(text.to_owned())
    }
}

// ---------------------------------------------------------------------------------------
// Digits
// ---------------------------------------------------------------------------------------

/// Code points of the `0` of every BMP run of ten decimal digits (Unicode category Nd)
/// that Java's `Character.digit(char, 10)` accepts; identical in Java 17 and Java 25.
/// Supplementary digits are surrogate pairs in Java's UTF-16 strings, so never digits.
const BMP_DIGIT_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// Java `Character.digit(c, 10)`: the value of an ASCII or other BMP decimal digit.
fn java_digit(c: char) -> Option<u8> {
    if c.is_ascii_digit() {
        return Some(c as u8 - b'0');
    }
    let code = u32::from(c);
    let run = BMP_DIGIT_ZEROS.partition_point(|&zero| zero <= code);
    let zero = BMP_DIGIT_ZEROS[run.checked_sub(1)?];
    u8::try_from(code - zero).ok().filter(|&value| value < 10)
}

/// Splits an optional leading `-` or `+`; returns (negative, rest).
fn split_sign(text: &str) -> (bool, &str) {
    if let Some(rest) = text.strip_prefix('-') {
        (true, rest)
    } else {
        (false, text.strip_prefix('+').unwrap_or(text))
    }
}

/// Splits `text` after its longest prefix of bytes matching `keep`.
fn split_while(text: &str, keep: impl Fn(u8) -> bool) -> (&str, &str) {
    let end = text.bytes().position(|b| !keep(b)).unwrap_or(text.len());
    text.split_at(end)
}

/// Parses ASCII decimal digits into an i64, saturating at ±2^40 (far beyond any
/// exponent that still matters); `None` when `digits` is empty or not all digits.
fn saturating_exponent(negative: bool, digits: &str) -> Option<i64> {
    const CAP: i64 = 1 << 40;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits
        .bytes()
        .fold(0i64, |acc, b| (acc * 10 + i64::from(b - b'0')).min(CAP));
    Some(if negative { -magnitude } else { magnitude })
}

// ---------------------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Double.parseDouble / Float.parseFloat
// ---------------------------------------------------------------------------------------

/// A syntactically valid Java floating-point literal, split into its parts.
enum FloatLiteral<'a> {
    NaN,
    Infinity {
        negative: bool,
    },
    Decimal(DecimalParts<'a>),
    /// Hexadecimal `0x<int>.<frac>p<exponent>`.
    Hex {
        negative: bool,
        int_digits: &'a str,
        frac_digits: &'a str,
        exponent: i64,
    },
}

/// A decimal Java float literal: `number` is the literal without its type suffix (sign
/// kept), then the digits around the point and the (saturated) exponent.
struct DecimalParts<'a> {
    negative: bool,
    number: &'a str,
    int_digits: &'a str,
    frac_digits: &'a str,
    exponent: i64,
}

/// Java `Double.parseDouble(text)` exactly: Java trims whitespace (<= ' ') itself;
/// accepts a leading sign, `NaN`, `Infinity`, decimals with optional exponent and
/// f/F/d/D suffix, `.5`, `5.` and hex literals (`0x1.8p3`, `p` exponent mandatory);
/// correctly rounded.
pub(crate) fn parse_java_double(text: &str) -> Result<f64, NumberError> {
    Ok(match float_literal(text)? {
        FloatLiteral::NaN => f64::NAN,
        FloatLiteral::Infinity { negative } => signed(f64::INFINITY, negative),
        FloatLiteral::Hex {
            negative,
            int_digits,
            frac_digits,
            exponent,
        } => {
            let bits = hex_to_bits(int_digits, frac_digits, exponent, &F64_FORMAT);
            signed(f64::from_bits(bits), negative)
        }
        FloatLiteral::Decimal(parts) => decimal_to_float::<f64>(&parts, text)?,
    })
}

/// Java `Float.parseFloat(text)`: same grammar as [`parse_java_double`], correctly
/// rounded straight to f32 (not via f64).
pub(crate) fn parse_java_float(text: &str) -> Result<f32, NumberError> {
    Ok(match float_literal(text)? {
        FloatLiteral::NaN => f32::NAN,
        FloatLiteral::Infinity { negative } => signed(f32::INFINITY, negative),
        FloatLiteral::Hex {
            negative,
            int_digits,
            frac_digits,
            exponent,
        } => {
            let bits = hex_to_bits(int_digits, frac_digits, exponent, &F32_FORMAT);
            let magnitude = u32::try_from(bits).map_or(f32::INFINITY, f32::from_bits);
            signed(magnitude, negative)
        }
        FloatLiteral::Decimal(parts) => decimal_to_float::<f32>(&parts, text)?,
    })
}

/// `value` negated when `negative`.
fn signed<T: std::ops::Neg<Output = T>>(value: T, negative: bool) -> T {
    if negative {
        -value
    } else {
        value
    }
}

/// Trims like Java and checks the literal grammar of `FloatingDecimal`.
fn float_literal(text: &str) -> Result<FloatLiteral<'_>, NumberError> {
    let trimmed = java_trim(text);
    if trimmed.is_empty() {
        return Err(NumberError::msg("empty String"));
    }
    let (negative, unsigned) = split_sign(trimmed);
    let literal = match unsigned {
        "NaN" => Some(FloatLiteral::NaN),
        "Infinity" => Some(FloatLiteral::Infinity { negative }),
        _ if unsigned.starts_with("0x") || unsigned.starts_with("0X") => {
            hex_literal(negative, &unsigned[2..])
        }
        _ => {
            reject_multiple_points(unsigned)?;
            decimal_literal(negative, trimmed, unsigned)
        }
    };
    literal.ok_or_else(|| NumberError::for_input_string(trimmed))
}

/// Java reports "multiple points" when the leading run of digits and points after the
/// sign holds two points.
fn reject_multiple_points(unsigned: &str) -> Result<(), NumberError> {
    let (run, _) = split_while(unsigned, |b| b.is_ascii_digit() || b == b'.');
    if run.bytes().filter(|&b| b == b'.').count() > 1 {
        return Err(NumberError::msg("multiple points"));
    }
    Ok(())
}

/// Drops one trailing Java type suffix (`f`, `F`, `d`, `D`).
fn strip_type_suffix(text: &str) -> &str {
    text.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(text)
}

/// `digits[.digits][e[+-]digits]` with at least one digit in the mantissa.
fn decimal_literal<'a>(
    negative: bool,
    signed_text: &'a str,
    unsigned: &'a str,
) -> Option<FloatLiteral<'a>> {
    let body = strip_type_suffix(unsigned);
    let number = &signed_text[..signed_text.len() - (unsigned.len() - body.len())];
    let (int_digits, rest) = split_while(body, |b| b.is_ascii_digit());
    let (frac_digits, rest) = match rest.strip_prefix('.') {
        Some(after_point) => split_while(after_point, |b| b.is_ascii_digit()),
        None => ("", rest),
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let exponent = match rest.strip_prefix(['e', 'E']) {
        Some(exp) => {
            let (exp_negative, exp_digits) = split_sign(exp);
            saturating_exponent(exp_negative, exp_digits)?
        }
        None if rest.is_empty() => 0,
        None => return None,
    };
    Some(FloatLiteral::Decimal(DecimalParts {
        negative,
        number,
        int_digits,
        frac_digits,
        exponent,
    }))
}

/// After `0x`: `hex[.hex]p[+-]digits` with at least one hex digit.
fn hex_literal(negative: bool, after_prefix: &str) -> Option<FloatLiteral<'_>> {
    let body = strip_type_suffix(after_prefix);
    let (int_digits, rest) = split_while(body, |b| b.is_ascii_hexdigit());
    let (frac_digits, rest) = match rest.strip_prefix('.') {
        Some(after_point) => split_while(after_point, |b| b.is_ascii_hexdigit()),
        None => ("", rest),
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let (exp_negative, exp_digits) = split_sign(rest.strip_prefix(['p', 'P'])?);
    let exponent = saturating_exponent(exp_negative, exp_digits)?;
    Some(FloatLiteral::Hex {
        negative,
        int_digits,
        frac_digits,
        exponent,
    })
}

/// Longest literal handed to Rust's parser unchanged: short enough that Rust's own
/// exponent saturation (at 65536) can never change the result.
const DIRECT_PARSE_MAX_LEN: usize = 100;

/// Correctly rounded decimal -> float via Rust's parser (which accepts every literal the
/// Java grammar accepts once the suffix is gone); long literals are normalised first.
fn decimal_to_float<T: FromStr>(parts: &DecimalParts<'_>, text: &str) -> Result<T, NumberError> {
    let parsed = if parts.number.len() <= DIRECT_PARSE_MAX_LEN {
        parts.number.parse::<T>()
    } else {
        normalized_decimal(parts).parse::<T>()
    };
    parsed.map_err(|_| NumberError::for_input_string(java_trim(text)))
}

/// Significant digits kept when normalising a long decimal; more than the 767 that can
/// ever decide an f64 rounding, followed by a sticky `1` for the rest.
const NORMALIZED_DIGITS: usize = 800;

/// Rewrites a long decimal as `[-]<≤ 801 significant digits>e<exponent in ±2000>`
/// denoting a number that rounds to the same float.
fn normalized_decimal(parts: &DecimalParts<'_>) -> String {
    let all = parts.int_digits.bytes().chain(parts.frac_digits.bytes());
    let significant: Vec<u8> = all.skip_while(|&b| b == b'0').collect();
    let trailing_zeros = significant.iter().rev().take_while(|&&b| b == b'0').count();
    let significant = &significant[..significant.len() - trailing_zeros];
    let sign = if parts.negative { "-" } else { "" };
    if significant.is_empty() {
        return format!("{sign}0");
    }
    let kept = significant.len().min(NORMALIZED_DIGITS);
    let dropped = significant.len() - kept;
    let sticky = if dropped > 0 { "1" } else { "" };
    let shift = to_i64(trailing_zeros + dropped) - to_i64(parts.frac_digits.len() + sticky.len());
    let final_exponent = parts.exponent.saturating_add(shift).clamp(-2000, 2000);
    let digits = String::from_utf8_lossy(&significant[..kept]);
    format!("{sign}{digits}{sticky}e{final_exponent}")
}

/// A length as i64 (saturating; lengths never get near the limit).
fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Layout of an IEEE 754 binary format.
struct BinaryFormat {
    /// Significand bits including the implicit leading one (53 or 24).
    precision: i64,
    /// Exponent of the smallest normal number (-1022 or -126).
    min_exponent: i64,
    /// Bits of the positive infinity.
    infinity_bits: u64,
}

const F64_FORMAT: BinaryFormat = BinaryFormat {
    precision: 53,
    min_exponent: -1022,
    infinity_bits: 0x7FF0_0000_0000_0000,
};

const F32_FORMAT: BinaryFormat = BinaryFormat {
    precision: 24,
    min_exponent: -126,
    infinity_bits: 0x7F80_0000,
};

/// The bits of the unsigned hex literal `int.frac × 2^exponent`, rounded to nearest-even
/// in `format` (subnormals, overflow to infinity included).
fn hex_to_bits(int_digits: &str, frac_digits: &str, exponent: i64, format: &BinaryFormat) -> u64 {
    let (mantissa, scale, sticky) = hex_mantissa(int_digits, frac_digits);
    if mantissa == 0 {
        return 0;
    }
    let leading = i64::from(mantissa.leading_zeros());
    let normalized = mantissa << leading;
    let exponent2 = exponent.saturating_add(scale).saturating_sub(leading);
    round_to_format(normalized, exponent2, sticky, format)
}

/// The first 16 significant hex digits as a u64, the power of two that scales it to the
/// literal's value (before its `p` exponent), and whether any later digit is non-zero.
fn hex_mantissa(int_digits: &str, frac_digits: &str) -> (u64, i64, bool) {
    let digits = int_digits.bytes().chain(frac_digits.bytes());
    let mut significant = digits.skip_while(|&b| b == b'0');
    let mut mantissa = 0u64;
    for b in significant.by_ref().take(16) {
        mantissa = (mantissa << 4) | u64::from(hex_value(b));
    }
    let mut rest = 0i64;
    let mut sticky = false;
    for b in significant {
        rest += 1;
        sticky |= b != b'0';
    }
    let scale = rest
        .saturating_sub(to_i64(frac_digits.len()))
        .saturating_mul(4);
    (mantissa, scale, sticky)
}

/// Value of an ASCII hex digit (the grammar was checked before).
fn hex_value(b: u8) -> u8 {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
        .unwrap_or(0)
}

/// Rounds `mantissa × 2^exponent2 (+ sticky)`, `mantissa` with its top bit set, to the
/// nearest-even value of `format`; returns its bits (no sign).
fn round_to_format(mantissa: u64, exponent2: i64, sticky: bool, format: &BinaryFormat) -> u64 {
    let top_exponent = exponent2.saturating_add(63);
    let lost_to_subnormal = (format.min_exponent - top_exponent).max(0);
    let kept_bits = format.precision - lost_to_subnormal;
    let shift = 64 - kept_bits;
    if shift > 64 {
        return 0;
    }
    let wide = u128::from(mantissa);
    let mut kept = wide >> shift;
    let remainder = wide & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if remainder > half || (remainder == half && (sticky || kept & 1 == 1)) {
        kept += 1;
    }
    assemble_bits(kept, top_exponent, lost_to_subnormal > 0, format)
}

/// Bits of a rounded significand `kept` (with the implicit bit unless `subnormal`) whose
/// leading bit had exponent `top_exponent`. Adding `(biased - 1) << fraction_bits` to a
/// significand that includes the implicit bit gives the exponent field plus fraction, a
/// rounding carry included; anything at or past infinity is infinity.
fn assemble_bits(kept: u128, top_exponent: i64, subnormal: bool, format: &BinaryFormat) -> u64 {
    let bits = if subnormal {
        kept
    } else {
        let biased_minus_one = top_exponent - format.min_exponent;
        let field = u128::try_from(biased_minus_one).unwrap_or(0) << (format.precision - 1);
        field.saturating_add(kept)
    };
    u64::try_from(bits)
        .ok()
        .filter(|&b| b < format.infinity_bits)
        .unwrap_or(format.infinity_bits)
}

// ---------------------------------------------------------------------------------------
// BigDecimal
// ---------------------------------------------------------------------------------------

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
fn push_zeros(count: u64, out: &mut Vec<u8>) {
    out.extend(std::iter::repeat_n(
        b'0',
        usize::try_from(count).unwrap_or(0),
    ));
}

/// Appends the decimal text of `value`.
fn push_display(value: i64, out: &mut Vec<u8>) {
    let mut text = StackText::new();
    let _ = write!(text, "{value}");
    out.extend_from_slice(text.as_bytes());
}

// ---------------------------------------------------------------------------------------
// Double.toString / Float.toString
// ---------------------------------------------------------------------------------------

/// A small stack buffer for `core::fmt` output (float and integer texts fit easily).
struct StackText {
    buffer: [u8; 48],
    len: usize,
}

impl StackText {
    fn new() -> Self {
        StackText {
            buffer: [0; 48],
            len: 0,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buffer[..self.len]
    }
}

impl fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let slot = self.buffer.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Significant decimal digits and the decimal exponent of the first one
/// (`d.ddd × 10^exponent`).
struct DecimalDigits {
    digits: [u8; 24],
    len: usize,
    exponent: i32,
}

impl DecimalDigits {
    /// Reads Rust's `{:e}` text (`1.2345e-7`, `5e-324`) of a positive finite float.
    fn from_lower_exp(text: &[u8]) -> Self {
        let mut result = DecimalDigits {
            digits: [b'0'; 24],
            len: 0,
            exponent: 0,
        };
        let split = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
        for &b in text[..split].iter().filter(|b| b.is_ascii_digit()) {
            if result.len < result.digits.len() {
                result.digits[result.len] = b;
                result.len += 1;
            }
        }
        let exponent_text = std::str::from_utf8(text.get(split + 1..).unwrap_or(b"0"));
        result.exponent = exponent_text.ok().and_then(|t| t.parse().ok()).unwrap_or(0);
        result
    }

    /// Digits and exponent of `significand × 10^exponent` (trailing zeros dropped).
    fn from_integer(significand: u64, exponent: i32) -> Self {
        let mut text = StackText::new();
        let _ = write!(text, "{significand}");
        // Plain integer text reads as its digits with exponent 0; then shift.
        let mut result = Self::from_lower_exp(text.as_bytes());
        result.exponent = exponent + i32::try_from(result.len).unwrap_or(0) - 1;
        while result.len > 1 && result.digits[result.len - 1] == b'0' {
            result.len -= 1;
        }
        result
    }

    /// The digits as an integer (at most 17 of them).
    fn significand(&self) -> Option<u64> {
        self.digits().iter().try_fold(0u64, |acc, &d| {
            acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
    }

    fn digits(&self) -> &[u8] {
        &self.digits[..self.len.max(1)]
    }
}

/// The floats printed here: f64 and f32.
trait JavaFloat: Copy + fmt::LowerExp + FromStr + PartialEq {
    /// Whether the value is subnormal (only then can Java's two-digit rule apply).
    fn is_subnormal_value(self) -> bool;
    /// `(m, e)` with `self == m × 2^e` exactly (for a positive finite value).
    fn binary_parts(self) -> (u64, i32);
}

impl JavaFloat for f64 {
    fn is_subnormal_value(self) -> bool {
        self.is_subnormal()
    }

    fn binary_parts(self) -> (u64, i32) {
        let bits = self.to_bits();
        let fraction = bits & ((1 << 52) - 1);
        match ((bits >> 52) & 0x7FF) as i32 {
            0 => (fraction, -1074),
            biased => (fraction | (1 << 52), biased - 1075),
        }
    }
}

impl JavaFloat for f32 {
    fn is_subnormal_value(self) -> bool {
        self.is_subnormal()
    }

    fn binary_parts(self) -> (u64, i32) {
        let bits = self.to_bits();
        let fraction = u64::from(bits & ((1 << 23) - 1));
        match ((bits >> 23) & 0xFF) as i32 {
            0 => (fraction, -149),
            biased => (fraction | (1 << 23), biased - 150),
        }
    }
}

/// Java `Double.toString(v)` (JDK 19+ shortest digits) appended to `out`.
pub(crate) fn write_java_double(v: f64, out: &mut Vec<u8>) {
    if !write_special(
        v.is_nan(),
        v.is_infinite(),
        v == 0.0,
        v.is_sign_negative(),
        out,
    ) {
        write_finite(v.abs(), v.is_sign_negative(), out);
    }
}

/// Java `Float.toString(v)` (JDK 19+ shortest digits) appended to `out`.
pub(crate) fn write_java_float(v: f32, out: &mut Vec<u8>) {
    if !write_special(
        v.is_nan(),
        v.is_infinite(),
        v == 0.0,
        v.is_sign_negative(),
        out,
    ) {
        write_finite(v.abs(), v.is_sign_negative(), out);
    }
}

/// Writes `NaN`, `[-]Infinity` or `[-]0.0`; false for any other value.
fn write_special(nan: bool, infinite: bool, zero: bool, negative: bool, out: &mut Vec<u8>) -> bool {
    let text: &[u8] = match (nan, infinite, zero, negative) {
        (true, ..) => b"NaN",
        (_, true, _, false) => b"Infinity",
        (_, true, _, true) => b"-Infinity",
        (_, _, true, false) => b"0.0",
        (_, _, true, true) => b"-0.0",
        _ => return false,
    };
    out.extend_from_slice(text);
    true
}

/// A positive finite non-zero value in Java's layout.
fn write_finite<T: JavaFloat>(abs: T, negative: bool, out: &mut Vec<u8>) {
    let digits = java_digits(abs);
    if negative {
        out.push(b'-');
    }
    if (-3..7).contains(&digits.exponent) {
        write_plain_layout(&digits, out);
    } else {
        write_scientific_layout(&digits, out);
    }
}

/// The decimal Java 19+ picks: the shortest that rounds back to `abs`, the one with
/// the even significand when two are equally close (Rust picks either), and when one
/// digit suffices the closest among one- and two-digit decimals (this only changes
/// subnormals such as `4.9E-324`).
fn java_digits<T: JavaFloat>(abs: T) -> DecimalDigits {
    let mut text = StackText::new();
    let _ = write!(text, "{abs:e}");
    let shortest = DecimalDigits::from_lower_exp(text.as_bytes());
    if shortest.len == 1 && abs.is_subnormal_value() {
        return closest_two_digits(abs).unwrap_or(shortest);
    }
    even_of_tie(abs, &shortest).unwrap_or(shortest)
}

/// When `abs` lies exactly halfway between `shortest` and its neighbour of the same
/// length, the neighbour if its significand is the even one (and it rounds back).
fn even_of_tie<T: JavaFloat>(abs: T, shortest: &DecimalDigits) -> Option<DecimalDigits> {
    let significand = shortest.significand()?;
    let exponent = shortest.exponent - i32::try_from(shortest.len).ok()? + 1;
    let (mantissa, binary_exponent) = abs.binary_parts();
    let halfway = |odd_twice: u64| is_midpoint(mantissa, binary_exponent, odd_twice, exponent);
    let neighbour = if halfway(2 * significand + 1) {
        significand + 1
    } else if halfway((2 * significand).checked_sub(1)?) {
        significand - 1
    } else {
        return None;
    };
    if neighbour % 2 != 0 {
        return None;
    }
    let mut text = StackText::new();
    write!(text, "{neighbour}e{exponent}").ok()?;
    let back = std::str::from_utf8(text.as_bytes())
        .ok()?
        .parse::<T>()
        .ok()?;
    (back == abs).then(|| DecimalDigits::from_integer(neighbour, exponent))
}

/// Whether `mantissa × 2^binary_exponent == odd_twice × 10^exponent / 2` exactly, for an
/// odd `odd_twice`: both sides must have the same power of two and the same odd part.
fn is_midpoint(mantissa: u64, binary_exponent: i32, odd_twice: u64, exponent: i32) -> bool {
    let twos = mantissa.trailing_zeros();
    let odd_part = u128::from(mantissa >> twos);
    if i64::from(binary_exponent) + 1 + i64::from(twos) != i64::from(exponent) {
        return false;
    }
    let fives = |n: i32| 5u128.checked_pow(n.unsigned_abs());
    if exponent >= 0 {
        fives(exponent)
            .and_then(|p| p.checked_mul(u128::from(odd_twice)))
            .is_some_and(|rhs| rhs == odd_part)
    } else {
        fives(exponent)
            .and_then(|p| p.checked_mul(odd_part))
            .is_some_and(|lhs| lhs == u128::from(odd_twice))
    }
}

/// The two-digit decimal nearest to `abs`, if it rounds back to `abs`.
fn closest_two_digits<T: JavaFloat>(abs: T) -> Option<DecimalDigits> {
    let mut text = StackText::new();
    write!(text, "{abs:.1e}").ok()?;
    let round_trips = std::str::from_utf8(text.as_bytes())
        .ok()?
        .parse::<T>()
        .is_ok_and(|back| back == abs);
    round_trips.then(|| DecimalDigits::from_lower_exp(text.as_bytes()))
}

/// `ddd.ddd` for 1e-3 <= v < 1e7, with at least one digit after the point.
fn write_plain_layout(decimal: &DecimalDigits, out: &mut Vec<u8>) {
    let digits = decimal.digits();
    if decimal.exponent < 0 {
        out.extend_from_slice(b"0.");
        push_zeros(u64::from((-decimal.exponent - 1).unsigned_abs()), out);
        out.extend_from_slice(digits);
        return;
    }
    let int_len = usize::try_from(decimal.exponent).unwrap_or(0) + 1;
    let (int_part, frac_part) = digits.split_at(int_len.min(digits.len()));
    out.extend_from_slice(int_part);
    push_zeros(to_u64(int_len - int_part.len()), out);
    out.push(b'.');
    if frac_part.is_empty() {
        out.push(b'0');
    } else {
        out.extend_from_slice(frac_part);
    }
}

/// `d.dddE[-]n`, at least one digit after the point, no `+`.
fn write_scientific_layout(decimal: &DecimalDigits, out: &mut Vec<u8>) {
    let digits = decimal.digits();
    out.push(digits[0]);
    out.push(b'.');
    if digits.len() > 1 {
        out.extend_from_slice(&digits[1..]);
    } else {
        out.push(b'0');
    }
    out.push(b'E');
    push_display(i64::from(decimal.exponent), out);
}

/// A length as u64.
fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The text Jackson's tree model gives a float literal when re-serialised (`DoubleNode`):
/// `Double.toString(Double.parseDouble(literal))`. (Inside `toString()` of a container,
/// Jackson writes a non-finite `DoubleNode` as a quoted string: `"Infinity"`.)
#[cfg(test)]
pub(crate) fn jackson_float_text(literal: &str) -> Result<String, NumberError> {
    let value = parse_java_double(literal)?;
    let mut out = Vec::with_capacity(24);
    write_java_double(value, &mut out);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    //! Expected values come from running the JDK (`Long.parseLong`, `Double.parseDouble`,
    //! `new BigDecimal(..)`, ...): Java 17 (the test JVM) for parsing and error messages,
    //! Temurin 25 for `Double/Float.toString` (identical to Java 17 except where a test
    //! says `java17_differs`).

    use super::*;

    const LONG: (i64, i64) = (i64::MIN, i64::MAX);
    const INT: (i64, i64) = (i32::MIN as i64, i32::MAX as i64);
    const SHORT: (i64, i64) = (i16::MIN as i64, i16::MAX as i64);
    const BYTE: (i64, i64) = (i8::MIN as i64, i8::MAX as i64);

    fn int(text: &str, range: (i64, i64)) -> Result<i64, String> {
        parse_java_integer(text, range.0, range.1).map_err(|e| e.0)
    }

    fn double_err(text: &str) -> String {
        parse_java_double(text)
            .map(|v| v.to_string())
            .unwrap_or_else(|e| e.0)
    }

    fn double_bits(text: &str) -> u64 {
        parse_java_double(text)
            .map(f64::to_bits)
            .unwrap_or(u64::MAX)
    }

    fn float_bits(text: &str) -> u32 {
        parse_java_float(text).map(f32::to_bits).unwrap_or(u32::MAX)
    }

    fn double_text(v: f64) -> String {
        let mut out = b"prefix:".to_vec();
        write_java_double(v, &mut out);
        String::from_utf8(out).unwrap().replacen("prefix:", "", 1)
    }

    fn float_text(v: f32) -> String {
        let mut out = Vec::new();
        write_java_float(v, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn dtext(bits: u64) -> String {
        double_text(f64::from_bits(bits))
    }

    fn ftext(bits: u32) -> String {
        float_text(f32::from_bits(bits))
    }

    fn decimal(text: &str, precision: u8, scale: i8) -> Result<Option<i128>, String> {
        parse_decimal(text, precision, scale).map_err(|e| e.0)
    }

    fn decimal_text(unscaled: i128, scale: i8, plain: bool) -> String {
        let mut out = Vec::new();
        write_java_decimal(unscaled, scale, plain, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn bd(text: &str) -> String {
        big_decimal_text(text).unwrap_or_else(|e| format!("ERR {}", e.0))
    }

    // ---- integers ----

    #[test]
    fn long_accepts_signs_and_leading_zeros() {
        assert_eq!(int("0", LONG), Ok(0));
        assert_eq!(int("+5", LONG), Ok(5));
        assert_eq!(int("-0", LONG), Ok(0));
        assert_eq!(int("007", LONG), Ok(7));
        assert_eq!(int("-42", LONG), Ok(-42));
    }

    #[test]
    fn long_limits_and_overflow() {
        assert_eq!(int("9223372036854775807", LONG), Ok(i64::MAX));
        assert_eq!(int("-9223372036854775808", LONG), Ok(i64::MIN));
        assert_eq!(
            int("9223372036854775808", LONG),
            Err("For input string: \"9223372036854775808\"".into())
        );
        assert_eq!(
            int("-9223372036854775809", LONG),
            Err("For input string: \"-9223372036854775809\"".into())
        );
        assert!(int("99999999999999999999999", LONG).is_err());
    }

    #[test]
    fn integer_rejects_what_java_rejects() {
        for text in ["", "+", "-", " 1", "1 ", "1.5", "1e2", "+-1", "0x10", "1_0"] {
            assert_eq!(
                int(text, LONG),
                Err(format!("For input string: \"{text}\"")),
                "{text:?}"
            );
        }
    }

    #[test]
    fn int_range_and_messages() {
        assert_eq!(int("2147483647", INT), Ok(2147483647));
        assert_eq!(int("-2147483648", INT), Ok(-2147483648));
        assert_eq!(
            int("2147483648", INT),
            Err("For input string: \"2147483648\"".into())
        );
    }

    #[test]
    fn short_parses_as_int_then_checks_range() {
        assert_eq!(int("-32768", SHORT), Ok(-32768));
        assert_eq!(
            int("40000", SHORT),
            Err("Value out of range. Value:\"40000\" Radix:10".into())
        );
        assert_eq!(
            int("-2147483648", SHORT),
            Err("Value out of range. Value:\"-2147483648\" Radix:10".into())
        );
        assert_eq!(
            int("2147483648", SHORT),
            Err("For input string: \"2147483648\"".into())
        );
    }

    #[test]
    fn byte_range() {
        assert_eq!(int("-128", BYTE), Ok(-128));
        assert_eq!(int("127", BYTE), Ok(127));
        assert_eq!(
            int("200", BYTE),
            Err("Value out of range. Value:\"200\" Radix:10".into())
        );
        assert_eq!(
            int("-32768", BYTE),
            Err("Value out of range. Value:\"-32768\" Radix:10".into())
        );
    }

    #[test]
    fn integer_accepts_other_unicode_decimal_digits_like_character_digit() {
        assert_eq!(int("١٢", LONG), Ok(12)); // Arabic-Indic
        assert_eq!(int("１２", INT), Ok(12)); // fullwidth
        assert_eq!(int("٠١٢٣٤٥٦٧٨٩", LONG), Ok(123456789));
        assert_eq!(int("९", BYTE), Ok(9)); // Devanagari
        assert_eq!(int("꧐", LONG), Ok(0)); // Javanese zero
        assert_eq!(
            int("-９２２３３７２０３６８５４７７５８０８", LONG),
            Ok(i64::MIN)
        );
    }

    #[test]
    fn integer_rejects_non_decimal_digit_characters() {
        // Superscripts and roman numerals are not Nd; supplementary digits are surrogate
        // pairs in Java, so not digits either.
        for text in ["²", "¹", "Ⅻ", "𝟘", "٣-"] {
            assert!(int(text, LONG).is_err(), "{text:?}");
        }
    }

    #[test]
    fn java_digit_table_edges() {
        assert_eq!(java_digit('/'), None);
        assert_eq!(java_digit(':'), None);
        assert_eq!(java_digit('\u{0660}'), Some(0));
        assert_eq!(java_digit('\u{0669}'), Some(9));
        assert_eq!(java_digit('\u{066A}'), None);
        assert_eq!(java_digit('\u{FF19}'), Some(9));
        assert_eq!(java_digit('\u{FF1A}'), None);
        assert_eq!(java_digit('\u{19DA}'), None); // New Tai Lue tham digit one: No, not Nd
    }

    // ---- trim ----

    #[test]
    fn java_trim_strips_control_chars_and_space_only() {
        assert_eq!(java_trim(" \t\n\r\u{0}\u{1f}12\u{1} "), "12");
        assert_eq!(java_trim("\u{a0}12\u{a0}"), "\u{a0}12\u{a0}"); // NBSP is kept
        assert_eq!(java_trim("\u{2003}x"), "\u{2003}x");
        assert_eq!(java_trim("   "), "");
        assert_eq!(java_trim("a b"), "a b");
    }

    // ---- Double.parseDouble ----

    #[test]
    fn double_plain_forms() {
        assert_eq!(parse_java_double("1"), Ok(1.0));
        assert_eq!(parse_java_double(" 1 "), Ok(1.0));
        assert_eq!(parse_java_double("\t1.5\n"), Ok(1.5));
        assert_eq!(parse_java_double(".5"), Ok(0.5));
        assert_eq!(parse_java_double("+.5"), Ok(0.5));
        assert_eq!(parse_java_double("5."), Ok(5.0));
        assert_eq!(parse_java_double("-.5e1"), Ok(-5.0));
        assert_eq!(parse_java_double("1.e5"), Ok(100000.0));
        assert_eq!(parse_java_double("00012.500"), Ok(12.5));
        assert_eq!(parse_java_double("1E-5"), Ok(1.0E-5));
    }

    #[test]
    fn double_type_suffixes() {
        assert_eq!(parse_java_double("1e5d"), Ok(100000.0));
        assert_eq!(parse_java_double("1.5f"), Ok(1.5));
        assert_eq!(parse_java_double("1.5F"), Ok(1.5));
        assert_eq!(parse_java_double("1.5D"), Ok(1.5));
        assert_eq!(double_err("1.5dd"), "For input string: \"1.5dd\"");
        assert_eq!(double_err("d"), "For input string: \"d\"");
    }

    #[test]
    fn double_nan_and_infinity_spellings() {
        assert!(parse_java_double("NaN").is_ok_and(f64::is_nan));
        assert!(parse_java_double("-NaN").is_ok_and(f64::is_nan));
        assert!(parse_java_double("+NaN").is_ok_and(f64::is_nan));
        assert_eq!(parse_java_double("Infinity"), Ok(f64::INFINITY));
        assert_eq!(parse_java_double(" -Infinity"), Ok(f64::NEG_INFINITY));
        assert_eq!(parse_java_double("+Infinity "), Ok(f64::INFINITY));
        for text in ["nan", "NaNd", "Infinityf", "infinity", "Inf", "INFINITY"] {
            assert_eq!(double_err(text), format!("For input string: \"{text}\""));
        }
    }

    #[test]
    fn double_hex_literals() {
        assert_eq!(parse_java_double("0x1p3"), Ok(8.0));
        assert_eq!(parse_java_double("0X1P3"), Ok(8.0));
        assert_eq!(parse_java_double("0x1.8p3"), Ok(12.0));
        assert_eq!(parse_java_double("0x.8p1"), Ok(1.0));
        assert_eq!(parse_java_double("0x1.p0"), Ok(1.0));
        assert_eq!(parse_java_double("0x1p+3"), Ok(8.0));
        assert_eq!(parse_java_double("-0x1p-3d"), Ok(-0.125));
        assert_eq!(parse_java_double("0x1p3f"), Ok(8.0));
        assert_eq!(parse_java_double(" 0x1p3 "), Ok(8.0));
        assert_eq!(parse_java_double("0x1e1p0"), Ok(481.0));
        assert_eq!(parse_java_double("0x1P-0"), Ok(1.0));
    }

    #[test]
    fn double_hex_rejects_missing_parts() {
        for text in [
            "0x.p0", "0x1", "0x1p", "0xp1", "0x1p1.5", "0x1.8p1e", "00x1p0", "0x1p3 d",
        ] {
            assert_eq!(double_err(text), format!("For input string: \"{text}\""));
        }
        // Java 17 words this one like any other bad hex literal (Java 25: "multiple points").
        assert_eq!(double_err("0x1.2.3p1"), "For input string: \"0x1.2.3p1\"");
        // Exponent digits are ASCII only.
        assert!(parse_java_double("0x1p١").is_err());
    }

    #[test]
    fn double_hex_rounds_to_nearest_even() {
        assert_eq!(
            double_bits("0x1.fffffffffffff8p1023"),
            0x7FF0_0000_0000_0000
        );
        assert_eq!(
            double_bits("0x1.fffffffffffff7ffp1023"),
            0x7FEF_FFFF_FFFF_FFFF
        );
        assert_eq!(
            double_bits("0x1.0000000000000000000000000001p0"),
            0x3FF0_0000_0000_0000
        );
        assert_eq!(double_bits("0x1.00000000000008p0"), 0x3FF0_0000_0000_0000); // tie, even
        assert_eq!(double_bits("0x1.00000000000018p0"), 0x3FF0_0000_0000_0002); // tie, odd
        assert_eq!(
            double_bits("0x1.000000000000080001p0"),
            0x3FF0_0000_0000_0001
        );
    }

    #[test]
    fn double_hex_subnormals() {
        assert_eq!(double_bits("0x0.0000000000001p-1022"), 1);
        assert_eq!(double_bits("0x0.00000000000008p-1022"), 0);
        assert_eq!(double_bits("0x0.00000000000008000001p-1022"), 1);
        assert_eq!(double_bits("0x0.00000000000018p-1022"), 2);
        assert_eq!(double_bits("0x1p-1074"), 1);
        assert_eq!(double_bits("0x1p-1075"), 0);
        assert_eq!(double_bits("0x1.0000000000001p-1075"), 1);
        assert_eq!(
            double_bits("0x1.fffffffffffffp-1023"),
            0x0010_0000_0000_0000
        );
        assert_eq!(
            double_bits("0x1.ffffffffffffffp-1023"),
            0x0010_0000_0000_0000
        );
        assert_eq!(double_bits("0x00000000000000000000000001p-1074"), 1);
    }

    #[test]
    fn double_hex_extreme_exponents() {
        assert_eq!(double_bits("0x0p99999999999"), 0);
        assert_eq!(double_bits("-0x0p99999999999"), 0x8000_0000_0000_0000);
        assert_eq!(double_bits("0x1p2147483648"), 0x7FF0_0000_0000_0000);
        assert_eq!(double_bits("0x1p-2147483648"), 0);
        assert_eq!(
            double_bits("0x1000000000000000000000000000000000000000p-1234"),
            0
        );
        assert_eq!(double_bits("0x1p1023"), 0x7FE0_0000_0000_0000);
        assert_eq!(double_bits("0x1p1024"), 0x7FF0_0000_0000_0000);
    }

    #[test]
    fn double_error_messages() {
        assert_eq!(double_err(""), "empty String");
        assert_eq!(double_err(" \t "), "empty String");
        // Java 17 quotes the trimmed text (Java 25 quotes the original).
        assert_eq!(double_err(" 1x "), "For input string: \"1x\"");
        assert_eq!(double_err("1.2.3"), "multiple points");
        assert_eq!(double_err("1..2"), "multiple points");
        assert_eq!(double_err("1.2.3x"), "multiple points");
        assert_eq!(double_err("+.."), "multiple points");
        assert_eq!(double_err("x1.2.3"), "For input string: \"x1.2.3\"");
        assert_eq!(double_err("1.5e1.2"), "For input string: \"1.5e1.2\"");
    }

    #[test]
    fn double_rejects_incomplete_numbers() {
        for text in [
            "+", "-", ".", "1e", "1e+", ".e5", "e5", "- 1", "1 0", "1_0", "+-1", "-+1",
        ] {
            assert_eq!(double_err(text), format!("For input string: \"{text}\""));
        }
        // Non-ASCII digits are not digits for Double.parseDouble.
        assert!(parse_java_double("١٢").is_err());
        assert!(parse_java_double("１２").is_err());
    }

    #[test]
    fn double_zero_signs() {
        assert_eq!(double_bits("0"), 0);
        assert_eq!(double_bits("-0"), 0x8000_0000_0000_0000);
        assert_eq!(double_bits("-0.0"), 0x8000_0000_0000_0000);
        assert_eq!(double_bits("-1e-400"), 0x8000_0000_0000_0000);
        assert_eq!(double_bits("0e99999999999999999999"), 0);
    }

    #[test]
    fn double_range_boundaries() {
        assert_eq!(double_bits("4.9e-324"), 1);
        assert_eq!(double_bits("2.4703282292062328e-324"), 1);
        assert_eq!(double_bits("2.4703282292062327e-324"), 0);
        assert_eq!(double_bits("1.7976931348623157e308"), 0x7FEF_FFFF_FFFF_FFFF);
        assert_eq!(double_bits("1.7976931348623158e308"), 0x7FEF_FFFF_FFFF_FFFF);
        assert_eq!(double_bits("1.7976931348623159e308"), 0x7FF0_0000_0000_0000);
        assert_eq!(parse_java_double("1e400"), Ok(f64::INFINITY));
        assert_eq!(parse_java_double("-1e400"), Ok(f64::NEG_INFINITY));
        assert_eq!(
            parse_java_double("1e99999999999999999999"),
            Ok(f64::INFINITY)
        );
    }

    #[test]
    fn double_exponent_with_many_leading_zeros() {
        let text = format!("1e{}1", "0".repeat(60));
        assert_eq!(parse_java_double(&text), Ok(10.0));
        assert_eq!(
            parse_java_double("0.0000000000000000000000000000000000001e37"),
            Ok(1.0)
        );
    }

    #[test]
    fn double_long_literals_are_correctly_rounded() {
        let zeros = "0".repeat(200);
        assert_eq!(parse_java_double(&format!("0.{zeros}1e201")), Ok(1.0));
        // The exact midpoint between 1.0 and the next double, padded past 100 chars:
        // ties to even; one more non-zero digit 200 places later rounds up.
        let midpoint = format!("1.00000000000000011102230246251565404236316680908203125{zeros}");
        assert_eq!(double_bits(&midpoint), 0x3FF0_0000_0000_0000);
        assert_eq!(double_bits(&format!("{midpoint}1")), 0x3FF0_0000_0000_0001);
        let below = format!("-1.00000000000000011102230246251565404236316680908203124{zeros}9");
        assert_eq!(double_bits(&below), 0xBFF0_0000_0000_0000);
    }

    #[test]
    fn normalized_long_decimal_keeps_sticky_digit() {
        let digits = format!("1{}1", "0".repeat(900));
        let parts = DecimalParts {
            negative: true,
            number: "",
            int_digits: &digits,
            frac_digits: "",
            exponent: -5,
        };
        let text = normalized_decimal(&parts);
        assert!(text.starts_with("-1000"), "{text}");
        assert!(text.ends_with("1e96"), "{text}"); // 800 digits + sticky 1: 10^901 -> 10^96 after e-5
        assert_eq!(text.len(), 1 + 801 + 3);
    }

    // ---- Float.parseFloat ----

    #[test]
    fn float_range_boundaries() {
        assert_eq!(float_bits("3.4028235e38"), 0x7F7F_FFFF);
        assert_eq!(float_bits("3.4028236e38"), 0x7F80_0000);
        assert_eq!(
            float_bits("3.40282356779733661637539395458142568448e38"),
            0x7F80_0000
        );
        assert_eq!(
            float_bits("3.40282356779733661637539395458142568447e38"),
            0x7F7F_FFFF
        );
        assert_eq!(float_bits("1.4e-45"), 1);
        assert_eq!(float_bits("1e40"), 0x7F80_0000);
        assert_eq!(float_bits("-1e-50"), 0x8000_0000);
    }

    #[test]
    fn float_subnormal_halfway() {
        let below =
            "7.006492321624085354618647916449580656401309709382578858785341419448955413429303e-46";
        let above =
            "7.006492321624085354618647916449580656401309709382578858785341419448955413429304e-46";
        assert_eq!(float_bits(below), 0);
        assert_eq!(float_bits(above), 1);
    }

    #[test]
    fn float_rounds_directly_not_via_double() {
        // Via f64 this would become exactly 1 + 2^-24 and then tie to 1.0.
        assert_eq!(float_bits("1.00000005960464477539062501"), 0x3F80_0001);
        assert_eq!(float_bits("1.000000059604644775390625"), 0x3F80_0000);
        assert_eq!(float_bits("1.00000005960464477539062499"), 0x3F80_0000);
        assert_eq!(float_bits("16777217"), 0x4B80_0000);
    }

    #[test]
    fn float_hex_literals() {
        assert_eq!(float_bits("0x1.fffffep127"), 0x7F7F_FFFF);
        assert_eq!(float_bits("0x1.ffffffp127"), 0x7F80_0000);
        assert_eq!(float_bits("0x1p-149"), 1);
        assert_eq!(float_bits("0x1p-150"), 0);
        assert_eq!(float_bits("0x1.000001p-150"), 1);
        assert_eq!(float_bits("0x1.000001p0"), 0x3F80_0000);
        assert_eq!(float_bits("0x1.0000011p0"), 0x3F80_0001);
        assert_eq!(float_bits("0x1.000003p0"), 0x3F80_0002);
        assert_eq!(float_bits("0x1.8p1"), 0x4040_0000);
    }

    #[test]
    fn float_shares_the_double_grammar() {
        assert_eq!(parse_java_float(" 2.5f "), Ok(2.5));
        assert!(parse_java_float("NaN").is_ok_and(f32::is_nan));
        assert_eq!(parse_java_float("-Infinity"), Ok(f32::NEG_INFINITY));
        assert_eq!(
            parse_java_float("1.5dd").map_err(|e| e.0),
            Err("For input string: \"1.5dd\"".into())
        );
        assert_eq!(
            parse_java_float("").map_err(|e| e.0),
            Err("empty String".into())
        );
    }

    // ---- Double.toString ----

    #[test]
    fn double_text_plain_range() {
        assert_eq!(dtext(0x3FF0_0000_0000_0000), "1.0");
        assert_eq!(dtext(0x3FB9_9999_9999_999A), "0.1");
        assert_eq!(dtext(0x3FE0_0000_0000_0000), "0.5");
        assert_eq!(dtext(0x3F84_7AE1_47AE_147B), "0.01");
        assert_eq!(dtext(0x405E_DD2F_1A9F_BE77), "123.456");
        assert_eq!(dtext(0x4033_FD70_A3D7_0A3D), "19.99");
        assert_eq!(dtext(0xC05E_C000_0000_0000), "-123.0");
        assert_eq!(dtext(0x3FD5_5555_5555_5555), "0.3333333333333333");
        assert_eq!(dtext(0x4009_21FB_5444_2D18), "3.141592653589793");
        assert_eq!(dtext(0x3FF0_0000_0000_0001), "1.0000000000000002");
    }

    #[test]
    fn double_text_layout_switches_at_1e_minus3_and_1e7() {
        assert_eq!(dtext(0x3F50_624D_D2F1_A9FC), "0.001");
        assert_eq!(dtext(0x3F50_624D_D2F1_A9FB), "9.999999999999998E-4");
        assert_eq!(dtext(0x3F1A_36E2_EB1C_432D), "1.0E-4");
        assert_eq!(dtext(0x4163_12CF_E000_0000), "9999999.0");
        assert_eq!(dtext(0x4163_12CF_FFFF_FFFF), "9999999.999999998");
        assert_eq!(dtext(0x4163_12D0_0000_0000), "1.0E7");
    }

    #[test]
    fn double_text_scientific() {
        assert_eq!(dtext(0x4202_A05F_2000_0000), "1.0E10");
        assert_eq!(dtext(0x3EE4_F8B5_88E3_68F1), "1.0E-5");
        assert_eq!(dtext(0x41DF_FFFF_FFC0_0000), "2.147483647E9");
        assert_eq!(dtext(0x43E0_0000_0000_0000), "9.223372036854776E18");
        assert_eq!(dtext(0x4415_AF1D_78B5_8C40), "1.0E20");
        assert_eq!(dtext(0x3E11_2E0B_E826_D695), "1.0E-9");
        assert_eq!(double_text(-1.5e-300), "-1.5E-300");
    }

    #[test]
    fn double_text_specials() {
        assert_eq!(double_text(0.0), "0.0");
        assert_eq!(double_text(-0.0), "-0.0");
        assert_eq!(double_text(f64::NAN), "NaN");
        assert_eq!(double_text(f64::INFINITY), "Infinity");
        assert_eq!(double_text(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn double_text_extremes() {
        assert_eq!(dtext(0x7FEF_FFFF_FFFF_FFFF), "1.7976931348623157E308");
        assert_eq!(dtext(0x0010_0000_0000_0000), "2.2250738585072014E-308");
        assert_eq!(dtext(0x000F_FFFF_FFFF_FFFF), "2.225073858507201E-308");
        assert_eq!(dtext(1), "4.9E-324");
        assert_eq!(dtext(3), "1.5E-323");
    }

    #[test]
    fn double_text_two_digit_rule_for_subnormals_java17_differs() {
        // Shortest is 1E-323, but Java 19+ picks the closer two-digit 9.9E-324.
        // Java 17 prints "1.0E-323".
        assert_eq!(dtext(2), "9.9E-324");
    }

    #[test]
    fn double_text_ties_pick_even_significand() {
        // These doubles lie exactly halfway between two shortest candidates.
        assert_eq!(dtext(0xC2E9_C554_2F8A_DF84), "-2.2668249322879612E14");
        assert_eq!(dtext(0xC311_F3CD_A517_9CD5), "-1.2632847919286292E15");
        assert_eq!(dtext(0x4318_EBEF_36DD_F1B9), "1.7537030228204622E15");
    }

    #[test]
    fn double_text_java17_differs_for_large_values() {
        // Java 17: "9.999999999999999E22", "-1.05283755524177971E18", "1.41131675772999552E18".
        assert_eq!(dtext(0x44B5_2D02_C7E1_4AF6), "1.0E23");
        assert_eq!(dtext(0xC3AD_38DC_5B4C_C104), "-1.0528375552417797E18");
        assert_eq!(dtext(0x43B3_9601_1D1A_0D6B), "1.4113167577299955E18");
    }

    #[test]
    fn powers_of_two_java17_differs() {
        // Java 17: "2.4363285028499998E288", "4.7783097267364807E-299", "1.58E-322",
        // "1.794E-43" (17% of all float and double powers of two print differently).
        // 2^-1069 and 2^-142 are subnormal: written by their bits.
        assert_eq!(double_text(2f64.powi(958)), "2.43632850285E288");
        assert_eq!(double_text(2f64.powi(-991)), "4.778309726736481E-299");
        assert_eq!(dtext(1 << 5), "1.6E-322");
        assert_eq!(ftext(1 << 7), "1.8E-43");
        assert_eq!(float_text(2f32.powi(-96)), "1.2621775E-29");
    }

    #[test]
    fn double_text_appends() {
        let mut out = b"[".to_vec();
        write_java_double(1.5, &mut out);
        out.push(b',');
        write_java_double(-2.0e-7, &mut out);
        assert_eq!(out, b"[1.5,-2.0E-7");
    }

    #[test]
    fn double_text_round_trips_through_parse() {
        for bits in [
            1u64,
            0x3FB9_9999_9999_999A,
            0x7FEF_FFFF_FFFF_FFFF,
            0xC2E9_C554_2F8A_DF84,
        ] {
            let text = dtext(bits);
            assert_eq!(double_bits(&text), bits, "{text}");
        }
    }

    // ---- Float.toString ----

    #[test]
    fn float_text_plain_range() {
        assert_eq!(ftext(0x3F80_0000), "1.0");
        assert_eq!(ftext(0x3DCC_CCCD), "0.1");
        assert_eq!(ftext(0x3A83_126F), "0.001");
        assert_eq!(ftext(0x3A82_C3C8), "9.97656E-4");
        assert_eq!(ftext(0x4B18_967F), "9999999.0");
        assert_eq!(ftext(0x3EAA_AAAB), "0.33333334");
        assert_eq!(ftext(0x4049_0FDB), "3.1415927");
    }

    #[test]
    fn float_text_scientific() {
        assert_eq!(ftext(0x4B18_9680), "1.0E7");
        assert_eq!(ftext(0x5015_02F9), "1.0E10");
        assert_eq!(ftext(0x4B80_0001), "1.6777218E7");
        assert_eq!(ftext(0x7F7F_FFFF), "3.4028235E38");
        assert_eq!(ftext(0x007F_FFFF), "1.1754942E-38");
    }

    #[test]
    fn float_text_is_not_widened_double_text() {
        assert_eq!(float_text(0.1), "0.1");
        assert_eq!(double_text(f64::from(0.1f32)), "0.10000000149011612");
    }

    #[test]
    fn float_text_subnormals() {
        assert_eq!(ftext(1), "1.4E-45");
        assert_eq!(ftext(2), "2.8E-45");
        assert_eq!(ftext(3), "4.2E-45");
    }

    #[test]
    fn float_text_specials() {
        assert_eq!(float_text(0.0), "0.0");
        assert_eq!(float_text(-0.0), "-0.0");
        assert_eq!(float_text(f32::NAN), "NaN");
        assert_eq!(float_text(f32::INFINITY), "Infinity");
        assert_eq!(float_text(f32::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn float_text_ties_pick_even_significand() {
        assert_eq!(ftext(0xC8F3_B134), "-499081.62");
        assert_eq!(ftext(0x48FD_3AE4), "518615.12");
    }

    #[test]
    fn float_text_java17_differs() {
        // Java 17: "1.23456792E8" (as spec §1.8 quotes), "1.17549435E-38", "-7.5454552E18".
        assert_eq!(ftext(0x4CEB_79A3), "1.2345679E8");
        assert_eq!(ftext(0x0080_0000), "1.1754944E-38");
        assert_eq!(ftext(0xDED1_6DAF), "-7.545455E18");
    }

    // ---- jackson_float_text ----

    #[test]
    fn jackson_float_text_normalises_like_double_node() {
        let text = |s: &str| jackson_float_text(s).unwrap_or_else(|e| e.0);
        assert_eq!(text("1.50"), "1.5");
        assert_eq!(text("1e3"), "1000.0");
        assert_eq!(text("100"), "100.0");
        assert_eq!(text("1e7"), "1.0E7");
        assert_eq!(text("2.5e-5"), "2.5E-5");
        assert_eq!(text("-1.5E-3"), "-0.0015");
        assert_eq!(text("-0.0"), "-0.0");
        assert_eq!(text("1E400"), "Infinity");
        assert_eq!(
            text("123456789012345678901234567890"),
            "1.2345678901234568E29"
        );
    }

    // ---- parse_decimal ----

    #[test]
    fn decimal_rounds_half_up() {
        assert_eq!(decimal("1.005", 3, 2), Ok(Some(101)));
        assert_eq!(decimal("-1.005", 3, 2), Ok(Some(-101)));
        assert_eq!(decimal("1.115", 3, 2), Ok(Some(112)));
        assert_eq!(decimal("-0.005", 5, 2), Ok(Some(-1)));
        assert_eq!(decimal("-0.001", 5, 2), Ok(Some(0)));
        assert_eq!(decimal("12.345e-1", 4, 3), Ok(Some(1235)));
        assert_eq!(decimal("0.5", 1, 0), Ok(Some(1)));
        assert_eq!(decimal("9.4", 1, 0), Ok(Some(9)));
    }

    #[test]
    fn decimal_null_when_rounded_value_too_wide() {
        assert_eq!(decimal("12345.6", 5, 2), Ok(None));
        assert_eq!(decimal("999.999", 5, 2), Ok(None));
        assert_eq!(decimal("999.994", 5, 2), Ok(Some(99999)));
        assert_eq!(decimal("9.5", 1, 0), Ok(None));
    }

    #[test]
    fn decimal_scale_up_and_zero() {
        assert_eq!(decimal("1.5E+2", 5, 2), Ok(Some(15000)));
        assert_eq!(decimal("0", 1, 0), Ok(Some(0)));
        assert_eq!(decimal("-0e5", 3, 1), Ok(Some(0)));
        assert_eq!(decimal("12345", 5, -2), Ok(Some(123)));
    }

    #[test]
    fn decimal_precision_38_edges() {
        let nines = "9".repeat(38);
        assert_eq!(
            decimal(&format!("{nines}.4"), 38, 0),
            Ok(Some(10i128.pow(38) - 1))
        );
        assert_eq!(decimal(&format!("{nines}.5"), 38, 0), Ok(None));
        assert_eq!(
            decimal(&format!("-{nines}"), 38, 0),
            Ok(Some(1 - 10i128.pow(38)))
        );
        let tiny = format!("0.{}1", "0".repeat(37));
        assert_eq!(decimal(&tiny, 38, 38), Ok(Some(1)));
        assert_eq!(
            decimal(&format!("0.{}5", "0".repeat(38)), 38, 38),
            Ok(Some(1))
        );
        assert_eq!(
            decimal(&format!("0.{}4999", "0".repeat(38)), 38, 38),
            Ok(Some(0))
        );
    }

    #[test]
    fn decimal_huge_exponents_are_exact() {
        assert_eq!(decimal("1e-1000", 10, 2), Ok(Some(0)));
        assert_eq!(decimal("1e1000", 38, 0), Ok(None));
        assert_eq!(decimal("0e2147483647", 38, 2), Ok(Some(0)));
        assert_eq!(decimal("0e-2147483647", 38, -128), Ok(Some(0)));
        assert_eq!(decimal("5e-30", 10, -5), Ok(Some(0)));
    }

    #[test]
    fn decimal_rescale_beyond_java_biginteger_range_fails() {
        let overflow = Err("BigInteger would overflow supported range".to_string());
        assert_eq!(decimal("1e536870918", 38, 2), overflow);
        assert_eq!(decimal("1e2147483647", 38, 0), overflow);
        assert_eq!(decimal("1.5e2147483647", 38, 0), overflow);
        assert_eq!(decimal("1e-2147483647", 38, 2), overflow);
        assert_eq!(decimal("1e-536870922", 38, 2), overflow);
        assert_eq!(decimal("1e2147483647", 38, 1), Err("Underflow".into()));
        assert_eq!(decimal("-1e2147483647", 38, 1), Err("Underflow".into()));
        assert_eq!(decimal("1e-2147483647", 38, -128), Err("Underflow".into()));
    }

    #[test]
    fn decimal_long_literals_are_exact() {
        let nines = "9".repeat(400);
        assert_eq!(decimal(&format!("0.{nines}"), 10, 2), Ok(Some(100)));
        assert_eq!(decimal(&format!("-0.00{nines}e3"), 10, 2), Ok(Some(-1000)));
        assert_eq!(decimal(&format!("123{}", "4".repeat(397)), 38, 0), Ok(None));
        let one = format!("1{}e-399", "0".repeat(399));
        assert_eq!(decimal(&one, 5, 2), Ok(Some(100)));
        assert_eq!(
            decimal(&format!("0.{}5", "0".repeat(399)), 38, 38),
            Ok(Some(0))
        );
    }

    #[test]
    fn decimal_accepts_unicode_digits_like_big_decimal() {
        assert_eq!(decimal("١٢.٥", 3, 1), Ok(Some(125)));
        assert_eq!(decimal("１e２", 5, 0), Ok(Some(100)));
    }

    #[test]
    fn decimal_errors_match_java17() {
        let text = "Character a is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.";
        assert_eq!(decimal("abc", 10, 2), Err(text.into()));
        assert_eq!(decimal("", 10, 2), Err("null".into()));
        assert_eq!(decimal("1e", 10, 2), Err("null".into()));
        assert_eq!(decimal("-", 10, 2), Err("No digits found.".into()));
        assert!(decimal(" 1", 10, 2).is_err()); // not trimmed
        assert!(decimal("NaN", 10, 2).is_err());
        assert!(decimal("1d", 10, 2).is_err());
    }

    // ---- big_decimal_text ----

    #[test]
    fn big_decimal_text_like_to_string() {
        assert_eq!(bd("1e3"), "1E+3");
        assert_eq!(bd("2.50"), "2.50");
        assert_eq!(bd("0.0000001"), "1E-7");
        assert_eq!(bd("0.000001"), "0.000001");
        assert_eq!(bd("0.0000010"), "0.0000010");
        assert_eq!(bd("12E2"), "1.2E+3");
        assert_eq!(bd("12.3e1"), "123");
        assert_eq!(bd("1.23E-7"), "1.23E-7");
        assert_eq!(bd("-1.23E+10"), "-1.23E+10");
        assert_eq!(bd("1e-3"), "0.001");
        assert_eq!(bd("1e-0"), "1");
    }

    #[test]
    fn big_decimal_text_sign_and_zeros() {
        assert_eq!(bd("-0.00"), "0.00");
        assert_eq!(bd("-0"), "0");
        assert_eq!(bd("+5"), "5");
        assert_eq!(bd("007.50"), "7.50");
        assert_eq!(bd(".5"), "0.5");
        assert_eq!(bd("-.5"), "-0.5");
        assert_eq!(bd("5."), "5");
        assert_eq!(bd("1.e5"), "1E+5");
        assert_eq!(bd("0e5"), "0E+5");
        assert_eq!(bd("0e-10"), "0E-10");
        assert_eq!(bd("0.000"), "0.000");
        assert_eq!(bd("-0000000000000000000000000000001"), "-1");
    }

    #[test]
    fn big_decimal_text_long_and_extreme() {
        assert_eq!(
            bd("123456789012345678901234567890.123"),
            "123456789012345678901234567890.123"
        );
        assert_eq!(bd("1e2147483647"), "1E+2147483647");
        assert_eq!(bd("1.5e2147483647"), "1.5E+2147483647");
        assert_eq!(bd("1e-2147483647"), "1E-2147483647");
        assert_eq!(bd("0.1e00000000000000000002"), "1E+1");
        assert_eq!(bd("١٢.٥"), "12.5");
    }

    #[test]
    fn big_decimal_text_exponent_errors_java17() {
        // Java 25 accepts 1e2147483648 and words the second "Exponent overflow.".
        assert_eq!(bd("1e2147483648"), "ERR Exponent overflow.");
        assert_eq!(bd("1e-2147483648"), "ERR Scale out of range.");
        assert_eq!(bd("0.1e-2147483647"), "ERR Scale out of range.");
        assert_eq!(bd("1e12345678901"), "ERR Too many nonzero exponent digits.");
        assert_eq!(bd("1ee2"), "ERR Not a digit.");
        assert_eq!(bd("1e2.5"), "ERR Not a digit.");
        assert_eq!(bd("1e+"), "ERR null");
    }

    #[test]
    fn big_decimal_text_significand_errors_java17() {
        assert_eq!(bd("."), "ERR No digits found.");
        assert_eq!(bd("e5"), "ERR No digits found.");
        assert_eq!(
            bd("1.2.3"),
            "ERR Character array contains more than one decimal point."
        );
        assert_eq!(
            bd("1 "),
            "ERR Character   is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark."
        );
        assert_eq!(
            bd("++1"),
            "ERR Character + is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark."
        );
        // Longer than 18 characters: Java's non-compact path words it differently.
        assert_eq!(
            bd("1234567890123456789012x"),
            "ERR Character array is missing \"e\" notation exponential mark."
        );
    }

    #[test]
    fn decimal_node_text_strips_like_jackson_2_18() {
        // Run with flink-shaded-jackson 2.18.2, USE_BIG_DECIMAL_FOR_FLOATS, `asText()`.
        let text = |s: &str| decimal_node_text(s).unwrap_or_else(|e| e.0);
        assert_eq!(text("2.50"), "2.5");
        assert_eq!(text("1e3"), "1E+3");
        assert_eq!(text("0.0000001"), "1E-7");
        assert_eq!(text("100.0"), "1E+2");
        assert_eq!(text("0.0"), "0");
        assert_eq!(text("-0.0"), "0");
        assert_eq!(text("12.30e1"), "123");
        assert_eq!(text("1e400"), "1E+400");
        assert_eq!(text("0.10"), "0.1");
    }

    // ---- write_java_decimal ----

    #[test]
    fn decimal_text_strips_trailing_zeros() {
        assert_eq!(decimal_text(10000, 2, false), "1E+2");
        assert_eq!(decimal_text(1000, 0, false), "1E+3");
        assert_eq!(decimal_text(120, 0, false), "1.2E+2");
        assert_eq!(decimal_text(150, 2, false), "1.5");
        assert_eq!(decimal_text(0, 2, false), "0");
        assert_eq!(decimal_text(-10, 2, false), "-0.1");
        assert_eq!(decimal_text(-1, 0, false), "-1");
        assert_eq!(decimal_text(1_500_000_000_000_000_000, 18, false), "1.5");
    }

    #[test]
    fn decimal_text_small_values_go_scientific_below_1e_minus6() {
        assert_eq!(decimal_text(1, 7, false), "1E-7");
        assert_eq!(decimal_text(10, 8, false), "1E-7");
        assert_eq!(decimal_text(1, 6, false), "0.000001");
        assert_eq!(decimal_text(123, 5, false), "0.00123");
        assert_eq!(decimal_text(100, 127, false), "1E-125");
    }

    #[test]
    fn decimal_text_extreme_unscaled_values() {
        assert_eq!(
            decimal_text(i128::MAX, 38, false),
            "1.70141183460469231731687303715884105727"
        );
        assert_eq!(
            decimal_text(i128::MIN, -128, false),
            "-1.70141183460469231731687303715884105728E+166"
        );
        assert_eq!(decimal_text(5, -2, false), "5E+2");
        assert_eq!(decimal_text(123456789, -3, false), "1.23456789E+11");
    }

    #[test]
    fn decimal_text_plain_keeps_declared_scale() {
        assert_eq!(decimal_text(10000, 2, true), "100.00");
        assert_eq!(decimal_text(1000, 0, true), "1000");
        assert_eq!(decimal_text(0, 2, true), "0.00");
        assert_eq!(decimal_text(-10, 2, true), "-0.10");
        assert_eq!(decimal_text(1, 7, true), "0.0000001");
        assert_eq!(
            decimal_text(1_500_000_000_000_000_000, 18, true),
            "1.500000000000000000"
        );
        assert_eq!(decimal_text(5, -2, true), "500");
        assert_eq!(decimal_text(0, -2, true), "0");
        assert_eq!(decimal_text(123456789, -3, true), "123456789000");
    }

    #[test]
    fn decimal_text_plain_extremes() {
        assert_eq!(
            decimal_text(i128::MAX, 38, true),
            "1.70141183460469231731687303715884105727"
        );
        let expected = format!("0.{}100", "0".repeat(124));
        assert_eq!(decimal_text(100, 127, true), expected);
        let expected = format!(
            "-170141183460469231731687303715884105728{}",
            "0".repeat(128)
        );
        assert_eq!(decimal_text(i128::MIN, -128, true), expected);
    }

    #[test]
    fn decimal_text_appends() {
        let mut out = b"x=".to_vec();
        write_java_decimal(-5, 1, false, &mut out);
        assert_eq!(out, b"x=-0.5");
    }
}
