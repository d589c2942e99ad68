//! Message files: what `--input` reads and `--save-messages` writes.
//!
//! Two layouts, chosen with `--input-format`:
//! - `length-prefixed` (default): per message a 4-byte big-endian length, then the
//!   message bytes; the length `0xFFFFFFFF` is a null value (a Kafka tombstone, no row).
//! - `base64-lines`: one message per line in standard base64; a line `-` is a null value.
//!
//! The JVM harness reads the length-prefixed layout (the CLI always hands it one), and
//! `--topic` input arrives in it (written by the JVM class `TopicDump`, see `topic`).

use std::io::Write;
use std::path::Path;

use base64::Engine;
use clap::ValueEnum;

use super::error::BenchError;

/// The layout of a message file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MessageFileFormat {
    /// 4-byte big-endian length per message (`0xFFFFFFFF` = null value), then the bytes.
    LengthPrefixed,
    /// One standard-base64 message per line (`-` = null value).
    Base64Lines,
}

const NULL_LENGTH: u32 = u32::MAX;

/// Kafka values in input order; `None` is a null value.
pub type Messages = Vec<Option<Vec<u8>>>;

/// Reads a message file.
pub fn read(path: &Path, format: MessageFileFormat) -> Result<Messages, BenchError> {
    let data = std::fs::read(path).map_err(|e| BenchError::io(path, e))?;
    let bad = |m: String| BenchError::Messages(format!("{}: {m}", path.display()));
    match format {
        MessageFileFormat::LengthPrefixed => {
            let mut out = Vec::new();
            let mut at = 0usize;
            while at < data.len() {
                let prefix: [u8; 4] = data
                    .get(at..at + 4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| bad(format!("truncated length prefix at byte {at}")))?;
                at += 4;
                let len = u32::from_be_bytes(prefix);
                if len == NULL_LENGTH {
                    out.push(None);
                    continue;
                }
                let end = at
                    .checked_add(len as usize)
                    .filter(|&end| end <= data.len())
                    .ok_or_else(|| {
                        bad(format!(
                            "message {} at byte {} claims {len} bytes, only {} left (is this a length-prefixed file?)",
                            out.len(),
                            at - 4,
                            data.len() - at
                        ))
                    })?;
                out.push(Some(data[at..end].to_vec()));
                at = end;
            }
            Ok(out)
        }
        MessageFileFormat::Base64Lines => {
            let text = std::str::from_utf8(&data).map_err(|_| bad("not UTF-8 text".into()))?;
            let engine = base64::engine::general_purpose::STANDARD;
            text.lines()
                .enumerate()
                .map(|(i, line)| {
                    let line = line.trim();
                    if line == "-" {
                        Ok(None)
                    } else {
                        engine
                            .decode(line)
                            .map(Some)
                            .map_err(|e| bad(format!("line {}: not base64: {e}", i + 1)))
                    }
                })
                .collect()
        }
    }
}

/// Writes messages in the length-prefixed layout.
pub fn write_length_prefixed(path: &Path, messages: &Messages) -> Result<(), BenchError> {
    let mut out = Vec::with_capacity(
        messages
            .iter()
            .map(|m| 4 + m.as_ref().map_or(0, Vec::len))
            .sum(),
    );
    for m in messages {
        match m {
            None => out.extend_from_slice(&NULL_LENGTH.to_be_bytes()),
            Some(bytes) => {
                let len = u32::try_from(bytes.len())
                    .ok()
                    .filter(|&l| l != NULL_LENGTH)
                    .ok_or_else(|| BenchError::Messages("a message exceeds 4 GiB".into()))?;
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(bytes);
            }
        }
    }
    let mut file = std::fs::File::create(path).map_err(|e| BenchError::io(path, e))?;
    file.write_all(&out).map_err(|e| BenchError::io(path, e))
}
