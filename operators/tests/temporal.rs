//! Temporal functions and casts against Flink's results (`oracle/cases/temporal.txt`),
//! in UTC and in two fixed-offset session zones.
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn extract_uses_truncating_day_arithmetic() {
    let e = |sql: &'static str, unit: &str, col: &str| {
        (sql, format!("(EXTRACT:BIGINT #{unit} ${col})"))
    };
    let cases = [
        e("EXTRACT(YEAR FROM ts)", "YEAR", "ts"),
        e("EXTRACT(MONTH FROM ts)", "MONTH", "ts"),
        e("EXTRACT(DAY FROM ts)", "DAY", "ts"),
        e("EXTRACT(HOUR FROM ts)", "HOUR", "ts"),
        e("EXTRACT(MINUTE FROM ts)", "MINUTE", "ts"),
        e("EXTRACT(SECOND FROM ts)", "SECOND", "ts"),
        e("EXTRACT(QUARTER FROM ts)", "QUARTER", "ts"),
        e("EXTRACT(DOW FROM ts)", "DOW", "ts"),
        e("EXTRACT(DOY FROM ts)", "DOY", "ts"),
        ("HOUR(ts)", "(HOUR:BIGINT $ts)".into()),
        ("MINUTE(ts)", "(MINUTE:BIGINT $ts)".into()),
        ("SECOND(ts)", "(SECOND:BIGINT $ts)".into()),
        e("EXTRACT(YEAR FROM dt)", "YEAR", "dt"),
        e("EXTRACT(DOW FROM dt)", "DOW", "dt"),
        e("EXTRACT(HOUR FROM lz)", "HOUR", "lz"),
        e("EXTRACT(DAY FROM lz)", "DAY", "lz"),
        ("HOUR(lz)", "(HOUR:BIGINT $lz)".into()),
        e("EXTRACT(SECOND FROM t6)", "SECOND", "t6"),
        e("@+08:00 EXTRACT(HOUR FROM lz)", "HOUR", "lz"),
        ("@+08:00 HOUR(lz)", "(HOUR:BIGINT $lz)".into()),
        e("@+08:00 EXTRACT(DAY FROM lz)", "DAY", "lz"),
        e("@+08:00 EXTRACT(HOUR FROM ts)", "HOUR", "ts"),
        e("@-05:30 EXTRACT(HOUR FROM lz)", "HOUR", "lz"),
    ];
    let refs: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    support::check("temporal", &refs);
}

#[test]
fn temporal_casts_truncate_and_shift_by_the_session_zone() {
    support::check(
        "temporal",
        &[
            ("CAST(t6 AS TIMESTAMP(3))", "(CAST:TIMESTAMP(3) $t6)"),
            ("CAST(t6 AS TIMESTAMP(0))", "(CAST:TIMESTAMP(0) $t6)"),
            ("CAST(ts AS TIMESTAMP(0))", "(CAST:TIMESTAMP(0) $ts)"),
            ("CAST(ts AS TIMESTAMP(6))", "(CAST:TIMESTAMP(6) $ts)"),
            ("CAST(ts AS DATE)", "(CAST:DATE $ts)"),
            ("CAST(dt AS TIMESTAMP(3))", "(CAST:TIMESTAMP(3) $dt)"),
            (
                "CAST(ts AS TIMESTAMP_LTZ(3))",
                "(CAST:TIMESTAMP_LTZ(3) $ts)",
            ),
            ("CAST(lz AS TIMESTAMP(3))", "(CAST:TIMESTAMP(3) $lz)"),
            ("CAST(dt AS STRING)", "(CAST:STRING $dt)"),
            (
                "TO_TIMESTAMP_LTZ(e, 0)",
                "(TO_TIMESTAMP_LTZ:TIMESTAMP_LTZ(3) $e 0:INT)",
            ),
            (
                "TO_TIMESTAMP_LTZ(e, 3)",
                "(TO_TIMESTAMP_LTZ:TIMESTAMP_LTZ(3) $e 3:INT)",
            ),
            (
                "ts = CAST(t6 AS TIMESTAMP(3))",
                "(EQUALS:BOOLEAN $ts (CAST:TIMESTAMP(3) $t6))",
            ),
            ("ts < t6", "(LESS_THAN:BOOLEAN $ts $t6)"),
            (
                "dt < CAST(ts AS DATE)",
                "(LESS_THAN:BOOLEAN $dt (CAST:DATE $ts))",
            ),
            (
                "@+08:00 CAST(ts AS TIMESTAMP_LTZ(3))",
                "(CAST:TIMESTAMP_LTZ(3) $ts)",
            ),
            (
                "@+08:00 CAST(lz AS TIMESTAMP(3))",
                "(CAST:TIMESTAMP(3) $lz)",
            ),
            (
                "@-05:30 CAST(lz AS TIMESTAMP(3))",
                "(CAST:TIMESTAMP(3) $lz)",
            ),
            (
                "@-05:30 CAST(ts AS TIMESTAMP_LTZ(3))",
                "(CAST:TIMESTAMP_LTZ(3) $ts)",
            ),
        ],
    );
}

#[test]
fn date_format_prints_java_pattern_letters() {
    let df = |sql: &'static str, col: &str, p: &str| {
        (
            sql,
            format!(
                "(DATE_FORMAT:STRING ${col} '{p}':VARCHAR({}))",
                p.chars().count()
            ),
        )
    };
    let cases = [
        df(
            "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss')",
            "ts",
            "yyyy-MM-dd HH:mm:ss",
        ),
        df("DATE_FORMAT(ts, 'yyyy-MM-dd')", "ts", "yyyy-MM-dd"),
        df("DATE_FORMAT(ts, 'yyyyMMddHH')", "ts", "yyyyMMddHH"),
        df("DATE_FORMAT(ts, 'HH:mm:ss.SSS')", "ts", "HH:mm:ss.SSS"),
        df(
            "DATE_FORMAT(t6, 'yyyy-MM-dd HH:mm:ss.SSSSSS')",
            "t6",
            "yyyy-MM-dd HH:mm:ss.SSSSSS",
        ),
        df("DATE_FORMAT(t6, 'ss.S')", "t6", "ss.S"),
        df("DATE_FORMAT(ts, 'yy/M/d H:m:s')", "ts", "yy/M/d H:m:s"),
        df("DATE_FORMAT(ts, 'yyyy''T''HH')", "ts", "yyyy''T''HH"),
        df("DATE_FORMAT(ts, 'dd.MM.yyyy')", "ts", "dd.MM.yyyy"),
    ];
    let refs: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    support::check("date_format", &refs);
}
