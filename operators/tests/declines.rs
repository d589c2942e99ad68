//! Every declined case gives its reason, and nothing declined is run.
#![allow(clippy::unwrap_used)]

use karrow_operators::decline_reason;
use serde_json::{json, Value};

fn ty(name: &str) -> Value {
    match name {
        "STRING" => json!({"type": "VARCHAR", "nullable": true, "length": 2147483647}),
        "DEC" => json!({"type": "DECIMAL", "nullable": true, "precision": 10, "scale": 2}),
        "TS" => json!({"type": "TIMESTAMP", "nullable": true, "precision": 3}),
        other => json!({"type": other, "nullable": true}),
    }
}

fn input() -> Value {
    json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "i", "type": ty("INT")}, {"name": "d", "type": ty("DOUBLE")},
        {"name": "s", "type": ty("STRING")}, {"name": "a", "type": ty("DEC")},
        {"name": "ts", "type": ty("TS")},
        {"name": "m", "type": {"type": "MAP", "nullable": true, "key": ty("STRING"), "value": ty("INT")}}]})
}

fn col(i: usize) -> Value {
    let names = ["INT", "DOUBLE", "STRING", "DEC", "TS"];
    json!({"input": i, "type": ty(names[i])})
}

fn plan_with(projection: Value, out: Value) -> String {
    json!({"version": 1, "input": input(), "filter": null, "projections": [projection],
        "output": {"type": "ROW", "nullable": false, "fields": [{"name": "r", "type": out}]},
        "session": {"time_zone": "UTC", "locale": "en-US"}})
    .to_string()
}

fn reason(projection: Value, out: &str) -> String {
    decline_reason(&plan_with(projection, ty(out))).unwrap_or_else(|| panic!("not declined"))
}

fn call(op: &str, operands: Vec<Value>, out: &str) -> Value {
    json!({"call": op, "operands": operands, "type": ty(out)})
}

#[test]
fn a_supported_plan_is_runnable() {
    assert_eq!(
        decline_reason(&plan_with(
            call("PLUS", vec![col(0), col(0)], "INT"),
            ty("INT")
        )),
        None
    );
}

#[test]
fn unknown_operators_and_keys_decline() {
    assert!(
        reason(call("RAND", vec![], "DOUBLE"), "DOUBLE").contains("operator RAND is not supported")
    );
    let mut plan: Value = serde_json::from_str(&plan_with(col(0), ty("INT"))).unwrap();
    plan["extra"] = json!(1);
    assert!(decline_reason(&plan.to_string())
        .unwrap()
        .contains("unknown key \"extra\""));
    let mut plan: Value = serde_json::from_str(&plan_with(col(0), ty("INT"))).unwrap();
    plan["version"] = json!(2);
    assert!(decline_reason(&plan.to_string())
        .unwrap()
        .contains("version"));
    assert!(decline_reason("not json").unwrap().contains("not JSON"));
}

#[test]
fn jdk_dependent_casts_decline() {
    assert!(reason(call("CAST", vec![col(1)], "STRING"), "STRING").contains("Double.toString"));
    assert!(reason(call("CAST", vec![col(1)], "DEC"), "DEC").contains("Double.toString"));
    assert!(reason(call("CAST", vec![col(2)], "DOUBLE"), "DOUBLE").contains("not supported"));
    assert!(reason(call("CAST", vec![col(0)], "TS"), "TS").contains("not supported"));
}

#[test]
fn locale_sensitive_case_mapping_declines() {
    let upper = call("UPPER", vec![col(2)], "STRING");
    let plan = |locale: Value| {
        json!({"version": 1, "input": input(), "filter": null, "projections": [upper.clone()],
            "output": {"type": "ROW", "nullable": false, "fields": [{"name": "r", "type": ty("STRING")}]},
            "session": {"time_zone": "UTC", "locale": locale}})
        .to_string()
    };
    assert!(decline_reason(&plan(json!("tr-TR")))
        .unwrap()
        .contains("tr-TR"));
    assert!(decline_reason(&plan(json!("lt"))).is_some());
    assert!(decline_reason(&plan(Value::Null))
        .unwrap()
        .contains("locale"));
    assert_eq!(decline_reason(&plan(json!("de-DE"))), None);
}

#[test]
fn region_time_zones_decline() {
    let plan = json!({"version": 1, "input": input(), "filter": null, "projections": [col(0)],
        "output": {"type": "ROW", "nullable": false, "fields": [{"name": "r", "type": ty("INT")}]},
        "session": {"time_zone": "Europe/Berlin"}});
    assert!(decline_reason(&plan.to_string())
        .unwrap()
        .contains("Europe/Berlin"));
}

