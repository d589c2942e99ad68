//! Expected values and messages were produced by Flink 2.2.0's own formatters
//! (`TimeFormats`, `ISO_LOCAL_DATE`, `TimestampData`) on JDK 17 and JDK 25 (identical).

use super::*;
use TimestampStandard::{Iso8601, Sql};

fn at(text: &str, index: usize) -> String {
    format!("Text '{text}' could not be parsed at index {index}")
}

fn unparsed(text: &str, index: usize) -> String {
    format!("Text '{text}' could not be parsed, unparsed text found at index {index}")
}

fn resolving(text: &str, message: &str) -> String {
    format!("Text '{text}' could not be parsed: {message}")
}

fn err<T: std::fmt::Debug>(result: Result<T, TemporalError>) -> String {
    match result {
        Ok(value) => panic!("expected an error, got {value:?}"),
        Err(TemporalError(message)) => message,
    }
}

#[test]
fn date_valid() {
    for (text, days) in [
        ("1970-01-01", 0),
        ("2020-01-01", 18262),
        ("2020-02-29", 18321),
        ("1969-12-31", -1),
        ("0000-01-01", -719528),
        ("-0001-01-01", -719893),
        ("-2020-01-01", -1457318),
        ("9999-12-31", 2932896),
        ("+10000-01-01", 2932897),
        // `(int) toEpochDay()` wraps for the extreme years.
        ("+999999999-12-31", 169560311),
        ("-999999999-01-01", -170999002),
    ] {
        assert_eq!(parse_date(text), Ok(days), "{text}");
    }
}

#[test]
fn date_shape_errors() {
    for (text, index) in [
        ("2020-1-01", 5),
        ("10000-01-01", 0), // more than 4 digits needs '+'
        ("+2020-01-01", 0), // '+' only with more than 4 digits
        ("-0000-01-01", 0), // minus zero
        ("-001-01-01", 1),
        ("+10000000000-01-01", 11), // at most 10 digits
        (" 2020-01-01", 0),
        ("", 0),
        ("2020", 4),
        ("2020-01-0", 8),
        ("\u{662}020-01-01", 0), // Arabic-Indic digit
        ("2020/01/01", 4),
    ] {
        assert_eq!(err(parse_date(text)), at(text, index), "{text}");
    }
    for (text, index) in [
        ("2020-01-01T00:00:00", 10),
        ("2020-01-01 ", 10),
        ("2020-01-01\0", 10),
    ] {
        assert_eq!(err(parse_date(text)), unparsed(text, index), "{text}");
    }
}

#[test]
fn date_resolve_errors_are_strict() {
    for (text, message) in [
        (
            "2021-02-29",
            "Invalid date 'February 29' as '2021' is not a leap year",
        ),
        (
            "1900-02-29",
            "Invalid date 'February 29' as '1900' is not a leap year",
        ),
        ("2021-02-30", "Invalid date 'FEBRUARY 30'"),
        ("2021-04-31", "Invalid date 'APRIL 31'"),
        (
            "2021-13-01",
            "Invalid value for MonthOfYear (valid values 1 - 12): 13",
        ),
        (
            "2021-00-10",
            "Invalid value for MonthOfYear (valid values 1 - 12): 0",
        ),
        (
            "2021-01-00",
            "Invalid value for DayOfMonth (valid values 1 - 28/31): 0",
        ),
        (
            "2021-01-32",
            "Invalid value for DayOfMonth (valid values 1 - 28/31): 32",
        ),
        (
            "+1000000000-01-01",
            "Invalid value for Year (valid values -999999999 - 999999999): 1000000000",
        ),
        (
            "-1000000000-01-01",
            "Invalid value for Year (valid values -999999999 - 999999999): -1000000000",
        ),
        // The year is checked before the month.
        (
            "+9999999999-13-01",
            "Invalid value for Year (valid values -999999999 - 999999999): 9999999999",
        ),
    ] {
        assert_eq!(err(parse_date(text)), resolving(text, message), "{text}");
    }
    assert_eq!(parse_date("2000-02-29"), Ok(11016));
}

#[test]
fn time_fraction_is_discarded() {
    for (text, millis) in [
        ("12:34:56", 45_296_000),
        ("12:34:56.789", 45_296_000),
        ("12:34:56.", 45_296_000), // a bare '.' is an empty fraction
        ("23:59:59.999999999", 86_399_000),
        ("00:00:00", 0),
        ("24:00:00", 0), // SMART: end of day
        ("24:00:00.000", 0),
    ] {
        assert_eq!(parse_time(text), Ok(millis), "{text}");
    }
}

