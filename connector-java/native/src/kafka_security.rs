//! The `security` object of the native fetch and produce configurations
//! (`docs/jni-contract.md`, "Kafka security"): what Java read from the table's
//! `security.protocol`, key and trust stores (with Java's own `KeyStore` API) and
//! `sasl.jaas.config` (with Kafka's `JaasContext`), turned into a
//! [`karrow_kafka::security::Security`].

use std::fmt;

use base64::Engine;
use karrow_kafka::security::{Mechanism, SaslCredentials, Security, TlsConfig, TlsSettings};
use serde::Deserialize;

use crate::error::NativeError;

/// `security` (absent: plaintext).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecurityConfig {
    /// TLS (`SSL`, `SASL_SSL`).
    #[serde(default)]
    pub tls: Option<TlsJson>,
    /// SASL (`SASL_PLAINTEXT`, `SASL_SSL`).
    #[serde(default)]
    pub sasl: Option<SaslJson>,
}

/// `security.tls`: certificates and keys as base64 DER.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TlsJson {
    /// The trusted certificates (the truststore's, or the JVM's default trust).
    pub trusted_certificates: Vec<String>,
    /// `ssl.endpoint.identification.algorithm` is `https`.
    pub verify_hostname: bool,
    /// The keystore's certificate chain, leaf first (empty: no client certificate).
    #[serde(default)]
    pub client_certificate_chain: Vec<String>,
    /// The keystore's private key, PKCS#8.
    #[serde(default)]
    pub client_key: Option<String>,
    /// `ssl.enabled.protocols` (empty: TLSv1.2 and TLSv1.3).
    #[serde(default)]
    pub protocols: Vec<String>,
}

impl fmt::Debug for TlsJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsJson")
            .field("trusted_certificates", &self.trusted_certificates.len())
            .field("verify_hostname", &self.verify_hostname)
            .field(
                "client_certificate_chain",
                &self.client_certificate_chain.len(),
            )
            .field("client_key", &self.client_key.as_ref().map(|_| "(set)"))
            .field("protocols", &self.protocols)
            .finish()
    }
}

/// `security.sasl`: the mechanism and the login module's credentials.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaslJson {
    /// `sasl.mechanism`: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
    pub mechanism: String,
    /// The login module's `username`.
    pub username: String,
    /// The login module's `password`.
    pub password: String,
}

impl fmt::Debug for SaslJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslJson")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"(hidden)")
            .finish()
    }
}

fn der(what: &str, b64: &str) -> Result<Vec<u8>, NativeError> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| NativeError::Config(format!("security: {what} is not base64: {e}")))
}

impl SecurityConfig {
    /// The connections' security (the TLS configuration built once, for every connection).
    pub fn build(&self) -> Result<Security, NativeError> {
        let tls = match &self.tls {
            None => None,
            Some(t) => {
                let settings = TlsSettings {
                    trusted_certificates: t
                        .trusted_certificates
                        .iter()
                        .map(|c| der("a trusted certificate", c))
                        .collect::<Result<_, _>>()?,
                    verify_hostname: t.verify_hostname,
                    client_certificate_chain: t
                        .client_certificate_chain
                        .iter()
                        .map(|c| der("a client certificate", c))
                        .collect::<Result<_, _>>()?,
                    client_key: t
                        .client_key
                        .as_deref()
                        .map(|k| der("the client key", k))
                        .transpose()?,
                    protocols: t.protocols.clone(),
                };
                Some(
                    TlsConfig::new(&settings)
                        .map_err(|e| NativeError::Config(format!("security: {e}")))?,
                )
            }
        };
        let sasl = match &self.sasl {
            None => None,
            Some(s) => Some(SaslCredentials {
                mechanism: Mechanism::from_name(&s.mechanism).ok_or_else(|| {
                    NativeError::Config(format!(
                        "security: SASL mechanism '{}' is not spoken natively (PLAIN, \
                         SCRAM-SHA-256, SCRAM-SHA-512 are)",
                        s.mechanism
                    ))
                })?,
                username: s.username.clone(),
                password: s.password.clone(),
            }),
        };
        Ok(Security { tls, sasl })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaintext_sasl_and_refusals() {
        let plain: SecurityConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(plain.build().unwrap().protocol(), "PLAINTEXT");
        let sasl: SecurityConfig = serde_json::from_str(
            r#"{"sasl":{"mechanism":"SCRAM-SHA-512","username":"u","password":"secret"}}"#,
        )
        .unwrap();
        let built = sasl.build().unwrap();
        assert_eq!(built.protocol(), "SASL_PLAINTEXT");
        assert!(!format!("{sasl:?} {built:?}").contains("secret"));
        let gssapi: SecurityConfig = serde_json::from_str(
            r#"{"sasl":{"mechanism":"GSSAPI","username":"u","password":"p"}}"#,
        )
        .unwrap();
        assert!(gssapi.build().unwrap_err().to_string().contains("GSSAPI"));
        let bad: SecurityConfig =
            serde_json::from_str(r#"{"tls":{"trustedCertificates":["@@"],"verifyHostname":true}}"#)
                .unwrap();
        assert!(bad.build().unwrap_err().to_string().contains("base64"));
        let junk: SecurityConfig = serde_json::from_str(
            r#"{"tls":{"trustedCertificates":["AAEC"],"verifyHostname":true}}"#,
        )
        .unwrap();
        assert!(junk.build().is_err());
        assert!(serde_json::from_str::<SecurityConfig>(r#"{"other":1}"#).is_err());
    }
}
