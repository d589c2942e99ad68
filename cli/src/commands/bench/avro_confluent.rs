//! The `avro-confluent` format under benchmark: `AvroConfluentDecoder` (writer schemas by
//! id from a schema registry) and `AvroConfluentEncoder` (Flink's derived writer schema).

use std::sync::Arc;

use arrow_array::RecordBatch;
use karrow_codecs::avro::{AvroConfluentDecoder, AvroConfluentEncoder, EncodedBatch};
use karrow_codecs::flink_binary::read_batch_rows;
use karrow_codecs::types::FlinkType;
use karrow_registry::{RegistryClient, RegistryConfig};

use super::error::BenchError;
use super::format::{Encoded, Format, FormatKind, Rows, Session};

/// `avro-confluent` for one row type.
pub struct AvroConfluent {
    row_type: FlinkType,
    reader_schema: Option<String>,
    source: Arc<RegistryClient>,
    encode_schema_id: i32,
}

impl AvroConfluent {
    /// Decodes with writer schemas from `registry_url` into `row_type` (reader schema
    /// derived from it unless `reader_schema`), encodes with schema id `encode_schema_id`.
    pub fn new(
        row_type: FlinkType,
        reader_schema: Option<String>,
        registry_url: &str,
        encode_schema_id: i32,
    ) -> Result<Self, BenchError> {
        let client = RegistryClient::new(RegistryConfig::from_url(registry_url))
            .map_err(|e| BenchError::Registry(e.to_string()))?;
        let format = AvroConfluent {
            row_type,
            reader_schema,
            source: Arc::new(client),
            encode_schema_id,
        };
        // Fail early (bad row type, reader schema) rather than in a worker thread.
        format.session()?;
        Ok(format)
    }
}

impl Format for AvroConfluent {
    fn kind(&self) -> FormatKind {
        FormatKind::AvroConfluent
    }

    fn row_type(&self) -> &FlinkType {
        &self.row_type
    }

    fn session(&self) -> Result<Box<dyn Session>, BenchError> {
        Ok(Box::new(AvroSession {
            decoder: AvroConfluentDecoder::new(
                &self.row_type,
                self.reader_schema.as_deref(),
                self.source.clone(),
            )
            .map_err(|e| BenchError::Schema(e.to_string()))?,
            encoder: AvroConfluentEncoder::new(self.row_type.clone(), self.encode_schema_id)
                .map_err(|e| BenchError::Schema(e.to_string()))?,
            row_type: self.row_type.clone(),
            scratch: EncodedBatch::default(),
        }))
    }
}

struct AvroSession {
    decoder: AvroConfluentDecoder,
    encoder: AvroConfluentEncoder,
    row_type: FlinkType,
    scratch: EncodedBatch,
}

/// The batch index in the error; the caller adds the batch's start.
fn decode_error(e: karrow_codecs::CodecError) -> BenchError {
    let index = e.context().and_then(|c| c.record_index).unwrap_or(0);
    BenchError::Decode {
        index,
        message: e.to_string(),
    }
}

impl Session for AvroSession {
    fn decode_binary(
        &mut self,
        messages: &[Option<&[u8]>],
        out: &mut Rows,
    ) -> Result<(), BenchError> {
        out.bytes.clear();
        out.offsets = self
            .decoder
            .decode_batch_binary(messages.iter().copied(), &mut out.bytes)
            .map_err(decode_error)?;
        Ok(())
    }

    fn decode_arrow(&mut self, messages: &[Option<&[u8]>]) -> Result<RecordBatch, BenchError> {
        self.decoder
            .decode_batch(messages.iter().copied())
            .map(|d| d.batch)
            .map_err(decode_error)
    }

    fn encode_arrow(&mut self, batch: &RecordBatch, out: &mut Encoded) -> Result<(), BenchError> {
        // Reuse the caller's buffers inside the codec's batch type.
        self.scratch.bytes = std::mem::take(&mut out.bytes);
        self.scratch.offsets = std::mem::take(&mut out.offsets);
        let result = self.encoder.encode_batch(batch, &mut self.scratch);
        out.bytes = std::mem::take(&mut self.scratch.bytes);
        out.offsets = std::mem::take(&mut self.scratch.offsets);
        result.map_err(BenchError::Codec)
    }

    fn encode_binary(&mut self, rows: &Rows, out: &mut Encoded) -> Result<(), BenchError> {
        let batch = read_batch_rows(rows.images(), &self.row_type)?;
        self.encode_arrow(&batch, out)
    }
}