#[test]
fn patterns_and_separators_must_be_literals() {
    let lit = |s: &str| json!({"literal": s, "type": ty("STRING")});
    assert!(
        reason(call("LIKE", vec![col(2), col(2)], "BOOLEAN"), "BOOLEAN")
            .contains("literal pattern")
    );
    assert!(reason(
        call("LIKE", vec![col(2), lit("a!%"), lit("!")], "BOOLEAN"),
        "BOOLEAN"
    )
    .contains("ESCAPE"));
    assert!(reason(
        call("LIKE", vec![col(2), lit("a\\%")], "BOOLEAN"),
        "BOOLEAN"
    )
    .contains("backslash"));
    let int = json!({"literal": 1, "type": ty("INT")});
    assert!(reason(
        call("SPLIT_INDEX", vec![col(2), col(2), int.clone()], "STRING"),
        "STRING"
    )
    .contains("separator"));
    assert!(reason(
        call("SPLIT_INDEX", vec![col(2), lit(""), int], "STRING"),
        "STRING"
    )
    .contains("separator"));
    let regexp = |p: Value| reason(call("REGEXP", vec![col(2), p], "BOOLEAN"), "BOOLEAN");
    assert!(regexp(col(2)).contains("literal pattern"));
    assert!(regexp(lit("a$")).contains("'$'"));
    assert!(regexp(lit("(a)\\1")).contains("escape"));
    assert!(regexp(lit("(?<=a)b")).contains("group construct"));
}

#[test]
fn type_mismatches_decline() {
    // The reference's type disagrees with the input column.
    let wrong = json!({"input": 0, "type": ty("BIGINT")});
    assert!(reason(wrong, "BIGINT").contains("column 0 is INT"));
    // Integer result from a DOUBLE operand.
    assert!(reason(call("PLUS", vec![col(0), col(1)], "INT"), "INT").contains("arithmetic"));
    // DECIMAL result from a DOUBLE operand.
    assert!(reason(call("TIMES", vec![col(3), col(1)], "DEC"), "DEC").contains("arithmetic"));
    // Comparing a string with a number.
    assert!(
        reason(call("EQUALS", vec![col(2), col(0)], "BOOLEAN"), "BOOLEAN").contains("comparing")
    );
    // The projection's type is not the output field's.
    assert!(decline_reason(&plan_with(col(0), ty("BIGINT")))
        .unwrap()
        .contains("output field"));
    // A column that does not exist.
    assert!(reason(json!({"input": 9, "type": ty("INT")}), "INT").contains("does not exist"));
    // A bad literal.
    assert!(reason(json!({"literal": "x", "type": ty("INT")}), "INT").contains("literal"));
    assert!(reason(json!({"literal": "1.5", "type": ty("DEC")}), "DEC").contains("literal"));
}

#[test]
fn deep_nesting_declines() {
    let mut e = col(0);
    for _ in 0..70 {
        e = call("NEGATE", vec![e], "INT");
    }
    // serde_json's own limit (128 JSON levels) or the expression limit (64) stops it.
    let r = reason(e, "INT");
    assert!(r.contains("deeper") || r.contains("recursion limit"), "{r}");
}

#[test]
fn unsupported_functions_and_units_decline() {
    let sym = |s: &str| json!({"symbol": s});
    assert!(reason(
        call("EXTRACT", vec![sym("MILLENNIUM"), col(4)], "BIGINT"),
        "BIGINT"
    )
    .contains("MILLENNIUM"));
    assert!(reason(
        call("EXTRACT", vec![sym("HOUR"), col(0)], "BIGINT"),
        "BIGINT"
    )
    .contains("EXTRACT"));
    let p = json!({"literal": 6, "type": ty("INT")});
    assert!(reason(
        call("TO_TIMESTAMP_LTZ", vec![col(0), p], "TIMESTAMP_LTZ"),
        "TIMESTAMP_LTZ"
    )
    .contains("precision"));
    assert!(reason(
        call("DATE_FORMAT", vec![col(4), col(2)], "STRING"),
        "STRING"
    )
    .contains("DATE_FORMAT"));
}

/// The encode stage of a full-fusion plan is checked with the rest of the plan: accepted, or
/// declined with the stage's reason.
#[test]
fn the_encode_stage_is_part_of_the_plan() {
    let mut plan: Value = serde_json::from_str(&plan_with(col(0), ty("INT"))).unwrap();
    let encoder = |format: &str, out: Value| {
        json!({"format": format, "columns": [0], "config": {"row_type":
            {"type": "ROW", "nullable": false, "fields": [{"name": "sink_i", "type": out}]}}})
    };
    plan["encode"] =
        json!({"value": encoder("json-native", json!({"type": "INT", "nullable": false}))});
    assert_eq!(decline_reason(&plan.to_string()), None);
    let runnable = karrow_operators::RunnablePlan::from_json(&plan.to_string()).unwrap();
    assert_eq!(runnable.encode.unwrap().value.columns, vec![0]);
    plan["encode"]["value"] = encoder("json-native", ty("BIGINT"));
    let r = decline_reason(&plan.to_string()).unwrap();
    assert!(
        r.starts_with("encode stage: value: the sink's column sink_i is BIGINT"),
        "{r}"
    );
    plan["encode"] = json!({"value": encoder("protobuf-native", ty("INT"))});
    let r = decline_reason(&plan.to_string()).unwrap();
    assert!(r.contains("descriptor set"), "{r}");
    plan["encode"] = json!("json-native");
    let r = decline_reason(&plan.to_string()).unwrap();
    assert!(r.contains("encode is not a JSON object"), "{r}");
}
