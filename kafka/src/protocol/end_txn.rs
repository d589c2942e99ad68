//! EndTxn (key 26): commits or aborts a transaction. v5 (transaction protocol 2) answers
//! the producer id and epoch the next transaction uses (the epoch is bumped every time).

use super::{begin_request, end_request, put_compact_str, response_header, Malformed};
use crate::wire::Reader;

/// EndTxn API key.
pub const API_KEY: i16 = 26;
/// The version of transaction protocol 1 (v4: TRANSACTION_ABORTABLE).
pub const VERSION_TV1: i16 = 4;
/// The version of transaction protocol 2.
pub const VERSION_TV2: i16 = 5;

/// The broker's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    /// Kafka's error code (0: none).
    pub error_code: i16,
    /// The producer id for the next transaction (v5; -1 before).
    pub producer_id: i64,
    /// The epoch for the next transaction (v5; -1 before).
    pub epoch: i16,
}

/// Writes an EndTxn request.
#[allow(clippy::too_many_arguments)]
pub fn write_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    version: i16,
    transactional_id: &str,
    producer_id: i64,
    epoch: i16,
    commit: bool,
) {
    begin_request(out, API_KEY, version, correlation_id, client_id);
    put_compact_str(out, transactional_id);
    out.extend_from_slice(&producer_id.to_be_bytes());
    out.extend_from_slice(&epoch.to_be_bytes());
    out.push(u8::from(commit));
    end_request(out);
}

/// Parses an EndTxn response of `version`.
pub fn parse_response(buf: &[u8], correlation_id: i32, version: i16) -> Result<Ended, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    r.i32()?; // throttle_time_ms
    let error_code = r.i16()?;
    let (producer_id, epoch) = if version >= 5 {
        (r.i64()?, r.i16()?)
    } else {
        (-1, -1)
    };
    Ok(Ended {
        error_code,
        producer_id,
        epoch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn v5_answers_the_next_epoch() {
        let mut b = Body::header_v1(9);
        b.i32(0).i16(0).i64(5).i16(8).tags();
        assert_eq!(
            parse_response(&b.0, 9, 5).unwrap(),
            Ended {
                error_code: 0,
                producer_id: 5,
                epoch: 8
            }
        );
        let mut b = Body::header_v1(9);
        b.i32(0).i16(48).tags();
        assert_eq!(parse_response(&b.0, 9, 4).unwrap().error_code, 48);
    }
}
