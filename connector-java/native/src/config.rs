//! The decoder and encoder configurations the Java format factories pass as JSON
//! (`docs/jni-contract.md`).

use std::collections::BTreeMap;

use karrow_codecs::json::{
    JavaFloatText, JsonDecodeOptions, JsonEncodeOptions, MapNullKeyMode, TimestampStandard,
};
use serde::Deserialize;

use crate::error::NativeError;

/// How to reach the schema registry: URL(s), authentication, TLS trust and extra client
/// properties. Shared by `avro-confluent-native` and `json-confluent-native` (the Java side
/// renders it from the same options).
#[derive(Debug, Deserialize)]
pub struct RegistrySettings {
    /// Registry URL(s), comma-separated.
    pub url: String,
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
    /// `request-timeout`: one whole request, in milliseconds (absent: the client's default).
    #[serde(default)]
    pub request_timeout_ms: Option<u64>,
    /// `max-retries`: retries after a connect error, a timeout or a 5xx answer.
    #[serde(default)]
    pub max_retries: Option<u32>,
    /// `retry-backoff`: the delay before the first retry, in milliseconds.
    #[serde(default)]
    pub retry_backoff_ms: Option<u64>,
    /// `retry-backoff-max`: the longest delay between two retries, in milliseconds.
    #[serde(default)]
    pub retry_backoff_max_ms: Option<u64>,
}

impl RegistrySettings {
    /// The registry client configuration these options describe.
    pub fn registry_config(&self) -> karrow_registry::RegistryConfig {
        let mut cfg = karrow_registry::RegistryConfig::from_url(&self.url);
        cfg.basic_auth_user_info = self.basic_auth_user_info.clone();
        cfg.bearer_token = self.bearer_auth_token.clone();
        cfg.ssl_ca_pem = self.ssl_ca_pem.clone();
        cfg.properties = self.properties.clone();
        // Validated by the Java factory (RegistryDecoderConfig); the client checks them again.
        if let Some(ms) = self.request_timeout_ms {
            cfg.timeout = std::time::Duration::from_millis(ms);
        }
        if let Some(n) = self.max_retries {
            cfg.max_retries = n;
        }
        if let Some(ms) = self.retry_backoff_ms {
            cfg.initial_backoff = std::time::Duration::from_millis(ms);
        }
        if let Some(ms) = self.retry_backoff_max_ms {
            cfg.max_backoff = std::time::Duration::from_millis(ms);
        }
        cfg
    }
}

/// Options of a Confluent Avro decoder, mirroring `avro-confluent`.
#[derive(Debug, Deserialize)]
pub struct AvroDecoderConfig {
    /// The Flink row type, in the contract's JSON form.
    pub row_type: serde_json::Value,
    /// Explicit reader schema (the format's `schema` option).
    #[serde(default)]
    pub schema: Option<String>,
    /// Registry URL, authentication, TLS and client properties.
    #[serde(flatten)]
    pub registry: RegistrySettings,
}

impl AvroDecoderConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }

    /// The registry client configuration these options describe.
    pub fn registry_config(&self) -> karrow_registry::RegistryConfig {
        self.registry.registry_config()
    }
}

/// Options of a Confluent Avro encoder: the decoder's options plus the subject the
/// writer schema is registered under (resolved by the Java factory, e.g. `<topic>-value`).
#[derive(Debug, Deserialize)]
pub struct AvroEncoderConfig {
    /// Subject to register the writer schema under.
    pub subject: String,
    /// The registered schemas the writer schema (`schema`) refers to (Confluent's schema
    /// references), registered with it: the `schema.references` option's text, a JSON array
    /// of `{"name", "subject", "version"}` ([`AvroEncoderConfig::references`]).
    #[serde(default)]
    pub schema_references: Option<String>,
    /// Row type, registry and auth options, as for decoding (`schema` is the writer schema).
    #[serde(flatten)]
    pub decoder: AvroDecoderConfig,
}

impl AvroEncoderConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }

    /// The references of `schema_references` (none when it is absent).
    pub fn references(&self) -> Result<Vec<karrow_registry::SchemaReference>, NativeError> {
        schema_references(self.schema_references.as_deref())
    }
}

