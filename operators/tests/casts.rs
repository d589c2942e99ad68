//! CAST and TRY_CAST against Flink's results (`oracle/cases/casts.txt`).
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn numeric_casts_are_javas_primitive_and_decimal_conversions() {
    let c = |sql: &'static str, col: &str, ty: &str| (sql, format!("(CAST:{ty} ${col})"));
    let cases = [
        c("CAST(i AS TINYINT)", "i", "TINYINT"),
        c("CAST(i AS SMALLINT)", "i", "SMALLINT"),
        c("CAST(i AS BIGINT)", "i", "BIGINT"),
        c("CAST(l AS INT)", "l", "INT"),
        c("CAST(l AS TINYINT)", "l", "TINYINT"),
        c("CAST(t AS INT)", "t", "INT"),
        c("CAST(i AS DOUBLE)", "i", "DOUBLE"),
        c("CAST(l AS DOUBLE)", "l", "DOUBLE"),
        c("CAST(l AS FLOAT)", "l", "FLOAT"),
        c("CAST(i AS FLOAT)", "i", "FLOAT"),
        c("CAST(d AS INT)", "d", "INT"),
        c("CAST(d AS BIGINT)", "d", "BIGINT"),
        c("CAST(d AS TINYINT)", "d", "TINYINT"),
        c("CAST(d AS SMALLINT)", "d", "SMALLINT"),
        c("CAST(f AS INT)", "f", "INT"),
        c("CAST(d AS FLOAT)", "d", "FLOAT"),
        c("CAST(f AS DOUBLE)", "f", "DOUBLE"),
        c("CAST(a AS INT)", "a", "INT"),
        c("CAST(a AS TINYINT)", "a", "TINYINT"),
        c("CAST(x AS BIGINT)", "x", "BIGINT"),
        c("CAST(x AS INT)", "x", "INT"),
        c("CAST(a AS DOUBLE)", "a", "DOUBLE"),
        c("CAST(x AS DOUBLE)", "x", "DOUBLE"),
        c("CAST(a AS FLOAT)", "a", "FLOAT"),
        c("CAST(x AS FLOAT)", "x", "FLOAT"),
        c("CAST(i AS DECIMAL(5,2))", "i", "DECIMAL(5,2)"),
        c("CAST(l AS DECIMAL(20,0))", "l", "DECIMAL(20,0)"),
        c("CAST(l AS DECIMAL(10,1))", "l", "DECIMAL(10,1)"),
        c("CAST(a AS DECIMAL(5,1))", "a", "DECIMAL(5,1)"),
        c("CAST(a AS DECIMAL(12,4))", "a", "DECIMAL(12,4)"),
        c("CAST(x AS DECIMAL(10,2))", "x", "DECIMAL(10,2)"),
        c("CAST(x AS DECIMAL(38,0))", "x", "DECIMAL(38,0)"),
        c("CAST(u AS INT)", "u", "INT"),
        c("CAST(u AS DECIMAL(3,1))", "u", "DECIMAL(3,1)"),
        c("CAST(i AS BOOLEAN)", "i", "BOOLEAN"),
        c("CAST(a AS BOOLEAN)", "a", "BOOLEAN"),
        ("TRY_CAST(i AS TINYINT)", "(TRY_CAST:TINYINT $i)".into()),
    ];
    let refs: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    support::check("casts", &refs);
}

#[test]
fn string_casts_use_flinks_parsers_and_lengths() {
    support::check(
        "casts",
        &[
            ("CAST(s AS INT)", "(CAST:INT $s)"),
            ("CAST(s AS BIGINT)", "(CAST:BIGINT $s)"),
            ("CAST(s AS TINYINT)", "(CAST:TINYINT $s)"),
            ("CAST(s AS SMALLINT)", "(CAST:SMALLINT $s)"),
            ("TRY_CAST(s AS INT)", "(TRY_CAST:INT $s)"),
            ("TRY_CAST(s AS TINYINT)", "(TRY_CAST:TINYINT $s)"),
            ("CAST(s AS DECIMAL(10,2))", "(CAST:DECIMAL(10,2) $s)"),
            ("TRY_CAST(s AS DECIMAL(4,1))", "(TRY_CAST:DECIMAL(4,1) $s)"),
            ("CAST(s AS BOOLEAN)", "(CAST:BOOLEAN $s)"),
            ("TRY_CAST(s AS BOOLEAN)", "(TRY_CAST:BOOLEAN $s)"),
            ("TRY_CAST(c AS BOOLEAN)", "(TRY_CAST:BOOLEAN $c)"),
            ("CAST(i AS STRING)", "(CAST:STRING $i)"),
            ("CAST(l AS VARCHAR(5))", "(CAST:VARCHAR(5) $l)"),
            ("CAST(a AS STRING)", "(CAST:STRING $a)"),
            ("CAST(x AS STRING)", "(CAST:STRING $x)"),
            ("CAST(u AS STRING)", "(CAST:STRING $u)"),
            ("CAST(u AS CHAR(4))", "(CAST:CHAR(4) $u)"),
            ("CAST(s AS VARCHAR(2))", "(CAST:VARCHAR(2) $s)"),
            ("CAST(s AS CHAR(4))", "(CAST:CHAR(4) $s)"),
            ("CAST(c AS STRING)", "(CAST:STRING $c)"),
            ("CAST(c AS VARCHAR(2))", "(CAST:VARCHAR(2) $c)"),
            ("CAST(t AS CHAR(5))", "(CAST:CHAR(5) $t)"),
        ],
    );
}

#[test]
fn string_to_date_follows_parse_date() {
    support::check(
        "dates",
        &[
            ("CAST(s AS DATE)", "(CAST:DATE $s)"),
            ("TRY_CAST(s AS DATE)", "(TRY_CAST:DATE $s)"),
        ],
    );
}
