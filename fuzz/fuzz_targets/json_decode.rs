//! JSON values (`json` format) of the harness's tables under every option set: the
//! streaming and the tree decoder, `ignore-parse-errors`, `fail-on-missing-field`, both
//! timestamp standards.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("json_decode").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("json_decode").run)(data)
);
