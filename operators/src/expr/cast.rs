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
        _ if is_text(f)
            && (is_integer(t) || matches!(t, K::Decimal { .. } | K::Boolean | K::Date)) =>
        {
            true
        }
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
                .map(|(m, _)| m / 86_400_000) // Java truncation: 1969-12-31 23:59:58.5 is day 0, as in Flink
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

/// `BinaryStringDataUtil.toDecimal(text, precision, scale)`, which has two parsers: a fast one
/// for precisions up to 18 and texts of at most 18 bytes ([`fast_decimal`]) and
/// `new BigDecimal(text)` otherwise ([`big_decimal`]). Either giving no value (unparsable, or
/// too many digits) makes the CAST throw `For input string: '...'. Overflow.`.
fn text_to_decimal(text: &str, precision: u8, scale: i8) -> Result<Option<i128>, EvalError> {
    let value = if precision > 18 || text.len() > 18 {
        big_decimal(text, precision, scale)?
    } else {
        fast_decimal(text.as_bytes(), precision, scale)?.map(i128::from)
    };
    value.map(Some).ok_or_else(|| nfe(text, "Overflow."))
}

fn decimal_space(b: u8) -> bool {
    b == b' ' || b == b'\n' || b == b'\t'
}

/// `BinaryStringDataUtil.toDecimalFromBytes`, reproduced with its quirks: spaces, `\n` and
/// `\t` around the number are skipped; the character that ends the digits (or the exponent)
/// is consumed unchecked (`12x` is 12); the precision check counts every integer digit,
/// leading zeros included, against `precision - scale` before rounding, and the rounded value
/// is not checked again (`999.995` as DECIMAL(5, 2) is 1000.00).
fn fast_decimal(b: &[u8], precision: u8, scale: i8) -> Result<Option<i64>, EvalError> {
    let n = b.len();
    let mut i = 0;
    while i < n && decimal_space(b[i]) {
        i += 1;
    }
    if i == n {
        return Ok(None);
    }
    let negative = b[i] == b'-';
    if negative || b[i] == b'+' {
        i += 1;
        if i == n {
            return Ok(None);
        }
    }
    let mut unscaled: i64 = 0;
    let mut digits: i32 = 0;
    let mut dot: i32 = -1;
    let mut last = 0u8;
    while i < n {
        last = b[i];
        i += 1;
        if last.is_ascii_digit() {
            unscaled = unscaled
                .wrapping_mul(10)
                .wrapping_add(i64::from(last - b'0'));
            digits += 1;
        } else if last == b'.' {
            if dot >= 0 {
                return Ok(None);
            }
            dot = digits;
        } else {
            break;
        }
    }
    if dot < 0 {
        dot = digits;
    }
    if negative {
        unscaled = unscaled.wrapping_neg();
    }
    let mut shift: i32 = 0;
    if (last == b'e' || last == b'E') && i < n {
        let negative_exponent = b[i] == b'-';
        if negative_exponent || b[i] == b'+' {
            i += 1;
            if i == n {
                return Ok(None);
            }
        }
        let mut exponent: i32 = 0;
        while i < n {
            let c = b[i];
            i += 1;
            if !c.is_ascii_digit() {
                break;
            }
            if exponent < 40 {
                exponent = exponent * 10 + i32::from(c - b'0');
            }
        }
        shift = if negative_exponent {
            -exponent
        } else {
            exponent
        };
    }
    // shift = -(the text's scale)
    shift -= digits - dot;
    while i < n {
        if !decimal_space(b[i]) {
            return Ok(None);
        }
        i += 1;
    }
    let change = shift + i32::from(scale);
    if digits + change > i32::from(precision) {
        return Ok(None);
    }
    let power = |k: i32| -> Result<i64, EvalError> {
        // DecimalDataUtils.power10 reads a table of 10^0..10^18.
        u32::try_from(k)
            .ok()
            .filter(|k| *k <= 18)
            .map(|k| 10i64.pow(k))
            .ok_or_else(|| {
                EvalError::Invalid(format!(
                    "java.lang.ArrayIndexOutOfBoundsException: Index {k} out of bounds for length 19"
                ))
            })
    };
    let value = if change >= 0 {
        unscaled.wrapping_mul(power(change)?)
    } else {
        let half = if negative { -5 } else { 5 };
        unscaled
            .wrapping_add(half * power(-change - 1)?)
            .wrapping_div(power(-change)?)
    };
    Ok(Some(value))
}

/// Code points of the `0` of every BMP run of ten decimal digits `Character.digit` accepts.
const BMP_DIGIT_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// `Character.digit(c, 10)` for a BMP character (what `BigDecimal(char[])` accepts).
fn java_digit(c: char) -> Option<u32> {
    let code = u32::from(c);
    BMP_DIGIT_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&code))
        .map(|zero| code - zero)
}

fn bad_char(c: char) -> EvalError {
    EvalError::NumberFormat(format!(
        "Character {c} is neither a decimal digit number, decimal point, nor \"e\" notation \
         exponential mark."
    ))
}