#[test]
fn time_errors() {
    for (text, index) in [
        ("12:34", 5),
        ("+1:00:00", 0),
        ("-1:00:00", 0),
        ("1:00:00", 0),
        ("12:3a:00", 3),
    ] {
        assert_eq!(err(parse_time(text)), at(text, index), "{text}");
    }
    for (text, index) in [
        ("23:59:59.9999999999", 18), // a 10th fraction digit
        ("12:34:56Z", 8),
        ("12:34:56,5", 8),
    ] {
        assert_eq!(err(parse_time(text)), unparsed(text, index), "{text}");
    }
    for (text, message) in [
        (
            "24:00:00.001",
            "Invalid value for HourOfDay (valid values 0 - 23): 24",
        ),
        (
            "24:00:01",
            "Invalid value for HourOfDay (valid values 0 - 23): 24",
        ),
        (
            "25:00:00",
            "Invalid value for HourOfDay (valid values 0 - 23): 25",
        ),
        (
            "12:60:00",
            "Invalid value for MinuteOfHour (valid values 0 - 59): 60",
        ),
        (
            "12:00:60",
            "Invalid value for SecondOfMinute (valid values 0 - 59): 60",
        ),
        // The minute is checked before the hour.
        (
            "99:99:99",
            "Invalid value for MinuteOfHour (valid values 0 - 59): 99",
        ),
    ] {
        assert_eq!(err(parse_time(text)), resolving(text, message), "{text}");
    }
}

#[test]
fn timestamp_sql() {
    for (text, expected) in [
        (
            "2020-01-01 12:34:56.123456789",
            (1_577_882_096_123, 456_789),
        ),
        ("2020-01-01 12:34:56", (1_577_882_096_000, 0)),
        ("1969-12-31 23:59:59.999", (-1, 0)),
        ("1969-12-31 23:59:59.9999995", (-1, 999_500)),
        ("0000-01-01 00:00:00", (-62_167_219_200_000, 0)),
        // SMART: impossible day-of-month clamped, 24:00:00 is the next day.
        ("2021-02-30 00:00:00", (1_614_470_400_000, 0)),
        ("2020-02-30 00:00:00", (1_582_934_400_000, 0)),
        ("2021-04-31 00:00:00", (1_619_740_800_000, 0)),
        ("2020-12-31 24:00:00", (1_609_459_200_000, 0)),
        // Java long arithmetic wraps for the extreme years.
        (
            "+999999999-12-31 23:59:59.999999999",
            (-5_336_598_314_638_303_233, 999_999),
        ),
        ("-999999999-01-01 00:00:00", (5_336_474_011_822_303_232, 0)),
    ] {
        assert_eq!(parse_timestamp(text, Sql), Ok(expected), "{text}");
    }
}

#[test]
fn timestamp_sql_errors() {
    for (text, index) in [
        ("2020-01-01T12:34:56", 10),
        ("2020-01-01 12:34", 16),
        ("2020-01-01  12:34:56", 11),
    ] {
        assert_eq!(err(parse_timestamp(text, Sql)), at(text, index), "{text}");
    }
    let text = "2020-01-01 12:34:56Z";
    assert_eq!(err(parse_timestamp(text, Sql)), unparsed(text, 19));
    let text = "2021-02-32 00:00:00";
    assert_eq!(
        err(parse_timestamp(text, Sql)),
        resolving(
            text,
            "Invalid value for DayOfMonth (valid values 1 - 28/31): 32"
        )
    );
    // The day after the last representable day.
    let text = "+999999999-12-31 24:00:00";
    assert_eq!(
        err(parse_timestamp(text, Sql)),
        resolving(
            text,
            "Invalid value for Year (valid values -999999999 - 999999999): 1000000000"
        )
    );
}

