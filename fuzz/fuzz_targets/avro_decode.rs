//! Confluent Avro values of the harness's (table, writer schema) pairs, decoded by both
//! paths (binary rows and Arrow), which must agree.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("avro_decode").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("avro_decode").run)(data)
);
