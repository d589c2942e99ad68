//! The date and time text of flink-json 2.2.0 (spec §1.5 DATE/TIME rows, §1.6), both ways.
//!
//! Flink parses and prints these values with `java.time` formatters (its `TimeFormats`
//! class plus `DateTimeFormatter.ISO_LOCAL_DATE` / `ISO_LOCAL_DATE_TIME`). This module
//! reproduces those formatters element by element — the same accepted texts, the same
//! resolver (STRICT or SMART), the same `DateTimeParseException` messages — without
//! `java.time` itself:
//!
//! | value | decode formatter | resolver |
//! |---|---|---|
//! | DATE | `ISO_LOCAL_DATE`: `yyyy-MM-dd` | STRICT (`2021-02-29` is an error) |
//! | TIME | `HH:mm:ss[.f{0,9}]` | SMART (`24:00:00` is midnight) |
//! | TIMESTAMP, `SQL` | `yyyy-MM-dd HH:mm:ss[.f{0,9}]` | SMART (`02-30` becomes `02-28`, `24:00:00` the next day) |
//! | TIMESTAMP, `ISO-8601` | `ISO_LOCAL_DATE_TIME`: `yyyy-MM-ddTHH:mm[:ss[.f{0,9}]]`, `T` in any case | STRICT |
//! | TIMESTAMP_LTZ, `SQL` | `yyyy-MM-dd HH:mm:ss[.f{0,9}]Z` | SMART |
//! | TIMESTAMP_LTZ, `ISO-8601` | `yyyy-MM-ddTHH:mm[:ss[.f{0,9}]]Z` (upper-case `T`, `Z`) | SMART |
//!
//! Common to all: the year is 4 to 10 ASCII digits, with a mandatory `+` when it has more
//! than 4 digits, an optional `-` (never `-0000`), and must lie in ±999,999,999; months, days,
//! hours, minutes and seconds are exactly 2 ASCII digits; the fraction is a `.` followed by
//! **0** to 9 digits (a bare `.` is accepted and means zero); the whole text must be consumed.

use serde::Deserialize;

/// The two text forms of TIMESTAMP and TIMESTAMP_LTZ Flink knows (its
/// `timestamp-format.standard` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum TimestampStandard {
    /// `yyyy-MM-dd HH:mm:ss[.f]` (the default).
    #[default]
    #[serde(rename = "SQL")]
    Sql,
    /// `yyyy-MM-ddTHH:mm[:ss[.f]]`.
    #[serde(rename = "ISO-8601")]
    Iso8601,
}

/// Why a temporal text did not parse; the message is the one Java's
/// `DateTimeParseException` carries (e.g. `Text '2020-1-01' could not be parsed at index 5`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct TemporalError(pub(crate) String);

const MILLIS_PER_DAY: i64 = 86_400_000;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
const SECONDS_PER_DAY: i64 = 86_400;
/// `ChronoField.YEAR`'s range in `java.time`.
const MAX_YEAR: i64 = 999_999_999;

/// Parses a DATE as flink-json does (`ISO_LOCAL_DATE`, STRICT resolver) into days since
/// 1970-01-01; like Flink's `(int) toEpochDay()`, years beyond ±5.8 million wrap around.
pub(crate) fn parse_date(text: &str) -> Result<i32, TemporalError> {
    let mut scan = Scan::new(text);
    let date = scan.date().map_err(|at| scan.error_at(at))?;
    scan.finish()?;
    let epoch_day = resolve_date(date, Resolver::Strict).map_err(|m| scan.error_resolving(&m))?;
    Ok(epoch_day as i32)
}

/// Parses a TIME as flink-json 2.2.0 does (`HH:mm:ss[.fraction]`, SMART resolver) into
/// milliseconds of the day; the fraction is read but discarded (`toSecondOfDay() * 1000`).
pub(crate) fn parse_time(text: &str) -> Result<i32, TemporalError> {
    let mut scan = Scan::new(text);
    let time = scan.sql_time().map_err(|at| scan.error_at(at))?;
    scan.finish()?;
    let time = resolve_time(time, Resolver::Smart).map_err(|m| scan.error_resolving(&m))?;
    // `24:00:00` leaves an excess day, which a bare time has nothing to add to.
    Ok((time.nano_of_day / NANOS_PER_SECOND) as i32 * 1000)
}