#[test]
fn timestamp_iso() {
    for (text, expected) in [
        ("2020-01-01T12:34", (1_577_882_040_000, 0)),
        ("2020-01-01t12:34", (1_577_882_040_000, 0)), // case-insensitive 'T'
        ("2020-01-01T12:34:56.", (1_577_882_096_000, 0)),
        (
            "2020-01-01T12:34:56.123456789",
            (1_577_882_096_123, 456_789),
        ),
        ("2020-01-01T12:34:56.5", (1_577_882_096_500, 0)),
    ] {
        assert_eq!(parse_timestamp(text, Iso8601), Ok(expected), "{text}");
    }
    for (text, index) in [("2020-01-01 12:34:56", 10), ("2020-01-01T12", 13)] {
        assert_eq!(
            err(parse_timestamp(text, Iso8601)),
            at(text, index),
            "{text}"
        );
    }
    // A failed optional `:ss` section leaves the ':' unparsed.
    for (text, index) in [("2020-01-01T12:34:5", 16), ("2020-01-01T12:34Z", 16)] {
        assert_eq!(
            err(parse_timestamp(text, Iso8601)),
            unparsed(text, index),
            "{text}"
        );
    }
    // STRICT resolver.
    for (text, message) in [
        ("2021-02-30T00:00", "Invalid date 'FEBRUARY 30'"),
        (
            "2020-01-01T24:00",
            "Invalid value for HourOfDay (valid values 0 - 23): 24",
        ),
    ] {
        assert_eq!(
            err(parse_timestamp(text, Iso8601)),
            resolving(text, message),
            "{text}"
        );
    }
}

#[test]
fn timestamp_ltz() {
    for (text, standard, expected) in [
        ("2020-01-01 12:34:56Z", Sql, (1_577_882_096_000, 0)),
        ("2020-01-01 12:34:56.Z", Sql, (1_577_882_096_000, 0)),
        ("1969-12-31 23:59:59.999000001Z", Sql, (-1, 1)),
        ("2021-02-30 00:00:00Z", Sql, (1_614_470_400_000, 0)),
        ("2020-12-31 24:00:00Z", Sql, (1_609_459_200_000, 0)),
        ("2020-01-01T12:34Z", Iso8601, (1_577_882_040_000, 0)),
        ("2020-01-01T12:34:56.5Z", Iso8601, (1_577_882_096_500, 0)),
        // Flink's own ISO LTZ formatter uses the SMART resolver.
        ("2021-02-30T00:00Z", Iso8601, (1_614_470_400_000, 0)),
        ("2020-12-31T24:00Z", Iso8601, (1_609_459_200_000, 0)),
    ] {
        assert_eq!(parse_timestamp_ltz(text, standard), Ok(expected), "{text}");
    }
    for (text, standard, index) in [
        ("2020-01-01 12:34:56", Sql, 19),
        ("2020-01-01 12:34:56z", Sql, 19),
        ("2020-01-01 12:34:56+01:00", Sql, 19),
        ("2020-01-01t12:34Z", Iso8601, 10), // case-sensitive here
        ("2020-01-01T12:34:5Z", Iso8601, 16),
        ("2020-01-01T12:34:56", Iso8601, 19),
    ] {
        assert_eq!(
            err(parse_timestamp_ltz(text, standard)),
            at(text, index),
            "{text}"
        );
    }
    let text = "2020-01-01 12:34:56ZZ";
    assert_eq!(err(parse_timestamp_ltz(text, Sql)), unparsed(text, 20));
}

#[test]
fn long_texts_are_abbreviated_like_java() {
    let text = format!("2020-01-01{}", "x".repeat(70));
    let shown = format!("2020-01-01{}...", "x".repeat(54));
    assert_eq!(err(parse_date(&text)), unparsed(&shown, 10));
    // 64 UTF-16 units exactly: not abbreviated.
    let text = format!("2020-01-01{}", "x".repeat(54));
    assert_eq!(err(parse_date(&text)), unparsed(&text, 10));
    // An emoji counts as two units.
    let text = format!("2020-01-01{}\u{1F600}{}", "x".repeat(48), "y".repeat(20));
    let shown = format!("2020-01-01{}\u{1F600}{}...", "x".repeat(48), "y".repeat(4));
    assert_eq!(err(parse_date(&text)), unparsed(&shown, 10));
}

#[test]
fn write_dates() {
    for (days, text) in [
        (0, "1970-01-01"),
        (18262, "2020-01-01"),
        (-719528, "0000-01-01"),
        (-719529, "-0001-12-31"),
        (2932896, "9999-12-31"),
        (2932897, "+10000-01-01"),
        (i32::MAX, "+5881580-07-11"),
        (i32::MIN, "-5877641-06-23"),
    ] {
        let mut out = Vec::new();
        write_date(&mut out, days);
        assert_eq!(String::from_utf8_lossy(&out), text, "{days}");
    }
}

