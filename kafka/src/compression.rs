//! The records of compressed batches, decompressed as Kafka's Java consumer decompresses
//! them: gzip, snappy (Xerial-framed as Kafka's Java producer writes it, or raw), lz4 (the
//! LZ4 frame format) and zstd; and compressed in the framing Kafka's Java producer writes
//! ([`compress`]).
//!
//! The compressors: gzip by `flate2` on `miniz_oxide` (pure Rust, deflate at Java's levels),
//! snappy by `snap` (pure Rust) in Xerial's stream framing with 32 KiB blocks (what
//! `SnappyOutputStream` writes), lz4 by `lz4_flex` (pure Rust) in the LZ4 frame format with
//! the flags `Lz4BlockOutputStream` writes (64 KiB independent blocks, no checksums, no
//! content size; the fast compressor, which is Kafka's default level), and zstd by libzstd
//! through the `zstd` crate: the only pure-Rust encoder (`ruzstd`) implements level 1 alone,
//! and Kafka's default is level 3, which libzstd (the library zstd-jni wraps) runs exactly.

use std::io::{Read, Write};

/// The most bytes one batch may decompress to (a guard against corrupt or hostile input).
pub const MAX_DECOMPRESSED: u64 = 256 * 1024 * 1024;

/// The Xerial snappy stream header: magic, then version and compatible version.
const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
const XERIAL_HEADER: usize = 16;

/// A compression codec and its level, as `compression.type` and `compression.<codec>.level`
/// configure Kafka's Java producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// No compression.
    None,
    /// gzip at a deflate level (1-9; Kafka's default -1 is deflate's 6).
    Gzip(u32),
    /// snappy.
    Snappy,
    /// lz4 (Kafka's default level: the fast compressor).
    Lz4,
    /// zstd at a level (Kafka's default 3).
    Zstd(i32),
}

impl Codec {
    /// The codec's id in a batch's attributes.
    pub fn id(self) -> i16 {
        match self {
            Codec::None => 0,
            Codec::Gzip(_) => 1,
            Codec::Snappy => 2,
            Codec::Lz4 => 3,
            Codec::Zstd(_) => 4,
        }
    }
}

/// Xerial's stream framing cuts snappy input into blocks of this many bytes
/// (`SnappyOutputStream`'s default block size).
const XERIAL_BLOCK: usize = 32 * 1024;

/// Appends `input` compressed with `codec` to `out`, in the framing Kafka's Java producer
/// writes. [`Codec::None`] appends it as it is.
pub fn compress(codec: Codec, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let failed =
        |e: &dyn std::fmt::Display| format!("{} compression failed: {e}", codec_name(codec.id()));
    match codec {
        Codec::None => out.extend_from_slice(input),
        Codec::Gzip(level) => {
            let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::new(level.min(9)));
            gz.write_all(input).map_err(|e| failed(&e))?;
            gz.finish().map_err(|e| failed(&e))?;
        }
        Codec::Snappy => {
            out.extend_from_slice(&XERIAL_MAGIC);
            out.extend_from_slice(&1i32.to_be_bytes()); // version
            out.extend_from_slice(&1i32.to_be_bytes()); // compatible version
            let mut encoder = snap::raw::Encoder::new();
            for block in input.chunks(XERIAL_BLOCK) {
                let at = out.len();
                out.resize(at + 4 + snap::raw::max_compress_len(block.len()), 0);
                let n = encoder
                    .compress(block, &mut out[at + 4..])
                    .map_err(|e| failed(&e))?;
                out[at..at + 4].copy_from_slice(&(n as u32).to_be_bytes());
                out.truncate(at + 4 + n);
            }
        }
        Codec::Lz4 => {
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .block_mode(lz4_flex::frame::BlockMode::Independent)
                .block_checksums(false)
                .content_checksum(false);
            let mut lz = lz4_flex::frame::FrameEncoder::with_frame_info(info, out);
            lz.write_all(input).map_err(|e| failed(&e))?;
            lz.finish().map_err(|e| failed(&e))?;
        }
        Codec::Zstd(level) => {
            let at = out.len();
            out.resize(at + zstd::zstd_safe::compress_bound(input.len()), 0);
            let n = zstd::bulk::compress_to_buffer(input, &mut out[at..], level)
                .map_err(|e| failed(&e))?;
            out.truncate(at + n);
        }
    }
    Ok(())
}