/// Parses a TIMESTAMP in the given standard into `(epoch millis, nano of milli)`, keeping
/// every fraction digit (Flink's `TimestampData.fromLocalDateTime`).
pub(crate) fn parse_timestamp(
    text: &str,
    standard: TimestampStandard,
) -> Result<(i64, u32), TemporalError> {
    if standard == TimestampStandard::Sql {
        if let Some(parsed) = plain_sql_timestamp(text.as_bytes()) {
            return Ok(parsed);
        }
    }
    let mut scan = Scan::new(text);
    let (date, time, resolver) = match standard {
        TimestampStandard::Sql => {
            let date = scan.date().map_err(|at| scan.error_at(at))?;
            scan.literal(b' ', false).map_err(|at| scan.error_at(at))?;
            let time = scan.sql_time().map_err(|at| scan.error_at(at))?;
            (date, time, Resolver::Smart)
        }
        TimestampStandard::Iso8601 => {
            // `ISO_LOCAL_DATE_TIME` parses case-insensitively: `t` is accepted.
            let date = scan.date().map_err(|at| scan.error_at(at))?;
            scan.literal(b'T', true).map_err(|at| scan.error_at(at))?;
            let time = scan.iso_time().map_err(|at| scan.error_at(at))?;
            (date, time, Resolver::Strict)
        }
    };
    scan.finish()?;
    resolve_date_time(date, time, resolver).map_err(|m| scan.error_resolving(&m))
}

/// Parses a TIMESTAMP_LTZ in the given standard (the timestamp text followed by a mandatory
/// literal `Z`, read as UTC) into `(epoch millis, nano of milli)`.
pub(crate) fn parse_timestamp_ltz(
    text: &str,
    standard: TimestampStandard,
) -> Result<(i64, u32), TemporalError> {
    let mut scan = Scan::new(text);
    let date = scan.date().map_err(|at| scan.error_at(at))?;
    let time = match standard {
        TimestampStandard::Sql => {
            scan.literal(b' ', false).map_err(|at| scan.error_at(at))?;
            scan.sql_time().map_err(|at| scan.error_at(at))?
        }
        TimestampStandard::Iso8601 => {
            // Flink builds this formatter itself: case-sensitive, SMART resolver.
            scan.literal(b'T', false).map_err(|at| scan.error_at(at))?;
            scan.iso_time().map_err(|at| scan.error_at(at))?
        }
    };
    scan.literal(b'Z', false).map_err(|at| scan.error_at(at))?;
    scan.finish()?;
    // `LocalDateTime.toInstant(UTC)` then `TimestampData.fromInstant` gives the same
    // numbers as the local-date-time conversion.
    resolve_date_time(date, time, Resolver::Smart).map_err(|m| scan.error_resolving(&m))
}

/// Writes a DATE (days since 1970-01-01) as `ISO_LOCAL_DATE` prints it: `yyyy-MM-dd`, with
/// `+` before years above 9999 and `-` before negative years (`-0001-12-31`).
pub(crate) fn write_date(out: &mut Vec<u8>, epoch_days: i32) {
    write_civil_date(out, i64::from(epoch_days));
}

/// Writes a TIME (milliseconds of the day) as `HH:mm:ss`; the milliseconds are always
/// dropped (`LocalTime.ofSecondOfDay(millis / 1000)`). Java rejects values outside one day;
/// here such values wrap around modulo one day.
pub(crate) fn write_time(out: &mut Vec<u8>, millis_of_day: i32) {
    // Java's `/` truncates toward zero, so -999..=-1 ms is still second 0.
    let second_of_day = (i64::from(millis_of_day) / 1000).rem_euclid(SECONDS_PER_DAY);
    write_hms(out, second_of_day);
}

/// Writes a TIMESTAMP (`epoch millis`, `nano of milli` in 0..=999_999, larger values
/// clamped) in the given standard: `yyyy-MM-dd HH:mm:ss` or `yyyy-MM-ddTHH:mm:ss`, then
/// `.` and the fraction with trailing zeros removed when it is non-zero.
pub(crate) fn write_timestamp(
    out: &mut Vec<u8>,
    millis: i64,
    nano_of_milli: u32,
    standard: TimestampStandard,
) {
    // `TimestampData.toLocalDateTime` narrows the day count to a Java int; reproduce that
    // (it only matters millions of years away from 1970).
    let mut day = (millis / MILLIS_PER_DAY) as i32;
    let mut millis_of_day = (millis % MILLIS_PER_DAY) as i32;
    if millis_of_day < 0 {
        day = day.wrapping_sub(1);
        millis_of_day += MILLIS_PER_DAY as i32;
    }
    let nano_of_day = i64::from(millis_of_day) * 1_000_000 + i64::from(nano_of_milli.min(999_999));
    write_date_time(out, i64::from(day), nano_of_day, standard);
}

