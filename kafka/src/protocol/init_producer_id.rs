//! InitProducerId (key 22, v5): a producer id and epoch for an idempotent producer, or for a
//! transactional id (which also fences its older producers and aborts their transaction).

use super::{begin_request, end_request, put_compact_nullable_str, response_header, Malformed};
use crate::wire::Reader;

/// InitProducerId API key.
pub const API_KEY: i16 = 22;
/// The version spoken (v5: TRANSACTION_ABORTABLE; Kafka >= 3.8). v3 (Kafka >= 2.5) is the
/// oldest this client speaks: it may send the current producer id and epoch.
pub const VERSION: i16 = 5;

/// The broker's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerIdAndEpoch {
    /// Kafka's error code (0: none).
    pub error_code: i16,
    /// The producer id.
    pub producer_id: i64,
    /// The epoch.
    pub epoch: i16,
}

/// Writes an InitProducerId request: `transactional_id` (`None`: idempotent only), the
/// transaction timeout, and the current producer id and epoch (-1, -1 for a new producer).
pub fn write_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    version: i16,
    transactional_id: Option<&str>,
    transaction_timeout_ms: i32,
    current: (i64, i16),
) {
    begin_request(out, API_KEY, version, correlation_id, client_id);
    put_compact_nullable_str(out, transactional_id);
    out.extend_from_slice(&transaction_timeout_ms.to_be_bytes());
    out.extend_from_slice(&current.0.to_be_bytes());
    out.extend_from_slice(&current.1.to_be_bytes());
    end_request(out);
}

/// Parses an InitProducerId response.
pub fn parse_response(buf: &[u8], correlation_id: i32) -> Result<ProducerIdAndEpoch, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    r.i32()?; // throttle_time_ms
    Ok(ProducerIdAndEpoch {
        error_code: r.i16()?,
        producer_id: r.i64()?,
        epoch: r.i16()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn request_and_response() {
        let mut out = Vec::new();
        write_request(&mut out, 2, "c", VERSION, Some("tx"), 60_000, (-1, -1));
        let body = &out[4 + 12..];
        assert_eq!(&body[..3], &[3, b't', b'x']);
        assert_eq!(&body[3..7], &60_000i32.to_be_bytes());
        let mut b = Body::header_v1(2);
        b.i32(0).i16(0).i64(77).i16(4).tags();
        let p = parse_response(&b.0, 2).unwrap();
        assert_eq!((p.error_code, p.producer_id, p.epoch), (0, 77, 4));
    }
}
