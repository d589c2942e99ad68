//! The Confluent Avro encode session behind a Java handle: the writer schema is
//! registered once at open, then Flink binary rows are encoded straight into Avro.

use karrow_codecs::avro::model::AvroNode;
use karrow_codecs::avro::{AvroConfluentEncoder, EncodedBatch};
use karrow_codecs::schema_source::{self, SchemaType};
use karrow_codecs::FlinkType;
use karrow_registry::{RegistryClient, SchemaDefinition};

use crate::config::AvroEncoderConfig;
use crate::error::NativeError;
use crate::session::{Session, SessionKind};

/// One encoder per parallel Flink writer.
pub struct AvroEncodeSession {
    encoder: AvroConfluentEncoder,
    out: EncodedBatch,
}

impl AvroEncodeSession {
    /// Registers the writer schema under the configured subject and builds the encoder.
    /// A registry that is down fails here, with the subject and URL in the message.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = AvroEncoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.decoder.row_type)?;
        let derived = AvroConfluentEncoder::derived_schema(&row_type)?;
        let client = RegistryClient::new(config.decoder.registry_config())?;
        let references = config.references()?;
        let schema = match &config.decoder.schema {
            None if !references.is_empty() => {
                return Err(NativeError::Config(
                    "schema references are given without the 'schema' that uses them".into(),
                ))
            }
            None => derived,
            Some(explicit) => {
                // The referenced schemas as Confluent's clients resolve them: recursively, by
                // subject and version, dependencies parsed first.
                let wanted: Vec<_> = references
                    .iter()
                    .map(|r| schema_source::SchemaReference {
                        name: r.name.clone(),
                        subject: r.subject.clone(),
                        version: r.version,
                    })
                    .collect();
                let resolved =
                    schema_source::resolve_references(&client, &wanted, SchemaType::Avro)
                        .map_err(NativeError::Config)?;
                let texts: Vec<&str> = resolved.iter().map(|r| r.schema.text.as_str()).collect();
                check_same_shape(explicit, &texts, &derived)?;
                explicit.clone()
            }
        };
        let id = client
            .register(
                &config.subject,
                &SchemaDefinition::avro(schema).with_references(references),
            )
            .map_err(|source| NativeError::Register {
                subject: config.subject.clone(),
                urls: config.decoder.registry.url.clone(),
                source: Box::new(source),
            })?;
        let encoder = AvroConfluentEncoder::new(row_type, id)?;
        Ok(AvroEncodeSession {
            encoder,
            out: EncodedBatch::default(),
        })
    }

    /// The registered writer schema id.
    pub fn schema_id(&self) -> i32 {
        self.encoder.schema_id()
    }

    /// Encodes one row image (the per-record path) into one Kafka value.
    pub fn encode_image(&mut self, image: &[u8]) -> Result<&[u8], NativeError> {
        self.out.bytes.clear();
        self.out.offsets.clear();
        self.encoder.encode_binary_rows([image], &mut self.out)?;
        Ok(&self.out.bytes)
    }

    /// Encodes row images into Kafka values; returns all values and `count + 1` offsets.
    pub fn encode_batch<'a>(
        &mut self,
        images: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<(&[u8], &[i32]), NativeError> {
        self.out.bytes.clear();
        self.out.offsets.clear();
        self.encoder.encode_binary_rows(images, &mut self.out)?;
        Ok((&self.out.bytes, &self.out.offsets))
    }
}

/// The native encoder writes the shapes Flink derives; an explicit `schema` is accepted
/// when it has the same structure (names and namespaces may differ).
fn check_same_shape(explicit: &str, referenced: &[&str], derived: &str) -> Result<(), NativeError> {
    let a = AvroNode::parse_with_references(explicit, referenced)?;
    let b = AvroNode::parse(derived)?;
    if same_shape(&a, &b) {
        Ok(())
    } else {
        Err(NativeError::Config(format!(
            "the 'schema' option describes a different Avro structure than the table ({derived}); \
             the native encoder supports only the structure Flink derives from the table (enums, fixed \
             and reordered unions are not supported yet)"
        )))
    }
}

fn same_shape(a: &AvroNode, b: &AvroNode) -> bool {
    use AvroNode as N;
    match (a, b) {
        (N::Array(x), N::Array(y)) | (N::Map(x), N::Map(y)) => same_shape(x, y),
        (N::Union(x), N::Union(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_shape(p, q))
        }
        (N::Record(x), N::Record(y)) => {
            x.fields.len() == y.fields.len()
                && x.fields
                    .iter()
                    .zip(&y.fields)
                    .all(|(p, q)| p.name == q.name && same_shape(&p.schema, &q.schema))
        }
        (N::Enum(_), _) | (N::Fixed(_), _) | (N::Recursive(_), _) => false,
        (x, y) => std::mem::discriminant(x) == std::mem::discriminant(y),
    }
}

