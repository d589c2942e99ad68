//! FindCoordinator (key 10, v4): the broker that coordinates a transactional id.

use super::{
    begin_request, compact_count, compact_nullable_string, compact_string, end_request,
    put_compact_len, put_compact_str, response_header, Malformed,
};
use crate::wire::Reader;

/// FindCoordinator API key.
pub const API_KEY: i16 = 10;
/// The version spoken (batched keys; Kafka >= 3.0).
pub const VERSION: i16 = 4;
/// The key type of a transactional id.
pub const TRANSACTION: i8 = 1;

/// The answer for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coordinator {
    /// Kafka's error code (0: found).
    pub error_code: i16,
    /// The coordinator's node id.
    pub node_id: i32,
    /// Its host.
    pub host: String,
    /// Its port.
    pub port: i32,
}

/// Writes a FindCoordinator v4 request for one transactional id.
pub fn write_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    transactional_id: &str,
) {
    begin_request(out, API_KEY, VERSION, correlation_id, client_id);
    out.push(TRANSACTION as u8);
    put_compact_len(out, 1);
    put_compact_str(out, transactional_id);
    end_request(out);
}

/// Parses a FindCoordinator v4 response: the first coordinator listed.
pub fn parse_response(buf: &[u8], correlation_id: i32) -> Result<Coordinator, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    r.i32()?; // throttle_time_ms
    let n = compact_count(&mut r, 12)?;
    if n == 0 {
        return Err(Malformed("FindCoordinator answered no key".into()));
    }
    compact_string(&mut r)?; // key
    let node_id = r.i32()?;
    let host = compact_string(&mut r)?;
    let port = r.i32()?;
    let error_code = r.i16()?;
    compact_nullable_string(&mut r)?;
    Ok(Coordinator {
        error_code,
        node_id,
        host,
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn the_coordinator_is_read() {
        let mut b = Body::header_v1(3);
        b.i32(0)
            .len(1)
            .str("tx")
            .i32(1)
            .str("127.0.0.1")
            .i32(9092)
            .i16(0)
            .null()
            .tags()
            .tags();
        let c = parse_response(&b.0, 3).unwrap();
        assert_eq!(
            (c.error_code, c.node_id, c.host.as_str(), c.port),
            (0, 1, "127.0.0.1", 9092)
        );
    }
}
