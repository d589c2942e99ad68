//! The records part of compressed batches: gzip, snappy (raw and Xerial), lz4 frames, zstd.
#![no_main]

use karrow_kafka::compression::decompress;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::kafka::decompress_seeds), |data: &[u8]| {
    let Some((&codec, input)) = data.split_first() else {
        return;
    };
    let mut out = Vec::new();
    let _ = decompress(i16::from(codec % 5), input, &mut out);
});
