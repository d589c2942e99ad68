//! Serialized `FileDescriptorSet`s (what the Java side takes from a generated class): each
//! message resolved, a decoder compiled for flink-protobuf's row type, and a value decoded.
#![no_main]

use karrow_codecs::protobuf::{message_from_descriptor_set, ProtobufOptions, ProtobufRowDecoder};
use karrow_fuzz::{protobuf, Input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::protobuf::descriptor_set_seeds), |data: &[u8]| {
    let mut input = Input::new(data);
    let set = input.part();
    let payload = input.rest();
    for name in protobuf::message_names(set).iter().take(8) {
        let Ok(message) = message_from_descriptor_set(set, name) else {
            continue;
        };
        let row = protobuf::row_type(&message, 2);
        let Ok(mut decoder) = ProtobufRowDecoder::new(&message, &row, ProtobufOptions::default()) else {
            continue;
        };
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let _ = decoder.decode_message(payload, &mut out, &mut ends);
    }
});
