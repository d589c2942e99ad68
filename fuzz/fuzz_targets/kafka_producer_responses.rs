//! Every response the native producer parses (Produce, Metadata, ApiVersions, InitProducerId,
//! AddPartitionsToTxn, FindCoordinator, EndTxn), and what it derives from them.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("kafka_producer_responses").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("kafka_producer_responses").run)(data)
);
