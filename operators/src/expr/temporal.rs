//! Date and time functions: `EXTRACT` (and `HOUR`/`MINUTE`/`SECOND`, which are the same),
//! `TO_TIMESTAMP_LTZ`, plus the calendar helpers the casts share. TIMESTAMP values are
//! wall-clock times (their fields read in UTC), TIMESTAMP_LTZ values are instants read in the
//! session time zone, as `DateTimeUtils` does.

use arrow_array::Array;
use karrow_codecs::types::FlinkKind;
use karrow_codecs::FlinkType;

use super::kernels::{
    build_integer, build_timestamp, i64_values, nulls_from, timestamp_values, valid,
};
use super::{internal, Context, Errors, Evaluated, Expr};
use crate::error::EvalError;

/// A time unit of `EXTRACT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Calendar year.
    Year,
    /// 1..=4.
    Quarter,
    /// 1..=12.
    Month,
    /// Day of month.
    Day,
    /// 0..=23.
    Hour,
    /// 0..=59.
    Minute,
    /// 0..=59.
    Second,
    /// Day of week, Sunday = 1.
    Dow,
    /// Day of year, 1-based.
    Doy,
}

impl Unit {
    /// The unit named by an `EXTRACT` symbol.
    pub fn from_symbol(name: &str) -> Option<Unit> {
        Some(match name {
            "YEAR" => Unit::Year,
            "QUARTER" => Unit::Quarter,
            "MONTH" => Unit::Month,
            "DAY" => Unit::Day,
            "HOUR" => Unit::Hour,
            "MINUTE" => Unit::Minute,
            "SECOND" => Unit::Second,
            "DOW" => Unit::Dow,
            "DOY" => Unit::Doy,
            _ => return None,
        })
    }

    /// Whether the unit exists for a DATE (time-of-day units do not).
    pub fn applies_to_date(self) -> bool {
        !matches!(self, Unit::Hour | Unit::Minute | Unit::Second)
    }
}

/// One piece of a `DateTimeFormatter` pattern the core prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FormatItem {
    /// Text printed as is.
    Literal(String),
    /// `yyyy` (year of era, at least 4 digits) or `yy` (two digits).
    Year(u8),
    /// `M`/`MM`, `d`/`dd`, `H`/`HH`, `m`/`mm`, `s`/`ss`: the field and its minimum width.
    Field(char, u8),
    /// `S` x n: the first n digits of the fraction of second.
    Fraction(u8),
}

/// Compiles a `DateTimeFormatter.ofPattern` pattern of numeric fields; `Err` names what is
/// not supported (text fields, which depend on the locale, and optional sections).
pub(crate) fn compile_format(pattern: &str) -> Result<Vec<FormatItem>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut items = Vec::new();
    let mut i = 0;
    let mut literal = String::new();
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // '' is a quote; 'text' is literal text.
            if chars.get(i + 1) == Some(&'\'') {
                literal.push('\'');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => {
                        return Err(format!(
                            "unterminated quote in DATE_FORMAT pattern '{pattern}'"
                        ))
                    }
                    Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                        literal.push('\'');
                        j += 2;
                    }
                    Some('\'') => break,
                    Some(&x) => {
                        literal.push(x);
                        j += 1;
                    }
                }
            }
            i = j + 1;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let mut n = 1;
            while chars.get(i + n) == Some(&c) {
                n += 1;
            }
            let item = match (c, n) {
                ('y', 2) => FormatItem::Year(2),
                ('y', 4) => FormatItem::Year(4),
                ('M' | 'd' | 'H' | 'm' | 's', 1 | 2) => FormatItem::Field(c, n as u8),
                ('S', 1..=9) => FormatItem::Fraction(n as u8),
                _ => {
                    return Err(format!(
                        "DATE_FORMAT pattern letter '{}' is not supported",
                        c.to_string().repeat(n)
                    ))
                }
            };
            if !literal.is_empty() {
                items.push(FormatItem::Literal(std::mem::take(&mut literal)));
            }
            items.push(item);
            i += n;
            continue;
        }
        if matches!(c, '[' | ']' | '{' | '}' | '#') {
            return Err(format!(
                "DATE_FORMAT pattern character '{c}' is not supported"
            ));
        }
        literal.push(c);
        i += 1;
    }
    if !literal.is_empty() {
        items.push(FormatItem::Literal(literal));
    }
    Ok(items)
}

