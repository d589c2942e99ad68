//! SASL/OAUTHBEARER (RFC 7628, KIP-255): the client's initial response carries a bearer token
//! that Kafka's Java client gets from its login callback handler (`sasl.login.callback.handler.class`,
//! by default the unsecured one of `OAuthBearerLoginModule`). This client never fetches a token
//! itself: the connector's Java side runs Kafka's own login (which refreshes the token before it
//! expires) and hands every new token over ([`TokenSource::set`]); a connection takes the current
//! one whenever it authenticates or re-authenticates (KIP-368).
//!
//! The message is what Kafka's `OAuthBearerClientInitialResponse` writes: `n,,` (no
//! authorization id), `\x01auth=Bearer <token>`, each SASL extension as `\x01key=value`, then
//! `\x01\x01`. Token and extensions are checked so that a value that would break the message's
//! framing is refused before it is sent (looser than Kafka's token pattern
//! `[A-Za-z0-9\-._~+/]+=*`: the broker's validator refuses what that pattern would).

use std::fmt;
use std::sync::{Arc, Mutex};

use thiserror::Error;
use zeroize::Zeroizing;

/// The separator of the message's key/value pairs (`kvsep`, Ctrl-A).
pub const SEPARATOR: u8 = 0x01;

/// The longest token accepted (real JWTs are a few KiB).
pub const MAX_TOKEN_BYTES: usize = 64 * 1024;

/// The most SASL extensions accepted.
pub const MAX_EXTENSIONS: usize = 64;

/// A token or extension that cannot be sent.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("OAUTHBEARER: {0}")]
pub struct TokenError(pub String);

/// One bearer token, as Kafka's `OAuthBearerToken` gives it, with the SASL extensions the
/// login module added (`unsecuredLoginExtension_*`, or a callback handler's).
#[derive(Clone)]
pub struct BearerToken {
    /// The compact-serialized token (zeroed when dropped; never printed).
    pub value: Zeroizing<String>,
    /// When the token expires, ms since the epoch (`OAuthBearerToken.lifetimeMs`).
    pub lifetime_ms: i64,
    /// The SASL extensions, in the order given.
    pub extensions: Vec<(String, String)>,
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerToken")
            .field("value", &"(hidden)")
            .field("lifetime_ms", &self.lifetime_ms)
            .field("extensions", &self.extensions)
            .finish()
    }
}

impl BearerToken {
    /// Checks the token and extensions as Kafka's `OAuthBearerClientInitialResponse` does:
    /// the token is 1 to [`MAX_TOKEN_BYTES`] printable ASCII characters without spaces (RFC 6750
    /// `b64token`), extension keys are letters and not `auth`, extension values printable
    /// ASCII, spaces, tabs, CR or LF.
    pub fn check(&self) -> Result<(), TokenError> {
        let value = self.value.as_bytes();
        if value.is_empty() || value.len() > MAX_TOKEN_BYTES {
            return Err(TokenError(format!(
                "a token of {} bytes (1 to {MAX_TOKEN_BYTES} are sent)",
                value.len()
            )));
        }
        if !value.iter().all(|b| (0x21..=0x7e).contains(b)) {
            return Err(TokenError(
                "the token holds characters outside printable ASCII".into(),
            ));
        }
        if self.extensions.len() > MAX_EXTENSIONS {
            return Err(TokenError(format!(
                "{} SASL extensions (at most {MAX_EXTENSIONS})",
                self.extensions.len()
            )));
        }
        for (key, value) in &self.extensions {
            if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(TokenError(format!(
                    "the SASL extension name '{}' is not letters only",
                    key.escape_debug()
                )));
            }
            if key == "auth" {
                return Err(TokenError(
                    "the SASL extension name 'auth' is reserved".into(),
                ));
            }
            if value.is_empty()
                || !value.bytes().all(|b| {
                    (0x21..=0x7e).contains(&b) || matches!(b, b' ' | b'\t' | b'\r' | b'\n')
                })
            {
                return Err(TokenError(format!(
                    "the value of SASL extension '{key}' is empty or not printable ASCII"
                )));
            }
        }
        Ok(())
    }

    /// The client's initial response (zeroed when dropped): `n,,\x01auth=Bearer <token>`, the
    /// extensions, `\x01\x01`.
    pub fn initial_response(&self) -> Result<Zeroizing<Vec<u8>>, TokenError> {
        self.check()?;
        let extensions: usize = self
            .extensions
            .iter()
            .map(|(k, v)| k.len() + v.len() + 2)
            .sum();
        let mut out = Zeroizing::new(Vec::with_capacity(self.value.len() + extensions + 20));
        out.extend_from_slice(b"n,,");
        out.push(SEPARATOR);
        out.extend_from_slice(b"auth=Bearer ");
        out.extend_from_slice(self.value.as_bytes());
        for (key, value) in &self.extensions {
            out.push(SEPARATOR);
            out.extend_from_slice(key.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value.as_bytes());
        }
        out.push(SEPARATOR);
        out.push(SEPARATOR);
        Ok(out)
    }
}

