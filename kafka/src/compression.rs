//! The records of compressed batches, decompressed as Kafka's Java consumer decompresses
//! them: gzip, snappy (Xerial-framed as Kafka's Java producer writes it, or raw), lz4 (the
//! LZ4 frame format) and zstd.

use std::io::Read;

/// The most bytes one batch may decompress to (a guard against corrupt or hostile input).
const MAX_DECOMPRESSED: u64 = 256 * 1024 * 1024;

/// The Xerial snappy stream header: magic, then version and compatible version.
const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
const XERIAL_HEADER: usize = 16;

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
/// first).
pub fn decompress(codec: i16, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let result = match codec {
        1 => read_all(flate2::read::GzDecoder::new(input), out),
        2 => snappy(input, out),
        3 => read_all(lz4_flex::frame::FrameDecoder::new(input), out),
        4 => zstd(input, out),
        other => return Err(format!("compression codec {other} ({})", codec_name(other))),
    };
    result.map_err(|e| format!("{} decompression failed: {e}", codec_name(codec)))
}

fn read_all(reader: impl Read, out: &mut Vec<u8>) -> Result<(), String> {
    let read = reader
        .take(MAX_DECOMPRESSED + 1)
        .read_to_end(out)
        .map_err(|e| e.to_string())?;
    if read as u64 > MAX_DECOMPRESSED {
        return Err(format!("more than {MAX_DECOMPRESSED} bytes"));
    }
    Ok(())
}

fn snappy(input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    if !input.starts_with(&XERIAL_MAGIC) {
        return snappy_block(input, out);
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
        snappy_block(block, out)?;
        rest = tail;
    }
    Ok(())
}

fn snappy_block(block: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let len = snap::raw::decompress_len(block).map_err(|e| e.to_string())?;
    if (out.len() + len) as u64 > MAX_DECOMPRESSED {
        return Err(format!("more than {MAX_DECOMPRESSED} bytes"));
    }
    let start = out.len();
    out.resize(start + len, 0);
    snap::raw::Decoder::new()
        .decompress(block, &mut out[start..])
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn zstd(input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let mut rest = input;
    while !rest.is_empty() {
        let decoder =
            ruzstd::decoding::StreamingDecoder::new(&mut rest).map_err(|e| e.to_string())?;
        let budget = MAX_DECOMPRESSED.saturating_sub(out.len() as u64);
        let read = decoder
            .take(budget + 1)
            .read_to_end(out)
            .map_err(|e| e.to_string())?;
        if read as u64 > budget {
            return Err(format!("more than {MAX_DECOMPRESSED} bytes"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
}
