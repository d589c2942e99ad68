//! The dev registry's request handling: one connection's bytes, served in memory.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("registry_request").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("registry_request").run)(data)
);
