//! Decoder behaviour on the spec's cases (the Java parity suites compare against
//! flink-json itself over generated corpora; these pin the mechanics in Rust).

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, RecordBatch};

use super::JsonRowDecoder;
use crate::flink_binary::read_batch_rows;
use crate::json::options::JsonDecodeOptions;
use crate::types::FlinkType;

fn ty(fields: &str) -> FlinkType {
    FlinkType::from_json_str(&format!(r#"{{"type":"ROW","fields":[{fields}]}}"#)).unwrap()
}

fn f(name: &str, t: &str) -> String {
    format!(r#"{{"name":"{name}","type":{t}}}"#)
}

const INT: &str = r#"{"type":"INT"}"#;
const STRING: &str = r#"{"type":"VARCHAR","length":2147483647}"#;

fn decode_with(
    row: &FlinkType,
    message: &str,
    options: JsonDecodeOptions,
) -> Result<RecordBatch, String> {
    let mut d = JsonRowDecoder::new(row, options).map_err(|e| e.to_string())?;
    let (mut out, mut ends) = (Vec::new(), Vec::new());
    d.decode_message(message.as_bytes(), &mut out, &mut ends)
        .map_err(|e| e.to_string())?;
    let mut start = 0;
    let images: Vec<&[u8]> = ends
        .iter()
        .map(|&end| {
            let image = &out[start..end];
            start = end;
            image
        })
        .collect();
    read_batch_rows(images, row).map_err(|e| e.to_string())
}

fn decode(row: &FlinkType, message: &str) -> Result<RecordBatch, String> {
    decode_with(row, message, JsonDecodeOptions::default())
}

fn ignoring() -> JsonDecodeOptions {
    JsonDecodeOptions {
        ignore_parse_errors: true,
        ..JsonDecodeOptions::default()
    }
}

fn ints(batch: &RecordBatch, column: usize) -> Vec<Option<i32>> {
    batch
        .column(column)
        .as_primitive::<Int32Type>()
        .iter()
        .collect()
}

fn strings(batch: &RecordBatch, column: usize) -> Vec<Option<String>> {
    batch
        .column(column)
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect()
}

#[test]
fn one_object_is_one_row_and_extra_keys_are_ignored() {
    let row = ty(&[f("a", INT), f("b", STRING)].join(","));
    let b = decode(&row, r#"{"z":{"q":[1,{"w":2}]},"b":"x","a":7,"y":null}"#).unwrap();
    assert_eq!(ints(&b, 0), vec![Some(7)]);
    assert_eq!(strings(&b, 1), vec![Some("x".into())]);
}

#[test]
fn message_level_shapes() {
    let row = ty(&f("a", INT));
    assert_eq!(decode(&row, "").unwrap().num_rows(), 0);
    assert_eq!(decode(&row, "[]").unwrap().num_rows(), 0);
    assert_eq!(
        ints(&decode(&row, r#"[{"a":1},{"a":2}]"#).unwrap(), 0),
        vec![Some(1), Some(2)]
    );
    assert!(decode(&row, "   ")
        .unwrap_err()
        .contains("No content to map"));
    assert!(decode(&row, "null").is_err());
    assert!(decode(&row, "42").is_err());
    assert!(decode(&row, r#"[{"a":1},null]"#).is_err());
    assert_eq!(
        ints(&decode(&row, r#"{"a":1} xyz"#).unwrap(), 0),
        vec![Some(1)]
    );
}

#[test]
fn coercions_of_the_default_decoder() {
    let row = ty(&[
        f("a", INT),
        f("s", STRING),
        f("t", r#"{"type":"TINYINT"}"#),
        f("b", r#"{"type":"BOOLEAN"}"#),
    ]
    .join(","));
    let b = decode(&row, r#"{"a":" 123 ","s":1.50,"t":"12","b":"TRUE"}"#).unwrap();
    assert_eq!(ints(&b, 0), vec![Some(123)]);
    assert_eq!(strings(&b, 1), vec![Some("1.50".into())]);
    assert_eq!(b.column(2).as_primitive::<Int8Type>().value(0), 12);
    assert!(b.column(3).as_boolean().value(0));
    let b = decode(&row, r#"{"a":1.9,"s":{"x":1,"y":[1,2.50,"s"]},"b":1}"#).unwrap();
    assert_eq!(ints(&b, 0), vec![Some(1)]);
    assert_eq!(
        strings(&b, 1),
        vec![Some(r#"{"x":1,"y":[1,2.5,"s"]}"#.into())]
    );
    assert!(!b.column(3).as_boolean().value(0));
    assert!(decode(&row, r#"{"a":"1.5"}"#)
        .unwrap_err()
        .contains("field: a"));
    assert!(decode(&row, r#"{"t":200}"#).is_err());
}

#[test]
fn duplicate_keys_follow_the_counter_rule() {
    let row = ty(&[f("a", INT), f("b", INT)].join(","));
    let b = decode(&row, r#"{"a":1,"a":2,"b":3}"#).unwrap();
    assert_eq!((ints(&b, 0), ints(&b, 1)), (vec![Some(2)], vec![None]));
    let b = decode(&row, r#"{"a":1,"b":3,"a":2}"#).unwrap();
    assert_eq!((ints(&b, 0), ints(&b, 1)), (vec![Some(1)], vec![Some(3)]));
}

#[test]
fn a_failed_container_leaves_the_cursor_inside_under_ignore_parse_errors() {
    let row = ty(&[
        f("a", r#"{"type":"ARRAY","element":{"type":"INT"}}"#),
        f("b", INT),
    ]
    .join(","));
    let b = decode_with(&row, r#"{"a":{"x":1},"b":2}"#, ignoring()).unwrap();
    assert_eq!(b.column(0).null_count(), 1);
    assert_eq!(ints(&b, 1), vec![None]);
    assert!(decode(&row, r#"{"a":{"x":1},"b":2}"#).is_err());
}

#[test]
fn field_failures_become_null_and_syntax_errors_drop_the_message_when_ignoring() {
    let row = ty(&[f("a", INT), f("b", INT)].join(","));
    let b = decode_with(&row, r#"{"a":"x","b":2}"#, ignoring()).unwrap();
    assert_eq!((ints(&b, 0), ints(&b, 1)), (vec![None], vec![Some(2)]));
    assert_eq!(
        decode_with(&row, r#"{"a":1"#, ignoring())
            .unwrap()
            .num_rows(),
        0
    );
    let b = decode_with(&row, r#"[{"a":1},{"a":"#, ignoring()).unwrap();
    assert_eq!(ints(&b, 0), vec![Some(1)]);
}

#[test]
fn nested_rows_nulls_and_missing_fields() {
    let inner = format!(
        r#"{{"type":"ROW","fields":[{},{}]}}"#,
        f("x", INT),
        f("y", INT)
    );
    let row = ty(&[f("r", &inner), f("b", INT)].join(","));
    let b = decode(&row, r#"{"r":null,"b":1}"#).unwrap();
    assert_eq!(b.column(0).null_count(), 1);
    let b = decode(&row, r#"{"r":{},"b":1}"#).unwrap();
    assert_eq!(b.column(0).null_count(), 0);
    let strict = JsonDecodeOptions {
        fail_on_missing_field: true,
        ..JsonDecodeOptions::default()
    };
    assert!(decode_with(&row, r#"{"r":{},"b":1}"#, strict)
        .unwrap_err()
        .contains("field: r"));
    assert!(decode_with(&row, r#"{"r":{"x":1,"y":null},"b":null}"#, strict).is_ok());
}

#[test]
fn decimals_are_exact_with_half_up_and_overflow_to_null() {
    let row = ty(&[
        f("d", r#"{"type":"DECIMAL","precision":5,"scale":2}"#),
        f("w", r#"{"type":"DECIMAL","precision":38,"scale":10}"#),
    ]
    .join(","));
    let b = decode(
        &row,
        r#"{"d":1.005,"w":"12345678901234567890.12345678905"}"#,
    )
    .unwrap();
    assert_eq!(b.column(0).as_primitive::<Decimal128Type>().value(0), 101);
    assert_eq!(
        b.column(1).as_primitive::<Decimal128Type>().value(0),
        123456789012345678901234567891
    );
    let b = decode(&row, r#"{"d":999.999}"#).unwrap();
    assert_eq!(b.column(0).null_count(), 1);
    assert!(decode(&row, r#"{"d":true}"#).is_err());
}

#[test]
fn maps_keep_the_last_value_of_a_repeated_key_and_arrays_nest() {
    let row = ty(&[
        f("m", r#"{"type":"MAP","key":{"type":"VARCHAR","length":2147483647},"value":{"type":"BIGINT"}}"#),
        f("a", r#"{"type":"ARRAY","element":{"type":"ARRAY","element":{"type":"BIGINT"}}}"#),
    ]
    .join(","));
    let b = decode(
        &row,
        r#"{"m":{"k":1,"j":null,"k":"3"},"a":[[1,null],[],null]}"#,
    )
    .unwrap();
    let map = b.column(0).as_map();
    assert_eq!(map.value_length(0), 2);
    let keys: Vec<_> = map.keys().as_string::<i32>().iter().flatten().collect();
    let values: Vec<_> = map.values().as_primitive::<Int64Type>().iter().collect();
    assert_eq!(keys, vec!["j", "k"]);
    assert_eq!(values, vec![None, Some(3)]);
    let outer = b.column(1).as_list::<i32>();
    assert_eq!(outer.value_length(0), 3);
    assert!(outer.value(0).is_null(2));
}

#[test]
fn non_string_map_keys_are_rejected_at_creation() {
    let row = ty(&f(
        "m",
        r#"{"type":"MAP","key":{"type":"INT"},"value":{"type":"INT"}}"#,
    ));
    let e = JsonRowDecoder::new(&row, JsonDecodeOptions::default())
        .err()
        .unwrap();
    assert!(e
        .to_string()
        .contains("doesn't support non-string as key type of map"));
}

#[test]
fn deep_nesting_is_bounded() {
    let row = ty(&f("s", STRING));
    let deep = format!(r#"{{"s":{}1{}}}"#, "[".repeat(5000), "]".repeat(5000));
    assert!(decode(&row, &deep).unwrap_err().contains("nesting depth"));
}
