//! `CAST` and `TRY_CAST` by Flink 2.2's cast rules (`table.exec.legacy-cast-behaviour`
//! disabled, its default): a failing CAST throws, TRY_CAST gives NULL instead.
//!
//! Supported pairs ([`supported`] is the one list validation asks):
//! - exact integers, DECIMAL, FLOAT, DOUBLE among each other: Java's primitive casts
//!   (narrowing keeps the low bits; floating to integer saturates through `int` for
//!   TINYINT/SMALLINT/INT, `(byte) (int) d`), `DecimalDataUtils` for DECIMAL (HALF_UP, NULL on
//!   overflow; to an integer: truncated, the low 64 bits, then narrowed);
//!   FLOAT/DOUBLE -> DECIMAL is declined: Flink goes through `BigDecimal.valueOf(double)`, i.e.
//!   Java 17's `Double.toString` digits, which are not the shortest digits Rust prints;
//! - BOOLEAN <-> exact numerics (`1`/`0`, `!= 0`);
//! - CHAR/VARCHAR -> TINYINT..BIGINT, DECIMAL, BOOLEAN: Flink's own parsers after trimming
//!   spaces (`BinaryStringDataUtil.toLong` and friends: sign, digits, an ignored fraction);
//! - exact numerics, BOOLEAN, CHAR/VARCHAR -> CHAR(n)/VARCHAR(n): Java's texts (`TRUE`/`FALSE`,
//!   `BigDecimal.toPlainString`), cut to `n` characters, CHAR padded with spaces to `n`;
//!   FLOAT/DOUBLE -> string is declined (`Float/Double.toString` digits depend on the JDK).
//! - DATE -> CHAR/VARCHAR; TIMESTAMP(p) <-> TIMESTAMP(q), TIMESTAMP -> DATE, DATE -> TIMESTAMP,
//!   TIMESTAMP <-> TIMESTAMP_LTZ in the session time zone.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, StringArray};
use karrow_codecs::types::FlinkKind;
use karrow_codecs::FlinkType;

use super::kernels::{
    as_bool, as_str, build_bool, build_decimal, build_f32, build_f64, build_integer,
    build_timestamp, decimal_values, f32_values, f64_values, i64_values, nulls_from,
    timestamp_values, valid,
};
use super::{decimal, internal, temporal, Context, Errors, Evaluated, Expr};
use crate::error::EvalError;

fn is_integer(k: &FlinkKind) -> bool {
    matches!(
        k,
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int | FlinkKind::BigInt
    )
}

fn is_exact(k: &FlinkKind) -> bool {
    is_integer(k) || matches!(k, FlinkKind::Decimal { .. })
}

fn is_numeric(k: &FlinkKind) -> bool {
    is_exact(k) || matches!(k, FlinkKind::Float | FlinkKind::Double)
}

fn is_text(k: &FlinkKind) -> bool {
    matches!(k, FlinkKind::Char(_) | FlinkKind::VarChar(_))
}

/// Whether the core runs `CAST(from AS to)` exactly; the reason when it does not.
pub(crate) fn supported(from: &FlinkType, to: &FlinkType) -> Result<(), String> {
    use FlinkKind as K;
    let (f, t) = (&from.kind, &to.kind);
    let ok = match (f, t) {
        _ if f == t => true,
        (K::Float | K::Double, K::Decimal { .. }) => {
            return Err("CAST from FLOAT/DOUBLE to DECIMAL goes through Java 17's \
                        Double.toString digits, which Rust does not reproduce"
                .into())
        }
        (K::Float | K::Double, _) if is_text(t) => {
            return Err("CAST from FLOAT/DOUBLE to a string depends on the JDK's \
                        Double.toString digits"
                .into())
        }
        _ if is_numeric(f) && is_numeric(t) => true,
        (K::Boolean, _) if is_exact(t) => true,
        (_, K::Boolean) if is_exact(f) => true,
        _ if is_text(f) && (is_integer(t) || matches!(t, K::Decimal { .. } | K::Boolean)) => true,
        _ if is_text(t) && (is_exact(f) || matches!(f, K::Boolean | K::Date) || is_text(f)) => true,
        (K::Timestamp(_), K::Timestamp(_)) => true,
        (K::TimestampLtz(_), K::TimestampLtz(_)) => true,
        (K::Timestamp(_), K::TimestampLtz(_)) | (K::TimestampLtz(_), K::Timestamp(_)) => true,
        (K::Timestamp(_), K::Date) | (K::Date, K::Timestamp(_)) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "CAST from {} to {} is not supported",
            karrow_codecs::types::summary_string(from),
            karrow_codecs::types::summary_string(to)
        ))
    }
}

