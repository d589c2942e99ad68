//! SASL authentication of a connection, as Kafka's `SaslClientAuthenticator` does it after
//! ApiVersions: a SaslHandshake naming the mechanism, then the mechanism's tokens in
//! SaslAuthenticate requests. PLAIN sends one token (`\0username\0password`); SCRAM sends two
//! and checks the server's signature ([`super::scram`]); OAUTHBEARER sends the bearer token the
//! Java side's login handed over ([`super::oauth`]).
//!
//! The broker's last answer carries the session's lifetime when it limits sessions
//! (`connections.max.reauth.ms`, KIP-368; for OAUTHBEARER also the token's expiry): the
//! connection then authenticates again, over the same socket, before the session ends
//! ([`reauthentication_delay`], as Kafka's `SaslClientAuthenticator` picks the moment).
//!
//! Secrets are zeroed when no longer needed: the password (held as [`Zeroizing`]), the PLAIN
//! message, the OAUTHBEARER message and token copies, SCRAM's salted password and proof.
//!
//! A wrong password is the broker's `SASL_AUTHENTICATION_FAILED` with its message, as Kafka's
//! `SaslAuthenticationException` carries it; a mechanism the listener does not enable names
//! the ones it does.

use std::fmt;
use std::time::{Duration, Instant};

use zeroize::Zeroizing;

use super::oauth::TokenSource;
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
    /// OAUTHBEARER (`OAuthBearerLoginModule`; the token from the login callback handler).
    OAuthBearer,
}

impl Mechanism {
    /// The mechanism `sasl.mechanism` names, or `None` for one this client does not speak.
    pub fn from_name(name: &str) -> Option<Mechanism> {
        match name {
            "PLAIN" => Some(Mechanism::Plain),
            "SCRAM-SHA-256" => Some(Mechanism::ScramSha256),
            "SCRAM-SHA-512" => Some(Mechanism::ScramSha512),
            "OAUTHBEARER" => Some(Mechanism::OAuthBearer),
            _ => None,
        }
    }

    /// Kafka's name of the mechanism.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
            Mechanism::OAuthBearer => "OAUTHBEARER",
        }
    }
}

/// A mechanism and the credentials of the login module: `username` and `password` for PLAIN
/// and SCRAM, a token source for OAUTHBEARER.
#[derive(Clone)]
pub struct SaslCredentials {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// The user name (PLAIN, SCRAM).
    pub username: String,
    /// The password (PLAIN, SCRAM; never printed, zeroed when dropped).
    pub password: Zeroizing<String>,
    /// Where OAUTHBEARER takes its token (`None` for the other mechanisms).
    pub token: Option<TokenSource>,
}

impl SaslCredentials {
    /// PLAIN or SCRAM credentials.
    pub fn password(mechanism: Mechanism, username: &str, password: &str) -> SaslCredentials {
        SaslCredentials {
            mechanism,
            username: username.to_string(),
            password: Zeroizing::new(password.to_string()),
            token: None,
        }
    }

    /// OAUTHBEARER with the tokens of `source`.
    pub fn oauth_bearer(source: TokenSource) -> SaslCredentials {
        SaslCredentials {
            mechanism: Mechanism::OAuthBearer,
            username: String::new(),
            password: Zeroizing::new(String::new()),
            token: Some(source),
        }
    }
}

