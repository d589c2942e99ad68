//! The `json` and `json-confluent` formats under benchmark: `JsonRowDecoder` and
//! `JsonRowEncoder` (what `json-native` runs), or their Confluent-framed wrappers (what
//! `json-confluent-native` runs: header checked and cut off, schema ids not validated, the
//! default), with the format's default options, for the row type of `--columns`.
//!
//! The JSON codec reads and writes Flink binary row images; it has no Arrow path of its own.
//! "decode to Arrow" is therefore JSON -> row images -> Arrow, and "encode from Arrow" is
//! Arrow -> row images -> JSON (both conversions counted in the figure). A message is one
//! row here: one that gives several (a top-level JSON array) is refused as bad input, since
//! the bench compares rows message by message.

use arrow_array::RecordBatch;
use karrow_codecs::flink_binary::{read_batch_rows, write_batch_rows, RowImages};
use karrow_codecs::json::{
    JavaFloatText, JsonConfluentDecoder, JsonConfluentEncoder, JsonDecodeOptions,
    JsonEncodeOptions, JsonRowDecoder, JsonRowEncoder,
};
use karrow_codecs::types::FlinkType;

use super::error::BenchError;
use super::format::{Encoded, Format, FormatKind, Rows, Session};

/// `json` (or `json-confluent`) for one row type.
pub struct Json {
    row_type: FlinkType,
    float_text: JavaFloatText,
    /// `json-confluent`: the schema id encoded values carry.
    confluent_id: Option<i32>,
}

impl Json {
    /// Decodes into and encodes from `row_type`; FLOAT/DOUBLE (and float literals read into
    /// STRING columns) are spelled as `Float/Double.toString` of the JVM whose digits are
    /// `float_text` (the JVM stock Flink runs on). With `confluent_id` values are
    /// Confluent-framed, and encoded ones carry that schema id.
    pub fn new(
        row_type: FlinkType,
        float_text: JavaFloatText,
        confluent_id: Option<i32>,
    ) -> Result<Self, BenchError> {
        let format = Json {
            row_type,
            float_text,
            confluent_id,
        };
        // Fail early (a type flink-json refuses) rather than in a worker thread.
        format.session()?;
        Ok(format)
    }
}

impl Format for Json {
    fn kind(&self) -> FormatKind {
        if self.confluent_id.is_some() {
            FormatKind::JsonConfluent
        } else {
            FormatKind::Json
        }
    }

    fn row_type(&self) -> &FlinkType {
        &self.row_type
    }

    fn session(&self) -> Result<Box<dyn Session>, BenchError> {
        let schema = |e: karrow_codecs::CodecError| BenchError::Schema(e.to_string());
        let decode_options = JsonDecodeOptions {
            float_text: self.float_text,
            ..JsonDecodeOptions::default()
        };
        let encoder = JsonRowEncoder::new(
            &self.row_type,
            JsonEncodeOptions {
                float_text: self.float_text,
                ..JsonEncodeOptions::default()
            },
        )
        .map_err(schema)?;
        let (decoder, encoder) = match self.confluent_id {
            None => (
                Decoder::Plain(
                    JsonRowDecoder::new(&self.row_type, decode_options).map_err(schema)?,
                ),
                Encoder::Plain(encoder),
            ),
            Some(id) => (
                Decoder::Confluent(
                    JsonConfluentDecoder::new(&self.row_type, decode_options, None)
                        .map_err(schema)?,
                ),
                Encoder::Confluent(JsonConfluentEncoder::new(encoder, id)),
            ),
        };
        Ok(Box::new(JsonSession {
            decoder,
            encoder,
            row_type: self.row_type.clone(),
            row_ends: Vec::new(),
            rows: Rows::default(),
            images: RowImages::default(),
        }))
    }
}

/// The decoder of `json` or `json-confluent`.
enum Decoder {
    Plain(JsonRowDecoder),
    Confluent(JsonConfluentDecoder),
}