/// Per-row results of a fallible conversion: values, validity, and failures.
struct Collect<T> {
    values: Vec<T>,
    ok: Vec<bool>,
    errors: Errors,
    safe: bool,
}

impl<T: Default> Collect<T> {
    fn new(rows: usize, safe: bool) -> Self {
        Collect {
            values: Vec::with_capacity(rows),
            ok: Vec::with_capacity(rows),
            errors: Errors::default(),
            safe,
        }
    }

    fn push(&mut self, row: usize, r: Result<Option<T>, EvalError>) {
        match r {
            Ok(Some(v)) => {
                self.values.push(v);
                self.ok.push(true);
            }
            Ok(None) => {
                self.values.push(T::default());
                self.ok.push(false);
            }
            Err(e) => {
                if !self.safe {
                    self.errors.push(row, e);
                }
                self.values.push(T::default());
                self.ok.push(false);
            }
        }
    }
}

/// Evaluates `CAST(input AS ty)` (`safe`: TRY_CAST).
pub(crate) fn eval(
    input: &Expr,
    ty: &FlinkType,
    safe: bool,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let value = input.eval(ctx)?;
    let (array, errors) = cast_array(&value.array, &input.ty, ty, safe, ctx)?;
    // TRY_CAST catches only its own conversion's failure, not its operand's.
    Ok(Evaluated {
        array,
        errors: value.errors.merge(errors),
    })
}

