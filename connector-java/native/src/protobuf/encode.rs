//! The Protobuf encode session: Flink binary row images written as the bytes
//! flink-protobuf's serializer produces. With a `confluent` section
//! (`protobuf-confluent-native`) the writer schema (the `schema` option, or the proto3 schema
//! derived from the row type) is registered once at open and every value is framed with
//! Confluent's header and the message indexes of the written message.

use karrow_codecs::protobuf::confluent::{
    referenced_imports, writer_schema_with_imports, ProtobufConfluentEncoder,
};
use karrow_codecs::protobuf::ProtobufRowEncoder;
use karrow_codecs::schema_source;
use karrow_codecs::{CodecError, FlinkType};
use karrow_registry::{RegistryClient, SchemaDefinition};

use crate::config::{schema_references, ProtobufConfig, ProtobufConfluentConfig};
use crate::encoded_values::encode_all;
use crate::error::NativeError;
use crate::session::{Session, SessionKind};

/// Plain protobuf (`protobuf-native`) or Confluent-framed (`protobuf-confluent-native`).
#[derive(Debug)]
enum ValueEncoder {
    Plain(ProtobufRowEncoder),
    Confluent(ProtobufConfluentEncoder),
}

impl ValueEncoder {
    fn encode_row(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        match self {
            ValueEncoder::Plain(e) => e.encode_row(image, out),
            ValueEncoder::Confluent(e) => e.encode_row(image, out),
        }
    }
}

/// One encoder per parallel Flink writer.
pub struct ProtobufEncodeSession {
    encoder: ValueEncoder,
    /// Reused buffer of the messages of the last call, back to back.
    out: Vec<u8>,
    /// Reused message start offsets of the last batch (`count + 1` entries).
    offsets: Vec<i32>,
}

impl ProtobufEncodeSession {
    /// Builds a session from the configuration JSON and the serialized descriptor set (empty
    /// and unused with a `confluent` section, which registers the writer schema here: a
    /// registry that is down fails the open).
    pub fn open(config_json: &str, descriptor_set: &[u8]) -> Result<Self, NativeError> {
        let config = ProtobufConfig::from_json(config_json)?;
        let encoder = match config.confluent {
            None => {
                let (config, row_type, message) = super::plain_parts(config, descriptor_set)?;
                ValueEncoder::Plain(ProtobufRowEncoder::new(
                    &message,
                    &row_type,
                    config.options,
                )?)
            }
            Some(ref confluent) => {
                let row_type = FlinkType::from_json(&config.row_type)?;
                ValueEncoder::Confluent(open_confluent(
                    &row_type,
                    &config.message,
                    config.options.clone(),
                    confluent,
                )?)
            }
        };
        Ok(ProtobufEncodeSession {
            encoder,
            out: Vec::new(),
            offsets: Vec::new(),
        })
    }

    /// The registered writer schema id written in every header, `None` for plain protobuf.
    pub fn schema_id(&self) -> Option<i32> {
        match &self.encoder {
            ValueEncoder::Plain(_) => None,
            ValueEncoder::Confluent(e) => Some(e.schema_id()),
        }
    }
}

/// Resolves the schemas the writer schema's references name, compiles the writer schema and
/// the row encoder (so that a schema or row type the format rejects fails before anything is
/// registered), then registers the schema (with its references) under the subject with
/// schema type PROTOBUF.
fn open_confluent(
    row_type: &FlinkType,
    message_name: &str,
    options: karrow_codecs::protobuf::ProtobufOptions,
    confluent: &ProtobufConfluentConfig,
) -> Result<ProtobufConfluentEncoder, NativeError> {
    let subject = confluent.subject.as_deref().ok_or_else(|| {
        NativeError::Config("the protobuf-confluent-native encoder needs a subject".into())
    })?;
    let client = RegistryClient::new(confluent.registry.registry_config())?;
    let references = schema_references(confluent.schema_references.as_deref())?;
    if confluent.schema.is_none() && !references.is_empty() {
        return Err(NativeError::Config(
            "schema references are given without the 'schema' that uses them".into(),
        ));
    }
    // The imported files as Confluent's clients resolve them: recursively, by subject and
    // version, each under the import name its reference gives.
    let wanted: Vec<_> = references
        .iter()
        .map(|r| schema_source::SchemaReference {
            name: r.name.clone(),
            subject: r.subject.clone(),
            version: r.version,
        })
        .collect();
    let imports = referenced_imports(&client, &wanted).map_err(NativeError::Config)?;
    let writer = writer_schema_with_imports(
        row_type,
        confluent.schema.as_deref(),
        message_name,
        &imports,
    )?;
    let encoder = ProtobufRowEncoder::new(&writer.message, row_type, options)?;
    let id = client
        .register(
            subject,
            &SchemaDefinition::protobuf(writer.text).with_references(references),
        )
        .map_err(|source| NativeError::Register {
            subject: subject.to_string(),
            urls: confluent.registry.url.clone(),
            source: Box::new(source),
        })?;
    Ok(ProtobufConfluentEncoder::new(encoder, id, &writer.path))
}

impl Session for ProtobufEncodeSession {
    fn kind(&self) -> SessionKind {
        SessionKind::ProtobufEncoder
    }

    fn retained_bytes(&self) -> usize {
        self.out.capacity() + self.offsets.capacity() * std::mem::size_of::<i32>()
    }

    fn encode_one(&mut self, image: &[u8]) -> Result<&[u8], NativeError> {
        self.out.clear();
        self.encoder.encode_row(image, &mut self.out)?;
        Ok(&self.out)
    }

    fn encode_batch(&mut self, images: &[&[u8]]) -> Result<(&[u8], &[i32]), NativeError> {
        let encoder = &mut self.encoder;
        encode_all(
            images.iter().copied(),
            &mut self.out,
            &mut self.offsets,
            |image, out| encoder.encode_row(image, out),
        )?;
        Ok((&self.out, &self.offsets))
    }

    fn schema_id(&self) -> Option<i32> {
        ProtobufEncodeSession::schema_id(self)
    }
}
