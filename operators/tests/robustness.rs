//! Every operator over extreme values (`oracle/cases/extremes.txt`: integer and decimal
//! limits, NaN and infinities, the ends of the timestamp range, empty and non-BMP strings,
//! NULLs) returns values or Flink's failure: no panic, whatever the combination.
#![allow(clippy::unwrap_used)]

mod support;

use karrow_operators::{Calc, RunnablePlan};
use serde_json::json;

#[test]
fn no_operator_panics_on_extreme_values() {
    let case = support::Case::load_inputs("extremes");
    let arrays = case.arrays();
    let rows = case.rows.len();
    let exprs = [
        ("INT", "(PLUS:INT $i $i)"),
        ("INT", "(TIMES:INT $i $i)"),
        ("INT", "(DIVIDE:INT $i $i)"),
        ("INT", "(MOD:INT $i (NEGATE:INT $i))"),
        ("BIGINT", "(DIVIDE:BIGINT $l (NEGATE:BIGINT 1:BIGINT))"),
        ("BIGINT", "(MOD:BIGINT $l -1:BIGINT)"),
        ("TINYINT", "(NEGATE:TINYINT $t)"),
        ("DOUBLE", "(DIVIDE:DOUBLE $d $f)"),
        ("FLOAT", "(TIMES:FLOAT $f $d)"),
        ("DECIMAL(38,0)", "(PLUS:DECIMAL(38,0) $a $a)"),
        ("DECIMAL(38,0)", "(TIMES:DECIMAL(38,0) $a $a)"),
        ("DECIMAL(38,38)", "(DIVIDE:DECIMAL(38,38) $b $a)"),
        ("DECIMAL(38,0)", "(DIVIDE:DECIMAL(38,0) $a $b)"),
        ("DECIMAL(38,38)", "(MOD:DECIMAL(38,38) $a $b)"),
        ("DECIMAL(38,6)", "(TIMES:DECIMAL(38,6) $a $b)"),
        ("DECIMAL(5,2)", "(NEGATE:DECIMAL(5,2) $x)"),
        ("DECIMAL(38,0)", "(PLUS:DECIMAL(38,0) $a $l)"),
        ("BOOLEAN", "(LESS_THAN:BOOLEAN $a $d)"),
        ("BOOLEAN", "(EQUALS:BOOLEAN $b $x)"),
        ("BOOLEAN", "(GREATER_THAN:BOOLEAN $d $l)"),
        ("BOOLEAN", "(IS_DISTINCT_FROM:BOOLEAN $ts $ts)"),
        ("BOOLEAN", "(LESS_THAN:BOOLEAN $s $c)"),
        (
            "BOOLEAN",
            "(AND:BOOLEAN $u (EQUALS:BOOLEAN (DIVIDE:INT $i $i) 1:INT))",
        ),
        ("INT", "(CAST:INT $d)"),
        ("TINYINT", "(CAST:TINYINT $a)"),
        ("BIGINT", "(CAST:BIGINT $b)"),
        ("DECIMAL(5,2)", "(CAST:DECIMAL(5,2) $l)"),
        ("DECIMAL(38,38)", "(CAST:DECIMAL(38,38) $a)"),
        ("DOUBLE", "(CAST:DOUBLE $a)"),
        ("FLOAT", "(CAST:FLOAT $b)"),
        ("STRING", "(CAST:STRING $a)"),
        ("STRING", "(CAST:STRING $b)"),
        ("CHAR(3)", "(CAST:CHAR(3) $s)"),
        ("VARCHAR(1)", "(CAST:VARCHAR(1) $s)"),
        ("INT", "(TRY_CAST:INT $s)"),
        ("DECIMAL(38,10)", "(TRY_CAST:DECIMAL(38,10) $s)"),
        ("DECIMAL(5,2)", "(TRY_CAST:DECIMAL(5,2) $s)"),
        ("DATE", "(TRY_CAST:DATE $s)"),
        ("BOOLEAN", "(TRY_CAST:BOOLEAN $s)"),
        ("STRING", "(UPPER:STRING $s)"),
        ("STRING", "(LOWER:STRING $s)"),
        ("INT", "(CHAR_LENGTH:INT $s)"),
        ("STRING", "(SUBSTRING:STRING $s $i $i)"),
        ("STRING", "(SUBSTRING:STRING $s (NEGATE:INT $i))"),
        ("STRING", "(CONCAT:STRING $s $c $s)"),
        ("STRING", "(TRIM:STRING #BOTH $s $s)"),
        ("BOOLEAN", "(LIKE:BOOLEAN $s '%_%':VARCHAR(3))"),
        ("BOOLEAN", "(LIKE:BOOLEAN $s '%Σ%ǅ':VARCHAR(4))"),
        ("STRING", "(SPLIT_INDEX:STRING $s 'Σ':VARCHAR(1) $i)"),
        ("BIGINT", "(EXTRACT:BIGINT #YEAR $ts)"),
        ("BIGINT", "(EXTRACT:BIGINT #DOY $lz)"),
        ("BIGINT", "(EXTRACT:BIGINT #DOW $dt)"),
        ("BIGINT", "(SECOND:BIGINT $ts)"),
        ("TIMESTAMP(0)", "(CAST:TIMESTAMP(0) $ts)"),
        ("DATE", "(CAST:DATE $ts)"),
        ("TIMESTAMP(3)", "(CAST:TIMESTAMP(3) $dt)"),
        ("TIMESTAMP_LTZ(9)", "(CAST:TIMESTAMP_LTZ(9) $ts)"),
        ("TIMESTAMP(3)", "(CAST:TIMESTAMP(3) $lz)"),
        ("STRING", "(CAST:STRING $dt)"),
        (
            "TIMESTAMP_LTZ(3)",
            "(TO_TIMESTAMP_LTZ:TIMESTAMP_LTZ(3) $l 0:INT)",
        ),
        (
            "TIMESTAMP_LTZ(3)",
            "(TO_TIMESTAMP_LTZ:TIMESTAMP_LTZ(3) $l 3:INT)",
        ),
        (
            "STRING",
            "(DATE_FORMAT:STRING $ts 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS':VARCHAR(29))",
        ),
        ("INT", "(COALESCE:INT $i (DIVIDE:INT 1:INT $i) 0:INT)"),
        (
            "INT",
            "(CASE:INT $u (DIVIDE:INT 1:INT $i) (MOD:INT $i 0:INT))",
        ),
        ("DECIMAL(38,0)", "(NULLIF:DECIMAL(38,0) $a $a)"),
    ];
    for zone in ["UTC", "+18:00", "-18:00"] {
        for (ty, sexpr) in exprs {
            let out_ty = support::parse_type(ty);
            let plan = json!({
                "version": 1, "input": case.row_type(), "filter": null,
                "projections": [support::expr_json(sexpr, &case.columns)],
                "output": {"type": "ROW", "nullable": false, "fields": [{"name": "r", "type": support::type_json(&out_ty)}]},
                "session": {"time_zone": zone, "locale": "en-US"}
            });
            let plan = RunnablePlan::from_json(&plan.to_string())
                .unwrap_or_else(|d| panic!("{sexpr}: declined: {d}"));
            let calc = Calc::new(plan).unwrap();
            let batch = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                calc.run(&arrays, rows).map(|_| ())
            }));
            assert!(batch.is_ok(), "{sexpr} panicked in {zone}");
            for r in 0..rows {
                let one: Vec<_> = arrays.iter().map(|a| a.slice(r, 1)).collect();
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    calc.run(&one, 1).map(|_| ())
                }));
                assert!(result.is_ok(), "{sexpr} panicked on row {r} in {zone}");
            }
        }
    }
}
