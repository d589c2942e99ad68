//! How a connection secures itself, as Kafka's `security.protocol` says: TLS
//! (`SSL`, `SASL_SSL`; [`tls`]) and SASL authentication (`SASL_PLAINTEXT`, `SASL_SSL`; [`sasl`]
//! with PLAIN and SCRAM-SHA-256/512, [`scram`]).
//!
//! What a connection needs arrives ready-made: the trusted certificates and the client's key
//! and chain as DER (the connector reads the table's key and trust stores with Java's own
//! `KeyStore` API, so every store format Kafka's Java client reads works alike), and the SASL
//! credentials from `sasl.jaas.config` (parsed by Kafka's `JaasContext` on the Java side).
//! Mechanisms this client does not speak (GSSAPI, OAUTHBEARER) never get here: the connector
//! keeps Kafka's Java client for them.

pub mod sasl;
pub mod scram;
pub mod tls;

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
