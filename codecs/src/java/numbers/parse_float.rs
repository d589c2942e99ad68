//! `Double.parseDouble` / `Float.parseFloat`: decimal and hexadecimal literals, type suffixes, `NaN` / `Infinity`.

use super::*;

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
pub(super) struct DecimalParts<'a> {
    pub(super) negative: bool,
    pub(super) number: &'a str,
    pub(super) int_digits: &'a str,
    pub(super) frac_digits: &'a str,
    pub(super) exponent: i64,
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
pub(super) fn signed<T: std::ops::Neg<Output = T>>(value: T, negative: bool) -> T {
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
pub(super) fn normalized_decimal(parts: &DecimalParts<'_>) -> String {
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
pub(super) fn to_i64(n: usize) -> i64 {
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
