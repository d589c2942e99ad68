//! Comparisons, logic and conditionals against Flink's results (`oracle/cases/compare.txt`).
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn comparisons_follow_javas_promotions_and_three_valued_logic() {
    support::check(
        "compare",
        &[
            ("i = j", "(EQUALS:BOOLEAN $i $j)"),
            ("i <> j", "(NOT_EQUALS:BOOLEAN $i $j)"),
            ("i < j", "(LESS_THAN:BOOLEAN $i $j)"),
            ("i <= j", "(LESS_THAN_OR_EQUAL:BOOLEAN $i $j)"),
            ("i > j", "(GREATER_THAN:BOOLEAN $i $j)"),
            ("i >= j", "(GREATER_THAN_OR_EQUAL:BOOLEAN $i $j)"),
            ("i = l", "(EQUALS:BOOLEAN $i $l)"),
            ("i < l", "(LESS_THAN:BOOLEAN $i $l)"),
            ("t = i", "(EQUALS:BOOLEAN $t $i)"),
            ("f = d", "(EQUALS:BOOLEAN $f $d)"),
            ("f < e", "(LESS_THAN:BOOLEAN $f $e)"),
            ("d = e", "(EQUALS:BOOLEAN $d $e)"),
            ("d <> e", "(NOT_EQUALS:BOOLEAN $d $e)"),
            ("d < e", "(LESS_THAN:BOOLEAN $d $e)"),
            ("d <= e", "(LESS_THAN_OR_EQUAL:BOOLEAN $d $e)"),
            ("d > e", "(GREATER_THAN:BOOLEAN $d $e)"),
            ("d >= e", "(GREATER_THAN_OR_EQUAL:BOOLEAN $d $e)"),
            ("i = d", "(EQUALS:BOOLEAN $i $d)"),
            ("a = b", "(EQUALS:BOOLEAN $a $b)"),
            ("a < b", "(LESS_THAN:BOOLEAN $a $b)"),
            ("a = x", "(EQUALS:BOOLEAN $a $x)"),
            ("a > x", "(GREATER_THAN:BOOLEAN $a $x)"),
            ("a = i", "(EQUALS:BOOLEAN $a $i)"),
            ("a < d", "(LESS_THAN:BOOLEAN $a $d)"),
            ("i IS DISTINCT FROM j", "(IS_DISTINCT_FROM:BOOLEAN $i $j)"),
            ("i IS NOT DISTINCT FROM j", "(IS_NOT_DISTINCT_FROM:BOOLEAN $i $j)"),
            ("d IS DISTINCT FROM e", "(IS_DISTINCT_FROM:BOOLEAN $d $e)"),
            ("a IS DISTINCT FROM b", "(IS_DISTINCT_FROM:BOOLEAN $a $b)"),
            ("u = v", "(EQUALS:BOOLEAN $u $v)"),
            ("u < v", "(LESS_THAN:BOOLEAN $u $v)"),
            ("u > v", "(GREATER_THAN:BOOLEAN $u $v)"),
            ("u IS DISTINCT FROM v", "(IS_DISTINCT_FROM:BOOLEAN $u $v)"),
            ("s = r", "(EQUALS:BOOLEAN $s $r)"),
            ("s < r", "(LESS_THAN:BOOLEAN $s $r)"),
            ("s > r", "(GREATER_THAN:BOOLEAN $s $r)"),
            ("s <> r", "(NOT_EQUALS:BOOLEAN $s $r)"),
            ("s IS NOT DISTINCT FROM r", "(IS_NOT_DISTINCT_FROM:BOOLEAN $s $r)"),
            // BETWEEN and IN arrive expanded (RexUtil.expandSearch).
            (
                "i BETWEEN j AND l",
                "(AND:BOOLEAN (GREATER_THAN_OR_EQUAL:BOOLEAN $i $j) (LESS_THAN_OR_EQUAL:BOOLEAN $i $l))",
            ),
            (
                "i NOT BETWEEN j AND l",
                "(OR:BOOLEAN (LESS_THAN:BOOLEAN $i $j) (GREATER_THAN:BOOLEAN $i $l))",
            ),
            (
                "i IN (1, 3, 7)",
                "(OR:BOOLEAN (EQUALS:BOOLEAN $i 1:INT) (EQUALS:BOOLEAN $i 3:INT) (EQUALS:BOOLEAN $i 7:INT))",
            ),
            (
                "i NOT IN (1, 3, 7)",
                "(AND:BOOLEAN (NOT_EQUALS:BOOLEAN $i 1:INT) (NOT_EQUALS:BOOLEAN $i 3:INT) (NOT_EQUALS:BOOLEAN $i 7:INT))",
            ),
            (
                "s IN ('a', 'abc')",
                "(OR:BOOLEAN (EQUALS:BOOLEAN $s 'a':CHAR(1)) (EQUALS:BOOLEAN $s 'abc':CHAR(3)))",
            ),
        ],
    );
}

