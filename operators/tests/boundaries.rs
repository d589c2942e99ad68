//! Which operands Flink evaluates (COALESCE all of them, CASE/IF/AND/OR only what decides),
//! and DECIMAL rounding at the half (`oracle/cases/boundaries.txt`).
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn coalesce_is_eager_and_conditionals_are_lazy() {
    support::check(
        "boundaries",
        &[
            ("COALESCE(i, 10 / j)", "(COALESCE:INT $i (DIVIDE:INT 10:INT $j))"),
            ("COALESCE(i / j, -1)", "(COALESCE:INT (DIVIDE:INT $i $j) -1:INT)"),
            ("IF(j = 0, -1, i / j)", "(IF:INT (EQUALS:BOOLEAN $j 0:INT) -1:INT (DIVIDE:INT $i $j))"),
            (
                "CASE WHEN j = 0 THEN NULL ELSE i / j END",
                "(CASE:INT (EQUALS:BOOLEAN $j 0:INT) NULL:INT (DIVIDE:INT $i $j))",
            ),
            ("NULLIF(i, 1) / j", "(DIVIDE:INT (NULLIF:INT $i 1:INT) $j)"),
            (
                "j <> 0 OR i / j > 0",
                "(OR:BOOLEAN (NOT_EQUALS:BOOLEAN $j 0:INT) (GREATER_THAN:BOOLEAN (DIVIDE:INT $i $j) 0:INT))",
            ),
            (
                "i IS NULL OR i / j > 0",
                "(OR:BOOLEAN (IS_NULL:BOOLEAN $i) (GREATER_THAN:BOOLEAN (DIVIDE:INT $i $j) 0:INT))",
            ),
        ],
    );
}

#[test]
fn decimal_halves_round_away_from_zero() {
    support::check(
        "boundaries",
        &[
            ("CAST(a AS DECIMAL(10,2))", "(CAST:DECIMAL(10,2) $a)"),
            ("CAST(a AS DECIMAL(5,2))", "(CAST:DECIMAL(5,2) $a)"),
            ("CAST(a AS DECIMAL(10,0))", "(CAST:DECIMAL(10,0) $a)"),
            ("CAST(s AS DECIMAL(10,2))", "(CAST:DECIMAL(10,2) $s)"),
            ("CAST(s AS DECIMAL(5,2))", "(CAST:DECIMAL(5,2) $s)"),
            ("a * b", "(TIMES:DECIMAL(21,6) $a $b)"),
            ("a / b", "(DIVIDE:DECIMAL(24,14) $a $b)"),
            ("a + b", "(PLUS:DECIMAL(11,3) $a $b)"),
            ("a * 0.5", "(TIMES:DECIMAL(13,4) $a 0.5:DECIMAL(1,1))"),
            (
                "CAST(a * b AS DECIMAL(10,2))",
                "(CAST:DECIMAL(10,2) (TIMES:DECIMAL(21,6) $a $b))",
            ),
            ("CAST(a AS INT)", "(CAST:INT $a)"),
            ("CAST(a AS BIGINT)", "(CAST:BIGINT $a)"),
        ],
    );
}