/// Where a connection takes its token: shared by every connection of a fetch session or a
/// producer (clones share it), replaced whenever the Java side's login refreshed the token.
#[derive(Clone)]
pub struct TokenSource {
    current: Arc<Mutex<BearerToken>>,
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSource").finish_non_exhaustive()
    }
}

impl TokenSource {
    /// A source holding `token` (checked first).
    pub fn new(token: BearerToken) -> Result<TokenSource, TokenError> {
        token.check()?;
        Ok(TokenSource {
            current: Arc::new(Mutex::new(token)),
        })
    }

    /// Replaces the token (checked first; a refused one leaves the current token in place).
    /// Connections authenticated already keep their session until they re-authenticate.
    pub fn set(&self, token: BearerToken) -> Result<(), TokenError> {
        token.check()?;
        let mut current = self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *current = token;
        Ok(())
    }

    /// The current token (a copy, zeroed when dropped).
    pub fn current(&self) -> BearerToken {
        self.current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(value: &str, extensions: &[(&str, &str)]) -> BearerToken {
        BearerToken {
            value: Zeroizing::new(value.to_string()),
            lifetime_ms: 0,
            extensions: extensions
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn the_initial_response_is_framed_as_kafka_frames_it() {
        let t = token("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.", &[]);
        assert_eq!(
            t.initial_response().unwrap().as_slice(),
            b"n,,\x01auth=Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.\x01\x01"
        );
        let t = token("abc", &[("traceId", "123"), ("zone", "a b")]);
        assert_eq!(
            t.initial_response().unwrap().as_slice(),
            b"n,,\x01auth=Bearer abc\x01traceId=123\x01zone=a b\x01\x01"
        );
    }

    #[test]
    fn values_that_would_break_the_framing_are_refused() {
        for (t, why) in [
            (token("", &[]), "0 bytes"),
            (token("a b", &[]), "printable"),
            (token("a\x01b", &[]), "printable"),
            (token("a", &[("auth", "x")]), "reserved"),
            (token("a", &[("k1", "x")]), "letters"),
            (token("a", &[("k", "x\x01")]), "printable"),
            (token("a", &[("k", "")]), "empty"),
        ] {
            let e = t.initial_response().unwrap_err();
            assert!(e.0.contains(why), "{e}");
        }
        let long = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert!(token(&long, &[]).check().is_err());
        let many: Vec<(String, String)> = (0..=MAX_EXTENSIONS)
            .map(|i| ("k".repeat(i + 1), "v".to_string()))
            .collect();
        let t = BearerToken {
            extensions: many,
            ..token("a", &[])
        };
        assert!(t.check().unwrap_err().0.contains("extensions"));
    }

    #[test]
    fn a_source_is_shared_by_its_clones_and_keeps_its_token_on_a_refusal() {
        let source = TokenSource::new(token("first", &[])).unwrap();
        let clone = source.clone();
        clone.set(token("second", &[])).unwrap();
        assert_eq!(source.current().value.as_str(), "second");
        assert!(clone.set(token("bad token", &[])).is_err());
        assert_eq!(source.current().value.as_str(), "second");
        let debug = format!("{source:?} {:?}", source.current());
        assert!(!debug.contains("second"), "{debug}");
    }
}
