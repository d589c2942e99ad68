//! The codecs at both ends of a fused pipeline, behind one decode and one encode shape.
//!
//! Avro decodes into Arrow and encodes from Arrow directly. JSON and Protobuf decode into
//! Flink binary row images (their only decoders today), which are read into Arrow; they
//! encode from images, which are written from Arrow. A direct Arrow decoder for them would
//! save the image round trip (one write and one read of each decoded row).

use arrow_array::RecordBatch;
use karrow_codecs::avro::{AvroConfluentDecoder, AvroConfluentEncoder, EncodedBatch};
use karrow_codecs::flink_binary::{read_batch_rows, write_batch_rows, RowImages};
use karrow_codecs::json::{
    JsonConfluentDecoder, JsonConfluentEncoder, JsonRowDecoder, JsonRowEncoder,
};
use karrow_codecs::protobuf::confluent::{ProtobufConfluentDecoder, ProtobufConfluentEncoder};
use karrow_codecs::protobuf::{ProtobufRowDecoder, ProtobufRowEncoder};
use karrow_codecs::{CodecError, FlinkType};

/// A value decoder for the plan's input row type (one per pipeline: the size difference
/// between the variants does not matter).
#[allow(clippy::large_enum_variant)]
pub enum ValueDecoder {
    /// `avro-confluent-native`: values straight into Arrow.
    Avro(AvroConfluentDecoder),
    /// `json-native`.
    Json(JsonRowDecoder),
    /// `json-confluent-native`.
    JsonConfluent(JsonConfluentDecoder),
    /// `protobuf-native`.
    Protobuf(ProtobufRowDecoder),
    /// `protobuf-confluent-native`.
    ProtobufConfluent(ProtobufConfluentDecoder),
}

/// Decoded values: the rows as Arrow and, per row, the index of the value it came from.
#[derive(Debug)]
pub struct DecodedValues {
    /// One row per decoded row (a JSON array value gives several, a tombstone none).
    pub batch: RecordBatch,
    /// `value_of_row[r]` is the index of the input value row `r` was decoded from.
    pub value_of_row: Vec<u32>,
}

fn index(i: usize) -> Result<u32, CodecError> {
    u32::try_from(i).map_err(|_| CodecError::Rows("more than 2^32 values in one batch".into()))
}

impl ValueDecoder {
    /// Decodes a batch of Kafka values (`None`: a null value, which gives no row) of
    /// `row_type`. The first failing value fails the batch with its index.
    pub fn decode<'a>(
        &mut self,
        values: impl IntoIterator<Item = Option<&'a [u8]>>,
        row_type: &FlinkType,
    ) -> Result<DecodedValues, CodecError> {
        if let ValueDecoder::Avro(d) = self {
            let decoded = d.decode_batch(values)?;
            let mut value_of_row = Vec::with_capacity(decoded.batch.num_rows());
            for (v, row) in decoded.rows.iter().enumerate() {
                if row.is_some() {
                    value_of_row.push(index(v)?);
                }
            }
            return Ok(DecodedValues {
                batch: decoded.batch,
                value_of_row,
            });
        }
        let mut images = Vec::new();
        let mut ends = Vec::new();
        let mut value_of_row = Vec::new();
        for (v, value) in values.into_iter().enumerate() {
            let Some(bytes) = value else {
                continue;
            };
            let before = ends.len();
            let result = match self {
                ValueDecoder::Avro(_) => Ok(()),
                ValueDecoder::Json(d) => d.decode_message(bytes, &mut images, &mut ends),
                ValueDecoder::JsonConfluent(d) => d.decode_message(bytes, &mut images, &mut ends),
                ValueDecoder::Protobuf(d) => d.decode_message(bytes, &mut images, &mut ends),
                ValueDecoder::ProtobufConfluent(d) => {
                    d.decode_message(bytes, &mut images, &mut ends)
                }
            };
            result.map_err(|e| e.at(v, None))?;
            for _ in before..ends.len() {
                value_of_row.push(index(v)?);
            }
        }
        let mut start = 0;
        let spans = ends.iter().map(|&end| {
            let span = &images[start..end];
            start = end;
            span
        });
        let batch = read_batch_rows(spans, row_type)?;
        Ok(DecodedValues {
            batch,
            value_of_row,
        })
    }
}

/// An encoder of output rows (of the row type it was built for) into Kafka values or keys.
pub enum ValueEncoder {
    /// `avro-confluent-native`, from Arrow.
    Avro(AvroConfluentEncoder),
    /// `json-native`.
    Json(JsonRowEncoder),
    /// `json-confluent-native`.
    JsonConfluent(JsonConfluentEncoder),
    /// `protobuf-native`.
    Protobuf(ProtobufRowEncoder),
    /// `protobuf-confluent-native`.
    ProtobufConfluent(ProtobufConfluentEncoder),
}

impl ValueEncoder {
    /// Encodes every row of `batch` (columns of `row_type`), appending the messages to `out`.
    pub fn encode(
        &mut self,
        batch: &RecordBatch,
        row_type: &FlinkType,
        out: &mut EncodedBatch,
    ) -> Result<(), CodecError> {
        if let ValueEncoder::Avro(e) = self {
            return e.encode_batch(batch, out);
        }
        let mut images = RowImages::default();
        write_batch_rows(batch, row_type, &mut images)?;
        let offset = |n: usize| {
            i32::try_from(n).map_err(|_| CodecError::Rows("encoded batch exceeds 2 GiB".into()))
        };
        if out.offsets.is_empty() {
            out.offsets.push(offset(out.bytes.len())?);
        }
        for (row, w) in images.offsets.windows(2).enumerate() {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let image = images
                .bytes
                .get(a..b)
                .ok_or_else(|| CodecError::Rows("row image offsets out of range".into()))?;
            let result = match self {
                ValueEncoder::Avro(_) => Ok(()),
                ValueEncoder::Json(e) => e.encode_row(image, &mut out.bytes),
                ValueEncoder::JsonConfluent(e) => e.encode_row(image, &mut out.bytes),
                ValueEncoder::Protobuf(e) => e.encode_row(image, &mut out.bytes),
                ValueEncoder::ProtobufConfluent(e) => e.encode_row(image, &mut out.bytes),
            };
            result.map_err(|e| e.at(row, None))?;
            out.offsets.push(offset(out.bytes.len())?);
        }
        Ok(())
    }
}
