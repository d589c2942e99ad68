//! CAST from strings to DECIMAL through Flink's two parsers
//! (`oracle/cases/decimal_strings.txt`): the fast one for precisions and texts up to 18, and
//! BigDecimal's for the rest.
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn both_decimal_parsers_match_flink() {
    support::check(
        "decimal_strings",
        &[
            ("CAST(s AS DECIMAL(5,2))", "(CAST:DECIMAL(5,2) $s)"),
            ("CAST(s AS DECIMAL(10,2))", "(CAST:DECIMAL(10,2) $s)"),
            ("CAST(s AS DECIMAL(20,2))", "(CAST:DECIMAL(20,2) $s)"),
            ("CAST(s AS DECIMAL(38,10))", "(CAST:DECIMAL(38,10) $s)"),
            ("TRY_CAST(s AS DECIMAL(5,2))", "(TRY_CAST:DECIMAL(5,2) $s)"),
            (
                "TRY_CAST(s AS DECIMAL(20,2))",
                "(TRY_CAST:DECIMAL(20,2) $s)",
            ),
        ],
    );
}
