//! The oracle harness itself can fail: a wrong expression, a missing failure and a wrong
//! session zone are all caught.

mod support;

#[test]
#[should_panic(expected = "mismatches")]
fn a_wrong_expression_is_caught() {
    support::check("arithmetic", &[("i + j", "(MINUS:INT $i $j)")]);
}

#[test]
#[should_panic(expected = "mismatches")]
fn a_missing_failure_is_caught() {
    support::check("arithmetic", &[("i / j", "(TIMES:INT $i $j)")]);
}

#[test]
#[should_panic(expected = "mismatches")]
fn a_wrong_zone_is_caught() {
    support::check(
        "temporal",
        &[(
            "@+08:00 EXTRACT(HOUR FROM lz)",
            "(EXTRACT:BIGINT #MINUTE $lz)",
        )],
    );
}
