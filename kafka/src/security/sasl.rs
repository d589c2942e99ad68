//! SASL authentication of a connection, as Kafka's `SaslClientAuthenticator` does it after
//! ApiVersions: a SaslHandshake naming the mechanism, then the mechanism's tokens in
//! SaslAuthenticate requests. PLAIN sends one token (`\0username\0password`); SCRAM sends two
//! and checks the server's signature ([`super::scram`]).
//!
//! A wrong password is the broker's `SASL_AUTHENTICATION_FAILED` with its message, as Kafka's
//! `SaslAuthenticationException` carries it; a mechanism the listener does not enable names
//! the ones it does.

use std::fmt;
use std::time::Instant;

use super::scram::{ScramClient, ScramHash};
use crate::connection::{Connection, ConnectionError};
use crate::protocol::sasl::{
    parse_authenticate, parse_handshake, write_authenticate, write_handshake, AUTHENTICATE_API_KEY,
    AUTHENTICATE_VERSION,
};

/// The largest SASL response read (SCRAM's messages are a few hundred bytes).
pub const SASL_MAX_BYTES: usize = 64 * 1024;

/// Kafka's `UNSUPPORTED_SASL_MECHANISM`.
const UNSUPPORTED_SASL_MECHANISM: i16 = 33;
/// Kafka's `ILLEGAL_SASL_STATE`.
const ILLEGAL_SASL_STATE: i16 = 34;

/// A SASL mechanism this client speaks (`sasl.mechanism`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// PLAIN (`PlainLoginModule`).
    Plain,
    /// SCRAM-SHA-256 (`ScramLoginModule`).
    ScramSha256,
    /// SCRAM-SHA-512 (`ScramLoginModule`).
    ScramSha512,
}

impl Mechanism {
    /// The mechanism `sasl.mechanism` names, or `None` for one this client does not speak.
    pub fn from_name(name: &str) -> Option<Mechanism> {
        match name {
            "PLAIN" => Some(Mechanism::Plain),
            "SCRAM-SHA-256" => Some(Mechanism::ScramSha256),
            "SCRAM-SHA-512" => Some(Mechanism::ScramSha512),
            _ => None,
        }
    }

    /// Kafka's name of the mechanism.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

/// A mechanism and the credentials of the login module (`username`, `password`).
#[derive(Clone)]
pub struct SaslCredentials {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// The user name.
    pub username: String,
    /// The password (never printed).
    pub password: String,
}

impl fmt::Debug for SaslCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslCredentials")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"(hidden)")
            .finish()
    }
}

/// Authenticates `conn` with `credentials` (after ApiVersions, before any other request),
/// every response by `deadline`.
pub(crate) fn authenticate(
    conn: &mut Connection,
    credentials: &SaslCredentials,
    deadline: Instant,
) -> Result<(), ConnectionError> {
    let mechanism = credentials.mechanism.name();
    let client_id = conn.client_id().to_string();
    let mut buf = Vec::new();
    let id = conn.send_with(|out, c| write_handshake(out, c, &client_id, mechanism))?;
    conn.receive_capped(
        &mut buf,
        SASL_MAX_BYTES,
        "a SaslHandshake response",
        deadline,
    )?;
    let handshake = parse_handshake(&buf, id).map_err(|e| conn.malformed(e))?;
    match handshake.error_code {
        0 => {}
        UNSUPPORTED_SASL_MECHANISM => {
            return Err(failed(
                conn,
                format!(
                    "Client SASL mechanism '{mechanism}' not enabled in the server, enabled \
                     mechanisms are [{}]",
                    handshake.mechanisms.join(", ")
                ),
            ))
        }
        ILLEGAL_SASL_STATE => {
            return Err(failed(
                conn,
                "the broker is not expecting SASL authentication (ILLEGAL_SASL_STATE): is this \
                 a PLAINTEXT or SSL listener? security.protocol is SASL_*"
                    .to_string(),
            ))
        }
        code => {
            return Err(failed(
                conn,
                format!(
                    "SaslHandshake failed with Kafka error {code} ({})",
                    crate::error::error_name(code)
                ),
            ))
        }
    }
    conn.version(
        AUTHENTICATE_API_KEY,
        "SaslAuthenticate",
        AUTHENTICATE_VERSION,
        AUTHENTICATE_VERSION,
    )?;
    match credentials.mechanism {
        Mechanism::Plain => {
            let token = format!("\0{}\0{}", credentials.username, credentials.password);
            exchange(conn, token.as_bytes(), deadline)?;
            Ok(())
        }
        Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
            let hash = if credentials.mechanism == Mechanism::ScramSha256 {
                ScramHash::Sha256
            } else {
                ScramHash::Sha512
            };
            let nonce = ScramClient::random_nonce().map_err(|e| failed(conn, e.to_string()))?;
            let mut scram =
                ScramClient::new(hash, &credentials.username, &credentials.password, nonce);
            let server_first = exchange(conn, &scram.client_first(), deadline)?;
            let client_final = scram
                .client_final(&server_first)
                .map_err(|e| failed(conn, e.to_string()))?;
            let server_final = exchange(conn, &client_final, deadline)?;
            scram
                .verify_server_final(&server_final)
                .map_err(|e| failed(conn, e.to_string()))
        }
    }
}

/// Sends one token and returns the broker's.
fn exchange(
    conn: &mut Connection,
    token: &[u8],
    deadline: Instant,
) -> Result<Vec<u8>, ConnectionError> {
    let client_id = conn.client_id().to_string();
    let mut buf = Vec::new();
    let id = conn.send_with(|out, c| write_authenticate(out, c, &client_id, token))?;
    conn.receive_capped(
        &mut buf,
        SASL_MAX_BYTES,
        "a SaslAuthenticate response",
        deadline,
    )?;
    let answer = parse_authenticate(&buf, id).map_err(|e| conn.malformed(e))?;
    if answer.error_code != 0 {
        let message = answer.error_message.unwrap_or_else(|| {
            format!(
                "Kafka error {} ({})",
                answer.error_code,
                crate::error::error_name(answer.error_code)
            )
        });
        return Err(failed(conn, message));
    }
    Ok(answer.auth_bytes)
}

fn failed(conn: &Connection, reason: String) -> ConnectionError {
    ConnectionError::Authentication {
        broker: conn.broker().to_string(),
        reason,
    }
}
