//! `.proto` text (registry schemas of `protobuf-confluent-native`): compiled, each message
//! located by its Confluent index path and back, a decoder compiled for its row type.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("proto_text").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("proto_text").run)(data)
);