/// Writes a TIMESTAMP_LTZ (`epoch millis`, `nano of milli` in 0..=999_999, larger values
/// clamped) as its UTC date-time in the given standard followed by `Z`.
pub(crate) fn write_timestamp_ltz(
    out: &mut Vec<u8>,
    millis: i64,
    nano_of_milli: u32,
    standard: TimestampStandard,
) {
    // `TimestampData.toInstant().atOffset(UTC)`: plain floor division, no narrowing.
    let day = millis.div_euclid(MILLIS_PER_DAY);
    let millis_of_day = millis.rem_euclid(MILLIS_PER_DAY);
    let nano_of_day = millis_of_day * 1_000_000 + i64::from(nano_of_milli.min(999_999));
    write_date_time(out, day, nano_of_day, standard);
    out.push(b'Z');
}

// ---------------------------------------------------------------------------------------
// Parsing: one method per `java.time` printer-parser element.

/// The date fields as parsed, before resolving (Java's `Parsed` field map).
#[derive(Debug, Clone, Copy)]
struct DateFields {
    year: i64,
    month: i64,
    day: i64,
}

/// The time fields as parsed, before resolving; absent optional parts are `None`.
#[derive(Debug, Clone, Copy)]
struct TimeFields {
    hour: i64,
    minute: i64,
    second: Option<i64>,
    nano: Option<i64>,
}

/// A time after resolving: the nano of day and whether `24:00` rolled over to the next day.
#[derive(Debug, Clone, Copy)]
struct ResolvedTime {
    nano_of_day: i64,
    next_day: bool,
}

/// The two `java.time` resolver styles Flink's formatters use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolver {
    /// Invalid day-of-month is an error; hour 24 is an error.
    Strict,
    /// Day-of-month past the month's end is clamped; `24:00:00` is the next midnight.
    Smart,
}

