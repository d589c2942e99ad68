//! Kafka Fetch v12 response bodies: parsed, then every partition's record batches walked as
//! the native source walks them (read_uncommitted and read_committed).
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("kafka_fetch_response").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("kafka_fetch_response").run)(data)
);
