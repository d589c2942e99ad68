//! Protobuf values (`protobuf` format) of every message of the parity tests' `.proto` files
//! (proto2, proto3, editions, a recursive message), with `ignore-parse-errors` and
//! `read-default-values` on and off.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("protobuf_decode").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("protobuf_decode").run)(data)
);