/// A cursor over the text. Every element only ever consumes ASCII bytes, so byte positions
/// equal Java's UTF-16 indices up to any position this cursor reports.
struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        Scan {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    /// `DateTimeParseException` for a failed element ("could not be parsed at index").
    fn error_at(&self, at: usize) -> TemporalError {
        TemporalError(format!(
            "Text '{}' could not be parsed at index {}",
            abbreviate(self.text),
            java_index(self.text, at)
        ))
    }

    /// `DateTimeParseException` for a text whose fields did not resolve.
    fn error_resolving(&self, message: &str) -> TemporalError {
        TemporalError(format!(
            "Text '{}' could not be parsed: {message}",
            abbreviate(self.text)
        ))
    }

    /// The whole text must have been consumed.
    fn finish(&self) -> Result<(), TemporalError> {
        if self.pos < self.bytes.len() {
            return Err(TemporalError(format!(
                "Text '{}' could not be parsed, unparsed text found at index {}",
                abbreviate(self.text),
                java_index(self.text, self.pos)
            )));
        }
        Ok(())
    }

    /// A strict-mode `NumberPrinterParser` without adjacent-value parsing: `min..=max`
    /// ASCII digits, signs per `exceeds_pad` (`SignStyle.EXCEEDS_PAD`, else
    /// `NOT_NEGATIVE`). Returns the error index on failure.
    fn number(&mut self, min: usize, max: usize, exceeds_pad: bool) -> Result<i64, usize> {
        let len = self.bytes.len();
        let mut position = self.pos;
        if position == len {
            return Err(position);
        }
        let mut negative = false;
        let mut positive = false;
        match self.bytes[position] {
            b'+' | b'-' if !exceeds_pad => return Err(position),
            b'+' => {
                positive = true;
                position += 1;
            }
            b'-' => {
                negative = true;
                position += 1;
            }
            _ => {}
        }
        let min_end = position + min;
        if min_end > len {
            return Err(position);
        }
        let max_end = (position + max).min(len);
        let mut total: i64 = 0;
        let mut pos = position;
        while pos < max_end {
            let b = self.bytes[pos];
            if !b.is_ascii_digit() {
                if pos < min_end {
                    return Err(position);
                }
                break;
            }
            // At most 10 digits: no overflow.
            total = total * 10 + i64::from(b - b'0');
            pos += 1;
        }
        if negative {
            if total == 0 {
                // "minus zero not allowed"
                return Err(position - 1);
            }
            total = -total;
        } else if exceeds_pad {
            let parsed = pos - position;
            if positive && parsed <= min {
                // '+' only allowed when the minimum width is exceeded
                return Err(position - 1);
            }
            if !positive && parsed > min {
                // '+' required when the minimum width is exceeded
                return Err(position);
            }
        }
        self.pos = pos;
        Ok(total)
    }

    /// A `CharLiteralPrinterParser`; `ignore_case` is `parseCaseInsensitive()`.
    fn literal(&mut self, literal: u8, ignore_case: bool) -> Result<(), usize> {
        match self.bytes.get(self.pos) {
            Some(&b) if b == literal || (ignore_case && b.eq_ignore_ascii_case(&literal)) => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.pos),
        }
    }

    /// `appendFraction(NANO_OF_SECOND, 0, 9, true)`: nothing unless the next character is
    /// `.`; then up to 9 digits (none is fine). Never fails; returns the nano of second
    /// when the `.` was there.
    fn fraction(&mut self) -> Option<i64> {
        if self.bytes.get(self.pos) != Some(&b'.') {
            return None;
        }
        self.pos += 1;
        let start = self.pos;
        let end = (start + 9).min(self.bytes.len());
        let mut total: i64 = 0;
        while self.pos < end && self.bytes[self.pos].is_ascii_digit() {
            total = total * 10 + i64::from(self.bytes[self.pos] - b'0');
            self.pos += 1;
        }
        let digits = self.pos - start;
        // `digits` <= 9, so the exponent is at most 9.
        Some(total * 10_i64.pow(9 - digits as u32))
    }

    /// `ISO_LOCAL_DATE`: year (4..10 digits, EXCEEDS_PAD), `-`, month (2), `-`, day (2).
    fn date(&mut self) -> Result<DateFields, usize> {
        let year = self.number(4, 10, true)?;
        self.literal(b'-', false)?;
        let month = self.number(2, 2, false)?;
        self.literal(b'-', false)?;
        let day = self.number(2, 2, false)?;
        Ok(DateFields { year, month, day })
    }

    /// Flink's `SQL_TIME_FORMAT`: `HH:mm:ss` then the optional fraction.
    fn sql_time(&mut self) -> Result<TimeFields, usize> {
        let hour = self.number(2, 2, false)?;
        self.literal(b':', false)?;
        let minute = self.number(2, 2, false)?;
        self.literal(b':', false)?;
        let second = self.number(2, 2, false)?;
        let nano = self.fraction();
        Ok(TimeFields {
            hour,
            minute,
            second: Some(second),
            nano,
        })
    }

    /// `ISO_LOCAL_TIME`: `HH:mm` then an optional section `:ss` with a nested optional
    /// fraction. A failed optional section consumes nothing.
    fn iso_time(&mut self) -> Result<TimeFields, usize> {
        let hour = self.number(2, 2, false)?;
        self.literal(b':', false)?;
        let minute = self.number(2, 2, false)?;
        let before = self.pos;
        let second = match self
            .literal(b':', false)
            .and_then(|()| self.number(2, 2, false))
        {
            Ok(second) => Some(second),
            Err(_) => {
                self.pos = before;
                None
            }
        };
        let nano = if second.is_some() {
            self.fraction()
        } else {
            None
        };
        Ok(TimeFields {
            hour,
            minute,
            second,
            nano,
        })
    }
}

/// Java's `text.length() > 64 ? text.subSequence(0, 64) + "..." : text` (UTF-16 units). A
/// surrogate pair cut in half shows as U+FFFD where Java would keep the lone surrogate.
fn abbreviate(text: &str) -> String {
    let mut units = 0usize;
    for (index, c) in text.char_indices() {
        let width = c.len_utf16();
        if units + width > 64 {
            let mut short = text[..index].to_string();
            if units < 64 {
                short.push('\u{FFFD}');
            }
            short.push_str("...");
            return short;
        }
        units += width;
    }
    text.to_string()
}

