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
