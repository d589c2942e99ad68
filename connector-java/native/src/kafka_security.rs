//! The `security` object of the native fetch and produce configurations
//! (`docs/jni-contract.md`, "Kafka security"): what Java read from the table's
//! `security.protocol`, key and trust stores (with Java's own `KeyStore` API) and
//! `sasl.jaas.config` (with Kafka's `JaasContext`), or the OAUTHBEARER token of Kafka's own
//! login, turned into a [`karrow_kafka::security::Security`].
//!
//! The secrets (password, token, the client key's base64 and DER) are zeroed when this
//! configuration is dropped, right after the session is opened; what the connections keep is
//! zeroed when they are.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine;
use karrow_kafka::security::{
    BearerToken, Mechanism, SaslCredentials, Security, TlsConfig, TlsSettings, TokenSource,
};
use serde::Deserialize;
use zeroize::{Zeroize, Zeroizing};

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

impl Drop for TlsJson {
    fn drop(&mut self) {
        if let Some(key) = self.client_key.as_mut() {
            key.zeroize();
        }
    }
}

/// `security.sasl`: the mechanism and the login module's credentials (PLAIN, SCRAM) or the
/// login's current token (OAUTHBEARER).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaslJson {
    /// `sasl.mechanism`: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.
    pub mechanism: String,
    /// The login module's `username` (PLAIN, SCRAM).
    #[serde(default)]
    pub username: String,
    /// The login module's `password` (PLAIN, SCRAM).
    #[serde(default)]
    pub password: String,
    /// The token (OAUTHBEARER).
    #[serde(default)]
    pub token: Option<TokenJson>,
}

impl fmt::Debug for SaslJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslJson")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"(hidden)")
            .field("token", &self.token)
            .finish()
    }
}

impl Drop for SaslJson {
    fn drop(&mut self) {
        self.password.zeroize();
    }
}

/// An OAUTHBEARER token as Kafka's `OAuthBearerToken` gives it (the `security.sasl.token` of
/// the open configuration, and the `set_token` control request of fetch and produce).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenJson {
    /// The compact-serialized token.
    pub value: String,
    /// When it expires, ms since the epoch.
    pub lifetime_ms: i64,
    /// The SASL extensions of the login (name to value).
    #[serde(default)]
    pub extensions: BTreeMap<String, String>,
}

impl fmt::Debug for TokenJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenJson")
            .field("value", &"(hidden)")
            .field("lifetime_ms", &self.lifetime_ms)
            .field("extensions", &self.extensions)
            .finish()
    }
}

impl Drop for TokenJson {
    fn drop(&mut self) {
        self.value.zeroize();
    }
}

impl TokenJson {
    /// The token for the client.
    pub fn token(&self) -> BearerToken {
        BearerToken {
            value: Zeroizing::new(self.value.clone()),
            lifetime_ms: self.lifetime_ms,
            extensions: self
                .extensions
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }
}

fn der(what: &str, b64: &str) -> Result<Vec<u8>, NativeError> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| NativeError::Config(format!("security: {what} is not base64: {e}")))
}

/// The `set_token` control request of a fetch or produce session (`{"op":"set_token",
/// "token":{...}}`): hands a refreshed OAUTHBEARER token to `source`.
pub fn set_token(source: Option<&TokenSource>, token: &TokenJson) -> Result<(), NativeError> {
    let source = source.ok_or_else(|| {
        NativeError::InvalidCall("set_token: the session does not use OAUTHBEARER".into())
    })?;
    source
        .set(token.token())
        .map_err(|e| NativeError::Config(format!("security: {e}")))
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
                        .map(|k| der("the client key", k).map(Zeroizing::new))
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
            Some(s) => {
                let mechanism = Mechanism::from_name(&s.mechanism).ok_or_else(|| {
                    NativeError::Config(format!(
                        "security: SASL mechanism '{}' is not spoken natively (PLAIN, \
                         SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER are)",
                        s.mechanism
                    ))
                })?;
                Some(match (mechanism, &s.token) {
                    (Mechanism::OAuthBearer, Some(token)) => SaslCredentials::oauth_bearer(
                        TokenSource::new(token.token())
                            .map_err(|e| NativeError::Config(format!("security: {e}")))?,
                    ),
                    (Mechanism::OAuthBearer, None) => {
                        return Err(NativeError::Config(
                            "security: OAUTHBEARER without a token".into(),
                        ))
                    }
                    (_, Some(_)) => {
                        return Err(NativeError::Config(format!(
                            "security: a token for SASL mechanism {}",
                            s.mechanism
                        )))
                    }
                    (m, None) => SaslCredentials::password(m, &s.username, &s.password),
                })
            }
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
        let oauth: SecurityConfig = serde_json::from_str(
            r#"{"sasl":{"mechanism":"OAUTHBEARER","token":{"value":"tok.en.","lifetimeMs":5,"extensions":{"a":"b"}}}}"#,
        )
        .unwrap();
        let built = oauth.build().unwrap();
        let source = built.sasl.as_ref().and_then(|s| s.token.clone()).unwrap();
        assert_eq!(source.current().value.as_str(), "tok.en.");
        assert_eq!(
            source.current().extensions,
            [("a".to_string(), "b".to_string())]
        );
        assert!(!format!("{oauth:?} {built:?}").contains("tok.en."));
        let next: TokenJson = serde_json::from_str(r#"{"value":"next","lifetimeMs":9}"#).unwrap();
        set_token(Some(&source), &next).unwrap();
        assert_eq!(source.current().value.as_str(), "next");
        assert!(set_token(None, &next).is_err());
        for bad in [
            r#"{"sasl":{"mechanism":"OAUTHBEARER"}}"#,
            r#"{"sasl":{"mechanism":"OAUTHBEARER","token":{"value":"a b","lifetimeMs":1}}}"#,
            r#"{"sasl":{"mechanism":"PLAIN","token":{"value":"t","lifetimeMs":1}}}"#,
        ] {
            let c: SecurityConfig = serde_json::from_str(bad).unwrap();
            assert!(c.build().is_err(), "{bad}");
        }
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
