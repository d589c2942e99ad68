//! Avro rows decoded with Flink's derived schema as the writer, encoded, decoded and encoded
//! again: the second encoding must equal the first and decode to the same row (the first
//! decode may differ from the second in map entry order: the encoder writes entries in Java
//! `HashMap` order, as Flink does).
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("avro_roundtrip").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("avro_roundtrip").run)(data)
);
