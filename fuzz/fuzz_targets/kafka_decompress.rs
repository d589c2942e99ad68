//! The records part of compressed batches: gzip, snappy (raw and Xerial), lz4 frames, zstd.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("kafka_decompress").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("kafka_decompress").run)(data)
);
