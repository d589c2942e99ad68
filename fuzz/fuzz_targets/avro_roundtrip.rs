//! Avro rows decoded with Flink's derived schema as the writer, encoded, decoded and encoded
//! again: the second encoding must equal the first and decode to the same row (the first
//! decode may differ from the second in map entry order: the encoder writes entries in Java
//! `HashMap` order, as Flink does).
#![no_main]

use karrow_codecs::avro::{AvroConfluentEncoder, EncodedBatch};
use karrow_fuzz::{avro, sql_types, Input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::avro::roundtrip_seeds), |data: &[u8]| {
    let mut input = Input::new(data);
    let case = &avro::CASES[input.byte() as usize % avro::CASES.len()];
    let message = input.rest();
    let row = sql_types::parse(case.row);
    let Ok(derived) = AvroConfluentEncoder::derived_schema(&row) else {
        return;
    };
    let Some(mut decoder) = avro::decoder(&row, None, &derived) else {
        return;
    };
    let mut image = Vec::new();
    if decoder.decode_one_binary(message, &mut image).is_err() {
        return;
    }
    let encoder = AvroConfluentEncoder::new(row.clone(), 1).expect("an encoder of the table");
    let mut encoded = EncodedBatch::default();
    encoder
        .encode_binary_rows([image.as_slice()], &mut encoded)
        .expect("a decoded row encodes");
    let mut again = Vec::new();
    decoder
        .decode_one_binary(&encoded.bytes, &mut again)
        .expect("an encoded row decodes");
    let mut encoded_again = EncodedBatch::default();
    encoder
        .encode_binary_rows([again.as_slice()], &mut encoded_again)
        .expect("a decoded row encodes");
    assert_eq!(encoded.bytes, encoded_again.bytes, "encode(decode(encode(row))) differs");
    let mut third = Vec::new();
    decoder
        .decode_one_binary(&encoded_again.bytes, &mut third)
        .expect("an encoded row decodes");
    assert_eq!(again, third, "decode(encode(row)) differs from row");
});
