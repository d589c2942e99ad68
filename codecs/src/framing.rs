//! Confluent's wire framing, read and written here for every format: the magic byte
//! `0x00`, then the schema id as a 4-byte big-endian signed integer, then the payload
//! (spec §3.1); for Protobuf the payload starts with the message-index array (spec §4.5).
//!
//! Two readers of the header share one parse and differ only in the messages their
//! failures carry: [`split_confluent`] those of Flink's `avro-confluent`, [`split_header`]
//! those of Confluent's JSON Schema and Protobuf deserializers.

use crate::error::{CodecError, ErrorContext};

/// Length of the Confluent header in bytes.
pub const CONFLUENT_HEADER_LEN: usize = 5;

/// Why a value does not start with a Confluent header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderFault {
    /// The value has no bytes.
    Empty,
    /// The first byte is not `0`.
    BadMagic,
    /// The value ends inside the schema id (its length, 1..=4).
    Short(usize),
}

/// The schema id and payload of a Confluent-framed value.
#[inline]
fn read_header(message: &[u8]) -> Result<(i32, &[u8]), HeaderFault> {
    match message {
        [] => Err(HeaderFault::Empty),
        [magic, ..] if *magic != 0 => Err(HeaderFault::BadMagic),
        [_, a, b, c, d, payload @ ..] => Ok((i32::from_be_bytes([*a, *b, *c, *d]), payload)),
        short => Err(HeaderFault::Short(short.len())),
    }
}

/// Splits a Confluent-framed message into its schema id and payload, failing as Flink's
/// `avro-confluent` does.
///
/// A message shorter than the header, or one whose first byte is not `0`, is an error,
/// as in Flink (a zero-length message fails with an end-of-input error).
pub fn split_confluent(message: &[u8]) -> Result<(i32, &[u8]), CodecError> {
    read_header(message).map_err(|fault| match fault {
        HeaderFault::Empty => CodecError::Malformed {
            message: "message is empty: end of input before the Confluent magic byte".into(),
            context: ErrorContext::default(),
        },
        HeaderFault::BadMagic => CodecError::BadMagic {
            context: ErrorContext::default(),
        },
        HeaderFault::Short(length) => CodecError::Malformed {
            message: format!(
                "message of {length} bytes ends inside the 4-byte Confluent schema id"
            ),
            context: ErrorContext::default(),
        },
    })
}

/// Splits a value into its schema id and payload, failing as Confluent's JSON Schema and
/// Protobuf deserializers do: a wrong first byte is [`CodecError::BadMagic`], a value
/// shorter than the header (empty included) [`CodecError::ShortHeader`].
pub fn split_header(message: &[u8]) -> Result<(i32, &[u8]), CodecError> {
    read_header(message).map_err(|fault| match fault {
        HeaderFault::BadMagic => CodecError::BadMagic {
            context: ErrorContext::default(),
        },
        HeaderFault::Empty | HeaderFault::Short(_) => CodecError::ShortHeader {
            length: message.len(),
            context: ErrorContext::default(),
        },
    })
}

/// The Confluent header of a value written with schema `id`: `0x00`, then `id` as a
/// big-endian 4-byte integer.
pub fn confluent_header(id: i32) -> [u8; CONFLUENT_HEADER_LEN] {
    let [a, b, c, d] = id.to_be_bytes();
    [0, a, b, c, d]
}

// ---------------------------------------------------------------------------------------
// Protobuf message indexes
// ---------------------------------------------------------------------------------------

/// Why a message-index array cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageIndexError {
    /// The bytes end inside the array.
    #[error("the message-index array ends after {0} bytes, inside a varint")]
    Truncated(usize),
    /// A varint has more than 5 bytes (Kafka's `ByteUtils.readVarint` rejects it).
    #[error("a varint of the message-index array is longer than 5 bytes (at byte {0})")]
    VarintTooLong(usize),
    /// The count is negative.
    #[error("the message-index array has a negative count {0}")]
    NegativeCount(i32),
    /// The count exceeds the bytes left (each index takes at least one byte).
    #[error("the message-index array claims {count} indexes but only {remaining} bytes follow")]
    CountTooLarge {
        /// The count read.
        count: i32,
        /// Bytes left after the count.
        remaining: usize,
    },
}

/// Reads one zig-zag varint of at most 5 bytes at `pos` as Kafka's `ByteUtils.readVarint`
/// does (bits above 32 are dropped); returns the value and the position after it.
fn read_varint(bytes: &[u8], pos: usize) -> Result<(i32, usize), MessageIndexError> {
    let mut value: u32 = 0;
    let mut shift = 0u32;
    let mut at = pos;
    loop {
        let Some(&b) = bytes.get(at) else {
            return Err(MessageIndexError::Truncated(bytes.len()));
        };
        at += 1;
        if b & 0x80 == 0 {
            value |= u32::from(b).wrapping_shl(shift);
            break;
        }
        value |= u32::from(b & 0x7f) << shift;
        shift += 7;
        if shift > 28 {
            return Err(MessageIndexError::VarintTooLong(pos));
        }
    }
    let decoded = ((value >> 1) as i32) ^ -((value & 1) as i32);
    Ok((decoded, at))
}