/// Casts an array of `from` to `to`.
pub(crate) fn cast_array(
    a: &ArrayRef,
    from: &FlinkType,
    to: &FlinkType,
    safe: bool,
    ctx: &Context<'_>,
) -> Result<(ArrayRef, Errors), EvalError> {
    use FlinkKind as K;
    let nulls = a.logical_nulls();
    let rows = a.len();
    let (f, t) = (&from.kind, &to.kind);
    let none = Errors::default();
    Ok(match (f, t) {
        _ if f == t && !is_text(t) => (a.clone(), none),
        // ---- to exact integers
        _ if is_integer(t) && is_integer(f) => {
            let (v, _) = i64_values(a)?;
            (build_integer(t, v, nulls)?, none)
        }
        (K::Float | K::Double, _) if is_integer(t) => {
            let (v, _) = f64_values(a)?;
            let out = v
                .into_iter()
                .map(|d| match t {
                    K::BigInt => d as i64,
                    // (byte)/(short)/(int) d: to int (saturating, NaN -> 0), then narrowed.
                    _ => i64::from(d as i32),
                })
                .collect();
            (build_integer(t, out, nulls)?, none)
        }
        (K::Decimal { .. }, _) if is_integer(t) => {
            let (v, s, _) = decimal_values(a)?;
            let out = v.into_iter().map(|x| decimal::to_integral(x, s)).collect();
            (build_integer(t, out, nulls)?, none)
        }
        (K::Boolean, _) if is_integer(t) => {
            let b = as_bool(a)?;
            let out = (0..rows).map(|i| i64::from(b.value(i))).collect();
            (build_integer(t, out, nulls)?, none)
        }
        // ---- to FLOAT / DOUBLE
        (_, K::Double) if is_numeric(f) => {
            let (v, _) = f64_values(a)?;
            (build_f64(v, nulls), none)
        }
        (K::Decimal { .. }, K::Float) => {
            // (float) DecimalDataUtils.doubleValue(d)
            let (v, _) = f64_values(a)?;
            (
                build_f32(v.into_iter().map(|d| d as f32).collect(), nulls),
                none,
            )
        }
        (_, K::Float) if is_numeric(f) => {
            let (v, _) = f32_values(a)?;
            (build_f32(v, nulls), none)
        }
        // ---- to DECIMAL
        (_, K::Decimal { precision, scale }) if is_exact(f) => {
            let (v, s, _) = decimal_values(a)?;
            let mut ok = Vec::with_capacity(rows);
            let out = v
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let r = decimal::rescale(x, s, *precision, *scale);
                    ok.push(valid(nulls.as_ref(), i) && r.is_some());
                    r.unwrap_or(0)
                })
                .collect();
            (
                build_decimal(out, nulls_from(ok), *precision, *scale)?,
                none,
            )
        }
        (K::Boolean, K::Decimal { precision, scale }) => {
            let b = as_bool(a)?;
            let mut ok = Vec::with_capacity(rows);
            let out = (0..rows)
                .map(|i| {
                    let r = decimal::rescale(i128::from(b.value(i)), 0, *precision, *scale);
                    ok.push(valid(nulls.as_ref(), i) && r.is_some());
                    r.unwrap_or(0)
                })
                .collect();
            (
                build_decimal(out, nulls_from(ok), *precision, *scale)?,
                none,
            )
        }
        // ---- to BOOLEAN
        (_, K::Boolean) if is_integer(f) => {
            let (v, _) = i64_values(a)?;
            (
                build_bool(v.into_iter().map(|x| x != 0).collect(), nulls),
                none,
            )
        }
        (K::Decimal { .. }, K::Boolean) => {
            let (v, _, _) = decimal_values(a)?;
            (
                build_bool(v.into_iter().map(|x| x != 0).collect(), nulls),
                none,
            )
        }
        // ---- from strings
        _ if is_text(f) && !is_text(t) => {
            let s = as_str(a)?;
            from_text(s, to, safe)?
        }
        // ---- to strings
        _ if is_text(t) => {
            let texts: Vec<Option<String>> = match f {
                K::Char(_) | K::VarChar(_) => {
                    let s = as_str(a)?;
                    (0..rows)
                        .map(|i| s.is_valid(i).then(|| s.value(i).to_string()))
                        .collect()
                }
                K::Boolean => {
                    let b = as_bool(a)?;
                    (0..rows)
                        .map(|i| {
                            b.is_valid(i)
                                .then(|| if b.value(i) { "TRUE" } else { "FALSE" }.to_string())
                        })
                        .collect()
                }
                K::Decimal { .. } => {
                    let (v, s, _) = decimal_values(a)?;
                    (0..rows)
                        .map(|i| {
                            valid(nulls.as_ref(), i).then(|| decimal::to_plain_string(v[i], s))
                        })
                        .collect()
                }
                K::Date => {
                    let (v, _) = i64_values(a)?;
                    (0..rows)
                        .map(|i| {
                            valid(nulls.as_ref(), i).then(|| temporal::format_date(v[i] as i32))
                        })
                        .collect()
                }
                _ if is_integer(f) => {
                    let (v, _) = i64_values(a)?;
                    (0..rows)
                        .map(|i| valid(nulls.as_ref(), i).then(|| v[i].to_string()))
                        .collect()
                }
                other => return Err(internal(format!("CAST from {other:?} to a string"))),
            };
            let fitted = texts
                .into_iter()
                .map(|t| t.map(|t| fit_length(t, &to.kind)));
            (Arc::new(fitted.collect::<StringArray>()) as ArrayRef, none)
        }
        // ---- temporal
        (K::Timestamp(_) | K::TimestampLtz(_), K::Timestamp(p) | K::TimestampLtz(p)) => {
            let (v, _) = timestamp_values(a)?;
            let shift = match (f, t) {
                // TIMESTAMP -> TIMESTAMP_LTZ: the wall-clock time in the session zone.
                (K::Timestamp(_), K::TimestampLtz(_)) => {
                    -i64::from(ctx.session.offset_seconds) * 1000
                }
                (K::TimestampLtz(_), K::Timestamp(_)) => {
                    i64::from(ctx.session.offset_seconds) * 1000
                }
                _ => 0,
            };
            let out: Vec<(i64, i32)> = v
                .into_iter()
                .map(|(m, n)| temporal::truncate_to_precision(m.wrapping_add(shift), n, *p))
                .collect();
            (build_timestamp(to, &out, nulls)?, none)
        }
        (K::Timestamp(_), K::Date) => {
            let (v, _) = timestamp_values(a)?;
            let out = v
                .into_iter()
                .map(|(m, _)| m.div_euclid(86_400_000))
                .collect();
            (build_integer(&K::Date, out, nulls)?, none)
        }
        (K::Date, K::Timestamp(_)) => {
            let (v, _) = i64_values(a)?;
            let out: Vec<(i64, i32)> = v
                .into_iter()
                .map(|d| (d.wrapping_mul(86_400_000), 0))
                .collect();
            (build_timestamp(to, &out, nulls)?, none)
        }
        _ => return Err(internal(format!("CAST from {f:?} to {t:?}"))),
    })
}

/// Flink's `CHAR(n)`/`VARCHAR(n)` cast: at most `n` code points; CHAR padded with spaces.
fn fit_length(text: String, to: &FlinkKind) -> String {
    let (n, pad) = match to {
        FlinkKind::Char(n) => (*n as usize, true),
        FlinkKind::VarChar(n) => (*n as usize, false),
        _ => return text,
    };
    let count = text.chars().count();
    if count > n {
        return text.chars().take(n).collect();
    }
    if pad && count < n {
        let mut out = text;
        out.extend(std::iter::repeat_n(' ', n - count));
        return out;
    }
    text
}

