//! The JSON encode session behind a Java handle: Flink binary row images are written
//! straight as the compact JSON text Flink's `json` format produces. With a `confluent`
//! section (`json-confluent-native`) the writer schema (the `schema` option, or the JSON
//! Schema derived from the row type) is registered once at open and every value is framed
//! with Confluent's header.

use karrow_codecs::json::json_schema::{check_schema_text, derive_json_schema};
use karrow_codecs::json::{JsonConfluentEncoder, JsonRowEncoder};
use karrow_codecs::{CodecError, FlinkType};
use karrow_registry::{RegistryClient, SchemaDefinition};

use crate::config::{JsonConfluentEncoderConfig, JsonEncoderConfig};
use crate::error::NativeError;
use crate::session::{Session, SessionKind};

/// The value encoder of a session: plain JSON (`json-native`) or Confluent-framed JSON
/// (`json-confluent-native`).
enum ValueEncoder {
    Plain(JsonRowEncoder),
    Confluent(JsonConfluentEncoder),
}

impl ValueEncoder {
    fn encode_row(&self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        match self {
            ValueEncoder::Plain(e) => e.encode_row(image, out),
            ValueEncoder::Confluent(e) => e.encode_row(image, out),
        }
    }
}

/// One encoder per parallel Flink writer.
pub struct JsonEncodeSession {
    encoder: ValueEncoder,
    /// Reused buffer of the messages of the last call, back to back.
    out: Vec<u8>,
    /// Reused message start offsets of the last batch (`count + 1` entries).
    offsets: Vec<i32>,
}

impl JsonEncodeSession {
    /// Builds a session from the JSON configuration the format factory passes. With a
    /// `confluent` section this registers the writer schema; a registry that is down fails
    /// here, with the subject and URL in the message.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = JsonEncoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.row_type)?;
        // Built first: a type the format rejects fails before anything is registered.
        let encoder = JsonRowEncoder::new(&row_type, config.encode_options())?;
        let encoder = match &config.confluent {
            None => ValueEncoder::Plain(encoder),
            Some(confluent) => {
                let id = register_writer_schema(&row_type, confluent)?;
                ValueEncoder::Confluent(JsonConfluentEncoder::new(encoder, id))
            }
        };
        Ok(JsonEncodeSession {
            encoder,
            out: Vec::new(),
            offsets: Vec::new(),
        })
    }

    /// The registered writer schema id written in every header, `None` for plain JSON.
    pub fn schema_id(&self) -> Option<i32> {
        match &self.encoder {
            ValueEncoder::Plain(_) => None,
            ValueEncoder::Confluent(e) => Some(e.schema_id()),
        }
    }

    /// Encodes one row image (the per-record path) into one Kafka value.
    pub fn encode_image(&mut self, image: &[u8]) -> Result<&[u8], NativeError> {
        self.out.clear();
        self.encoder.encode_row(image, &mut self.out)?;
        Ok(&self.out)
    }

    /// Encodes row images into Kafka values; returns all values and `count + 1` offsets
    /// (value `i` spans `[offsets[i], offsets[i+1])`). A failing row fails the batch with
    /// its index as the record index.
    pub fn encode_batch<'a>(
        &mut self,
        images: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<(&[u8], &[i32]), NativeError> {
        let encoder = &self.encoder;
        crate::encoded_values::encode_all(
            images,
            &mut self.out,
            &mut self.offsets,
            |image, out| encoder.encode_row(image, out),
        )?;
        Ok((&self.out, &self.offsets))
    }
}

/// Registers the writer schema of `row_type` under the configured subject (schema type
/// JSON) and returns its id; the registry answers with the existing id when the subject
/// already holds the same text.
fn register_writer_schema(
    row_type: &FlinkType,
    confluent: &JsonConfluentEncoderConfig,
) -> Result<i32, NativeError> {
    let schema = match &confluent.schema {
        Some(explicit) => {
            check_schema_text(explicit).map_err(|reason| {
                NativeError::Config(format!(
                    "the 'schema' option of json-confluent-native is not a JSON Schema: {reason}"
                ))
            })?;
            explicit.clone()
        }
        None => derive_json_schema(row_type)?,
    };
    let client = RegistryClient::new(confluent.registry.registry_config())?;
    client
        .register(&confluent.subject, &SchemaDefinition::json(schema))
        .map_err(|source| NativeError::Register {
            subject: confluent.subject.clone(),
            urls: confluent.registry.url.clone(),
            source: Box::new(source),
        })
}

impl Session for JsonEncodeSession {
    fn kind(&self) -> SessionKind {
        SessionKind::JsonEncoder
    }

    fn retained_bytes(&self) -> usize {
        self.out.capacity() + self.offsets.capacity() * std::mem::size_of::<i32>()
    }

    fn encode_one(&mut self, image: &[u8]) -> Result<&[u8], NativeError> {
        self.encode_image(image)
    }

    fn encode_batch(&mut self, images: &[&[u8]]) -> Result<(&[u8], &[i32]), NativeError> {
        JsonEncodeSession::encode_batch(self, images.iter().copied())
    }

