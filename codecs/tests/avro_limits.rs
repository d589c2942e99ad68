//! Avro values whose bytes claim more work than they carry: arrays and maps of items that
//! take no bytes on the wire (`null`, records without fields, `fixed(0)`, records whose
//! fields the reader skips), with block counts up to the varint maximum. Each must end
//! quickly, in bounded memory, with Java Avro's result or karrow's documented limit
//! (`docs/parity/avro.md`, "Limits").
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::sync::mpsc;
use std::time::Duration;

use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::FlinkType;

mod support;
use support::avro::{self, zigzag, OneSchema};

/// `body` framed with schema id 1.
fn framed(body: &[u8]) -> Vec<u8> {
    avro::framed(1, body)
}

fn field(name: &str, ty: &str) -> String {
    format!(r#"{{"name":"{name}","type":{{"type":{ty},"nullable":true}}}}"#)
}

fn row(fields: &[String]) -> FlinkType {
    FlinkType::from_json_str(&format!(
        r#"{{"type":"ROW","nullable":false,"fields":[{}]}}"#,
        fields.join(",")
    ))
    .unwrap()
}

fn decoder(row: &FlinkType, writer: &str) -> AvroConfluentDecoder {
    AvroConfluentDecoder::new(row, None, OneSchema::source(writer)).unwrap()
}

/// Runs `f` on another thread and fails the test if it has not returned after `seconds`
/// (a generous bound: the decode takes microseconds, the defect took centuries).
fn within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(seconds))
        .expect("the decode did not finish: it loops once per claimed item")
}

/// Both decode paths (binary rows and Arrow) of one value.
fn decode_both(decoder: &mut AvroConfluentDecoder, message: &[u8]) -> [Result<(), String>; 2] {
    let mut image = Vec::new();
    let binary = decoder
        .decode_one_binary(message, &mut image)
        .map_err(|e| e.to_string());
    let arrow = decoder
        .decode_one(message)
        .map(drop)
        .map_err(|e| e.to_string());
    [binary, arrow]
}

/// A writer-only array of nulls claiming 2^62 items in one block: 17 bytes. Java Avro loops
/// once per item to skip it; karrow steps over items that take no bytes at once.
#[test]
fn a_skipped_array_of_zero_width_items_is_stepped_over_at_once() {
    for items in [
        r#""null""#,
        r#"{"type":"record","name":"E","fields":[]}"#,
        r#"{"type":"fixed","name":"F","size":0}"#,
    ] {
        let writer = format!(
            r#"{{"type":"record","name":"R","fields":[{{"name":"id","type":"long"}},
              {{"name":"junk","type":{{"type":"array","items":{items}}}}}]}}"#
        );
        let mut body = Vec::new();
        zigzag(7, &mut body);
        zigzag(1 << 62, &mut body);
        zigzag(0, &mut body);
        let message = framed(&body);
        assert_eq!(message.len(), 17);
        let table = row(&[field("id", r#""BIGINT""#)]);
        let [binary, arrow] = within(120, move || {
            let mut d = decoder(&table, &writer);
            decode_both(&mut d, &message)
        });
        assert_eq!(binary, Ok(()), "{items}");
        assert_eq!(arrow, Ok(()), "{items}");
    }
}

/// The same in a writer-only map (keys take bytes, so only the values can be zero-width)
/// and in negative-count blocks, which carry their byte size and are jumped.
#[test]
fn skipped_maps_and_sized_blocks_stay_linear() {
    let writer = r#"{"type":"record","name":"R","fields":[
      {"name":"m","type":{"type":"map","values":"null"}},
      {"name":"a","type":{"type":"array","items":"null"}},
      {"name":"id","type":"long"}]}"#;
    let mut body = Vec::new();
    zigzag(1, &mut body); // one map entry
    zigzag(1, &mut body);
    body.push(b'k');
    zigzag(0, &mut body);
    zigzag(-(1 << 62), &mut body); // a sized block of 2^62 nulls, 0 bytes
    zigzag(0, &mut body);
    zigzag(0, &mut body);
    zigzag(5, &mut body);
    let message = framed(&body);
    let table = row(&[field("id", r#""BIGINT""#)]);
    let [binary, arrow] = within(120, move || {
        let mut d = decoder(&table, writer);
        decode_both(&mut d, &message)
    });
    assert_eq!(binary, Ok(()));
    assert_eq!(arrow, Ok(()));
}

/// 16 blocks of 2^24 nulls each in a read array (70 bytes): 2^28 items, which the decoder
/// allocated one slot each for until the allocation failed and aborted the process. The
/// limit of zero-width items per value stops it with an error on both paths.
#[test]
fn a_read_array_of_nulls_is_bounded_per_value() {
    let writer = r#"{"type":"record","name":"R","fields":[
      {"name":"nulls","type":{"type":"array","items":"null"}}]}"#;
    let mut body = Vec::new();
    for _ in 0..16 {
        zigzag(1 << 24, &mut body);
    }
    zigzag(0, &mut body);
    let message = framed(&body);
    assert_eq!(message.len(), 70);
    let table = row(&[field(
        "nulls",
        r#""ARRAY","element":{"type":"NULL","nullable":true}"#,
    )]);
    let mut d = decoder(&table, writer);
    for result in decode_both(&mut d, &message) {
        let error = result.unwrap_err();
        assert!(error.contains("items that take no bytes"), "{error}");
    }
}

