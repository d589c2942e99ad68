//! Protobuf values at protobuf-java's recursion limit (100 levels of sub-messages or groups
//! below the top-level message, `CodedInputStream`'s default): decoded on a thread with a
//! small stack, one level more fails with protobuf-java's message (or is skipped under
//! `ignore-parse-errors`, as flink-protobuf skips a value it cannot parse).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::collections::HashMap;

use karrow_codecs::protobuf::confluent::CompiledSchema;
use karrow_codecs::protobuf::{ProtobufOptions, ProtobufRowDecoder};
use karrow_codecs::types::{FlinkField, FlinkKind};
use karrow_codecs::FlinkType;
use prost_reflect::MessageDescriptor;

/// The native stack the decoder may use for a value at the deepest nesting (see
/// `json_limits.rs`). Nesting the data decides (sub-messages the row does not read, groups)
/// takes 14-19 KiB at 100 levels in a release build (`measure_stack_at_the_limit`); each ROW
/// level the table declares and the data reaches takes about 1.9 KiB (10 KiB unoptimised),
/// so the read depth here is a realistic 8.
const SMALL_STACK: usize = 256 * 1024;

const TREE: &str = r#"syntax = "proto3";
package t;
message Tree {
  int32 value = 1;
  Tree left = 2;
}
"#;

fn tree() -> MessageDescriptor {
    let schema = CompiledSchema::compile("t.proto", TREE, &HashMap::new()).unwrap();
    schema.find_message("t.Tree").unwrap()
}

fn int() -> FlinkType {
    FlinkType {
        nullable: true,
        kind: FlinkKind::Int,
    }
}

/// `ROW<value INT, left ROW<value INT, left ...>>` with `levels` nested rows below the top.
fn tree_row(levels: usize) -> FlinkType {
    let mut fields = vec![FlinkField {
        name: "value".into(),
        ty: int(),
    }];
    if levels > 0 {
        fields.push(FlinkField {
            name: "left".into(),
            ty: tree_row(levels - 1),
        });
    }
    FlinkType {
        nullable: true,
        kind: FlinkKind::Row(fields),
    }
}

fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A Tree whose `left` chain is `levels` sub-messages deep, each with `value` = 1.
fn nested_trees(levels: usize) -> Vec<u8> {
    let mut inner = vec![0x08, 0x01];
    for _ in 0..levels {
        let mut outer = vec![0x08, 0x01, 0x12];
        varint(inner.len() as u64, &mut outer);
        outer.extend_from_slice(&inner);
        inner = outer;
    }
    inner
}

/// An unknown group (field 9) nested `levels` deep inside the top-level message.
fn nested_groups(levels: usize) -> Vec<u8> {
    let start = (9 << 3) | 3;
    let end = (9 << 3) | 4;
    let mut out = vec![0x08, 0x01];
    out.extend(std::iter::repeat_n(start, levels));
    out.extend(std::iter::repeat_n(end, levels));
    out
}

/// Decodes `message` as a Tree into `row` on a small stack; returns the row count or the
/// error.
fn decode(row: FlinkType, ignore_parse_errors: bool, message: Vec<u8>) -> Result<usize, String> {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            let options = ProtobufOptions {
                ignore_parse_errors,
                ..ProtobufOptions::default()
            };
            let mut decoder = ProtobufRowDecoder::new(&tree(), &row, options).unwrap();
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            decoder
                .decode_message(&message, &mut out, &mut ends)
                .map(|()| ends.len())
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .unwrap()
}

const TOO_DEEP: &str = "Protocol message had too many levels of nesting";

#[test]
fn sub_messages_nest_100_levels_on_a_small_stack_and_not_101() {
    // Read through 8 nested rows, and unread below a shallow row.
    for row in [tree_row(8), tree_row(1)] {
        assert_eq!(decode(row.clone(), false, nested_trees(100)), Ok(1));
        let error = decode(row.clone(), false, nested_trees(101)).unwrap_err();
        assert!(error.contains(TOO_DEEP), "{error}");
        assert_eq!(decode(row, true, nested_trees(101)), Ok(0));
    }
}

#[test]
fn unknown_groups_nest_100_levels_on_a_small_stack_and_not_101() {
    for row in [tree_row(3), tree_row(0)] {
        assert_eq!(decode(row.clone(), false, nested_groups(100)), Ok(1));
        let error = decode(row.clone(), false, nested_groups(101)).unwrap_err();
        assert!(error.contains(TOO_DEEP), "{error}");
        assert_eq!(decode(row, true, nested_groups(101)), Ok(0));
        // Far deeper than the limit fails the same way, without a frame per level.
        let error = decode(tree_row(0), false, nested_groups(50_000)).unwrap_err();
        assert!(error.contains(TOO_DEEP), "{error}");
    }
}

mod support;

/// Prints the native stack the deepest values take (`cargo test --release -p karrow-codecs
/// --test protobuf_limits -- --ignored --nocapture`).
#[test]
#[ignore = "a measurement, not a check"]
fn measure_stack_at_the_limit() {
    for (name, row, message) in [
        (
            "sub-messages read (a 100-deep ROW)",
            tree_row(100),
            nested_trees(100),
        ),
        ("sub-messages unread", tree_row(1), nested_trees(100)),
        ("unknown groups", tree_row(0), nested_groups(100)),
    ] {
        let (rows, used) = support::peak_stack(move || {
            let mut decoder =
                ProtobufRowDecoder::new(&tree(), &row, ProtobufOptions::default()).unwrap();
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            decoder
                .decode_message(&message, &mut out, &mut ends)
                .map(|()| ends.len())
        });
        assert_eq!(rows.unwrap(), 1);
        println!("protobuf, {name}, 100 levels: {} KiB of stack", used / 1024);
    }
}
