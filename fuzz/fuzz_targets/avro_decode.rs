//! Confluent Avro values of the harness's (table, writer schema) pairs, decoded by both
//! paths (binary rows and Arrow), which must agree.
#![no_main]

use std::cell::RefCell;

use karrow_fuzz::{avro, Input};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static DECODERS: RefCell<Vec<Option<(karrow_codecs::avro::AvroConfluentDecoder, karrow_codecs::FlinkType)>>> =
        RefCell::new((0..avro::CASES.len()).map(|_| None).collect());
}

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::avro::decode_seeds), |data: &[u8]| {
    let mut input = Input::new(data);
    let case = input.byte() as usize % avro::CASES.len();
    let message = input.rest();
    DECODERS.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let (decoder, row) = decoders[case].get_or_insert_with(|| avro::case_decoder(case as u8));
        avro::decode_both(decoder, row, message);
    });
});
