//! `.proto` text (registry schemas of `protobuf-confluent-native`): compiled, each message
//! located by its Confluent index path and back, a decoder compiled for its row type.
#![no_main]

use std::collections::HashMap;

use karrow_codecs::protobuf::confluent::CompiledSchema;
use karrow_codecs::protobuf::{ProtobufOptions, ProtobufRowDecoder};
use karrow_fuzz::protobuf;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::protobuf::text_seeds), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(schema) = CompiledSchema::compile("fuzz.proto", text, &HashMap::new()) else {
        return;
    };
    for message in schema.file().messages().take(8) {
        if let Ok(path) = schema.index_path(&message) {
            let _ = schema.message_at(&path);
        }
        let _ = schema.find_message(message.full_name());
        let row = protobuf::row_type(&message, 2);
        if let Ok(mut decoder) = ProtobufRowDecoder::new(&message, &row, ProtobufOptions::default()) {
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            let _ = decoder.decode_message(&[], &mut out, &mut ends);
        }
    }
});
