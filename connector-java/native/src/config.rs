//! The decoder configuration the Java format factory passes as JSON
//! (`docs/jni-contract.md`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::NativeError;

/// Options of a Confluent Avro decoder, mirroring `avro-confluent`.
#[derive(Debug, Deserialize)]
pub struct AvroDecoderConfig {
    /// The Flink row type, in the contract's JSON form.
    pub row_type: serde_json::Value,
    /// Registry URL(s), comma-separated.
    pub url: String,
    /// Explicit reader schema (the format's `schema` option).
    #[serde(default)]
    pub schema: Option<String>,
    /// `basic-auth.credentials-source`.
    #[serde(default)]
    pub basic_auth_credentials_source: Option<String>,
    /// `basic-auth.user-info`.
    #[serde(default)]
    pub basic_auth_user_info: Option<String>,
    /// `bearer-auth.credentials-source`.
    #[serde(default)]
    pub bearer_auth_credentials_source: Option<String>,
    /// `bearer-auth.token`.
    #[serde(default)]
    pub bearer_auth_token: Option<String>,
    /// Trusted CA certificates (PEM), converted by Java from the truststore.
    #[serde(default)]
    pub ssl_ca_pem: Option<String>,
    /// Extra registry-client properties.
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
}

impl AvroDecoderConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }

    /// The registry client configuration these options describe.
    pub fn registry_config(&self) -> karrow_registry::RegistryConfig {
        let mut cfg = karrow_registry::RegistryConfig::from_url(&self.url);
        cfg.basic_auth_user_info = self.basic_auth_user_info.clone();
        cfg.bearer_token = self.bearer_auth_token.clone();
        cfg.ssl_ca_pem = self.ssl_ca_pem.clone();
        cfg.properties = self.properties.clone();
        cfg
    }
}

/// Options of a Confluent Avro encoder: the decoder's options plus the subject the
/// writer schema is registered under (resolved by the Java factory, e.g. `<topic>-value`).
#[derive(Debug, Deserialize)]
pub struct AvroEncoderConfig {
    /// Subject to register the writer schema under.
    pub subject: String,
    /// Row type, registry and auth options, as for decoding (`schema` is the writer schema).
    #[serde(flatten)]
    pub decoder: AvroDecoderConfig,
}

impl AvroEncoderConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }
}
