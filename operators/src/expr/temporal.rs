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

/// A temporal function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeFunc {
    /// `EXTRACT(unit FROM v)` over DATE, TIMESTAMP or TIMESTAMP_LTZ.
    Extract(Unit),
    /// `TO_TIMESTAMP_LTZ(epoch, precision)` with precision 0 (seconds) or 3 (millis).
    ToTimestampLtz(u8),
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

fn extract(unit: Unit, local_millis: i64) -> i64 {
    let days = local_millis.div_euclid(86_400_000);
    let ms = local_millis.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    match unit {
        Unit::Year => y,
        Unit::Quarter => i64::from((m + 2) / 3),
        Unit::Month => i64::from(m),
        Unit::Day => i64::from(d),
        Unit::Hour => ms / 3_600_000,
        Unit::Minute => ms / 60_000 % 60,
        Unit::Second => ms / 1000 % 60,
        // 1970-01-01 was a Thursday (DOW 5 with Sunday = 1).
        Unit::Dow => (days + 4).rem_euclid(7) + 1,
        Unit::Doy => days - days_from_civil(y, 1, 1) + 1,
    }
}

/// Evaluates a temporal function.
pub(crate) fn eval(
    f: TimeFunc,
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
        TimeFunc::Extract(unit) => {
            let local: Vec<i64> = match &args[0].ty.kind {
                FlinkKind::Date => i64_values(first)?
                    .0
                    .into_iter()
                    .map(|d| d * 86_400_000)
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
            let out = local.into_iter().map(|m| extract(unit, m)).collect();
            build_integer(&ty.kind, out, nulls)?
        }
        TimeFunc::ToTimestampLtz(precision) => {
            let (v, _) = i64_values(first)?;
            let mut ok = Vec::with_capacity(v.len());
            let out: Vec<(i64, i32)> = v
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let millis = if precision == 0 {
                        x.checked_mul(1000)
                    } else {
                        Some(x)
                    };
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