/// The UTF-16 index Java reports for a byte position of this module's cursor.
fn java_index(text: &str, byte_pos: usize) -> usize {
    text.get(..byte_pos)
        .map_or(byte_pos, |prefix| prefix.encode_utf16().count())
}

// ---------------------------------------------------------------------------------------
// Resolving (Java's `Parsed.resolve` for the fields these formatters produce).

/// `"Invalid value for <Field> (valid values <range>): <value>"` (`ValueRange` check).
fn invalid_value(field: &str, range: &str, value: i64) -> String {
    format!("Invalid value for {field} (valid values {range}): {value}")
}

/// `IsoChronology.resolveYMD` then `LocalDate.of`: the epoch day of a valid date.
fn resolve_date(date: DateFields, resolver: Resolver) -> Result<i64, String> {
    let DateFields { year, month, day } = date;
    if !(-MAX_YEAR..=MAX_YEAR).contains(&year) {
        return Err(invalid_value("Year", "-999999999 - 999999999", year));
    }
    if !(1..=12).contains(&month) {
        return Err(invalid_value("MonthOfYear", "1 - 12", month));
    }
    if !(1..=31).contains(&day) {
        return Err(invalid_value("DayOfMonth", "1 - 28/31", day));
    }
    let length = month_length(year, month);
    let day = match resolver {
        // SMART: "previous valid" day for short months.
        Resolver::Smart => day.min(length),
        Resolver::Strict if day > length => {
            return Err(if day == 29 {
                format!("Invalid date 'February 29' as '{year}' is not a leap year")
            } else {
                format!("Invalid date '{} {day}'", MONTH_NAMES[(month - 1) as usize])
            });
        }
        Resolver::Strict => day,
    };
    Ok(days_from_civil(year, month, day))
}

/// `Parsed.resolveTime` after defaulting absent seconds / nanos to zero.
fn resolve_time(time: TimeFields, resolver: Resolver) -> Result<ResolvedTime, String> {
    let TimeFields {
        hour,
        minute,
        second,
        nano,
    } = time;
    let second = second.unwrap_or(0);
    let nano = nano.unwrap_or(0);
    if !(0..=59).contains(&minute) {
        return Err(invalid_value("MinuteOfHour", "0 - 59", minute));
    }
    // The nano of second is at most 999_999_999 by construction.
    if resolver == Resolver::Smart && hour == 24 && minute == 0 && second == 0 && nano == 0 {
        return Ok(ResolvedTime {
            nano_of_day: 0,
            next_day: true,
        });
    }
    if !(0..=23).contains(&hour) {
        return Err(invalid_value("HourOfDay", "0 - 23", hour));
    }
    if !(0..=59).contains(&second) {
        return Err(invalid_value("SecondOfMinute", "0 - 59", second));
    }
    Ok(ResolvedTime {
        nano_of_day: (hour * 3600 + minute * 60 + second) * NANOS_PER_SECOND + nano,
        next_day: false,
    })
}

/// Date, then time, then the `24:00` excess day; converted like
/// `TimestampData.fromLocalDateTime` (Java long arithmetic, so wrapping).
fn resolve_date_time(
    date: DateFields,
    time: TimeFields,
    resolver: Resolver,
) -> Result<(i64, u32), String> {
    let mut epoch_day = resolve_date(date, resolver)?;
    let time = resolve_time(time, resolver)?;
    if time.next_day {
        // `LocalDate.plusDays(1)`: only the very last representable day overflows.
        let (year, month, day) = civil_from_days(epoch_day);
        if month == 12 && day == 31 && year == MAX_YEAR {
            return Err(invalid_value("Year", "-999999999 - 999999999", year + 1));
        }
        epoch_day += 1;
    }
    let millis = epoch_day
        .wrapping_mul(MILLIS_PER_DAY)
        .wrapping_add(time.nano_of_day / 1_000_000);
    Ok((millis, (time.nano_of_day % 1_000_000) as u32))
}

const MONTH_NAMES: [&str; 12] = [
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
];

