//! JSON values at the limits Jackson's `StreamReadConstraints` sets (1000 levels of nesting),
//! decoded on a thread with a small stack, and values whose shape made the decoder's work
//! grow faster than their size (many members with distinct keys).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use karrow_codecs::json::{JsonDecodeOptions, JsonRowDecoder};
use karrow_codecs::FlinkType;

/// The native stack the decoders may use for a value at Jackson's deepest nesting. The
/// JVM's default thread stack is 1 MiB (`-Xss`), some deployments set 256 KiB; the
/// decoders used 256-320 KiB at 1000 levels when they recursed once per level.
const SMALL_STACK: usize = 128 * 1024;

fn row(fields: &str) -> FlinkType {
    FlinkType::from_json_str(&format!(
        r#"{{"type":"ROW","nullable":false,"fields":[{fields}]}}"#
    ))
    .unwrap()
}

const STRING_S: &str =
    r#"{"name":"s","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}"#;
const INT_A: &str = r#"{"name":"a","type":{"type":"INT","nullable":true}}"#;

/// Decodes on a thread with [`SMALL_STACK`] bytes of stack (a stack overflow aborts the test
/// binary, which fails the test); returns the row count and the image bytes, or the error.
fn decode_on_small_stack(
    fields: &'static str,
    json_parser: bool,
    ignore_parse_errors: bool,
    message: String,
) -> Result<(usize, Vec<u8>), String> {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            let options = JsonDecodeOptions {
                json_parser,
                ignore_parse_errors,
                ..JsonDecodeOptions::default()
            };
            let mut decoder = JsonRowDecoder::new(&row(fields), options).unwrap();
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            decoder
                .decode_message(message.as_bytes(), &mut out, &mut ends)
                .map(|()| (ends.len(), out))
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .unwrap()
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

fn nested_objects(depth: usize) -> String {
    r#"{"k":"#.repeat(depth) + "1" + &"}".repeat(depth)
}

/// A STRING column takes the text of a subtree 999 levels deep (1000 with the row), the
/// deepest Jackson reads, from both decoders: the subtree is read into a tree, written as
/// text and dropped without a native frame per level.
#[test]
fn a_string_column_takes_a_subtree_at_the_deepest_nesting_on_a_small_stack() {
    let fields: &'static str = Box::leak(format!("{STRING_S},{INT_A}").into_boxed_str());
    for json_parser in [true, false] {
        for inner in [nested(999), nested_objects(999)] {
            let message = format!(r#"{{"s":{inner},"a":1}}"#);
            let (rows, image) = decode_on_small_stack(fields, json_parser, false, message)
                .unwrap_or_else(|e| panic!("parser {json_parser}: {e}"));
            assert_eq!(rows, 1);
            // The text is in the image: 999 brackets of each kind, or 999 `{"k":`.
            let text = String::from_utf8_lossy(&image);
            assert!(
                text.contains(&"[".repeat(999)) || text.contains(&r#"{"k":"#.repeat(999)),
                "parser {json_parser}"
            );
        }
    }
}

/// The tree decoder reads the whole value into a tree: at the deepest nesting, on a small
/// stack, in an extra key and as the whole message.
#[test]
fn the_tree_decoder_reads_the_deepest_nesting_on_a_small_stack() {
    let message = format!(r#"{{"x":{},"a":1}}"#, nested(999));
    let (rows, _) = decode_on_small_stack(INT_A, false, false, message).unwrap();
    assert_eq!(rows, 1);
    let message = format!("[{}]", nested_objects(998));
    // The array's element is an object without `a`: one row of NULL.
    let (rows, _) = decode_on_small_stack(INT_A, false, false, message).unwrap();
    assert_eq!(rows, 1);
}

/// One level deeper is Jackson's `StreamConstraintsException`, from both decoders (skipped
/// under `ignore-parse-errors`, as flink-json skips a value it cannot read), also on a small
/// stack.
#[test]
fn one_level_deeper_fails_as_jackson_fails() {
    let fields: &'static str = Box::leak(format!("{STRING_S},{INT_A}").into_boxed_str());
    for json_parser in [true, false] {
        for inner in [nested(1000), nested_objects(1000)] {
            let message = format!(r#"{{"s":{inner},"a":1}}"#);
            let error =
                decode_on_small_stack(fields, json_parser, false, message.clone()).unwrap_err();
            assert!(
                error.contains("Document nesting depth (1001) exceeds the maximum allowed (1000"),
                "{error}"
            );
            if !json_parser {
                let (rows, _) = decode_on_small_stack(fields, json_parser, true, message).unwrap();
                assert_eq!(rows, 0, "the tree decoder skips the value");
            }
        }
    }
}

/// An object of 300,000 distinct keys in a STRING column (tree text) and in a MAP column:
/// repeated keys are found through a hash index, not by comparing every pair (which took
/// 4.5 * 10^10 comparisons per column here). The result keeps Java's rules: first position,
/// last value. The watchdog is a hang detector with a generous bound, not a timing.
#[test]
fn many_distinct_keys_cost_linear_time() {
    let mut members: Vec<String> = (0..300_000).map(|i| format!(r#""k{i}":{i}"#)).collect();
    members.push(r#""k7":-7"#.to_string());
    let object = format!("{{{}}}", members.join(","));
    let fields: &'static str = Box::leak(
        format!(
            r#"{STRING_S},{{"name":"m","type":{{"type":"MAP","nullable":true,"key":{{"type":"VARCHAR","nullable":true,"length":2147483647}},"value":{{"type":"INT","nullable":true}}}}}}"#
        )
        .into_boxed_str(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for json_parser in [true, false] {
            let message = format!(r#"{{"s":{object},"m":{object}}}"#);
            let (rows, image) = decode_on_small_stack(fields, json_parser, false, message).unwrap();
            assert_eq!(rows, 1);
            let text = String::from_utf8_lossy(&image);
            assert!(
                text.contains(r#""k6":6,"k7":-7,"k8":8"#),
                "parser {json_parser}"
            );
        }
        let _ = tx.send(());
    });
    rx.recv_timeout(std::time::Duration::from_secs(300))
        .expect("decoding did not finish: repeated keys are searched pairwise");
}

mod support;

/// Prints the native stack the deepest values take (`cargo test --release -p karrow-codecs
/// --test json_limits -- --ignored --nocapture`).
#[test]
#[ignore = "a measurement, not a check"]
fn measure_stack_at_the_limit() {
    let fields: &'static str = Box::leak(format!("{STRING_S},{INT_A}").into_boxed_str());
    for json_parser in [true, false] {
        for (name, inner) in [("arrays", nested(999)), ("objects", nested_objects(999))] {
            let message = format!(r#"{{"s":{inner},"a":1}}"#);
            let (rows, used) = support::peak_stack(move || {
                let options = JsonDecodeOptions {
                    json_parser,
                    ..JsonDecodeOptions::default()
                };
                let mut decoder = JsonRowDecoder::new(&row(fields), options).unwrap();
                let (mut out, mut ends) = (Vec::new(), Vec::new());
                decoder
                    .decode_message(message.as_bytes(), &mut out, &mut ends)
                    .map(|()| ends.len())
            });
            assert_eq!(rows.unwrap(), 1);
            println!(
                "json (parser {json_parser}), STRING from {name} 1000 levels deep: {} KiB of stack",
                used / 1024
            );
        }
    }
}

/// Jackson's string and name limits (`StreamReadConstraints`, 2.18 defaults, which Flink's
/// mapper keeps): a string's text may have 20,000,000 UTF-16 units and is checked when it is
/// read (a string in a field the row skips is not), a field name 50,000 and is always read.
#[test]
fn long_strings_and_names_fail_where_jackson_fails() {
    let fields: &'static str = Box::leak(format!("{STRING_S},{INT_A}").into_boxed_str());
    let decode = |json_parser: bool, message: String| {
        let options = JsonDecodeOptions {
            json_parser,
            ..JsonDecodeOptions::default()
        };
        let mut decoder = JsonRowDecoder::new(&row(fields), options).unwrap();
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        decoder
            .decode_message(message.as_bytes(), &mut out, &mut ends)
            .map(|()| ends.len())
            .map_err(|e| e.to_string())
    };
    let at_limit = "x".repeat(20_000_000);
    // Two-byte characters: 10,000,001 units in 20,000,002 bytes are within the limit.
    let wide = "\u{e9}".repeat(10_000_001);
    let over = "x".repeat(19_999_999) + "\u{1F600}";
    for json_parser in [true, false] {
        assert_eq!(
            decode(json_parser, format!(r#"{{"s":"{at_limit}"}}"#)),
            Ok(1)
        );
        assert_eq!(decode(json_parser, format!(r#"{{"s":"{wide}"}}"#)), Ok(1));
        let error = decode(json_parser, format!(r#"{{"s":"{over}"}}"#)).unwrap_err();
        assert!(
            error.contains("String value length (20000001) exceeds the maximum allowed (20000000"),
            "{error}"
        );
        let name = "n".repeat(50_001);
        let error = decode(json_parser, format!(r#"{{"{name}":1,"a":1}}"#)).unwrap_err();
        assert!(
            error.contains("Name length (50001) exceeds the maximum allowed (50000"),
            "{error}"
        );
        let name = "n".repeat(50_000);
        assert_eq!(
            decode(json_parser, format!(r#"{{"{name}":1,"a":1}}"#)),
            Ok(1)
        );
    }
    // The streaming decoder skips a field the row lacks without reading its text.
    assert_eq!(
        decode(true, format!(r#"{{"skipped":"{over}","a":1}}"#)),
        Ok(1)
    );
    // The tree decoder reads every string into its tree.
    assert!(decode(false, format!(r#"{{"skipped":"{over}","a":1}}"#)).is_err());
}