impl Session for AvroEncodeSession {
    fn kind(&self) -> SessionKind {
        SessionKind::AvroEncoder
    }

    fn retained_bytes(&self) -> usize {
        self.out.bytes.capacity() + self.out.offsets.capacity() * std::mem::size_of::<i32>()
    }

    fn encode_one(&mut self, image: &[u8]) -> Result<&[u8], NativeError> {
        self.encode_image(image)
    }

    fn encode_batch(&mut self, images: &[&[u8]]) -> Result<(&[u8], &[i32]), NativeError> {
        AvroEncodeSession::encode_batch(self, images.iter().copied())
    }

    fn schema_id(&self) -> Option<i32> {
        Some(AvroEncodeSession::schema_id(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_schema_must_match_the_derived_structure() {
        let derived = r#"{"type":"record","name":"record","fields":[{"name":"a","type":["null","long"],"default":null}]}"#;
        let renamed = r#"{"type":"record","name":"Bid","namespace":"x","fields":[{"name":"a","type":["null","long"]}]}"#;
        let other = r#"{"type":"record","name":"Bid","fields":[{"name":"a","type":"long"}]}"#;
        assert!(check_same_shape(renamed, &[], derived).is_ok());
        assert!(check_same_shape(other, &[], derived).is_err());
    }

    /// A writer schema that names another subject's type: the references are resolved for
    /// the shape check and registered with the schema; the decoder reads it back.
    #[test]
    fn writer_schema_with_references_registers_them() {
        use crate::avro::decode::AvroDecodeSession;
        use karrow_registry::{DevRegistry, RegistryClient, RegistryConfig, SchemaReference};
        let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
        let url = registry.url();
        let client = RegistryClient::new(RegistryConfig::from_url(&url)).unwrap();
        let amount = r#"{"type":"record","name":"Amount","namespace":"money","fields":[{"name":"units","type":["null","long"],"default":null}]}"#;
        client
            .register("amount", &SchemaDefinition::avro(amount))
            .unwrap();
        let row = r#"{"type":"ROW","nullable":false,"fields":[
            {"name":"id","type":{"type":"BIGINT","nullable":true}},
            {"name":"price","type":{"type":"ROW","nullable":true,"fields":[
              {"name":"units","type":{"type":"BIGINT","nullable":true}}]}}]}"#;
        let writer = r#"{"type":"record","name":"Bid","namespace":"shop","fields":[
            {"name":"id","type":["null","long"],"default":null},
            {"name":"price","type":["null","money.Amount"],"default":null}]}"#;
        let config = |refs: &str| {
            format!(
                r#"{{"row_type":{row},"url":"{url}","subject":"bids-value","properties":{{}},
                   "schema":{},"schema_references":{}}}"#,
                serde_json::to_string(writer).unwrap(),
                serde_json::to_string(refs).unwrap()
            )
        };
        let err = AvroEncodeSession::open(&config("{}"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("not a JSON array"), "{err}");
        // Without its reference the schema does not parse.
        let err = AvroEncodeSession::open(&config("[]"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("undefined name: money.Amount"), "{err}");
        let err = AvroEncodeSession::open(&config(
            r#"[{"name":"money.Amount","subject":"amount","version":2}]"#,
        ))
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("subject 'amount', version 2"), "{err}");

        let mut encoder = AvroEncodeSession::open(&config(
            r#"[{"name":"money.Amount","subject":"amount","version":1}]"#,
        ))
        .unwrap();
        let latest = client.latest("bids-value").unwrap();
        assert_eq!(latest.id, encoder.schema_id());
        assert_eq!(
            latest.definition.references,
            vec![SchemaReference {
                name: "money.Amount".into(),
                subject: "amount".into(),
                version: 1
            }]
        );
        // id = 5, price = {units: 1250}: union branches 1, then the values.
        let value = [0, 0, 0, 0, 0, 2, 10, 2, 2, 0xc4, 0x13];
        let mut value = value.to_vec();
        value[1..5].copy_from_slice(&encoder.schema_id().to_be_bytes());
        let decoder_config = format!(r#"{{"row_type":{row},"url":"{url}","properties":{{}}}}"#);
        let mut decoder = AvroDecodeSession::open(&decoder_config).unwrap();
        let rows = decoder
            .decode_message(&value)
            .unwrap()
            .unwrap()
            .images
            .to_vec();
        assert_eq!(encoder.encode_image(&rows).unwrap(), value.as_slice());
    }

    #[test]
    fn open_fails_clearly_when_the_registry_is_down() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = format!(
            r#"{{"row_type":{{"type":"ROW","nullable":false,"fields":[{{"name":"a","type":{{"type":"BIGINT"}}}}]}},
               "url":"http://127.0.0.1:{port}","subject":"t-value","properties":{{}}}}"#
        );
        let err = match AvroEncodeSession::open(&config) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("opened without a registry"),
        };
        assert!(err.contains(&port.to_string()), "{err}");
    }
}