/// `LocalDateTime.ofInstant(ts, UTC).format(pattern)`.
fn format_timestamp(items: &[FormatItem], millis: i64, nanos: i32) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms = millis.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let nano = (ms % 1000) * 1_000_000 + i64::from(nanos);
    let mut out = String::new();
    for item in items {
        match item {
            FormatItem::Literal(t) => out.push_str(t),
            FormatItem::Year(n) => {
                let era_year = if y >= 1 { y } else { 1 - y };
                if *n == 2 {
                    out.push_str(&format!("{:02}", era_year.rem_euclid(100)));
                } else {
                    out.push_str(&format!("{era_year:04}"));
                }
            }
            FormatItem::Field(c, width) => {
                let v = match c {
                    'M' => i64::from(m),
                    'd' => i64::from(d),
                    'H' => ms / 3_600_000,
                    'm' => ms / 60_000 % 60,
                    _ => ms / 1000 % 60,
                };
                if *width == 2 {
                    out.push_str(&format!("{v:02}"));
                } else {
                    out.push_str(&v.to_string());
                }
            }
            FormatItem::Fraction(n) => {
                let digits = format!("{nano:09}");
                out.push_str(&digits[..usize::from(*n)]);
            }
        }
    }
    out
}

/// A temporal function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TimeFunc {
    /// `EXTRACT(unit FROM v)` over DATE, TIMESTAMP or TIMESTAMP_LTZ.
    Extract(Unit),
    /// `TO_TIMESTAMP_LTZ(epoch, precision)` with precision 0 (seconds) or 3 (millis).
    ToTimestampLtz(u8),
    /// `DATE_FORMAT(timestamp, pattern)` with a literal pattern.
    DateFormat(Vec<FormatItem>),
}

