//! The Confluent Avro decode session behind a Java handle: each value is decoded straight
//! into one Flink binary row image (a tombstone gives none), in the row-list layout every
//! decoder shares ([`RowListSession`]).

use std::sync::Arc;

use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::framing::split_confluent;
use karrow_codecs::{CodecError, FlinkType};
use karrow_registry::RegistryClient;

use crate::config::AvroDecoderConfig;
use crate::error::NativeError;
use crate::row_list::{MessageRows, RowListSession};
use crate::session::SessionKind;

/// The value decoder of an Avro session.
pub struct AvroValueDecoder(AvroConfluentDecoder);

impl MessageRows for AvroValueDecoder {
    const KIND: SessionKind = SessionKind::AvroDecoder;
    const AT_MOST_ONE_ROW: bool = true;

    #[inline]
    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        match self.0.decode_one_binary(message, out) {
            Ok(()) => {
                row_ends.push(out.len());
                Ok(())
            }
            // The schema id from the header, for the errors that do not carry it.
            Err(e) => Err(e.with_schema_id(split_confluent(message).ok().map(|(id, _)| id))),
        }
    }
}

/// One Avro decoder per parallel Flink reader.
pub type AvroDecodeSession = RowListSession<AvroValueDecoder>;

impl AvroDecodeSession {
    /// Builds a session from the JSON configuration the format factory passes.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = AvroDecoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.row_type)?;
        let client = Arc::new(RegistryClient::new(config.registry_config())?);
        let decoder = AvroConfluentDecoder::new(&row_type, config.schema.as_deref(), client)?;
        Ok(RowListSession::new(AvroValueDecoder(decoder)))
    }
}