#[test]
fn write_times_drop_millis() {
    for (millis, text) in [
        (45_296_789, "12:34:56"),
        (0, "00:00:00"),
        (86_399_999, "23:59:59"),
        (-999, "00:00:00"),
    ] {
        let mut out = Vec::new();
        write_time(&mut out, millis);
        assert_eq!(String::from_utf8_lossy(&out), text, "{millis}");
    }
}

#[test]
fn write_timestamps() {
    for (millis, nanos, standard, text) in [
        (1500, 0, Sql, "1970-01-01 00:00:01.5"),
        (0, 0, Sql, "1970-01-01 00:00:00"),
        (1000, 1, Sql, "1970-01-01 00:00:01.000000001"),
        (-1, 0, Sql, "1969-12-31 23:59:59.999"),
        (1, 100_000, Iso8601, "1970-01-01T00:00:00.0011"),
        (1_577_882_040_000, 0, Iso8601, "2020-01-01T12:34:00"),
        (-62_167_219_200_000, 0, Sql, "0000-01-01 00:00:00"),
        (
            253_402_300_799_999,
            999_999,
            Sql,
            "9999-12-31 23:59:59.999999999",
        ),
        (253_402_300_800_000, 0, Iso8601, "+10000-01-01T00:00:00"),
        // `toLocalDateTime` narrows the day count to an int.
        (i64::MAX, 999_999, Sql, "-1701532-04-06 07:12:55.807999999"),
        (i64::MIN, 0, Sql, "+1705471-09-26 16:47:04.192"),
    ] {
        let mut out = Vec::new();
        write_timestamp(&mut out, millis, nanos, standard);
        assert_eq!(String::from_utf8_lossy(&out), text, "{millis}");
    }
}

#[test]
fn write_timestamps_ltz() {
    for (millis, nanos, standard, text) in [
        (-1, 0, Sql, "1969-12-31 23:59:59.999Z"),
        (-1, 0, Iso8601, "1969-12-31T23:59:59.999Z"),
        (0, 0, Iso8601, "1970-01-01T00:00:00Z"),
        (1_577_882_096_120, 0, Sql, "2020-01-01 12:34:56.12Z"),
        // No narrowing on the instant path.
        (
            i64::MAX,
            999_999,
            Sql,
            "+292278994-08-17 07:12:55.807999999Z",
        ),
        (i64::MIN, 0, Sql, "-292275055-05-16 16:47:04.192Z"),
    ] {
        let mut out = Vec::new();
        write_timestamp_ltz(&mut out, millis, nanos, standard);
        assert_eq!(String::from_utf8_lossy(&out), text, "{millis}");
    }
}

#[test]
fn writers_append() {
    let mut out = b"x".to_vec();
    write_date(&mut out, 0);
    write_time(&mut out, 0);
    assert_eq!(out, b"x1970-01-0100:00:00");
}

#[test]
fn round_trips() {
    for millis in [-86_400_001_i64, -1, 0, 1, 999, 1_577_882_096_123] {
        for nanos in [0_u32, 1, 456_789] {
            for standard in [Sql, Iso8601] {
                let mut out = Vec::new();
                write_timestamp(&mut out, millis, nanos, standard);
                let text = String::from_utf8_lossy(&out).into_owned();
                assert_eq!(
                    parse_timestamp(&text, standard),
                    Ok((millis, nanos)),
                    "{text}"
                );
                out.clear();
                write_timestamp_ltz(&mut out, millis, nanos, standard);
                let text = String::from_utf8_lossy(&out).into_owned();
                assert_eq!(
                    parse_timestamp_ltz(&text, standard),
                    Ok((millis, nanos)),
                    "{text}"
                );
            }
        }
    }
    for days in [-800_000, -719_529, -1, 0, 59, 2_932_897] {
        let mut out = Vec::new();
        write_date(&mut out, days);
        assert_eq!(parse_date(&String::from_utf8_lossy(&out)), Ok(days));
    }
}

#[test]
fn civil_conversions_agree() {
    for days in (-800_000..3_000_000).step_by(7) {
        let (y, m, d) = civil_from_days(days);
        assert_eq!(days_from_civil(y, m, d), days);
    }
    assert_eq!(civil_from_days(-719_468), (0, 3, 1));
    assert_eq!(days_from_civil(1600, 2, 29), -135_081);
}