/// Proleptic Gregorian leap year (`IsoChronology.isLeapYear`).
/// The common case of the SQL timestamp grammar without the general scanner:
/// `yyyy-MM-dd HH:mm:ss[.f{1,9}]` with a valid date (no clamping needed), hour 0..=23.
/// `None` sends the text through the full parser (which also gives the error messages).
#[inline]
pub(crate) fn plain_sql_timestamp(b: &[u8]) -> Option<(i64, u32)> {
    if b.len() < 19 || b.len() == 20 || b.len() > 29 {
        return None;
    }
    #[inline(always)]
    fn digit(b: &[u8], i: usize) -> Option<i64> {
        let d = b[i].wrapping_sub(b'0');
        (d < 10).then_some(d as i64)
    }
    #[inline(always)]
    fn pair(b: &[u8], i: usize) -> Option<i64> {
        Some(digit(b, i)? * 10 + digit(b, i + 1)?)
    }
    let two = |i: usize| pair(b, i);
    if b[4] != b'-' || b[7] != b'-' || b[10] != b' ' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = two(0)? * 100 + two(2)?;
    let (month, day) = (two(5)?, two(8)?);
    let (hour, minute, second) = (two(11)?, two(14)?, two(17)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > month_length(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut nanos = 0u32;
    if b.len() > 19 {
        if b[19] != b'.' {
            return None;
        }
        for i in 20..29 {
            nanos = nanos * 10 + if i < b.len() { digit(b, i)? as u32 } else { 0 };
        }
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
    let millis = seconds * 1_000 + (nanos / 1_000_000) as i64;
    Some((millis, nanos % 1_000_000))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1..=12) of `year`.
fn month_length(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a valid proleptic Gregorian date (any year within ±10^9).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    // Years start in March so the leap day is the last day of the shifted year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400; // 0..=399
    let shifted_month = (month + 9) % 12; // March = 0
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1; // 0..=365
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The `(year, month, day)` of a day count since 1970-01-01 (inverse of
/// [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097; // 0..=146_096
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153; // March = 0
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

// ---------------------------------------------------------------------------------------
// Printing.

/// `yyyy-MM-dd` with `ISO_LOCAL_DATE`'s year rules.
fn write_civil_date(out: &mut Vec<u8>, epoch_day: i64) {
    let (year, month, day) = civil_from_days(epoch_day);
    // `appendValue(YEAR, 4, 10, EXCEEDS_PAD)`.
    if year > 9999 {
        out.push(b'+');
    } else if year < 0 {
        out.push(b'-');
    }
    let digits = year.unsigned_abs().to_string();
    for _ in digits.len()..4 {
        out.push(b'0');
    }
    out.extend_from_slice(digits.as_bytes());
    out.push(b'-');
    write_two(out, month);
    out.push(b'-');
    write_two(out, day);
}

/// `HH:mm:ss` of a second of the day (0..86400).
fn write_hms(out: &mut Vec<u8>, second_of_day: i64) {
    write_two(out, second_of_day / 3600);
    out.push(b':');
    write_two(out, second_of_day / 60 % 60);
    out.push(b':');
    write_two(out, second_of_day % 60);
}

/// Date, separator, `HH:mm:ss`, and the fraction as `appendFraction(NANO_OF_SECOND, 0, 9,
/// true)` prints it (nothing for zero, else trailing zeros stripped).
fn write_date_time(
    out: &mut Vec<u8>,
    epoch_day: i64,
    nano_of_day: i64,
    standard: TimestampStandard,
) {
    write_civil_date(out, epoch_day);
    out.push(match standard {
        TimestampStandard::Sql => b' ',
        TimestampStandard::Iso8601 => b'T',
    });
    write_hms(out, nano_of_day / NANOS_PER_SECOND);
    let mut nano = nano_of_day % NANOS_PER_SECOND;
    if nano != 0 {
        let mut width = 9;
        while nano % 10 == 0 {
            nano /= 10;
            width -= 1;
        }
        out.push(b'.');
        let digits = nano.to_string();
        for _ in digits.len()..width {
            out.push(b'0');
        }
        out.extend_from_slice(digits.as_bytes());
    }
}

/// Two zero-padded digits of a value in 0..100.
fn write_two(out: &mut Vec<u8>, value: i64) {
    out.push(b'0' + (value / 10) as u8);
    out.push(b'0' + (value % 10) as u8);
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fast_path_tests;
