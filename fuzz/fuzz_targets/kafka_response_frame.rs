//! A response frame's 4-byte size against a limit: bounded, never negative, a TLS record
//! named. The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("kafka_response_frame").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("kafka_response_frame").run)(data)
);
