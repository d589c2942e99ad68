//! Inputs the fuzz targets (`fuzz/`) found, kept as regression tests: the two Avro decode
//! paths (binary rows written while reading, and the Arrow decoders whose batches
//! `flink_binary::write_batch_rows` writes as rows) must write the same row image.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::flink_binary::{write_batch_rows, RowImages};
use karrow_codecs::FlinkType;

mod support;
use support::avro::OneSchema;

fn both_images(row: &str, writer: &'static str, message: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let row = FlinkType::from_json_str(row).unwrap();
    let mut decoder = AvroConfluentDecoder::new(&row, None, OneSchema::source(writer)).unwrap();
    let mut binary = Vec::new();
    decoder.decode_one_binary(message, &mut binary).unwrap();
    let batch = decoder.decode_one(message).unwrap();
    let mut images = RowImages::default();
    write_batch_rows(&batch, &row, &mut images).unwrap();
    (binary, images.bytes)
}

/// `m MAP<STRING, ROW<x INT, y MAP<STRING, STRING>>>`.
const MAP_OF_ROWS: &str = r#"{"type":"ROW","nullable":false,"fields":[
  {"name":"m","type":{"type":"MAP","nullable":true,
    "key":{"type":"VARCHAR","nullable":true,"length":2147483647},
    "value":{"type":"ROW","nullable":true,"fields":[
      {"name":"x","type":{"type":"INT","nullable":true}},
      {"name":"y","type":{"type":"MAP","nullable":true,
        "key":{"type":"VARCHAR","nullable":true,"length":2147483647},
        "value":{"type":"VARCHAR","nullable":true,"length":2147483647}}}]}}}]}"#;
/// The Avro writer schema of [`MAP_OF_ROWS`].
const MAP_OF_ROWS_WRITER: &str = r#"{"type":"record","name":"R","fields":[
  {"name":"m","type":{"type":"map","values":{"type":"record","name":"Val","fields":[
    {"name":"x","type":"int"},
    {"name":"y","type":["null",{"type":"map","values":"string"}]}]}}}]}"#;

/// `m MAP<STRING, ROW<x INT, y MAP<STRING, STRING>>>` = {a: {x: 1, y: NULL}}.
#[test]
fn a_map_of_rows() {
    let message = [0, 0, 0, 0, 1, 0x02, 0x02, b'a', 0x02, 0x00, 0x00];
    let (binary, arrow) = both_images(MAP_OF_ROWS, MAP_OF_ROWS_WRITER, &message);
    assert_eq!(binary, arrow);
}

/// `m` = {a: {x: 0, y: NULL}, b: {x: 1, y: {a: "\u{1}\u{fffd}\u{fffd}"}}}: the second row
/// holds a map, and sits in the value array at 4 mod 8. Flink pads the map's variable part
/// from the row's start, so the row is 64 bytes; the Arrow path padded from the buffer's
/// start and gave 60.
#[test]
fn a_map_of_rows_holding_maps() {
    let message = [
        0, 0, 0, 0, 1, 0x04, 0x02, b'a', 0x00, 0x00, 0x02, b'b', 0x02, 0x02, 0x01, 0x0c, 0x02,
        b'a', 0x06, 0x01, 0x86, 0xa0, 0x00, 0x00,
    ];
    let (binary, arrow) = both_images(MAP_OF_ROWS, MAP_OF_ROWS_WRITER, &message);
    assert_eq!(binary, arrow);
    // The second row's slot in the value array: size 64 at offset 48.
    let value_slot = 20 + 24 + 8 + 8;
    assert_eq!(
        &binary[value_slot..value_slot + 8],
        &[64, 0, 0, 0, 48, 0, 0, 0]
    );
}

/// Case 3 of the fuzz harness's tables, decoded with Flink's derived schema, encoded, decoded
/// and encoded again: the second encoding equals the first. (The first decode need not equal
/// the second: the encoder writes map entries in Java `HashMap` order, as Flink's
/// `RowDataToAvroConverters` does, which found the harness's first round-trip check wrong.)
#[test]
fn a_row_of_zero_width_arrays_and_maps_encodes_stably() {
    use karrow_codecs::avro::{AvroConfluentEncoder, EncodedBatch};
    let row_json = r#"{"type":"ROW","nullable":false,"fields":[
      {"name":"nulls","type":{"type":"ARRAY","nullable":true,"element":{"type":"NULL","nullable":true}}},
      {"name":"empties","type":{"type":"ARRAY","nullable":true,"element":{"type":"ROW","nullable":true,"fields":[]}}},
      {"name":"zero","type":{"type":"ARRAY","nullable":true,"element":{"type":"BINARY","nullable":true,"length":1}}},
      {"name":"defaults","type":{"type":"ARRAY","nullable":true,"element":{"type":"ROW","nullable":true,"fields":[
        {"name":"a","type":{"type":"INT","nullable":true}},
        {"name":"b","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}}},
      {"name":"m","type":{"type":"MAP","nullable":true,
        "key":{"type":"VARCHAR","nullable":true,"length":2147483647},
        "value":{"type":"ROW","nullable":true,"fields":[]}}},
      {"name":"after","type":{"type":"INT","nullable":true}}]}"#;
    let row = FlinkType::from_json_str(row_json).unwrap();
    let derived: &'static str = Box::leak(
        AvroConfluentEncoder::derived_schema(&row)
            .unwrap()
            .into_boxed_str(),
    );
    let mut decoder = AvroConfluentDecoder::new(&row, None, OneSchema::source(derived)).unwrap();
    let message = [
        0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x02, 0x04, 0x02,
        0x02, 0x02, 0x00, 0x00, 0x00, 0x02, 0x04, 0x02, 0x61, 0x00, 0x02, 0x62, 0x62, 0x02, 0x00,
        0x00,
    ];
    let mut image = Vec::new();
    decoder.decode_one_binary(&message, &mut image).unwrap();
    let encoder = AvroConfluentEncoder::new(row.clone(), 1).unwrap();
    let mut encoded = EncodedBatch::default();
    encoder
        .encode_binary_rows([image.as_slice()], &mut encoded)
        .unwrap();
    let mut again = Vec::new();
    decoder
        .decode_one_binary(&encoded.bytes, &mut again)
        .unwrap();
    let mut encoded_again = EncodedBatch::default();
    encoder
        .encode_binary_rows([again.as_slice()], &mut encoded_again)
        .unwrap();
    assert_eq!(encoded.bytes, encoded_again.bytes);
    // The map's two entries came back in HashMap order ("" before "\u{2}").
    assert_eq!(&encoded.bytes[13..16], &[0x04, 0x00, 0x00]);
}