/// Blocks of empty records, each claiming as many items as there are bytes left: the items
/// grew quadratically with the message (14 KB -> 771 MB of row image). Now the same limit
/// applies to every block of the value together.
#[test]
fn arrays_of_empty_records_do_not_grow_quadratically() {
    let writer = r#"{"type":"record","name":"R","fields":[
      {"name":"empties","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]}"#;
    // Built back to front: each block claims as many items as there are bytes after it.
    let mut headers: Vec<Vec<u8>> = Vec::new();
    let mut after = 1; // the end marker
    while after < 14_000 {
        let mut header = Vec::new();
        zigzag(after as i64, &mut header);
        after += header.len();
        headers.push(header);
    }
    let mut body: Vec<u8> = headers.into_iter().rev().flatten().collect();
    zigzag(0, &mut body);
    let message = framed(&body);
    let table = row(&[field(
        "empties",
        r#""ARRAY","element":{"type":"ROW","nullable":true,"fields":[]}"#,
    )]);
    let mut d = decoder(&table, writer);
    let mut image = Vec::new();
    let error = d
        .decode_one_binary(&message, &mut image)
        .unwrap_err()
        .to_string();
    assert!(error.contains("items that take no bytes"), "{error}");
    assert!(image.is_empty());
}

/// Records whose every field the reader skips (or fills from a default) take no bytes
/// either; `fixed(0)` neither.
#[test]
fn records_of_skipped_fields_and_fixed_zero_count_as_zero_width() {
    // `fixed` resolves only against a reader `fixed`: the `schema` option gives one.
    let cases = [
        (
            r#"{"type":"record","name":"I","fields":[{"name":"gone","type":"null"}]}"#,
            r#""ARRAY","element":{"type":"ROW","nullable":true,"fields":[{"name":"a","type":{"type":"INT","nullable":true}}]}"#,
            false,
        ),
        (
            r#"{"type":"fixed","name":"F","size":0}"#,
            r#""ARRAY","element":{"type":"BINARY","nullable":true,"length":1}"#,
            true,
        ),
    ];
    for (items, element, explicit) in cases {
        let writer = format!(
            r#"{{"type":"record","name":"R","fields":[{{"name":"xs","type":{{"type":"array","items":{items}}}}}]}}"#
        );
        let reader = explicit.then(|| writer.clone());
        let mut body = Vec::new();
        for _ in 0..64 {
            zigzag(1 << 20, &mut body);
        }
        zigzag(0, &mut body);
        let message = framed(&body);
        let table = row(&[field("xs", element)]);
        let [binary, arrow] = within(120, move || {
            let source = OneSchema::source(&writer);
            let mut d = AvroConfluentDecoder::new(&table, reader.as_deref(), source).unwrap();
            decode_both(&mut d, &message)
        });
        for result in [binary, arrow] {
            let error = result.unwrap_err();
            assert!(
                error.contains("items that take no bytes"),
                "{items}: {error}"
            );
        }
    }
}

/// Below the limit, zero-width items decode as Flink decodes them (one NULL per null, one
/// empty row per empty record), on both paths, across blocks.
#[test]
fn zero_width_items_below_the_limit_decode_as_in_flink() {
    let writer = r#"{"type":"record","name":"R","fields":[
      {"name":"nulls","type":{"type":"array","items":"null"}},
      {"name":"empties","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]}"#;
    let mut body = Vec::new();
    for _ in 0..2 {
        zigzag(3, &mut body);
        zigzag(-2, &mut body);
        zigzag(0, &mut body);
        zigzag(0, &mut body);
    }
    let message = framed(&body);
    let table = row(&[
        field(
            "nulls",
            r#""ARRAY","element":{"type":"NULL","nullable":true}"#,
        ),
        field(
            "empties",
            r#""ARRAY","element":{"type":"ROW","nullable":true,"fields":[]}"#,
        ),
    ]);
    let mut d = decoder(&table, writer);
    let batch = d.decode_one(&message).unwrap();
    for column in batch.columns() {
        let list = column
            .as_any()
            .downcast_ref::<arrow_array::ListArray>()
            .unwrap();
        assert_eq!(list.value_length(0), 5);
    }
    let mut image = Vec::new();
    d.decode_one_binary(&message, &mut image).unwrap();
    let mut images = karrow_codecs::flink_binary::RowImages::default();
    karrow_codecs::flink_binary::write_batch_rows(&batch, &table, &mut images).unwrap();
    assert_eq!(
        image, images.bytes,
        "the binary rows equal the Arrow path's"
    );
}

/// Java Avro's own limit on one collection (`SystemLimitException`, 2^31 - 9 items by
/// default), with its text, before any item is read.
#[test]
fn collections_past_java_avros_limit_fail_with_its_message() {
    let writer = r#"{"type":"record","name":"R","fields":[
      {"name":"xs","type":{"type":"array","items":"null"}},
      {"name":"m","type":{"type":"map","values":"int"}}]}"#;
    let table = row(&[
        field("xs", r#""ARRAY","element":{"type":"NULL","nullable":true}"#),
        field(
            "m",
            r#""MAP","key":{"type":"VARCHAR","nullable":true,"length":2147483647},"value":{"type":"INT","nullable":true}"#,
        ),
    ]);
    // The limit is on the whole collection: a block of 10 items, then one of 2^31 - 13.
    let mut arrays = Vec::new();
    zigzag(10, &mut arrays);
    zigzag(2_147_483_635, &mut arrays);
    let mut maps = Vec::new();
    zigzag(0, &mut maps);
    zigzag(2_147_483_640, &mut maps);
    for body in [arrays, maps] {
        let mut d = decoder(&table, writer);
        for result in decode_both(&mut d, &framed(&body)) {
            let error = result.unwrap_err();
            assert!(
                error.contains(
                    "Cannot read collections larger than 2147483639 items in Java library"
                ),
                "{error}"
            );
        }
    }
}