/// Kafka's name of compression codec `codec` (the low three attribute bits).
pub fn codec_name(codec: i16) -> &'static str {
    match codec {
        0 => "none",
        1 => "gzip",
        2 => "snappy",
        3 => "lz4",
        4 => "zstd",
        _ => "unknown",
    }
}

/// Decompresses the records part of a batch compressed with `codec` into `out` (cleared
/// first), to at most [`MAX_DECOMPRESSED`] bytes.
pub fn decompress(codec: i16, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    decompress_bounded(codec, input, out, MAX_DECOMPRESSED)
}

/// [`decompress`] to at most `cap` bytes: past it the call fails, and `out` never holds
/// (nor allocates) more than `cap` bytes, whatever the codec and the input.
pub fn decompress_bounded(
    codec: i16,
    input: &[u8],
    out: &mut Vec<u8>,
    cap: u64,
) -> Result<(), String> {
    out.clear();
    let result = match codec {
        1 => read_bounded(flate2::read::GzDecoder::new(input), out, cap),
        2 => snappy(input, out, cap),
        3 => read_bounded(lz4_flex::frame::FrameDecoder::new(input), out, cap),
        4 => zstd(input, out, cap),
        other => return Err(format!("compression codec {other} ({})", codec_name(other))),
    };
    result.map_err(|e| format!("{} decompression failed: {e}", codec_name(codec)))
}

/// Appends what `reader` gives to `out`, failing once `out` would hold more than `cap`
/// bytes. Unlike `read_to_end`, the buffer never grows past `cap`: it doubles while below
/// it, then one byte is read into a scratch byte to tell "exactly `cap`" from "more".
fn read_bounded(mut reader: impl Read, out: &mut Vec<u8>, cap: u64) -> Result<(), String> {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let mut filled = out.len();
    let result = loop {
        if filled >= cap {
            let mut probe = [0u8; 1];
            break match read_some(&mut reader, &mut probe) {
                Ok(0) => Ok(()),
                Ok(_) => Err(format!("more than {cap} bytes")),
                Err(e) => Err(e),
            };
        }
        if filled == out.len() {
            // Zero-filled once per growth: doubling, never past the cap.
            let grow = out.len().max(8 * 1024).min(cap - filled);
            out.reserve_exact(grow);
            out.resize(filled + grow, 0);
        }
        match read_some(&mut reader, &mut out[filled..]) {
            Ok(0) => break Ok(()),
            Ok(n) => filled += n,
            Err(e) => break Err(e),
        }
    };
    out.truncate(filled);
    result
}

