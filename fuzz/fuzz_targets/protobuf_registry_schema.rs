//! A registered Protobuf schema in either form a registry answers (`.proto` text or a base64
//! `FileDescriptorProto`), turned into text and compiled as `protobuf-confluent-native`'s
//! decoder does. The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("protobuf_registry_schema").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("protobuf_registry_schema").run)(data)
);
