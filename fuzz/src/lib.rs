//! What the fuzz targets share: a reader over the fuzzer's bytes, Flink row types written
//! as SQL, and the fixed schemas each decoder target picks from (so that most of the input
//! goes into the message, where the decoders' work is).
//!
//! A target decodes what it is given and ignores `Err`: every error is a valid outcome. What
//! the fuzzer looks for is a panic (every input-dependent path must return an error), an
//! abort (an allocation libFuzzer's `-malloc_limit_mb` refuses), a timeout (a hang or a
//! cost far beyond the input's size), and a stack overflow. Where two paths must agree
//! (Avro's row writer and its Arrow decoders), the target asserts that they do.

pub mod avro;
pub mod json;
pub mod kafka;
pub mod producer;
pub mod protobuf;
pub mod registry;
pub mod sasl;
pub mod sql_types;
pub mod targets;

/// Reads the fuzzer's bytes front to back; a read past the end gives zeros / empty slices,
/// so every input is usable.
pub struct Input<'a> {
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Input { bytes }
    }

    /// The next byte (0 at the end).
    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => 0,
        }
    }

    /// The next `n` bytes, or what is left.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.bytes.split_at(n.min(self.bytes.len()));
        self.bytes = rest;
        head
    }

    /// A part prefixed by its two-byte big-endian length.
    pub fn part(&mut self) -> &'a [u8] {
        let n = u16::from_be_bytes([self.byte(), self.byte()]) as usize;
        self.take(n)
    }

    /// Everything left.
    pub fn rest(self) -> &'a [u8] {
        self.bytes
    }
}

/// Seeds: when `KARROW_FUZZ_SEEDS` names a directory, writes `seeds` there (one file
/// each, named by content so reruns add nothing) and ends the process. Each target calls
/// this from libFuzzer's init hook, so its seeds live next to it and `run.sh` needs no
/// separate (uninstrumented) build to write them.
pub fn write_seeds_if_asked(seeds: impl FnOnce() -> Vec<Vec<u8>>) {
    let Some(dir) = std::env::var_os("KARROW_FUZZ_SEEDS") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("the seed directory can be made");
    for seed in seeds() {
        let name = format!("seed-{:016x}", fnv1a(&seed));
        std::fs::write(dir.join(name), &seed).expect("a seed can be written");
    }
    std::process::exit(0);
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes the part layout [`Input::part`] reads (for seeds).
pub fn put_part(out: &mut Vec<u8>, part: &[u8]) {
    let n = u16::try_from(part.len()).expect("seed parts are small");
    out.extend_from_slice(&n.to_be_bytes());
    out.extend_from_slice(part);
}

/// The Confluent header: magic byte 0 and the schema id, big-endian.
pub fn confluent_header(id: i32) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out
}
