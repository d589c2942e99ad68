//! A writer schema from the input (parsed as Java Avro parses it, resolved against one of the
//! harness's tables) and a value decoded with it by both paths, which must agree.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("avro_writer_schema").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("avro_writer_schema").run)(data)
);
