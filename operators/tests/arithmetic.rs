//! Arithmetic against Flink's results (`oracle/cases/arithmetic.txt`).
#![allow(clippy::unwrap_used)]

mod support;

#[test]
fn integer_arithmetic_wraps_like_java() {
    support::check(
        "arithmetic",
        &[
            ("i + j", "(PLUS:INT $i $j)"),
            ("i - j", "(MINUS:INT $i $j)"),
            ("i * j", "(TIMES:INT $i $j)"),
            ("i / j", "(DIVIDE:INT $i $j)"),
            ("i % j", "(MOD:INT $i $j)"),
            ("MOD(i, j)", "(MOD:INT $i $j)"),
            ("-i", "(NEGATE:INT $i)"),
            ("l + m", "(PLUS:BIGINT $l $m)"),
            ("l - m", "(MINUS:BIGINT $l $m)"),
            ("l * m", "(TIMES:BIGINT $l $m)"),
            ("l / m", "(DIVIDE:BIGINT $l $m)"),
            ("l % m", "(MOD:BIGINT $l $m)"),
            ("MOD(l, i)", "(MOD:INT $l $i)"),
            ("MOD(i, l)", "(MOD:BIGINT $i $l)"),
            ("-l", "(NEGATE:BIGINT $l)"),
            ("i + l", "(PLUS:BIGINT $i $l)"),
            ("i * l", "(TIMES:BIGINT $i $l)"),
            ("l / i", "(DIVIDE:BIGINT $l $i)"),
            ("t + t", "(PLUS:TINYINT $t $t)"),
            ("t * t", "(TIMES:TINYINT $t $t)"),
            ("t / t", "(DIVIDE:TINYINT $t $t)"),
            ("t % t", "(MOD:TINYINT $t $t)"),
            ("-t", "(NEGATE:TINYINT $t)"),
            ("s * s", "(TIMES:SMALLINT $s $s)"),
            ("t + i", "(PLUS:INT $t $i)"),
            ("s + t", "(PLUS:SMALLINT $s $t)"),
            ("t * 100", "(TIMES:INT $t 100:INT)"),
            ("i + 1", "(PLUS:INT $i 1:INT)"),
            ("l + 1", "(PLUS:BIGINT $l 1:INT)"),
        ],
    );
}

#[test]
fn approximate_arithmetic_is_ieee_in_the_result_type() {
    support::check(
        "arithmetic",
        &[
            ("f + f", "(PLUS:FLOAT $f $f)"),
            ("f * f", "(TIMES:FLOAT $f $f)"),
            ("f * d", "(TIMES:FLOAT $f $d)"),
            ("f / f", "(DIVIDE:FLOAT $f $f)"),
            ("d + e", "(PLUS:DOUBLE $d $e)"),
            ("d - e", "(MINUS:DOUBLE $d $e)"),
            ("d * e", "(TIMES:DOUBLE $d $e)"),
            ("d / e", "(DIVIDE:DOUBLE $d $e)"),
            ("-d", "(NEGATE:DOUBLE $d)"),
            ("-f", "(NEGATE:FLOAT $f)"),
            ("i + d", "(PLUS:DOUBLE $i $d)"),
            ("i / d", "(DIVIDE:DOUBLE $i $d)"),
            ("l * d", "(TIMES:DOUBLE $l $d)"),
            ("i * f", "(TIMES:FLOAT $i $f)"),
            ("a + d", "(PLUS:DOUBLE $a $d)"),
            ("a * d", "(TIMES:DOUBLE $a $d)"),
            ("a / e", "(DIVIDE:DOUBLE $a $e)"),
        ],
    );
}

#[test]
fn decimal_arithmetic_rounds_half_up_and_overflows_to_null() {
    support::check(
        "arithmetic",
        &[
            ("i / 0.5", "(DIVIDE:DECIMAL(17,6) $i 0.5:DECIMAL(1,1))"),
            ("a + b", "(PLUS:DECIMAL(11,2) $a $b)"),
            ("a - b", "(MINUS:DECIMAL(11,2) $a $b)"),
            ("a * b", "(TIMES:DECIMAL(21,4) $a $b)"),
            ("a / b", "(DIVIDE:DECIMAL(23,13) $a $b)"),
            ("a % b", "(MOD:DECIMAL(10,2) $a $b)"),
            ("MOD(a, b)", "(MOD:DECIMAL(10,2) $a $b)"),
            ("-a", "(NEGATE:DECIMAL(10,2) $a)"),
            ("a + i", "(PLUS:DECIMAL(13,2) $a $i)"),
            ("a * i", "(TIMES:DECIMAL(21,2) $a $i)"),
            ("a / i", "(DIVIDE:DECIMAL(21,13) $a $i)"),
            ("a % i", "(MOD:DECIMAL(10,2) $a $i)"),
            ("a * l", "(TIMES:DECIMAL(30,2) $a $l)"),
            ("l / a", "(DIVIDE:DECIMAL(32,11) $l $a)"),
            ("x + y", "(PLUS:DECIMAL(38,9) $x $y)"),
            ("x - y", "(MINUS:DECIMAL(38,9) $x $y)"),
            ("x * y", "(TIMES:DECIMAL(38,6) $x $y)"),
            ("x / y", "(DIVIDE:DECIMAL(38,6) $x $y)"),
            ("x % y", "(MOD:DECIMAL(38,10) $x $y)"),
            ("x * a", "(TIMES:DECIMAL(38,6) $x $a)"),
            ("a / x", "(DIVIDE:DECIMAL(38,20) $a $x)"),
            ("z / a", "(DIVIDE:DECIMAL(18,11) $z $a)"),
            ("a / z", "(DIVIDE:DECIMAL(16,8) $a $z)"),
            ("z * z", "(TIMES:DECIMAL(11,0) $z $z)"),
            ("z / 7", "(DIVIDE:DECIMAL(16,11) $z 7:INT)"),
            ("x / 3", "(DIVIDE:DECIMAL(38,10) $x 3:INT)"),
            ("a * 1.005", "(TIMES:DECIMAL(15,5) $a 1.005:DECIMAL(4,3))"),
            ("a + 0.005", "(PLUS:DECIMAL(12,3) $a 0.005:DECIMAL(3,3))"),
            ("a * 0.5", "(TIMES:DECIMAL(13,3) $a 0.5:DECIMAL(1,1))"),
            ("a / 3", "(DIVIDE:DECIMAL(21,13) $a 3:INT)"),
            ("a / 7", "(DIVIDE:DECIMAL(21,13) $a 7:INT)"),
        ],
    );
}
