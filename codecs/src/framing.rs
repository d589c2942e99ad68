//! Confluent wire framing: magic byte `0x00`, then the schema id as a 4-byte big-endian
//! signed integer, then the payload.

use crate::error::{CodecError, ErrorContext};

/// Length of the Confluent header in bytes.
pub const CONFLUENT_HEADER_LEN: usize = 5;

/// Splits a Confluent-framed message into its schema id and payload.
///
/// A message shorter than the header, or one whose first byte is not `0`, is an error,
/// as in Flink (a zero-length message fails with an end-of-input error).
pub fn split_confluent(message: &[u8]) -> Result<(i32, &[u8]), CodecError> {
    let Some(&magic) = message.first() else {
        return Err(CodecError::Malformed {
            message: "message is empty: end of input before the Confluent magic byte".into(),
            context: ErrorContext::default(),
        });
    };
    if magic != 0 {
        return Err(CodecError::BadMagic {
            context: ErrorContext::default(),
        });
    }
    let Some(id_bytes) = message.get(1..CONFLUENT_HEADER_LEN) else {
        return Err(CodecError::Malformed {
            message: format!(
                "message of {} bytes ends inside the 4-byte Confluent schema id",
                message.len()
            ),
            context: ErrorContext::default(),
        });
    };
    let id = i32::from_be_bytes([id_bytes[0], id_bytes[1], id_bytes[2], id_bytes[3]]);
    Ok((id, &message[CONFLUENT_HEADER_LEN..]))
}

/// The Confluent header of a value written with schema `id`: `0x00`, then `id` as a
/// big-endian 4-byte integer.
pub fn confluent_header(id: i32) -> [u8; CONFLUENT_HEADER_LEN] {
    let [a, b, c, d] = id.to_be_bytes();
    [0, a, b, c, d]
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
}
