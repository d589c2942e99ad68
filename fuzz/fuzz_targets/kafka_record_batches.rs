//! Kafka record batches (v2; CRC32C, control batches, compression, aborted transactions)
//! walked from a fetch offset to a stop offset the input chooses.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("kafka_record_batches").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("kafka_record_batches").run)(data)
);