/// When a connection whose session lasts `lifetime` (SaslAuthenticate's `session_lifetime_ms`)
/// authenticates again, counted from the end of the authentication: after 85% to 95% of the
/// lifetime, as Kafka's `SaslClientAuthenticator` does (the 10% jitter, from `jitter` in
/// 0..=255, keeps many connections from re-authenticating at once).
pub fn reauthentication_delay(lifetime: Duration, jitter: u8) -> Duration {
    let per_mille = 850 + u64::from(jitter) * 100 / 255;
    let ms = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(
        (ms / 1000)
            .saturating_mul(per_mille)
            .saturating_add(ms % 1000 * per_mille / 1000),
    )
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

/// Authenticates `conn` with `credentials` (after ApiVersions, before any other request; or
/// again, with nothing in flight, to re-authenticate), every response by `deadline`. Returns
/// the session's lifetime when the broker limits it.
pub(crate) fn authenticate(
    conn: &mut Connection,
    credentials: &SaslCredentials,
    deadline: Instant,
) -> Result<Option<Duration>, ConnectionError> {
    let mechanism = credentials.mechanism.name();
    let client_id = conn.client_id().to_string();
    let mut buf = Vec::new();
    let id = conn.send_raw(|out, c| write_handshake(out, c, &client_id, mechanism))?;
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
    let lifetime = match credentials.mechanism {
        Mechanism::Plain => {
            let mut token = Zeroizing::new(Vec::with_capacity(
                credentials.username.len() + credentials.password.len() + 2,
            ));
            token.push(0);
            token.extend_from_slice(credentials.username.as_bytes());
            token.push(0);
            token.extend_from_slice(credentials.password.as_bytes());
            exchange(conn, &token, deadline)?.1
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
            let (server_first, _) = exchange(conn, &scram.client_first(), deadline)?;
            let client_final = scram
                .client_final(&server_first)
                .map_err(|e| failed(conn, e.to_string()))?;
            let (server_final, lifetime) = exchange(conn, &client_final, deadline)?;
            scram
                .verify_server_final(&server_final)
                .map_err(|e| failed(conn, e.to_string()))?;
            lifetime
        }
        Mechanism::OAuthBearer => {
            let source = credentials.token.as_ref().ok_or_else(|| {
                failed(
                    conn,
                    "OAUTHBEARER without a token (the login handed none over)".to_string(),
                )
            })?;
            let message = source
                .current()
                .initial_response()
                .map_err(|e| failed(conn, e.to_string()))?;
            let (answer, lifetime) = exchange(conn, &message, deadline)?;
            if !answer.is_empty() {
                // The broker refused the token with an error document (RFC 7628, 3.2.2); as
                // Kafka's client does, answer with the separator to hear the final failure.
                let detail: String = String::from_utf8_lossy(&answer).chars().take(512).collect();
                return Err(match exchange(conn, &[super::oauth::SEPARATOR], deadline) {
                    Err(ConnectionError::Authentication { broker, reason }) => {
                        ConnectionError::Authentication {
                            broker,
                            reason: format!("{reason} (the broker's answer: {detail})"),
                        }
                    }
                    Err(other) => other,
                    Ok(_) => failed(conn, format!("the broker refused the token: {detail}")),
                });
            }
            lifetime
        }
    };
    Ok(lifetime)
}

/// Sends one token and returns the broker's, with the session lifetime it names (if any).
fn exchange(
    conn: &mut Connection,
    token: &[u8],
    deadline: Instant,
) -> Result<(Vec<u8>, Option<Duration>), ConnectionError> {
    let client_id = conn.client_id().to_string();
    let mut buf = Vec::new();
    let sent = conn.send_raw(|out, c| write_authenticate(out, c, &client_id, token));
    // The request buffer held the token: zeroed once written.
    conn.clear_request();
    let id = sent?;
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
    let lifetime = u64::try_from(answer.session_lifetime_ms)
        .ok()
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis);
    Ok((answer.auth_bytes, lifetime))
}

fn failed(conn: &Connection, reason: String) -> ConnectionError {
    ConnectionError::Authentication {
        broker: conn.broker().to_string(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn re_authentication_comes_after_85_to_95_percent_of_the_session() {
        let lifetime = Duration::from_secs(100);
        assert_eq!(reauthentication_delay(lifetime, 0), Duration::from_secs(85));
        assert_eq!(
            reauthentication_delay(lifetime, 255),
            Duration::from_secs(95)
        );
        let mid = reauthentication_delay(lifetime, 128);
        assert!(
            mid > Duration::from_secs(89) && mid < Duration::from_secs(91),
            "{mid:?}"
        );
        assert_eq!(
            reauthentication_delay(Duration::from_millis(1500), 0),
            Duration::from_millis(1275)
        );
        // No overflow for the longest lifetime a broker can name.
        let _ = reauthentication_delay(Duration::from_millis(i64::MAX as u64), 255);
    }

    #[test]
    fn credentials_never_print_their_secrets() {
        let c = SaslCredentials::password(Mechanism::ScramSha256, "alice", "hunter2");
        assert!(!format!("{c:?}").contains("hunter2"));
        assert_eq!(
            Mechanism::from_name("OAUTHBEARER"),
            Some(Mechanism::OAuthBearer)
        );
        assert_eq!(Mechanism::OAuthBearer.name(), "OAUTHBEARER");
        assert_eq!(Mechanism::from_name("GSSAPI"), None);
    }
}
