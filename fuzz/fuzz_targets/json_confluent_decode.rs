//! Confluent-framed JSON values (`json-confluent-native`), with and without
//! `validate-schema-id` (id 404 is unknown to the registry), under every option set.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("json_confluent_decode").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("json_confluent_decode").run)(data)
);
