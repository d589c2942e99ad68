//! The Protobuf decode session: each value is one message, decoded into one Flink binary
//! row (none when skipped under `ignore-parse-errors`). With a `confluent` section
//! (`protobuf-confluent-native`) values carry Confluent's header and message indexes and
//! are read with their writer schema from the registry ([`ProtobufConfluentDecoder`]).

use std::sync::Arc;

use karrow_codecs::protobuf::confluent::ProtobufConfluentDecoder;
use karrow_codecs::protobuf::ProtobufRowDecoder;
use karrow_codecs::{CodecError, ErrorContext, FlinkType};
use karrow_registry::RegistryClient;

use crate::config::ProtobufConfig;
use crate::error::NativeError;
use crate::row_list::{MessageRows, RowListSession};
use crate::session::SessionKind;

/// The value decoder of a Protobuf session.
pub struct ProtobufValueDecoder(ValueDecoder);

/// Plain protobuf (`protobuf-native`) or Confluent-framed (`protobuf-confluent-native`).
enum ValueDecoder {
    Plain(Box<ProtobufRowDecoder>),
    Confluent(ProtobufConfluentDecoder),
}

impl MessageRows for ProtobufValueDecoder {
    const KIND: SessionKind = SessionKind::ProtobufDecoder;
    const AT_MOST_ONE_ROW: bool = true;

    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        match &mut self.0 {
            ValueDecoder::Plain(d) => d.decode_message(message, out, row_ends),
            ValueDecoder::Confluent(d) => d.decode_message(message, out, row_ends),
        }
    }

    /// flink-protobuf parses a null value and fails (skipped under ignore-parse-errors); a
    /// Confluent-framed tombstone gives no row, as for the other registry formats.
    fn decode_null(
        &mut self,
        _out: &mut Vec<u8>,
        _row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        let plain = match &self.0 {
            ValueDecoder::Plain(d) => d,
            ValueDecoder::Confluent(_) => return Ok(()),
        };
        if plain.options().ignore_parse_errors {
            return Ok(());
        }
        Err(CodecError::Protobuf {
            message: "the Kafka value is null".into(),
            context: ErrorContext::default(),
        })
    }
}

/// One Protobuf decoder per parallel Flink reader.
pub type ProtobufDecodeSession = RowListSession<ProtobufValueDecoder>;

impl ProtobufDecodeSession {
    /// Builds a session from the configuration JSON and the serialized descriptor set (empty
    /// and unused with a `confluent` section).
    pub fn open(config_json: &str, descriptor_set: &[u8]) -> Result<Self, NativeError> {
        let config = ProtobufConfig::from_json(config_json)?;
        let decoder = match &config.confluent {
            None => {
                let (config, row_type, message) = super::plain_parts(config, descriptor_set)?;
                ValueDecoder::Plain(Box::new(ProtobufRowDecoder::new(
                    &message,
                    &row_type,
                    config.options,
                )?))
            }
            Some(confluent) => {
                let row_type = FlinkType::from_json(&config.row_type)?;
                let client = RegistryClient::new(confluent.registry.registry_config())?;
                let source = Arc::new(client);
                ValueDecoder::Confluent(ProtobufConfluentDecoder::new(
                    &row_type,
                    config.options.clone(),
                    source,
                )?)
            }
        };
        Ok(RowListSession::new(ProtobufValueDecoder(decoder)))
    }
}