/// The references a `schema.references` option's text names (none when it is absent): a JSON
/// array of `{"name", "subject", "version"}` objects.
pub fn schema_references(
    text: Option<&str>,
) -> Result<Vec<karrow_registry::SchemaReference>, NativeError> {
    match text {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            NativeError::Config(format!(
                "'schema.references' is not a JSON array of {{\"name\", \"subject\", \"version\"}} objects: {e}"
            ))
        }),
    }
}

/// Options of a JSON decoder, mirroring the decode-side options of Flink's `json` format.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonDecoderConfig {
    /// The Flink row type, in the contract's JSON form.
    pub row_type: serde_json::Value,
    /// `fail-on-missing-field`, `ignore-parse-errors`, `timestamp-format.standard` and
    /// `decode.json-parser.enabled`; every field defaults to the format's default.
    #[serde(default)]
    pub options: JsonDecodeOptions,
    /// Present for `json-confluent-native`: values carry Confluent's 5-byte header.
    #[serde(default)]
    pub confluent: Option<JsonConfluentDecoderConfig>,
    /// `Runtime.version().feature()` of the JVM the job runs on: its `Double.toString`
    /// digits are the ones the tree decoder prints float literals with (absent: JDK 19+).
    #[serde(default)]
    pub java_feature_version: Option<u32>,
}

/// The Confluent section of a JSON decoder (`json-confluent-native`).
#[derive(Debug, Deserialize)]
pub struct JsonConfluentDecoderConfig {
    /// `validate-schema-id`: every schema id must name a JSON schema in the registry.
    #[serde(default)]
    pub validate_schema_id: bool,
    /// How to reach the registry (used only when `validate_schema_id` is true; the Java side
    /// also sends `schema`, which reading does not use).
    #[serde(flatten)]
    pub registry: RegistrySettings,
}

/// The Confluent section of a JSON encoder (`json-confluent-native`).
#[derive(Debug, Deserialize)]
pub struct JsonConfluentEncoderConfig {
    /// Subject the writer schema is registered under (resolved by the Java factory, e.g.
    /// `<topic>-value`).
    pub subject: String,
    /// The JSON Schema text to register (the `schema` option); derived from the row type
    /// when absent.
    #[serde(default)]
    pub schema: Option<String>,
    /// How to reach the registry.
    #[serde(flatten)]
    pub registry: RegistrySettings,
}

impl JsonDecoderConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }

    /// The codec's decode options: the format's, with the JVM's float digits.
    pub fn decode_options(&self) -> JsonDecodeOptions {
        JsonDecodeOptions {
            float_text: float_text(self.java_feature_version),
            ..self.options
        }
    }
}

/// `map-null-key.mode` as the Java factory sends it (already upper-cased and validated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum MapNullKeyModeName {
    /// `FAIL` (the default).
    #[default]
    #[serde(rename = "FAIL")]
    Fail,
    /// `DROP`.
    #[serde(rename = "DROP")]
    Drop,
    /// `LITERAL`.
    #[serde(rename = "LITERAL")]
    Literal,
}

/// Options of a JSON encoder, mirroring the encode-side options of Flink's `json` format.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonEncoderConfig {
    /// The Flink row type, in the contract's JSON form.
    pub row_type: serde_json::Value,
    /// `timestamp-format.standard`.
    #[serde(default)]
    pub timestamp_standard: TimestampStandard,
    /// `map-null-key.mode`.
    #[serde(default)]
    pub map_null_key_mode: MapNullKeyModeName,
    /// `map-null-key.literal`, used in `LITERAL` mode.
    #[serde(default = "default_map_null_key_literal")]
    pub map_null_key_literal: String,
    /// `encode.decimal-as-plain-number`.
    #[serde(default)]
    pub decimal_as_plain_number: bool,
    /// `encode.ignore-null-fields`.
    #[serde(default)]
    pub ignore_null_fields: bool,
    /// Present for `json-confluent-native`: the writer schema is registered at open and
    /// every value starts with Confluent's 5-byte header.
    #[serde(default)]
    pub confluent: Option<JsonConfluentEncoderConfig>,
    /// `Runtime.version().feature()` of the JVM the job runs on: FLOAT/DOUBLE are written
    /// with its `Float/Double.toString` digits (absent: JDK 19+).
    #[serde(default)]
    pub java_feature_version: Option<u32>,
}

fn default_map_null_key_literal() -> String {
    "null".to_string()
}

