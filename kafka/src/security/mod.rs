//! How a connection secures itself, as Kafka's `security.protocol` says: TLS
//! (`SSL`, `SASL_SSL`; [`tls`]) and SASL authentication (`SASL_PLAINTEXT`, `SASL_SSL`; [`sasl`]
//! with PLAIN, SCRAM-SHA-256/512 ([`scram`]) and OAUTHBEARER ([`oauth`])).
//!
//! What a connection needs arrives ready-made: the trusted certificates and the client's key
//! and chain as DER (the connector reads the table's key and trust stores with Java's own
//! `KeyStore` API, so every store format Kafka's Java client reads works alike), and the SASL
//! credentials from `sasl.jaas.config` (parsed by Kafka's `JaasContext` on the Java side), or,
//! for OAUTHBEARER, the tokens of Kafka's own login on the Java side ([`oauth::TokenSource`]).
//! Mechanisms this client does not speak (GSSAPI) never get here: the connector keeps Kafka's
//! Java client for them.
//!
//! Secrets are held as [`zeroize::Zeroizing`] and zeroed when dropped: passwords, tokens, the
//! client's private key as it arrives, and the messages and derived keys built from them
//! (`sasl`, `scram`). What the crypto library keeps inside its own types (ring's HMAC key
//! schedules, the parsed private key rustls signs with for the connection's lifetime) is
//! outside this crate's reach and not zeroed by it.

pub mod oauth;
pub mod sasl;
pub mod scram;
pub mod tls;

pub use oauth::{BearerToken, TokenSource};
pub use sasl::{Mechanism, SaslCredentials};
pub use tls::{TlsConfig, TlsSettings};

/// What a connection does before its first request: a TLS handshake, SASL authentication,
/// both or neither (`PLAINTEXT`, the default).
#[derive(Debug, Clone, Default)]
pub struct Security {
    /// TLS (`SSL` and `SASL_SSL`).
    pub tls: Option<TlsConfig>,
    /// SASL (`SASL_PLAINTEXT` and `SASL_SSL`).
    pub sasl: Option<SaslCredentials>,
}

impl Security {
    /// Kafka's name of this setting (`security.protocol`), for messages.
    pub fn protocol(&self) -> &'static str {
        match (self.tls.is_some(), self.sasl.is_some()) {
            (false, false) => "PLAINTEXT",
            (true, false) => "SSL",
            (false, true) => "SASL_PLAINTEXT",
            (true, true) => "SASL_SSL",
        }
    }
}
