//! Protobuf values (`protobuf` format) of every message of the parity tests' `.proto` files
//! (proto2, proto3, editions, a recursive message), with `ignore-parse-errors` and
//! `read-default-values` on and off.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;

use karrow_codecs::protobuf::ProtobufRowDecoder;
use karrow_fuzz::{protobuf, Input};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static DECODERS: RefCell<HashMap<(usize, u8), Option<ProtobufRowDecoder>>> = RefCell::new(HashMap::new());
}

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::protobuf::decode_seeds), |data: &[u8]| {
    let messages = protobuf::messages();
    let mut input = Input::new(data);
    let index = input.byte() as usize % messages.len();
    let bits = input.byte() & 3;
    let payload = input.rest();
    DECODERS.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((index, bits)).or_insert_with(|| {
            let message = &messages[index];
            ProtobufRowDecoder::new(message, &protobuf::row_type(message, 3), protobuf::options(bits)).ok()
        });
        let Some(decoder) = decoder else {
            return;
        };
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let result = decoder.decode_message(payload, &mut out, &mut ends);
        if bits & 1 != 0 {
            assert!(result.is_ok(), "ignore-parse-errors never fails a value: {result:?}");
        }
        assert!(ends.len() <= 1 && ends.last().is_none_or(|&e| e == out.len()));
    });
});