impl JsonEncoderConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }

    /// The codec's encode options these settings describe.
    pub fn encode_options(&self) -> JsonEncodeOptions {
        let map_null_key = match self.map_null_key_mode {
            MapNullKeyModeName::Fail => MapNullKeyMode::Fail,
            MapNullKeyModeName::Drop => MapNullKeyMode::Drop,
            MapNullKeyModeName::Literal => {
                MapNullKeyMode::Literal(self.map_null_key_literal.clone())
            }
        };
        JsonEncodeOptions {
            timestamp_standard: self.timestamp_standard,
            map_null_key,
            decimal_as_plain_number: self.decimal_as_plain_number,
            ignore_null_fields: self.ignore_null_fields,
            float_text: float_text(self.java_feature_version),
        }
    }
}

/// The float digits of the JVM with this feature version (JDK 19+ when not given).
fn float_text(java_feature_version: Option<u32>) -> JavaFloatText {
    java_feature_version.map_or(JavaFloatText::Shortest, JavaFloatText::for_java_feature)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[{"name":"a","type":{"type":"BIGINT","nullable":true}}]}"#;

    #[test]
    fn json_decoder_options_default_like_flink() {
        let config = JsonDecoderConfig::from_json(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        assert_eq!(config.options, JsonDecodeOptions::default());
        assert!(config.options.json_parser);

        let config = JsonDecoderConfig::from_json(&format!(
            r#"{{"row_type":{ROW},"options":{{"fail_on_missing_field":false,"ignore_parse_errors":true,
                "timestamp_standard":"ISO-8601","json_parser":false}}}}"#
        ))
        .unwrap();
        assert!(config.options.ignore_parse_errors);
        assert!(!config.options.json_parser);
        assert_eq!(
            config.options.timestamp_standard,
            TimestampStandard::Iso8601
        );
    }

    #[test]
    fn json_decoder_config_rejects_unknown_values() {
        let bad_standard =
            format!(r#"{{"row_type":{ROW},"options":{{"timestamp_standard":"iso-8601"}}}}"#);
        assert!(JsonDecoderConfig::from_json(&bad_standard).is_err());
        let unknown_key = format!(r#"{{"row_type":{ROW},"option":{{}}}}"#);
        assert!(JsonDecoderConfig::from_json(&unknown_key).is_err());
    }

    #[test]
    fn json_confluent_sections_are_optional_and_read_the_registry_settings() {
        let plain = JsonDecoderConfig::from_json(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        assert!(plain.confluent.is_none());

        let decoder = JsonDecoderConfig::from_json(&format!(
            r#"{{"row_type":{ROW},"confluent":{{"url":"http://r:1,http://r:2","schema":null,
                "basic_auth_credentials_source":"USER_INFO","basic_auth_user_info":"u:p",
                "bearer_auth_credentials_source":null,"bearer_auth_token":null,"ssl_ca_pem":null,
                "properties":{{"a":"b"}},"validate_schema_id":true}}}}"#
        ))
        .unwrap();
        let confluent = decoder.confluent.unwrap();
        assert!(confluent.validate_schema_id);
        let registry = confluent.registry.registry_config();
        assert_eq!(registry.urls.len(), 2);
        assert_eq!(registry.basic_auth_user_info.as_deref(), Some("u:p"));
        assert_eq!(registry.properties.get("a").map(String::as_str), Some("b"));
        let defaults = JsonDecoderConfig::from_json(&format!(
            r#"{{"row_type":{ROW},"confluent":{{"url":"http://r:1"}}}}"#
        ))
        .unwrap();
        assert!(!defaults.confluent.unwrap().validate_schema_id);
        let no_url = format!(r#"{{"row_type":{ROW},"confluent":{{}}}}"#);
        assert!(JsonDecoderConfig::from_json(&no_url).is_err());

        let encoder = JsonEncoderConfig::from_json(&format!(
            r#"{{"row_type":{ROW},"ignore_null_fields":true,
                "confluent":{{"url":"http://r:1","subject":"t-value","schema":"{{}}","properties":{{}}}}}}"#
        ))
        .unwrap();
        assert!(encoder.ignore_null_fields);
        let confluent = encoder.confluent.unwrap();
        assert_eq!(confluent.subject, "t-value");
        assert_eq!(confluent.schema.as_deref(), Some("{}"));
        let no_subject = format!(r#"{{"row_type":{ROW},"confluent":{{"url":"http://r:1"}}}}"#);
        assert!(JsonEncoderConfig::from_json(&no_subject).is_err());
    }

    #[test]
    fn registry_bounds_default_to_the_clients_and_are_taken_when_given() {
        let defaults =
            AvroDecoderConfig::from_json(&format!(r#"{{"row_type":{ROW},"url":"http://r:1"}}"#))
                .unwrap()
                .registry_config();
        let stock = karrow_registry::RegistryConfig::from_url("http://r:1");
        assert_eq!(defaults.timeout, stock.timeout);
        assert_eq!(defaults.max_retries, stock.max_retries);
        assert_eq!(defaults.initial_backoff, stock.initial_backoff);
        assert_eq!(defaults.max_backoff, stock.max_backoff);
        let set = AvroDecoderConfig::from_json(&format!(
            r#"{{"row_type":{ROW},"url":"http://r:1","request_timeout_ms":1500,"max_retries":0,
                "retry_backoff_ms":5,"retry_backoff_max_ms":50}}"#
        ))
        .unwrap()
        .registry_config();
        assert_eq!(set.timeout, std::time::Duration::from_millis(1500));
        assert_eq!(set.max_retries, 0);
        assert_eq!(set.initial_backoff, std::time::Duration::from_millis(5));
        assert_eq!(set.max_backoff, std::time::Duration::from_millis(50));
    }

    #[test]
    fn json_encoder_options_map_the_null_key_mode() {
        let config = JsonEncoderConfig::from_json(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        assert_eq!(config.encode_options(), JsonEncodeOptions::default());

        let config = JsonEncoderConfig::from_json(&format!(
            r#"{{"row_type":{ROW},"timestamp_standard":"ISO-8601","map_null_key_mode":"LITERAL",
                "map_null_key_literal":"N/A","decimal_as_plain_number":true,"ignore_null_fields":true}}"#
        ))
        .unwrap();
        let options = config.encode_options();
        assert_eq!(options.map_null_key, MapNullKeyMode::Literal("N/A".into()));
        assert_eq!(options.timestamp_standard, TimestampStandard::Iso8601);
        assert!(options.decimal_as_plain_number && options.ignore_null_fields);

        let drop = format!(r#"{{"row_type":{ROW},"map_null_key_mode":"DROP"}}"#);
        assert_eq!(
            JsonEncoderConfig::from_json(&drop)
                .unwrap()
                .encode_options()
                .map_null_key,
            MapNullKeyMode::Drop
        );
        let lower = format!(r#"{{"row_type":{ROW},"map_null_key_mode":"drop"}}"#);
        assert!(JsonEncoderConfig::from_json(&lower).is_err());
    }
}

