//! The Confluent Avro decode session behind a Java handle: decoder, registry client and
//! reusable buffers. Values are decoded straight into Flink binary row images.

use std::sync::Arc;

use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::FlinkType;
use karrow_registry::RegistryClient;

use crate::config::AvroDecoderConfig;
use crate::error::NativeError;
use crate::handles::HandleType;
use crate::registry_source::RegistrySchemaSource;

/// One decoder per parallel Flink reader.
pub struct AvroDecodeSession {
    decoder: AvroConfluentDecoder,
    /// Reused buffer of the row images of the last call.
    images: Vec<u8>,
}

impl HandleType for AvroDecodeSession {
    const TAG: u64 = 0x6b61_7272_6f77_0001;
}

impl AvroDecodeSession {
    /// Builds a session from the JSON configuration the format factory passes.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = AvroDecoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.row_type)?;
        let client = Arc::new(RegistryClient::new(config.registry_config())?);
        let source = Arc::new(RegistrySchemaSource::new(client));
        let decoder = AvroConfluentDecoder::new(&row_type, config.schema.as_deref(), source)?;
        Ok(AvroDecodeSession {
            decoder,
            images: Vec::new(),
        })
    }

    /// Decodes one message (the per-record path) into one binary row image.
    pub fn decode_message(&mut self, message: &[u8]) -> Result<&[u8], NativeError> {
        self.images.clear();
        self.decoder.decode_one_binary(message, &mut self.images)?;
        Ok(&self.images)
    }

    /// Decodes a batch of values (`None` = tombstone) into row images; returns the images
    /// and, per input value, the start offset of its image (`count + 1` entries; an empty
    /// span means no row).
    pub fn decode_batch<'a>(
        &mut self,
        values: impl IntoIterator<Item = Option<&'a [u8]>>,
    ) -> Result<(&[u8], Vec<i32>), NativeError> {
        self.images.clear();
        let starts = self.decoder.decode_batch_binary(values, &mut self.images)?;
        Ok((&self.images, starts))
    }
}