    fn schema_id(&self) -> Option<i32> {
        JsonEncodeSession::schema_id(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::JsonDecodeSession;

    const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[
        {"name":"a","type":{"type":"BIGINT","nullable":true}},
        {"name":"s","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#;

    /// Row images decoded from JSON by the decode session, one per message.
    fn images(messages: &[&str]) -> Vec<Vec<u8>> {
        let mut decoder = JsonDecodeSession::open(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        messages
            .iter()
            .map(|m| {
                decoder
                    .decode_message(m.as_bytes())
                    .unwrap()
                    .unwrap()
                    .images
                    .to_vec()
            })
            .collect()
    }

    #[test]
    fn batch_and_single_encode_agree() {
        let mut session = JsonEncodeSession::open(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        let rows = images(&[r#"{"a":1,"s":"x"}"#, r#"{"s":"y"}"#]);
        let (bytes, offsets) = session
            .encode_batch(rows.iter().map(|r| r.as_slice()))
            .unwrap();
        let (bytes, offsets) = (bytes.to_vec(), offsets.to_vec());
        assert_eq!(offsets.len(), 3);
        assert_eq!(
            &bytes[offsets[0] as usize..offsets[1] as usize],
            br#"{"a":1,"s":"x"}"#
        );
        assert_eq!(
            &bytes[offsets[1] as usize..offsets[2] as usize],
            br#"{"a":null,"s":"y"}"#
        );
        assert_eq!(
            session.encode_image(&rows[1]).unwrap(),
            br#"{"a":null,"s":"y"}"#
        );
    }

    #[test]
    fn options_reach_the_encoder_and_failures_name_the_row() {
        let mut session = JsonEncodeSession::open(&format!(
            r#"{{"row_type":{ROW},"ignore_null_fields":true}}"#
        ))
        .unwrap();
        let rows = images(&[r#"{"s":"y"}"#]);
        assert_eq!(session.encode_image(&rows[0]).unwrap(), br#"{"s":"y"}"#);

        assert_eq!(session.schema_id(), None);
        let truncated = &rows[0][..3];
        let err = match session.encode_batch([rows[0].as_slice(), truncated]) {
            Err(e) => e,
            Ok(_) => panic!("a truncated image must fail"),
        };
        assert_eq!(err.record_index(), Some(1), "{err}");
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[test]
    fn confluent_open_checks_the_schema_option_and_names_the_registry_when_down() {
        let port = free_port();
        let config = |schema: &str| {
            format!(
                r#"{{"row_type":{ROW},"confluent":{{"url":"http://127.0.0.1:{port}",
                    "subject":"t-value","schema":{schema},"properties":{{}}}}}}"#
            )
        };
        let err = match JsonEncodeSession::open(&config(r#""[1,2]""#)) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("an array is not a JSON Schema"),
        };
        assert!(err.contains("not a JSON Schema"), "{err}");
        let err = match JsonEncodeSession::open(&config("null")) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("opened without a registry"),
        };
        assert!(err.contains(&port.to_string()), "{err}");
        assert!(err.contains("t-value"), "{err}");
    }

    #[test]
    fn confluent_round_trip_through_a_dev_registry() {
        use karrow_registry::{DevRegistry, RegistryConfig, SchemaType};

        let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
        let url = registry.url();
        let encoder_config = format!(
            r#"{{"row_type":{ROW},"confluent":{{"url":"{url}","subject":"bids-value","properties":{{}}}}}}"#
        );
        let mut session = JsonEncodeSession::open(&encoder_config).unwrap();
        let id = session.schema_id().unwrap();
        // A second writer (another parallel subtask) gets the same id for the same text.
        assert_eq!(
            JsonEncodeSession::open(&encoder_config)
                .unwrap()
                .schema_id(),
            Some(id)
        );
        let client = RegistryClient::new(RegistryConfig::from_url(&url)).unwrap();
        let latest = client.latest("bids-value").unwrap();
        assert_eq!(latest.id, id);
        assert_eq!(latest.definition.schema_type, SchemaType::Json);
        let row_type = FlinkType::from_json_str(ROW).unwrap();
        assert_eq!(
            latest.definition.schema,
            derive_json_schema(&row_type).unwrap()
        );

        let rows = images(&[r#"{"a":1,"s":"x"}"#]);
        let message = session.encode_image(&rows[0]).unwrap().to_vec();
        let mut expected = vec![0];
        expected.extend_from_slice(&id.to_be_bytes());
        expected.extend_from_slice(br#"{"a":1,"s":"x"}"#);
        assert_eq!(message, expected);

        // Decoding with validate-schema-id: the registered id passes, others fail naming it.
        let avro_id = client
            .register("other-value", &SchemaDefinition::avro(r#""string""#))
            .unwrap();
        let decoder_config = format!(
            r#"{{"row_type":{ROW},"confluent":{{"url":"{url}","validate_schema_id":true}}}}"#
        );
        let mut decoder = JsonDecodeSession::open(&decoder_config).unwrap();
        assert!(decoder.decode_message(&message).unwrap().is_some());
        let unknown = id + avro_id + 100;
        let framed = [&[0u8][..], &unknown.to_be_bytes(), b"{}"].concat();
        let err = decoder.decode_message(&framed).err().unwrap();
        assert_eq!(err.schema_id(), Some(unknown));
        assert!(
            err.to_string().starts_with(&format!(
                "Could not find schema with id {unknown} in registry"
            )),
            "{err}"
        );
        let framed = [&[0u8][..], &avro_id.to_be_bytes(), b"{}"].concat();
        let err = decoder.decode_message(&framed).err().unwrap().to_string();
        assert!(err.contains("AVRO schema, not a JSON schema"), "{err}");

        // An explicit schema is registered as given.
        let explicit = r#"{"type":"object","title":"Bid"}"#;
        let explicit_config = format!(
            r#"{{"row_type":{ROW},"confluent":{{"url":"{url}","subject":"custom","schema":{}}}}}"#,
            serde_json::to_string(explicit).unwrap()
        );
        let custom = JsonEncodeSession::open(&explicit_config).unwrap();
        let registered = client.latest("custom").unwrap();
        assert_eq!(Some(registered.id), custom.schema_id());
        assert_eq!(registered.definition.schema, explicit);
        registry.stop();
    }
}