/// Settings of a Protobuf decoder or encoder (`protobuf-native`); the message's
/// descriptors travel separately as a serialized `FileDescriptorSet`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtobufConfig {
    /// The Flink row type, in the contract's JSON form.
    pub row_type: serde_json::Value,
    /// Full name of the message (`package.Outer.Inner`).
    pub message: String,
    /// `ignore-parse-errors`, `read-default-values`, `write-null-string-literal`.
    #[serde(default)]
    pub options: karrow_codecs::protobuf::ProtobufOptions,
    /// Present for `protobuf-confluent-native`: values carry Confluent's header and message
    /// indexes, and schemas come from the registry (the descriptor set is then empty and
    /// `message` names the message of the encoder's schema, empty for the first one).
    #[serde(default)]
    pub confluent: Option<ProtobufConfluentConfig>,
}

/// The Confluent section of a Protobuf decoder or encoder (`protobuf-confluent-native`).
#[derive(Debug, Deserialize)]
pub struct ProtobufConfluentConfig {
    /// Subject the writer schema is registered under (encoder only; resolved by the Java
    /// factory, e.g. `<topic>-value`).
    #[serde(default)]
    pub subject: Option<String>,
    /// The `.proto` text to register (the `schema` option, encoder only); derived from the
    /// row type when absent.
    #[serde(default)]
    pub schema: Option<String>,
    /// The registered schemas `schema` imports (Confluent's schema references, encoder only),
    /// registered with it: the `schema.references` option's text ([`schema_references`]).
    #[serde(default)]
    pub schema_references: Option<String>,
    /// How to reach the registry.
    #[serde(flatten)]
    pub registry: RegistrySettings,
}

impl ProtobufConfig {
    /// Parses the JSON text passed from Java.
    pub fn from_json(text: &str) -> Result<Self, NativeError> {
        serde_json::from_str(text).map_err(|e| NativeError::Config(format!("{e}")))
    }
}
