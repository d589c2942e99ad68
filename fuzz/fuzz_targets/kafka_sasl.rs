//! The native client's SASL exchange: SaslHandshake / SaslAuthenticate responses and SCRAM's
//! server messages. The harness is `karrow_fuzz::targets` (replayed over seeds and kept
//! inputs by `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("kafka_sasl").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("kafka_sasl").run)(data)
);
