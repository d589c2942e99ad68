//! A writer schema from the input (parsed as Java Avro parses it, resolved against one of the
//! harness's tables) and a value decoded with it by both paths, which must agree.
#![no_main]

use karrow_fuzz::{avro, sql_types, Input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::avro::writer_schema_seeds), |data: &[u8]| {
    let mut input = Input::new(data);
    let case = &avro::CASES[input.byte() as usize % avro::CASES.len()];
    let Ok(writer) = std::str::from_utf8(input.part()) else {
        return;
    };
    let message = input.rest();
    let row = sql_types::parse(case.row);
    if let Some(mut decoder) = avro::decoder(&row, None, writer) {
        avro::decode_both(&mut decoder, &row, message);
    }
});