/// `BinaryStringData.trim()`: strips U+0020 only.
fn trim_spaces(s: &str) -> &str {
    s.trim_matches(' ')
}

fn nfe(text: &str, why: &str) -> EvalError {
    EvalError::NumberFormat(format!("For input string: '{text}'. {why}"))
}

/// `BinaryStringDataUtil.toLong` / `toInt` over the trimmed text: optional sign, digits,
/// then optionally `.` and digits that are ignored; `min` is the type's minimum.
fn parse_flink_integer(original: &str, trimmed: &str, min: i64) -> Result<i64, EvalError> {
    let b = trimmed.as_bytes();
    if b.is_empty() {
        return Err(nfe(original, "Input is empty."));
    }
    let negative = b[0] == b'-';
    let mut i = 0;
    if negative || b[0] == b'+' {
        i = 1;
        if b.len() == 1 {
            return Err(nfe(original, "Input has only positive or negative symbol."));
        }
    }
    let stop = min / 10;
    let mut result: i64 = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'.' {
            break;
        }
        if !c.is_ascii_digit() {
            return Err(nfe(original, "Invalid character found."));
        }
        let digit = i64::from(c - b'0');
        if result < stop {
            return Err(nfe(original, "Overflow."));
        }
        result = result.wrapping_mul(10).wrapping_sub(digit);
        if result > 0 {
            return Err(nfe(original, "Overflow."));
        }
    }
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            return Err(nfe(original, "Invalid character found."));
        }
        i += 1;
    }
    if !negative {
        result = result.wrapping_neg();
        if result < 0 {
            return Err(nfe(original, "Overflow."));
        }
    }
    Ok(result)
}

fn text_to_integer(text: &str, kind: &FlinkKind) -> Result<i64, EvalError> {
    let trimmed = trim_spaces(text);
    let v = match kind {
        FlinkKind::BigInt => parse_flink_integer(text, trimmed, i64::MIN)?,
        _ => {
            // toInt's accumulation overflows at the int range, which the i64 parse with
            // the int minimum reproduces; SMALLINT/TINYINT then check the narrowing.
            let v = parse_flink_integer(text, trimmed, i64::from(i32::MIN))?;
            if v > i64::from(i32::MAX) {
                return Err(nfe(text, "Overflow."));
            }
            v
        }
    };
    let fits = match kind {
        FlinkKind::TinyInt => i8::try_from(v).is_ok(),
        FlinkKind::SmallInt => i16::try_from(v).is_ok(),
        _ => true,
    };
    if fits {
        Ok(v)
    } else {
        Err(nfe(text, "Overflow."))
    }
}

/// `BinaryStringDataUtil.toBoolean`: the lower-cased text (not trimmed) is one of
/// `t true y yes 1` / `f false n no 0`.
fn text_to_boolean(text: &str) -> Result<bool, EvalError> {
    let lower = text.to_ascii_lowercase();
    if text.is_ascii() {
        match lower.as_str() {
            "t" | "true" | "y" | "yes" | "1" => return Ok(true),
            "f" | "false" | "n" | "no" | "0" => return Ok(false),
            _ => {}
        }
    }
    Err(EvalError::Invalid(format!(
        "org.apache.flink.table.api.TableException: Failed to convert '{text}' to boolean"
    )))
}