/// Days since 1970-01-01 -> (year, month, day), proleptic Gregorian.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) -> days since 1970-01-01.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `DateTimeUtils.formatDate`: `yyyy-MM-dd`.
pub(crate) fn format_date(days: i32) -> String {
    let (y, m, d) = civil_from_days(i64::from(days));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `DateTimeUtils.truncate(ts, precision)`: fractional digits beyond `precision` dropped,
/// toward zero on the epoch millis for precisions below 3 (as Flink computes it).
pub(crate) fn truncate_to_precision(millis: i64, nanos: i32, precision: u8) -> (i64, i32) {
    let nano_of_second = millis.rem_euclid(1000) * 1_000_000 + i64::from(nanos);
    let digits = nano_of_second.to_string().len();
    if digits <= usize::from(precision) {
        return (millis, nanos);
    }
    if precision <= 3 {
        let p = 10i64.pow(u32::from(3 - precision));
        ((millis / p) * p, 0)
    } else {
        let p = 10i32.pow(u32::from(9 - precision));
        (millis, (nanos / p) * p)
    }
}

/// `unit` of a local time in epoch millis, as Flink's generated code computes it: the day
/// is `millis / 86400000` and the time of day `millis % 86400000`, both Java's truncating
/// operations, so before 1970 a time of day can be negative (`1969-12-31 23:59:58.5` is day
/// 0 at second -1).
fn extract(unit: Unit, local_millis: i64) -> i64 {
    let days = local_millis / 86_400_000;
    let ms = local_millis % 86_400_000;
    match unit {
        Unit::Hour => ms / 3_600_000,
        Unit::Minute => ms / 60_000 % 60,
        Unit::Second => ms / 1000 % 60,
        _ => date_extract(unit, days),
    }
}

/// `unit` of a DATE (days since the epoch).
fn date_extract(unit: Unit, days: i64) -> i64 {
    let (y, m, d) = civil_from_days(days);
    match unit {
        Unit::Year => y,
        Unit::Quarter => i64::from(m.div_ceil(3)),
        Unit::Month => i64::from(m),
        Unit::Day => i64::from(d),
        // 1970-01-01 was a Thursday (DOW 5 with Sunday = 1).
        Unit::Dow => (days + 4).rem_euclid(7) + 1,
        Unit::Doy => days - days_from_civil(y, 1, 1) + 1,
        Unit::Hour | Unit::Minute | Unit::Second => 0,
    }
}

/// The epoch millis `TimestampData` can hold (0000-01-01 to 9999-12-31 23:59:59.999).
const MIN_EPOCH_MILLIS: i64 = -62_167_219_200_000;
const MAX_EPOCH_MILLIS: i64 = 253_402_300_799_999;

/// Evaluates a temporal function.
pub(crate) fn eval(
    f: &TimeFunc,
    args: &[Expr],
    ty: &FlinkType,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let mut errors = Errors::default();
    let mut evaluated = Vec::with_capacity(args.len());
    for a in args {
        let v = a.eval(ctx)?;
        errors = errors.merge(v.errors);
        evaluated.push(v.array);
    }
    let first = evaluated
        .first()
        .ok_or_else(|| internal("temporal function without operands".into()))?;
    let nulls = first.logical_nulls();
    let array = match f {
        TimeFunc::DateFormat(items) => {
            let (v, _) = timestamp_values(first)?;
            let out: arrow_array::StringArray = v
                .iter()
                .enumerate()
                .map(|(i, (m, n))| {
                    valid(nulls.as_ref(), i).then(|| format_timestamp(items, *m, *n))
                })
                .collect();
            std::sync::Arc::new(out)
        }
        TimeFunc::Extract(unit) => {
            let unit = *unit;
            let local: Vec<i64> = match &args[0].ty.kind {
                FlinkKind::Date => i64_values(first)?
                    .0
                    .into_iter()
                    .map(|d| date_extract(unit, d))
                    .collect(),
                FlinkKind::Timestamp(_) => timestamp_values(first)?
                    .0
                    .into_iter()
                    .map(|(m, _)| m)
                    .collect(),
                FlinkKind::TimestampLtz(_) => {
                    let offset = i64::from(ctx.session.offset_seconds) * 1000;
                    timestamp_values(first)?
                        .0
                        .into_iter()
                        .map(|(m, _)| m.wrapping_add(offset))
                        .collect()
                }
                other => return Err(internal(format!("EXTRACT from {other:?}"))),
            };
            let out = if args[0].ty.kind == FlinkKind::Date {
                local
            } else {
                local.into_iter().map(|m| extract(unit, m)).collect()
            };
            build_integer(&ty.kind, out, nulls)?
        }
        TimeFunc::ToTimestampLtz(precision) => {
            let precision = *precision;
            let (v, _) = i64_values(first)?;
            let mut ok = Vec::with_capacity(v.len());
            let out: Vec<(i64, i32)> = v
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    // DateTimeUtils.toTimestampData: NULL outside the years 0000-9999.
                    let millis = if precision == 0 {
                        x.checked_mul(1000)
                    } else {
                        Some(x)
                    }
                    .filter(|m| (MIN_EPOCH_MILLIS..=MAX_EPOCH_MILLIS).contains(m));
                    ok.push(valid(nulls.as_ref(), i) && millis.is_some());
                    (millis.unwrap_or(0), 0)
                })
                .collect();
            build_timestamp(ty, &out, nulls_from(ok))?
        }
    };
    Ok(Evaluated { array, errors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_round_trips() {
        for days in [-719_528i64, -1, 0, 1, 59, 365, 11_016, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(format_date(19_723), "2024-01-01");
    }

    #[test]
    fn truncation_is_toward_zero_on_millis() {
        assert_eq!(truncate_to_precision(-1500, 0, 0), (-1000, 0));
        assert_eq!(truncate_to_precision(1500, 0, 0), (1000, 0));
        assert_eq!(truncate_to_precision(1500, 123_456, 4), (1500, 100_000));
        assert_eq!(truncate_to_precision(1500, 0, 3), (1500, 0));
    }
}