impl Decoder {
    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), karrow_codecs::CodecError> {
        match self {
            Decoder::Plain(d) => d.decode_message(message, out, row_ends),
            Decoder::Confluent(d) => d.decode_message(message, out, row_ends),
        }
    }
}

/// The encoder of `json` or `json-confluent`.
enum Encoder {
    Plain(JsonRowEncoder),
    Confluent(JsonConfluentEncoder),
}

impl Encoder {
    fn encode_row(&self, image: &[u8], out: &mut Vec<u8>) -> Result<(), karrow_codecs::CodecError> {
        match self {
            Encoder::Plain(e) => e.encode_row(image, out),
            Encoder::Confluent(e) => e.encode_row(image, out),
        }
    }
}

struct JsonSession {
    decoder: Decoder,
    encoder: Encoder,
    row_type: FlinkType,
    /// Scratch of the decoder (row image ends of one message).
    row_ends: Vec<usize>,
    /// Scratch of decode to Arrow.
    rows: Rows,
    /// Scratch of encode from Arrow.
    images: RowImages,
}

fn offset(n: usize) -> Result<i32, BenchError> {
    i32::try_from(n).map_err(|_| BenchError::Messages("one batch exceeds 2 GiB".into()))
}

impl JsonSession {
    /// Appends the encoded images to `out` (one message per image).
    fn encode_images<'a>(
        &self,
        images: impl Iterator<Item = &'a [u8]>,
        out: &mut Encoded,
    ) -> Result<(), BenchError> {
        if out.offsets.is_empty() {
            out.offsets.push(offset(out.bytes.len())?);
        }
        for image in images {
            self.encoder.encode_row(image, &mut out.bytes)?;
            out.offsets.push(offset(out.bytes.len())?);
        }
        Ok(())
    }
}

impl Session for JsonSession {
    fn decode_binary(
        &mut self,
        messages: &[Option<&[u8]>],
        out: &mut Rows,
    ) -> Result<(), BenchError> {
        out.bytes.clear();
        out.offsets.clear();
        out.offsets.push(0);
        for (index, message) in messages.iter().enumerate() {
            if let Some(m) = message {
                self.row_ends.clear();
                let start = out.bytes.len();
                self.decoder
                    .decode_message(m, &mut out.bytes, &mut self.row_ends)
                    .map_err(|e| BenchError::Decode {
                        index,
                        message: e.to_string(),
                    })?;
                if self.row_ends.len() > 1 {
                    out.bytes.truncate(start);
                    return Err(BenchError::Decode {
                        index,
                        message: format!(
                            "the message gives {} rows (a top-level JSON array); karrow bench \
                             compares one row per message",
                            self.row_ends.len()
                        ),
                    });
                }
            }
            out.offsets.push(offset(out.bytes.len())?);
        }
        Ok(())
    }

    fn decode_arrow(&mut self, messages: &[Option<&[u8]>]) -> Result<RecordBatch, BenchError> {
        let mut rows = std::mem::take(&mut self.rows);
        let result = self
            .decode_binary(messages, &mut rows)
            .and_then(|()| Ok(read_batch_rows(rows.images(), &self.row_type)?));
        self.rows = rows;
        result
    }

    fn encode_arrow(&mut self, batch: &RecordBatch, out: &mut Encoded) -> Result<(), BenchError> {
        let mut images = std::mem::take(&mut self.images);
        images.bytes.clear();
        images.offsets.clear();
        let result = write_batch_rows(batch, &self.row_type, &mut images)
            .map_err(BenchError::Codec)
            .and_then(|()| {
                let spans = images.offsets.windows(2).map(|w| {
                    images
                        .bytes
                        .get(w[0] as usize..w[1] as usize)
                        .unwrap_or_default()
                });
                self.encode_images(spans, out)
            });
        self.images = images;
        result
    }

    fn encode_binary(&mut self, rows: &Rows, out: &mut Encoded) -> Result<(), BenchError> {
        self.encode_images(rows.images(), out)
    }
}