/// Appends `value` as a zig-zag varint (Kafka's `ByteUtils.writeVarint`).
fn write_varint(value: i32, out: &mut Vec<u8>) {
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads the message-index array at the start of `payload` (the bytes after the schema id)
/// into `path` (cleared first) and returns its length in bytes. Count 0 is the path `[0]`.
pub fn read_message_indexes(
    payload: &[u8],
    path: &mut Vec<i32>,
) -> Result<usize, MessageIndexError> {
    path.clear();
    let (count, mut pos) = read_varint(payload, 0)?;
    if count < 0 {
        return Err(MessageIndexError::NegativeCount(count));
    }
    if count == 0 {
        path.push(0);
        return Ok(pos);
    }
    let remaining = payload.len() - pos;
    if count as usize > remaining {
        return Err(MessageIndexError::CountTooLarge { count, remaining });
    }
    for _ in 0..count {
        let (index, next) = read_varint(payload, pos)?;
        path.push(index);
        pos = next;
    }
    Ok(pos)
}

/// Appends the message-index array of `path` as Confluent's serializer writes it: `00` for
/// `[0]`, else the count and the indexes.
pub fn write_message_indexes(path: &[i32], out: &mut Vec<u8>) {
    if path == [0] {
        out.push(0);
        return;
    }
    write_varint(path.len() as i32, out);
    for &index in path {
        write_varint(index, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_through_split() {
        assert_eq!(confluent_header(258), [0, 0, 0, 1, 2]);
        assert_eq!(confluent_header(-1), [0, 0xff, 0xff, 0xff, 0xff]);
        let mut message = confluent_header(0x0102_0304).to_vec();
        message.push(b'{');
        assert_eq!(split_confluent(&message).unwrap(), (0x0102_0304, &b"{"[..]));
    }

    #[test]
    fn splits_header_and_payload() {
        let (id, payload) = split_confluent(&[0, 0, 0, 1, 2, 9, 8]).unwrap();
        assert_eq!(id, 258);
        assert_eq!(payload, &[9, 8]);
    }

    #[test]
    fn rejects_wrong_magic_empty_and_short() {
        assert!(matches!(
            split_confluent(&[1, 0, 0, 0, 1]),
            Err(CodecError::BadMagic { .. })
        ));
        assert!(matches!(
            split_confluent(&[]),
            Err(CodecError::Malformed { .. })
        ));
        assert!(matches!(
            split_confluent(&[0, 0, 1]),
            Err(CodecError::Malformed { .. })
        ));
    }

    fn indexes(path: &[i32]) -> Vec<u8> {
        let mut out = Vec::new();
        write_message_indexes(path, &mut out);
        out
    }

    fn read(bytes: &[u8]) -> Result<(Vec<i32>, usize), MessageIndexError> {
        let mut path = vec![99];
        let n = read_message_indexes(bytes, &mut path)?;
        Ok((path, n))
    }

    #[test]
    fn index_arrays_of_the_spec() {
        assert_eq!(indexes(&[0]), [0x00]);
        assert_eq!(indexes(&[1]), [0x02, 0x02]);
        assert_eq!(indexes(&[0, 2]), [0x04, 0x00, 0x04]);
        assert_eq!(indexes(&[3]), [0x02, 0x06]);
        assert_eq!(read(&[0x00, 0xaa]).unwrap(), (vec![0], 1));
        assert_eq!(read(&[0x02, 0x00, 0xaa]).unwrap(), (vec![0], 2));
        assert_eq!(read(&[0x02, 0x02]).unwrap(), (vec![1], 2));
        assert_eq!(read(&[0x04, 0x00, 0x04, 0x08]).unwrap(), (vec![0, 2], 3));
        assert_eq!(read(&[0x02, 0x06]).unwrap(), (vec![3], 2));
        // Multi-byte varints: 64 is zig-zag 128 = 80 01.
        assert_eq!(indexes(&[64]), [0x02, 0x80, 0x01]);
        assert_eq!(read(&[0x02, 0x80, 0x01]).unwrap(), (vec![64], 3));
        for path in [vec![0, 0], vec![5, 300, 70000], vec![i32::MAX]] {
            let bytes = indexes(&path);
            assert_eq!(read(&bytes).unwrap(), (path.clone(), bytes.len()));
        }
    }

    #[test]
    fn malformed_index_arrays() {
        assert_eq!(read(&[]), Err(MessageIndexError::Truncated(0)));
        assert_eq!(
            read(&[0x04, 0x00]),
            Err(MessageIndexError::CountTooLarge {
                count: 2,
                remaining: 1
            })
        );
        // 02 = count 1, then a varint that never ends.
        assert_eq!(read(&[0x02, 0x80]), Err(MessageIndexError::Truncated(2)));
        assert_eq!(
            read(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
            Err(MessageIndexError::VarintTooLong(0))
        );
        // 01 = zig-zag -1.
        assert_eq!(read(&[0x01]), Err(MessageIndexError::NegativeCount(-1)));
        // A huge count, as a value whose first byte is not 0 but which has a header.
        assert_eq!(
            read(&[0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02]),
            Err(MessageIndexError::CountTooLarge {
                count: i32::MAX,
                remaining: 1
            })
        );
    }
}