/// `new BigDecimal(text.trim(' ', '\n', '\t'))` then `DecimalData.fromBigDecimal(p, s)`:
/// `Ok(None)` when the value does not fit; BigDecimal's own failures are thrown as they are.
fn big_decimal(text: &str, precision: u8, scale: i8) -> Result<Option<i128>, EvalError> {
    let t = text.trim_matches(|c| c == ' ' || c == '\n' || c == '\t');
    let mut chars = t.chars().peekable();
    let negative = match chars.peek() {
        Some('-') => {
            chars.next();
            true
        }
        Some('+') => {
            chars.next();
            false
        }
        _ => false,
    };
    let mut digits = String::new();
    let mut fraction: i64 = 0;
    let mut point = false;
    let mut exponent: Option<String> = None;
    while let Some(c) = chars.next() {
        if let Some(d) = java_digit(c) {
            digits.push(char::from(b'0' + d as u8));
            if point {
                fraction += 1;
            }
        } else if c == '.' {
            if point {
                return Err(EvalError::NumberFormat(
                    "Character array contains more than one decimal point.".into(),
                ));
            }
            point = true;
        } else if c == 'e' || c == 'E' {
            exponent = Some(chars.by_ref().collect());
            break;
        } else {
            return Err(bad_char(c));
        }
    }
    if digits.is_empty() {
        return Err(EvalError::NumberFormat("No digits found.".into()));
    }
    let exp: i64 = match exponent {
        None => 0,
        Some(e) => {
            let body = e.strip_prefix('+').unwrap_or(&e);
            if body.is_empty()
                || body == "-"
                || !body
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit())
            {
                return Err(EvalError::NumberFormat("No exponent digits.".into()));
            }
            match body.parse::<i64>() {
                Ok(v) if v.abs() < i64::from(i32::MAX) => v,
                _ => return Err(EvalError::NumberFormat("Exponent overflow.".into())),
            }
        }
    };
    let text_scale = fraction - exp;
    let stripped = digits.trim_start_matches('0');
    let unscaled: num_bigint::BigInt = if stripped.is_empty() {
        num_bigint::BigInt::from(0)
    } else {
        stripped.parse().map_err(|_| bad_char('?'))?
    };
    let unscaled = if negative { -unscaled } else { unscaled };
    let target = i64::from(scale);
    let ten = num_bigint::BigInt::from(10u8);
    let value = if text_scale > target {
        let k = text_scale - target;
        if k > 200 {
            num_bigint::BigInt::from(0)
        } else {
            let p = ten.pow(k as u32);
            let q = &unscaled / &p;
            let r: num_bigint::BigInt = num_traits::Signed::abs(&(&unscaled % &p)) * 2u8;
            if r >= p {
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
        let k = target - text_scale;
        if k > 80 {
            return Ok(None);
        }
        unscaled * ten.pow(k as u32)
    };
    let magnitude = num_traits::Signed::abs(&value).to_string();
    if magnitude.len() > usize::from(precision) {
        return Ok(None);
    }
    Ok(num_traits::ToPrimitive::to_i128(&value))
}

/// Java's `String.trim()`: strips characters up to U+0020.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// `DateTimeUtils.parseDate` (what CAST from a string to DATE calls): the text up to its first
/// space (when it does not start with one), split at the first two `-` into year, month and
/// day (missing ones are 1), each trimmed and all ASCII digits; year 0..9999 and a real
/// calendar day. Anything else fails as Flink's `DateTimeException`.
fn text_to_date(text: &str) -> Result<i32, EvalError> {
    let fail = || {
        EvalError::Invalid(format!(
            "java.time.DateTimeException: For input string: '{text}'."
        ))
    };
    let mut s = text;
    if let Some(space) = s.find(' ') {
        if space > 0 {
            s = &s[..space];
        }
    }
    let number = |t: &str| -> Result<i64, EvalError> {
        let t = java_trim(t);
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(fail());
        }
        // Integer.parseInt: more than an int's digits throw (a failure all the same).
        t.parse::<i32>().map(i64::from).map_err(|_| fail())
    };
    let (y, m, d) = match s.find('-') {
        None => (number(s)?, 1, 1),
        Some(h1) => {
            let y = number(&s[..h1])?;
            let rest = &s[h1 + 1..];
            match rest.find('-') {
                None => (y, number(rest)?, 1),
                Some(h2) => (y, number(&rest[..h2])?, number(&rest[h2 + 1..])?),
            }
        }
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in_month = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    if !(0..=9999).contains(&y) || !(1..=days_in_month).contains(&d) {
        return Err(fail());
    }
    i32::try_from(temporal::days_from_civil(y, m as u32, d as u32)).map_err(|_| fail())
}

fn from_text(s: &StringArray, to: &FlinkType, safe: bool) -> Result<(ArrayRef, Errors), EvalError> {
    let rows = s.len();
    match &to.kind {
        FlinkKind::Date => {
            let mut c = Collect::<i64>::new(rows, safe);
            for i in 0..rows {
                let r = if s.is_valid(i) {
                    text_to_date(s.value(i)).map(|d| Some(i64::from(d)))
                } else {
                    Ok(None)
                };
                c.push(i, r);
            }
            Ok((
                build_integer(&FlinkKind::Date, c.values, nulls_from(c.ok))?,
                c.errors,
            ))
        }
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
        assert_eq!(text_to_decimal("12x", 10, 2).unwrap(), Some(1200));
        assert_eq!(text_to_decimal("1.005", 10, 2).unwrap(), Some(101));
        assert_eq!(text_to_decimal("-1.005", 10, 2).unwrap(), Some(-101));
        assert_eq!(text_to_decimal("1e2", 10, 2).unwrap(), Some(10000));
        assert!(text_to_decimal("123456789", 5, 2).is_err());
        assert!(text_to_decimal("abc", 5, 2).is_err());
    }
}
