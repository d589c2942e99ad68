//! JSON values (`json` format) of the harness's tables under every option set: the
//! streaming and the tree decoder, `ignore-parse-errors`, `fail-on-missing-field`, both
//! timestamp standards.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;

use karrow_codecs::json::JsonRowDecoder;
use karrow_fuzz::{json, sql_types, Input};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static DECODERS: RefCell<HashMap<(usize, u8), JsonRowDecoder>> = RefCell::new(HashMap::new());
}

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(|| karrow_fuzz::json::seeds(false)), |data: &[u8]| {
    let mut input = Input::new(data);
    let row = input.byte() as usize % json::ROWS.len();
    let bits = input.byte() & 0x0f;
    let message = input.rest();
    DECODERS.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((row, bits)).or_insert_with(|| {
            JsonRowDecoder::new(&sql_types::parse(json::ROWS[row]), json::options(bits))
                .expect("the harness's tables make decoders")
        });
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let result = decoder.decode_message(message, &mut out, &mut ends);
        if json::options(bits).ignore_parse_errors {
            assert!(result.is_ok(), "ignore-parse-errors never fails a value: {result:?}");
        }
        assert!(ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e == out.len()));
    });
});
