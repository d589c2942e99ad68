//! SaslHandshake (key 17, v1) and SaslAuthenticate (key 36, v2): the mechanism a SASL
//! connection uses, and the tokens of its exchange (KIP-152: after the handshake, every
//! token is a SaslAuthenticate request, so the broker's errors arrive as error codes and
//! messages instead of a closed socket).
//!
//! SaslHandshake v1 is not flexible: request header v1 (no tagged fields), response header
//! v0. Every count and length the broker sends is checked against the bytes left.

use super::{begin_request, correlation, end_request, response_header, Malformed};
use crate::wire::{put_uvarint, Reader};

/// SaslHandshake API key.
pub const HANDSHAKE_API_KEY: i16 = 17;
/// The SaslHandshake version spoken (tokens then go in SaslAuthenticate requests).
pub const HANDSHAKE_VERSION: i16 = 1;
/// SaslAuthenticate API key.
pub const AUTHENTICATE_API_KEY: i16 = 36;
/// The SaslAuthenticate version spoken (flexible).
pub const AUTHENTICATE_VERSION: i16 = 2;
/// The most mechanism names read from a handshake answer (a real broker names a handful).
pub const MAX_MECHANISMS: usize = 64;

/// The broker's answer to a SaslHandshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandshakeResponse {
    /// The error code (0: the mechanism is enabled).
    pub error_code: i16,
    /// The mechanisms the broker enables on this listener (at most [`MAX_MECHANISMS`]).
    pub mechanisms: Vec<String>,
}

/// The broker's answer to a SaslAuthenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticateResponse {
    /// The error code (0: the token was accepted).
    pub error_code: i16,
    /// The broker's message (with an error).
    pub error_message: Option<String>,
    /// The broker's token.
    pub auth_bytes: Vec<u8>,
    /// How long the session is valid, in ms (0: no limit; KIP-368).
    pub session_lifetime_ms: i64,
}

/// Writes a SaslHandshake v1 request for `mechanism` (request header v1).
pub fn write_handshake(out: &mut Vec<u8>, correlation_id: i32, client_id: &str, mechanism: &str) {
    out.clear();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&HANDSHAKE_API_KEY.to_be_bytes());
    out.extend_from_slice(&HANDSHAKE_VERSION.to_be_bytes());
    out.extend_from_slice(&correlation_id.to_be_bytes());
    put_string(out, client_id);
    put_string(out, mechanism);
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
}

/// A (non-compact) string: int16 length, then the bytes (cut at `i16::MAX`).
fn put_string(out: &mut Vec<u8>, s: &str) {
    let b = &s.as_bytes()[..s.len().min(i16::MAX as usize)];
    out.extend_from_slice(&(b.len() as i16).to_be_bytes());
    out.extend_from_slice(b);
}

/// Parses a SaslHandshake v1 response (response header v0).
pub fn parse_handshake(buf: &[u8], correlation_id: i32) -> Result<HandshakeResponse, Malformed> {
    let mut r = Reader::new(buf);
    correlation(&mut r, correlation_id)?;
    let error_code = r.i16()?;
    let count = r.i32()?;
    let count = usize::try_from(count)
        .ok()
        .filter(|&n| n.saturating_mul(2) <= r.remaining())
        .ok_or_else(|| {
            Malformed(format!(
                "a SaslHandshake answer with {count} mechanisms in {} bytes",
                r.remaining()
            ))
        })?;
    let mut mechanisms = Vec::new();
    for _ in 0..count {
        let len = r.i16()?;
        let len = usize::try_from(len)
            .map_err(|_| Malformed(format!("a mechanism name of {len} bytes")))?;
        let name = r.take(len)?;
        if mechanisms.len() < MAX_MECHANISMS {
            mechanisms.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    Ok(HandshakeResponse {
        error_code,
        mechanisms,
    })
}

/// Writes a SaslAuthenticate v2 request carrying `token`.
pub fn write_authenticate(out: &mut Vec<u8>, correlation_id: i32, client_id: &str, token: &[u8]) {
    begin_request(
        out,
        AUTHENTICATE_API_KEY,
        AUTHENTICATE_VERSION,
        correlation_id,
        client_id,
    );
    put_uvarint(out, token.len() as u64 + 1);
    out.extend_from_slice(token);
    end_request(out);
}

/// Parses a SaslAuthenticate v2 response (response header v1).
pub fn parse_authenticate(
    buf: &[u8],
    correlation_id: i32,
) -> Result<AuthenticateResponse, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    let error_code = r.i16()?;
    let error_message = super::compact_nullable_string(&mut r)?;
    let auth_bytes = match r.compact_len()? {
        None => Vec::new(),
        Some(n) => r.take(n)?.to_vec(),
    };
    let session_lifetime_ms = r.i64()?;
    r.skip_tagged_fields()?;
    Ok(AuthenticateResponse {
        error_code,
        error_message: error_message.map(|m| m.chars().take(1024).collect()),
        auth_bytes,
        session_lifetime_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn a_handshake_request_has_header_v1_and_the_mechanism() {
        let mut out = Vec::new();
        write_handshake(&mut out, 7, "c", "PLAIN");
        assert_eq!(
            out,
            [
                &[0, 0, 0, 18][..],
                &[0, 17, 0, 1, 0, 0, 0, 7, 0, 1, b'c', 0, 5],
                b"PLAIN"
            ]
            .concat()
        );
    }

    #[test]
    fn handshake_answers_are_read_with_bounds() {
        let mut b = Body::default();
        b.i32(3)
            .i16(33)
            .i32(2)
            .i16(5)
            .raw(b"PLAIN")
            .i16(13)
            .raw(b"SCRAM-SHA-256");
        let h = parse_handshake(&b.0, 3).unwrap();
        assert_eq!(h.error_code, 33);
        assert_eq!(h.mechanisms, ["PLAIN", "SCRAM-SHA-256"]);
        assert!(parse_handshake(&b.0, 4).is_err());
        let mut hostile = Body::default();
        hostile.i32(3).i16(0).i32(i32::MAX);
        assert!(parse_handshake(&hostile.0, 3)
            .unwrap_err()
            .0
            .contains("mechanisms"));
        let mut negative = Body::default();
        negative.i32(3).i16(0).i32(1).i16(-1);
        assert!(parse_handshake(&negative.0, 3).is_err());
        let mut long = Body::default();
        long.i32(3).i16(0).i32(1).i16(100).raw(b"short");
        assert!(parse_handshake(&long.0, 3).is_err());
    }

    #[test]
    fn authenticate_answers_are_read_with_bounds() {
        let mut b = Body::header_v1(9);
        b.i16(58)
            .str("Authentication failed")
            .len(2)
            .raw(b"ab")
            .i64(0)
            .tags();
        let a = parse_authenticate(&b.0, 9).unwrap();
        assert_eq!(a.error_code, 58);
        assert_eq!(a.error_message.as_deref(), Some("Authentication failed"));
        assert_eq!(a.auth_bytes, b"ab");
        let mut short = Body::header_v1(9);
        short.i16(0).null().len(100).raw(b"ab");
        assert!(parse_authenticate(&short.0, 9).is_err());
        let mut request = Vec::new();
        write_authenticate(&mut request, 9, "c", b"tok");
        assert_eq!(&request[4..8], &[0, 36, 0, 2]);
        assert_eq!(&request[request.len() - 5..], &[4, b't', b'o', b'k', 0]);
    }
}
