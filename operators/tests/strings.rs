//! String functions against Flink's results (`oracle/cases/strings.txt`).
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn case_mapping_length_substring_concat_trim() {
    support::check(
        "strings",
        &[
            ("UPPER(s)", "(UPPER:STRING $s)"),
            ("LOWER(s)", "(LOWER:STRING $s)"),
            ("UPPER(c)", "(UPPER:CHAR(4) $c)"),
            ("LOWER(r)", "(LOWER:STRING $r)"),
            ("UPPER(r)", "(UPPER:STRING $r)"),
            ("CHAR_LENGTH(s)", "(CHAR_LENGTH:INT $s)"),
            ("CHAR_LENGTH(c)", "(CHAR_LENGTH:INT $c)"),
            ("SUBSTRING(s, n)", "(SUBSTRING:STRING $s $n)"),
            ("SUBSTRING(s, n, m)", "(SUBSTRING:STRING $s $n $m)"),
            (
                "SUBSTRING(s FROM 2 FOR 3)",
                "(SUBSTRING:STRING $s 2:INT 3:INT)",
            ),
            ("SUBSTRING(s, 0)", "(SUBSTRING:STRING $s 0:INT)"),
            ("s || r", "(CONCAT:STRING $s $r)"),
            ("CONCAT(s, r, c)", "(CONCAT:STRING $s $r $c)"),
            ("CONCAT(s, '!')", "(CONCAT:STRING $s '!':CHAR(1))"),
            ("TRIM(s)", "(TRIM:STRING #BOTH ' ':CHAR(1) $s)"),
            (
                "TRIM(LEADING ' ' FROM s)",
                "(TRIM:STRING #LEADING ' ':CHAR(1) $s)",
            ),
            (
                "TRIM(TRAILING ' ' FROM s)",
                "(TRIM:STRING #TRAILING ' ':CHAR(1) $s)",
            ),
            (
                "TRIM(BOTH 'Hd' FROM s)",
                "(TRIM:STRING #BOTH 'Hd':CHAR(2) $s)",
            ),
            ("TRIM(BOTH r FROM s)", "(TRIM:STRING #BOTH $r $s)"),
        ],
    );
}

#[test]
fn like_follows_flinks_dispatch_on_the_pattern() {
    let like = |sql: &'static str, p: &str| {
        (
            sql,
            format!("(LIKE:BOOLEAN $s '{p}':VARCHAR({}))", p.chars().count()),
        )
    };
    let cases = [
        like("s LIKE '%o%'", "%o%"),
        like("s LIKE 'H%'", "H%"),
        like("s LIKE '%d'", "%d"),
        like("s LIKE '_e%'", "_e%"),
        like("s LIKE 'line1_line2'", "line1_line2"),
        like("s LIKE 'line1%'", "line1%"),
        like("s LIKE '%line2'", "%line2"),
        like("s LIKE 'line%2'", "line%2"),
        like("s LIKE '%'", "%"),
        like("s LIKE ''", ""),
        (
            "s NOT LIKE '%o%'",
            "(NOT:BOOLEAN (LIKE:BOOLEAN $s '%o%':VARCHAR(3)))".into(),
        ),
    ];
    let refs: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    support::check("strings", &refs);
}

#[test]
fn split_index_follows_commons_lang() {
    support::check(
        "strings",
        &[
            (
                "SPLIT_INDEX(s, ',', 0)",
                "(SPLIT_INDEX:STRING $s ',':CHAR(1) 0:INT)",
            ),
            (
                "SPLIT_INDEX(s, ',', 3)",
                "(SPLIT_INDEX:STRING $s ',':CHAR(1) 3:INT)",
            ),
            (
                "SPLIT_INDEX(s, ',', 4)",
                "(SPLIT_INDEX:STRING $s ',':CHAR(1) 4:INT)",
            ),
            (
                "SPLIT_INDEX(s, ',', 5)",
                "(SPLIT_INDEX:STRING $s ',':CHAR(1) 5:INT)",
            ),
            (
                "SPLIT_INDEX(s, 'o', 1)",
                "(SPLIT_INDEX:STRING $s 'o':CHAR(1) 1:INT)",
            ),
            (
                "SPLIT_INDEX(s, ',', n)",
                "(SPLIT_INDEX:STRING $s ',':CHAR(1) $n)",
            ),
            (
                "SPLIT_INDEX(s, ' ', 1)",
                "(SPLIT_INDEX:STRING $s ' ':CHAR(1) 1:INT)",
            ),
            (
                "SPLIT_INDEX(s, 'll', 0)",
                "(SPLIT_INDEX:STRING $s 'll':CHAR(2) 0:INT)",
            ),
        ],
    );
}

#[test]
fn regexp_and_regexp_extract_share_javas_matches() {
    let lit = |p: &str| format!("'{p}':VARCHAR({})", p.chars().count());
    let re = |sql: &'static str, p: &str| (sql, format!("(REGEXP:BOOLEAN $s {})", lit(p)));
    let ex = |sql: &'static str, p: &str, g: Option<i32>| {
        let index = g.map(|g| format!(" {g}:INT")).unwrap_or_default();
        (sql, format!("(REGEXP_EXTRACT:STRING $s {}{index})", lit(p)))
    };
    let cases = [
        re("REGEXP(s, '[0-9]+')", "[0-9]+"),
        re("REGEXP(s, '^abc')", "^abc"),
        re("REGEXP(s, 'line1.line2')", "line1.line2"),
        re("REGEXP(s, '')", ""),
        re("REGEXP(s, 'a|b')", "a|b"),
        ex(
            "REGEXP_EXTRACT(s, '([a-z]+)([0-9]+)', 1)",
            "([a-z]+)([0-9]+)",
            Some(1),
        ),
        ex(
            "REGEXP_EXTRACT(s, '([a-z]+)([0-9]+)', 2)",
            "([a-z]+)([0-9]+)",
            Some(2),
        ),
        ex(
            "REGEXP_EXTRACT(s, '([a-z]+)([0-9]+)', 0)",
            "([a-z]+)([0-9]+)",
            Some(0),
        ),
        ex(
            "REGEXP_EXTRACT(s, '([a-z]+)([0-9]+)', 3)",
            "([a-z]+)([0-9]+)",
            Some(3),
        ),
        ex(
            "REGEXP_EXTRACT(s, '([a-z]+)@([a-z]+)\\.com', 2)",
            "([a-z]+)@([a-z]+)\\.com",
            Some(2),
        ),
        ex("REGEXP_EXTRACT(s, '\\d+')", "\\d+", None),
        ex(
            "REGEXP_EXTRACT(s, '\\w+\\s(\\w+)', 1)",
            "\\w+\\s(\\w+)",
            Some(1),
        ),
        ex("REGEXP_EXTRACT(s, '(a+?)(a*)', 1)", "(a+?)(a*)", Some(1)),
        ex(
            "REGEXP_EXTRACT(s, '(a|ab)(c|bcd)?', 0)",
            "(a|ab)(c|bcd)?",
            Some(0),
        ),
        ex("REGEXP_EXTRACT(s, '.', 0)", ".", Some(0)),
        ex(
            "REGEXP_EXTRACT(s, '[^a-c]{2,3}', 0)",
            "[^a-c]{2,3}",
            Some(0),
        ),
        ex("REGEXP_EXTRACT(s, '(x)?b', 1)", "(x)?b", Some(1)),
        ex("REGEXP_EXTRACT(s, 'é (\\d)', 1)", "é (\\d)", Some(1)),
    ];
    let refs: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    support::check("regex", &refs);
}