/// One `read`, retried on `Interrupted`.
fn read_some(reader: &mut impl Read, buf: &mut [u8]) -> Result<usize, String> {
    loop {
        match reader.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The most a snappy block expands: every element of the format is a literal (one byte
/// out per byte in) or a copy of at most 64 bytes from a tag of at least two bytes (the
/// densest, a two-byte-offset copy, gives 64 bytes for 3), so a block claiming more than
/// this many times its size is corrupt, and is refused before its claim is allocated.
const SNAPPY_MAX_EXPANSION: usize = 32;

fn snappy(input: &[u8], out: &mut Vec<u8>, cap: u64) -> Result<(), String> {
    if !input.starts_with(&XERIAL_MAGIC) {
        return snappy_block(input, out, cap);
    }
    let mut rest = input
        .get(XERIAL_HEADER..)
        .ok_or("a truncated Xerial header")?;
    while !rest.is_empty() {
        let (len, tail) = rest
            .split_at_checked(4)
            .ok_or("a truncated Xerial block length")?;
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let (block, tail) = tail
            .split_at_checked(len)
            .ok_or("a Xerial block longer than the batch")?;
        snappy_block(block, out, cap)?;
        rest = tail;
    }
    Ok(())
}

fn snappy_block(block: &[u8], out: &mut Vec<u8>, cap: u64) -> Result<(), String> {
    let len = snap::raw::decompress_len(block).map_err(|e| e.to_string())?;
    if len > block.len().saturating_mul(SNAPPY_MAX_EXPANSION) {
        return Err(format!(
            "a block of {} bytes claims {len} bytes, more than snappy expands to",
            block.len()
        ));
    }
    let total = out.len().saturating_add(len);
    if total as u64 > cap {
        return Err(format!("more than {cap} bytes"));
    }
    let start = out.len();
    if total > out.capacity() {
        // Doubling, as `resize` would, but never past the cap.
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        let target = out.capacity().saturating_mul(2).min(cap).max(total);
        out.reserve_exact(target - start);
    }
    out.resize(total, 0);
    snap::raw::Decoder::new()
        .decompress(block, &mut out[start..])
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn zstd(input: &[u8], out: &mut Vec<u8>, cap: u64) -> Result<(), String> {
    let mut rest = input;
    while !rest.is_empty() {
        // ruzstd refuses frames whose window is over 128 MiB (zstd-jni's default limit).
        let decoder =
            ruzstd::decoding::StreamingDecoder::new(&mut rest).map_err(|e| e.to_string())?;
        read_bounded(decoder, out, cap)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] =
        b"karrow reads compressed Kafka batches; karrow reads compressed Kafka batches";

    #[test]
    fn every_codec_and_xerial_snappy_round_trip() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(TEXT).unwrap();
        let gz = gz.finish().unwrap();
        let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
        lz.write_all(TEXT).unwrap();
        let lz = lz.finish().unwrap();
        let raw = snap::raw::Encoder::new().compress_vec(TEXT).unwrap();
        let mut xerial = XERIAL_MAGIC.to_vec();
        xerial.extend_from_slice(&1i32.to_be_bytes());
        xerial.extend_from_slice(&1i32.to_be_bytes());
        for half in [&TEXT[..30], &TEXT[30..]] {
            let block = snap::raw::Encoder::new().compress_vec(half).unwrap();
            xerial.extend_from_slice(&(block.len() as u32).to_be_bytes());
            xerial.extend_from_slice(&block);
        }
        let zst =
            ruzstd::encoding::compress_to_vec(TEXT, ruzstd::encoding::CompressionLevel::Fastest);
        let mut two_frames = zst.clone();
        two_frames.extend_from_slice(&zst);
        let mut out = Vec::new();
        decompress(4, &two_frames, &mut out).unwrap();
        assert_eq!(out, [TEXT, TEXT].concat(), "two zstd frames");
        for (codec, input) in [(1, &gz), (3, &lz), (2, &raw), (2, &xerial), (4, &zst)] {
            decompress(codec, input, &mut out).unwrap();
            assert_eq!(out, TEXT, "codec {codec}");
        }
    }

    #[test]
    fn compressed_output_decompresses_to_the_input_for_every_codec() {
        let big: Vec<u8> = (0..200_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 7) as u8)
            .collect();
        for input in [&b""[..], TEXT, &big] {
            for codec in [
                Codec::None,
                Codec::Gzip(1),
                Codec::Gzip(6),
                Codec::Snappy,
                Codec::Lz4,
                Codec::Zstd(3),
            ] {
                let mut out = b"prefix".to_vec();
                compress(codec, input, &mut out).unwrap();
                assert_eq!(&out[..6], b"prefix");
                if codec == Codec::None {
                    assert_eq!(&out[6..], input);
                    continue;
                }
                let mut back = Vec::new();
                decompress(codec.id(), &out[6..], &mut back).unwrap();
                assert_eq!(back, input, "{codec:?} of {} bytes", input.len());
            }
        }
        // Snappy is Xerial-framed in 32 KiB blocks; lz4 carries Kafka's frame flags.
        let mut out = Vec::new();
        compress(Codec::Snappy, &big, &mut out).unwrap();
        assert!(out.starts_with(&XERIAL_MAGIC));
        let mut lz = Vec::new();
        compress(Codec::Lz4, TEXT, &mut lz).unwrap();
        // Magic, then FLG 0x60 (version 1, independent blocks), BD 0x40 (64 KiB).
        assert_eq!(&lz[..6], &[0x04, 0x22, 0x4d, 0x18, 0x60, 0x40]);
    }

    #[test]
    fn corrupt_input_and_unknown_codecs_are_errors_naming_the_codec() {
        let mut out = Vec::new();
        assert!(decompress(1, b"not gzip", &mut out)
            .unwrap_err()
            .contains("gzip"));
        assert!(decompress(4, b"not zstd", &mut out)
            .unwrap_err()
            .contains("zstd"));
        assert!(decompress(6, b"", &mut out)
            .unwrap_err()
            .contains("codec 6"));
        let mut truncated = XERIAL_MAGIC.to_vec();
        truncated.extend_from_slice(&[0; 8]);
        truncated.extend_from_slice(&100u32.to_be_bytes());
        assert!(decompress(2, &truncated, &mut out)
            .unwrap_err()
            .contains("longer than the batch"));
    }

    /// Just over the cap, as zeros: what a bomb decompresses to.
    const BOMB: u64 = MAX_DECOMPRESSED + 1024;

    /// A batch's records that decompress to [`BOMB`] zero bytes, with `codec`, built from
    /// a stream so the test never holds the decompressed bytes itself.
    pub(crate) fn bomb(codec: i16) -> Vec<u8> {
        let zeros = || std::io::repeat(0).take(BOMB);
        match codec {
            1 => {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                std::io::copy(&mut zeros(), &mut gz).unwrap();
                gz.finish().unwrap()
            }
            2 => {
                // Xerial blocks of 32 KiB of zeros, each small, together past the cap.
                let block = snap::raw::Encoder::new()
                    .compress_vec(&[0u8; XERIAL_BLOCK])
                    .unwrap();
                let mut out = XERIAL_MAGIC.to_vec();
                out.extend_from_slice(&1i32.to_be_bytes());
                out.extend_from_slice(&1i32.to_be_bytes());
                for _ in 0..BOMB.div_ceil(XERIAL_BLOCK as u64) {
                    out.extend_from_slice(&(block.len() as u32).to_be_bytes());
                    out.extend_from_slice(&block);
                }
                out
            }
            3 => {
                let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
                std::io::copy(&mut zeros(), &mut lz).unwrap();
                lz.finish().unwrap()
            }
            4 => {
                let mut out = Vec::new();
                zstd::stream::copy_encode(zeros(), &mut out, 3).unwrap();
                out
            }
            other => panic!("no codec {other}"),
        }
    }

    /// A decompression bomb of every codec fails at the cap, and the output buffer never
    /// grew past it (it used to double to 512 MiB on the way).
    #[test]
    fn a_bomb_of_every_codec_stops_at_the_cap_without_allocating_past_it() {
        for codec in 1..=4 {
            let input = bomb(codec);
            assert!(
                input.len() < 16 * 1024 * 1024,
                "codec {codec}: a small input"
            );
            let mut out = Vec::new();
            let e = decompress(codec, &input, &mut out).unwrap_err();
            assert!(
                e.contains(codec_name(codec)) && e.contains(&MAX_DECOMPRESSED.to_string()),
                "codec {codec}: {e}"
            );
            assert!(
                out.capacity() as u64 <= MAX_DECOMPRESSED,
                "codec {codec}: {} bytes allocated",
                out.capacity()
            );
        }
    }

    /// A raw snappy block claims its length up front: a claim the block cannot expand to
    /// is refused before anything is allocated for it.
    #[test]
    fn a_snappy_length_the_block_cannot_hold_is_refused_before_allocating() {
        // Varint 200 MiB, then a few bytes of "data".
        let mut block = Vec::new();
        let mut claim: u64 = 200 * 1024 * 1024;
        while claim >= 0x80 {
            block.push(claim as u8 | 0x80);
            claim >>= 7;
        }
        block.push(claim as u8);
        block.extend_from_slice(&[0, 1, 2, 3]);
        let mut out = Vec::new();
        let e = decompress(2, &block, &mut out).unwrap_err();
        assert!(e.contains("more than snappy expands to"), "{e}");
        assert!(out.capacity() < 1024 * 1024, "{}", out.capacity());
        // A claim just past the cap with the room to expand to it is refused by the cap.
        let e = decompress(2, &bomb(2)[..], &mut out).unwrap_err();
        assert!(e.contains("more than"), "{e}");
    }

    #[test]
    fn exactly_the_cap_is_not_an_error_for_the_bounded_reader() {
        let mut out = Vec::new();
        read_bounded(std::io::repeat(7).take(10_000), &mut out, 10_000).unwrap();
        assert_eq!((out.len(), out.capacity()), (10_000, 10_000));
        let mut out = Vec::new();
        assert!(read_bounded(std::io::repeat(7).take(10_001), &mut out, 10_000).is_err());
        assert_eq!(out.capacity(), 10_000);
    }
}
