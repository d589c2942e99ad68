//! Confluent-framed Protobuf values (`protobuf-confluent-native`): header, message indexes
//! and payload, the writer schema one of the parity tests' `.proto` files (imports served as
//! references), under both option sets.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("protobuf_confluent_decode").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("protobuf_confluent_decode").run)(data)
);
