//! The native client's SASL exchange as a broker could answer it: SaslHandshake v1 and
//! SaslAuthenticate v2 responses (`karrow_kafka::protocol::sasl`), and the SCRAM server-first
//! and server-final messages (`karrow_kafka::security::scram`), each parsed and, for SCRAM,
//! taken through the client's proof and the server's signature check. Seeds are messages
//! written as a broker writes them.

use karrow_kafka::protocol::sasl::{parse_authenticate, parse_handshake, MAX_MECHANISMS};
use karrow_kafka::security::scram::{
    parse_server_final, parse_server_first, ScramClient, ScramHash, MAX_ITERATIONS,
    MIN_ITERATIONS,
};

use crate::Input;

/// The client nonce of every exchange (a seed's server nonce extends it).
const NONCE: &str = "fyko+d2lbbFgONRv9qkxdawL";

/// One message: the first byte picks what it is (0 handshake response, 1 authenticate
/// response, 2 SCRAM server-first, 3 server-first then server-final; the high bit picks
/// SHA-512), the rest is the message (for 3: a 2-byte length, the server-first, then the server-final).
pub fn messages(data: &[u8]) {
    let mut input = Input::new(data);
    let selector = input.byte();
    let hash = if selector & 0x80 != 0 {
        ScramHash::Sha512
    } else {
        ScramHash::Sha256
    };
    match selector & 0x7f {
        0 => {
            let body = input.rest();
            if let Ok(h) = parse_handshake(body, correlation(body)) {
                assert!(h.mechanisms.len() <= MAX_MECHANISMS);
            }
        }
        1 => {
            let body = input.rest();
            if let Ok(a) = parse_authenticate(body, correlation(body)) {
                assert!(a.auth_bytes.len() <= body.len());
                assert!(a.error_message.map_or(0, |m| m.chars().count()) <= 1024);
            }
        }
        2 => {
            let msg = input.rest();
            if let Ok(first) = parse_server_first(msg) {
                assert!(!first.salt.is_empty());
            }
            let mut client = ScramClient::new(hash, "user", "pencil", NONCE.to_string());
            if client.client_final(msg).is_ok() {
                let first = parse_server_first(msg).expect("accepted, so parsed");
                assert!((MIN_ITERATIONS..=MAX_ITERATIONS).contains(&first.iterations));
                assert!(first.nonce.starts_with(NONCE) && first.nonce.len() > NONCE.len());
            }
        }
        _ => {
            let first = input.part();
            let last = input.rest();
            let _ = parse_server_final(last);
            let mut client = ScramClient::new(hash, "user", "pencil", NONCE.to_string());
            if client.client_final(first).is_ok() {
                let _ = client.verify_server_final(last);
            }
        }
    }
}

fn correlation(body: &[u8]) -> i32 {
    body.get(..4)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0)
}

/// A handshake answer, an authenticate answer, RFC 7677's server messages.
pub fn message_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    // SaslHandshake v1: UNSUPPORTED_SASL_MECHANISM, enabled [PLAIN, SCRAM-SHA-512].
    let mut h = vec![0u8];
    h.extend_from_slice(&7i32.to_be_bytes());
    h.extend_from_slice(&33i16.to_be_bytes());
    h.extend_from_slice(&2i32.to_be_bytes());
    for m in ["PLAIN", "SCRAM-SHA-512"] {
        h.extend_from_slice(&(m.len() as i16).to_be_bytes());
        h.extend_from_slice(m.as_bytes());
    }
    seeds.push(h);
    // SaslAuthenticate v2: an error with a message, then a token with a lifetime.
    let mut a = vec![1u8];
    a.extend_from_slice(&9i32.to_be_bytes());
    a.push(0);
    a.extend_from_slice(&58i16.to_be_bytes());
    let message = b"Authentication failed";
    a.push(message.len() as u8 + 1);
    a.extend_from_slice(message);
    a.push(3);
    a.extend_from_slice(b"ab");
    a.extend_from_slice(&3_600_000i64.to_be_bytes());
    a.push(0);
    seeds.push(a);
    let first = format!("r={NONCE}3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096");
    let mut f = vec![2u8];
    f.extend_from_slice(first.as_bytes());
    seeds.push(f.clone());
    f[0] = 0x82;
    seeds.push(f);
    let mut pair = vec![3u8];
    pair.extend_from_slice(&(first.len() as u16).to_be_bytes());
    pair.extend_from_slice(first.as_bytes());
    pair.extend_from_slice(b"v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");
    seeds.push(pair);
    seeds.push(b"\x03\x00\x10m=ext,r=x,s=AA==e=invalid-proof".to_vec());
    seeds
}
