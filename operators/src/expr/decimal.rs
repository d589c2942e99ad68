//! DECIMAL arithmetic as Flink's `DecimalDataUtils` does it with `java.math.BigDecimal`:
//! the exact result (a quotient first rounded to 38 significant digits, HALF_UP, as
//! `MathContext(38, HALF_UP)` does), then `DecimalData.fromBigDecimal(bd, p, s)`: rounded
//! HALF_UP to scale `s`, and NULL when more than `p` digits remain.
//!
//! Values are unscaled integers with a scale; i128 holds every DECIMAL(38) value, and the
//! wider intermediates (products, scaled dividends) fall back to `num_bigint::BigInt`.

use num_bigint::{BigInt, Sign};
use num_traits::{Signed, ToPrimitive, Zero};

use crate::error::EvalError;

/// 10^n for n in 0..=38.
fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn big_pow10(n: u32) -> BigInt {
    BigInt::from(10u8).pow(n)
}

/// Number of decimal digits of |v| (`BigDecimal.precision()`: 1 for zero).
fn digits_i128(v: i128) -> u32 {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

fn digits_big(v: &BigInt) -> u32 {
    if v.is_zero() {
        return 1;
    }
    let text = v.magnitude().to_str_radix(10);
    u32::try_from(text.len()).unwrap_or(u32::MAX)
}

/// `v / 10^k` rounded HALF_UP (away from zero on ties).
fn round_down_scale_i128(v: i128, k: u32) -> Option<i128> {
    if k == 0 {
        return Some(v);
    }
    let Some(p) = pow10(k) else {
        // |v| < 10^38.3 < 10^k / 2 for k > 38: rounds to zero.
        return Some(0);
    };
    let q = v / p;
    let r = (v % p).unsigned_abs();
    let half = p.unsigned_abs() / 2 + p.unsigned_abs() % 2;
    Some(if r >= half { q + v.signum() } else { q })
}

fn round_down_scale_big(v: &BigInt, k: u32) -> BigInt {
    if k == 0 {
        return v.clone();
    }
    let p = big_pow10(k);
    let q = v / &p;
    let r = (v % &p).abs();
    if r * 2u8 >= p {
        if v.sign() == Sign::Minus {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

/// An exact value `unscaled × 10^-scale` brought to `(precision, scale)` as
/// `fromBigDecimal` does: `None` when it does not fit.
fn fit_i128(v: i128, from_scale: i32, precision: u8, scale: i8) -> Option<i128> {
    let target = i32::from(scale);
    let out = if from_scale > target {
        round_down_scale_i128(v, (from_scale - target).unsigned_abs())?
    } else {
        let up = pow10((target - from_scale).unsigned_abs())?;
        v.checked_mul(up)?
    };
    (digits_i128(out) <= u32::from(precision)).then_some(out)
}

fn fit_big(v: &BigInt, from_scale: i32, precision: u8, scale: i8) -> Option<i128> {
    let target = i32::from(scale);
    let out = if from_scale > target {
        round_down_scale_big(v, (from_scale - target).unsigned_abs())
    } else {
        v * big_pow10((target - from_scale).unsigned_abs())
    };
    if digits_big(&out) > u32::from(precision) {
        return None;
    }
    out.to_i128()
}

/// A value at `from_scale` cast to DECIMAL(precision, scale) (`DecimalDataUtils.castToDecimal`
/// and every operand/result rescale): `None` when it overflows.
pub(crate) fn rescale(v: i128, from_scale: i8, precision: u8, scale: i8) -> Option<i128> {
    fit_i128(v, i32::from(from_scale), precision, scale)
        .or_else(|| fit_big(&BigInt::from(v), i32::from(from_scale), precision, scale))
}

/// `a + b` (or `a - b` with `negate_b`) at the result type.
pub(crate) fn add(a: i128, sa: i8, b: i128, sb: i8, negate_b: bool, p: u8, s: i8) -> Option<i128> {
    let scale = sa.max(sb);
    let align = |v: i128, from: i8| -> Option<i128> {
        v.checked_mul(pow10(u32::from((scale - from).unsigned_abs()))?)
    };
    let fast = (|| {
        let x = align(a, sa)?;
        let y = align(b, sb)?;
        let y = if negate_b { y.checked_neg()? } else { y };
        x.checked_add(y)
    })();
    match fast {
        Some(sum) => fit_i128(sum, i32::from(scale), p, s)
            .or_else(|| fit_big(&BigInt::from(sum), i32::from(scale), p, s)),
        None => {
            let x = BigInt::from(a) * big_pow10(u32::from((scale - sa).unsigned_abs()));
            let y = BigInt::from(b) * big_pow10(u32::from((scale - sb).unsigned_abs()));
            let sum = if negate_b { x - y } else { x + y };
            fit_big(&sum, i32::from(scale), p, s)
        }
    }
}

/// `a * b` at the result type.
pub(crate) fn multiply(a: i128, sa: i8, b: i128, sb: i8, p: u8, s: i8) -> Option<i128> {
    let scale = i32::from(sa) + i32::from(sb);
    match a.checked_mul(b) {
        Some(product) => {
            fit_i128(product, scale, p, s).or_else(|| fit_big(&BigInt::from(product), scale, p, s))
        }
        None => fit_big(&(BigInt::from(a) * BigInt::from(b)), scale, p, s),
    }
}

fn division_by_zero(a: i128) -> EvalError {
    EvalError::Arithmetic(if a == 0 {
        "Division undefined".into()
    } else {
        "Division by zero".into()
    })
}

/// `a / b` as `BigDecimal.divide(b, MathContext(38, HALF_UP))` then `fromBigDecimal(p, s)`.
pub(crate) fn divide(
    a: i128,
    sa: i8,
    b: i128,
    sb: i8,
    p: u8,
    s: i8,
) -> Result<Option<i128>, EvalError> {
    if b == 0 {
        return Err(division_by_zero(a));
    }
    if a == 0 {
        return Ok(Some(0));
    }
    // |a/b| = (|a| * 10^sb) / (|b| * 10^sa) = n / d.
    let negative = (a < 0) != (b < 0);
    let n0 = BigInt::from(a.unsigned_abs());
    let d0 = BigInt::from(b.unsigned_abs());
    let n = n0 * big_pow10(u32::from(sb.unsigned_abs()));
    let d = d0 * big_pow10(u32::from(sa.unsigned_abs()));
    // e = floor(log10(n / d)); then scale by k = 37 - e so the quotient has 38 digits.
    let mut e = i64::from(digits_big(&n)) - i64::from(digits_big(&d));
    let scaled_cmp = |e: i64| -> bool {
        // n / d >= 10^e ?
        if e >= 0 {
            n >= &d * big_pow10(e.unsigned_abs() as u32)
        } else {
            &n * big_pow10(e.unsigned_abs() as u32) >= d
        }
    };
    if !scaled_cmp(e) {
        e -= 1;
    }
    let k = 37 - e;
    let (num, den) = if k >= 0 {
        (&n * big_pow10(k.unsigned_abs() as u32), d.clone())
    } else {
        (n.clone(), &d * big_pow10(k.unsigned_abs() as u32))
    };
    let mut t = &num / &den;
    let r = &num % &den;
    if r * 2u8 >= den {
        t += 1u8;
    }
    if negative {
        t = -t;
    }
    // The 38-digit quotient is t × 10^-k; bring it to scale s.
    let k = i32::try_from(k).unwrap_or(i32::MAX);
    Ok(fit_big(&t, k, p, s))
}

/// `a % b` as `BigDecimal.remainder(b, MathContext(38, HALF_UP))` then `fromBigDecimal`.
pub(crate) fn remainder(
    a: i128,
    sa: i8,
    b: i128,
    sb: i8,
    p: u8,
    s: i8,
) -> Result<Option<i128>, EvalError> {
    if b == 0 {
        return Err(division_by_zero(a));
    }
    let scale = sa.max(sb);
    let x = BigInt::from(a) * big_pow10(u32::from((scale - sa).unsigned_abs()));
    let y = BigInt::from(b) * big_pow10(u32::from((scale - sb).unsigned_abs()));
    // The integral quotient must fit 38 digits, else Java throws.
    let q = &x / &y;
    if digits_big(&q) > 38 {
        return Err(EvalError::Arithmetic("Division impossible".into()));
    }
    let r = x % y;
    Ok(fit_big(&r, i32::from(scale), p, s))
}

/// The value's `BigDecimal.doubleValue()` (correctly rounded).
pub(crate) fn to_f64(v: i128, scale: i8) -> f64 {
    format!("{v}e{}", -i32::from(scale))
        .parse()
        .unwrap_or(f64::NAN)
}

/// The value's `BigDecimal.floatValue()` (correctly rounded).
pub(crate) fn to_f32(v: i128, scale: i8) -> f32 {
    format!("{v}e{}", -i32::from(scale))
        .parse()
        .unwrap_or(f32::NAN)
}

/// `BigDecimal.toPlainString()` of `v × 10^-scale`.
pub(crate) fn to_plain_string(v: i128, scale: i8) -> String {
    let digits = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    if scale <= 0 {
        let zeros = "0".repeat(usize::from(scale.unsigned_abs()));
        return if v == 0 {
            "0".into()
        } else {
            format!("{sign}{digits}{zeros}")
        };
    }
    let s = usize::from(scale.unsigned_abs());
    if digits.len() > s {
        let (int, frac) = digits.split_at(digits.len() - s);
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}0.{}{digits}", "0".repeat(s - digits.len()))
    }
}

/// Compares `a × 10^-sa` with `b × 10^-sb` exactly (`BigDecimal.compareTo`).
pub(crate) fn compare(a: i128, sa: i8, b: i128, sb: i8) -> std::cmp::Ordering {
    let scale = sa.max(sb);
    let up = |v: i128, from: i8| {
        pow10(u32::from((scale - from).unsigned_abs())).and_then(|p| v.checked_mul(p))
    };
    match (up(a, sa), up(b, sb)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => {
            let x = BigInt::from(a) * big_pow10(u32::from((scale - sa).unsigned_abs()));
            let y = BigInt::from(b) * big_pow10(u32::from((scale - sb).unsigned_abs()));
            x.cmp(&y)
        }
    }
}

/// The integral part (`setScale(0, DOWN).longValue()`: the low 64 bits of the truncated value).
pub(crate) fn to_integral(v: i128, scale: i8) -> i64 {
    let truncated = match pow10(u32::from(scale.unsigned_abs())) {
        Some(p) if scale > 0 => v / p,
        Some(p) => v.wrapping_mul(p),
        None => 0,
    };
    truncated as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_strings() {
        assert_eq!(to_plain_string(12345, 2), "123.45");
        assert_eq!(to_plain_string(-5, 2), "-0.05");
        assert_eq!(to_plain_string(0, 3), "0.000");
        assert_eq!(to_plain_string(7, 0), "7");
    }

    #[test]
    fn divide_rounds_to_38_digits_then_to_the_scale() {
        // 1 / 3 at DECIMAL(38, 37): 0.3333333333333333333333333333333333333 (38 digits first).
        assert_eq!(
            divide(1, 0, 3, 0, 38, 37).unwrap(),
            Some(3_333_333_333_333_333_333_333_333_333_333_333_333)
        );
        // 2 / 3 at scale 2: 0.67.
        assert_eq!(divide(2, 0, 3, 0, 10, 2).unwrap(), Some(67));
        assert_eq!(divide(-2, 0, 3, 0, 10, 2).unwrap(), Some(-67));
        assert!(divide(1, 0, 0, 0, 10, 2).is_err());
    }

    #[test]
    fn overflow_is_null() {
        assert_eq!(add(9999, 2, 1, 2, false, 4, 2), None);
        assert_eq!(add(9998, 2, 1, 2, false, 4, 2), Some(9999));
        assert_eq!(multiply(5, 1, 5, 1, 3, 1), Some(3)); // 0.25 -> 0.3 (HALF_UP)
    }
}
