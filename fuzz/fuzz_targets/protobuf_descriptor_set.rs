//! Serialized `FileDescriptorSet`s (what the Java side takes from a generated class): each
//! message resolved, a decoder compiled for flink-protobuf's row type, and a value decoded.
//! The harness is `karrow_fuzz::targets` (replayed over seeds and kept inputs by
//! `tests/replay.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::targets::target("protobuf_descriptor_set").seeds),
    |data: &[u8]| (karrow_fuzz::targets::target("protobuf_descriptor_set").run)(data)
);