/// `BinaryStringDataUtil.toDecimal` over the trimmed text: `new BigDecimal(text)`'s grammar
/// (sign, digits with one optional point, optional exponent), then `fromBigDecimal`.
fn text_to_decimal(text: &str, precision: u8, scale: i8) -> Result<Option<i128>, EvalError> {
    let t = trim_spaces(text);
    let err = || nfe(text, "Invalid decimal.");
    let b = t.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let mut digits = String::new();
    let mut frac_digits: i64 = 0;
    let mut seen_point = false;
    let mut any = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                digits.push(char::from(c));
                any = true;
                if seen_point {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            b'e' | b'E' => break,
            _ => return Err(err()),
        }
        i += 1;
    }
    if !any {
        return Err(err());
    }
    let mut exponent: i64 = 0;
    if i < b.len() {
        let rest = &t[i + 1..];
        if rest.is_empty() || rest.len() > 10 {
            return Err(err());
        }
        exponent = rest.parse::<i64>().map_err(|_| err())?;
        if rest.starts_with('+') && rest.len() == 1 {
            return Err(err());
        }
    }
    let scale_in = frac_digits - exponent;
    let stripped = digits.trim_start_matches('0');
    let unscaled = if stripped.is_empty() {
        num_bigint::BigInt::from(0)
    } else {
        stripped.parse::<num_bigint::BigInt>().map_err(|_| err())?
    };
    let unscaled = if negative { -unscaled } else { unscaled };
    // Bring to the target scale with HALF_UP, then check the precision.
    let target = i64::from(scale);
    let value = if scale_in > target {
        let k = u32::try_from(scale_in - target).map_err(|_| err())?;
        if k > 200 {
            num_bigint::BigInt::from(0)
        } else {
            let p = num_bigint::BigInt::from(10u8).pow(k);
            let q = &unscaled / &p;
            let r = &unscaled % &p;
            let twice: num_bigint::BigInt = num_traits::Signed::abs(&r) * 2u8;
            if twice >= p {
                if negative {
                    q - 1
                } else {
                    q + 1
                }
            } else {
                q
            }
        }
    } else {
        let k = u32::try_from(target - scale_in).map_err(|_| err())?;
        if k > 200 || digits.len() as u64 + u64::from(k) > 400 {
            return Ok(None);
        }
        unscaled * num_bigint::BigInt::from(10u8).pow(k)
    };
    let text_digits = num_traits::Signed::abs(&value).to_string();
    if text_digits.len() > usize::from(precision) {
        return Ok(None);
    }
    Ok(num_traits::ToPrimitive::to_i128(&value))
}

fn from_text(s: &StringArray, to: &FlinkType, safe: bool) -> Result<(ArrayRef, Errors), EvalError> {
    let rows = s.len();
    match &to.kind {
        k if is_integer(k) => {
            let mut c = Collect::<i64>::new(rows, safe);
            for i in 0..rows {
                let r = if s.is_valid(i) {
                    text_to_integer(s.value(i), k).map(Some)
                } else {
                    Ok(None)
                };
                c.push(i, r);
            }
            Ok((build_integer(k, c.values, nulls_from(c.ok))?, c.errors))
        }
        FlinkKind::Boolean => {
            let mut c = Collect::<bool>::new(rows, safe);
            for i in 0..rows {
                let r = if s.is_valid(i) {
                    text_to_boolean(s.value(i)).map(Some)
                } else {
                    Ok(None)
                };
                c.push(i, r);
            }
            Ok((build_bool(c.values, nulls_from(c.ok)), c.errors))
        }
        FlinkKind::Decimal { precision, scale } => {
            let mut c = Collect::<i128>::new(rows, safe);
            for i in 0..rows {
                let r = if s.is_valid(i) {
                    text_to_decimal(s.value(i), *precision, *scale)
                } else {
                    Ok(None)
                };
                c.push(i, r);
            }
            Ok((
                build_decimal(c.values, nulls_from(c.ok), *precision, *scale)?,
                c.errors,
            ))
        }
        other => Err(internal(format!("CAST from a string to {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flink_integer_parser() {
        assert_eq!(text_to_integer(" 12 ", &FlinkKind::Int).unwrap(), 12);
        assert_eq!(text_to_integer("-12.99", &FlinkKind::Int).unwrap(), -12);
        assert_eq!(text_to_integer("+7", &FlinkKind::Int).unwrap(), 7);
        assert_eq!(text_to_integer(".5", &FlinkKind::Int).unwrap(), 0);
        assert_eq!(
            text_to_integer("-2147483648", &FlinkKind::Int).unwrap(),
            -2147483648
        );
        assert!(text_to_integer("2147483648", &FlinkKind::Int).is_err());
        assert!(text_to_integer("128", &FlinkKind::TinyInt).is_err());
        assert!(text_to_integer("1.x", &FlinkKind::Int).is_err());
        assert!(text_to_integer("-", &FlinkKind::Int).is_err());
        assert!(text_to_integer("", &FlinkKind::Int).is_err());
        assert_eq!(
            text_to_integer("-9223372036854775808", &FlinkKind::BigInt).unwrap(),
            i64::MIN
        );
        assert!(text_to_integer("9223372036854775808", &FlinkKind::BigInt).is_err());
    }

    #[test]
    fn decimal_parser() {
        assert_eq!(text_to_decimal("1.005", 10, 2).unwrap(), Some(101));
        assert_eq!(text_to_decimal("-1.005", 10, 2).unwrap(), Some(-101));
        assert_eq!(text_to_decimal("1e2", 10, 2).unwrap(), Some(10000));
        assert_eq!(text_to_decimal("123456789", 5, 2).unwrap(), None);
        assert!(text_to_decimal("abc", 5, 2).is_err());
    }
}