#[test]
fn logic_short_circuits_where_flink_does() {
    support::check(
        "compare",
        &[
            ("u AND v", "(AND:BOOLEAN $u $v)"),
            ("u OR v", "(OR:BOOLEAN $u $v)"),
            ("NOT u", "(NOT:BOOLEAN $u)"),
            ("u IS NULL", "(IS_NULL:BOOLEAN $u)"),
            ("u IS NOT NULL", "(IS_NOT_NULL:BOOLEAN $u)"),
            ("u IS TRUE", "(IS_TRUE:BOOLEAN $u)"),
            ("u IS NOT TRUE", "(IS_NOT_TRUE:BOOLEAN $u)"),
            ("u IS FALSE", "(IS_FALSE:BOOLEAN $u)"),
            ("u IS NOT FALSE", "(IS_NOT_FALSE:BOOLEAN $u)"),
            ("i IS NULL", "(IS_NULL:BOOLEAN $i)"),
            ("s IS NOT NULL", "(IS_NOT_NULL:BOOLEAN $s)"),
            (
                "u AND i / j > 0",
                "(AND:BOOLEAN $u (GREATER_THAN:BOOLEAN (DIVIDE:INT $i $j) 0:INT))",
            ),
            (
                "u OR i / j > 0",
                "(OR:BOOLEAN $u (GREATER_THAN:BOOLEAN (DIVIDE:INT $i $j) 0:INT))",
            ),
            (
                "j <> 0 AND i / j > 1",
                "(AND:BOOLEAN (NOT_EQUALS:BOOLEAN $j 0:INT) (GREATER_THAN:BOOLEAN (DIVIDE:INT $i $j) 1:INT))",
            ),
        ],
    );
}

#[test]
fn conditionals_evaluate_only_the_branch_taken() {
    support::check(
        "compare",
        &[
            (
                "CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' ELSE 'zero' END",
                "(CASE:VARCHAR(4) (GREATER_THAN:BOOLEAN $i 0:INT) 'pos':VARCHAR(4) (LESS_THAN:BOOLEAN $i 0:INT) 'neg':VARCHAR(4) 'zero':VARCHAR(4))",
            ),
            (
                "CASE WHEN j <> 0 THEN i / j ELSE -1 END",
                "(CASE:INT (NOT_EQUALS:BOOLEAN $j 0:INT) (DIVIDE:INT $i $j) -1:INT)",
            ),
            (
                "CASE i WHEN 7 THEN 'seven' WHEN -7 THEN 'minus' END",
                "(CASE:CHAR(5) (EQUALS:BOOLEAN $i 7:INT) 'seven':CHAR(5) (EQUALS:BOOLEAN $i -7:INT) 'minus':CHAR(5) NULL:CHAR(5))",
            ),
            ("COALESCE(i, j, 0)", "(COALESCE:INT $i $j 0:INT)"),
            ("COALESCE(a, b)", "(COALESCE:DECIMAL(10,2) $a $b)"),
            ("NULLIF(i, j)", "(NULLIF:INT $i $j)"),
            ("NULLIF(s, 'a')", "(NULLIF:STRING $s 'a':CHAR(1))"),
            ("IF(u, i, j)", "(IF:INT $u $i $j)"),
            ("IF(i > j, s, r)", "(IF:STRING (GREATER_THAN:BOOLEAN $i $j) $s $r)"),
            ("COALESCE(s, r)", "(COALESCE:STRING $s $r)"),
        ],
    );
}
