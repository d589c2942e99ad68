//! Avro schema JSON: parsed as Java Avro parses it, then used as the `schema` option (the
//! reader schema) of each harness table, and resolved against itself as the writer.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("avro_schema").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("avro_schema").run)(data)
);
