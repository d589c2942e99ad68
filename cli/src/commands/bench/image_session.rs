//! The per-thread session of a format whose codec reads and writes Flink binary row images
//! one message at a time (`json`, `json-confluent`, `protobuf`, `protobuf-confluent`): the
//! batch entry points of [`Session`] over a message decoder and a row encoder.
//!
//! These codecs have no Arrow path of their own: "decode to Arrow" is message -> row images
//! -> Arrow, and "encode from Arrow" is Arrow -> row images -> message (both conversions
//! counted in the figure). A message is one row here: one that gives several (a top-level
//! JSON array) is refused as bad input, since the bench compares rows message by message.

use arrow_array::RecordBatch;
use karrow_codecs::flink_binary::{read_batch_rows, write_batch_rows, RowImages};
use karrow_codecs::json::{
    JsonConfluentDecoder, JsonConfluentEncoder, JsonRowDecoder, JsonRowEncoder,
};
use karrow_codecs::protobuf::confluent::{ProtobufConfluentDecoder, ProtobufConfluentEncoder};
use karrow_codecs::protobuf::{ProtobufRowDecoder, ProtobufRowEncoder};
use karrow_codecs::types::FlinkType;
use karrow_codecs::CodecError;

use super::error::BenchError;
use super::format::{Encoded, Rows, Session};

/// Decodes one Kafka value into row images (appended to `out`, each image's end to
/// `row_ends`).
pub trait MessageDecoder: Send {
    /// Decodes `message`.
    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError>;
}

/// Encodes one row image into a Kafka value (appended to `out`).
pub trait RowEncoder: Send {
    /// Encodes `image`.
    fn encode_row(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError>;
}

/// Implements [`MessageDecoder`] for codecs whose own `decode_message` has its signature.
macro_rules! message_decoder_by_own_method {
    ($($codec:ty),*) => {$(
        impl MessageDecoder for $codec {
            fn decode_message(
                &mut self,
                message: &[u8],
                out: &mut Vec<u8>,
                row_ends: &mut Vec<usize>,
            ) -> Result<(), CodecError> {
                <$codec>::decode_message(self, message, out, row_ends)
            }
        }
    )*};
}

/// Implements [`RowEncoder`] for codecs whose own `encode_row` has its signature (taking
/// `&self` or `&mut self`).
macro_rules! row_encoder_by_own_method {
    ($($codec:ty),*) => {$(
        impl RowEncoder for $codec {
            fn encode_row(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
                <$codec>::encode_row(self, image, out)
            }
        }
    )*};
}

message_decoder_by_own_method!(
    JsonRowDecoder,
    JsonConfluentDecoder,
    ProtobufRowDecoder,
    ProtobufConfluentDecoder
);
row_encoder_by_own_method!(
    JsonRowEncoder,
    JsonConfluentEncoder,
    ProtobufRowEncoder,
    ProtobufConfluentEncoder
);

/// The codec of a format that also comes Confluent-framed (`json` and `json-confluent`,
/// `protobuf` and `protobuf-confluent`): the plain codec `P` or the framed one `C`.
pub enum PlainOrConfluent<P, C> {
    /// The plain format.
    Plain(P),
    /// The Confluent-framed format.
    Confluent(C),
}

impl<P: MessageDecoder, C: MessageDecoder> MessageDecoder for PlainOrConfluent<P, C> {
    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        match self {
            PlainOrConfluent::Plain(d) => d.decode_message(message, out, row_ends),
            PlainOrConfluent::Confluent(d) => d.decode_message(message, out, row_ends),
        }
    }
}

impl<P: RowEncoder, C: RowEncoder> RowEncoder for PlainOrConfluent<P, C> {
    fn encode_row(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        match self {
            PlainOrConfluent::Plain(e) => e.encode_row(image, out),
            PlainOrConfluent::Confluent(e) => e.encode_row(image, out),
        }
    }
}

/// A [`Session`] over a message decoder and a row encoder of one row type.
pub struct ImageSession<D, E> {
    decoder: D,
    encoder: E,
    row_type: FlinkType,
    /// Scratch of the decoder (row image ends of one message).
    row_ends: Vec<usize>,
    /// Scratch of decode to Arrow.
    rows: Rows,
    /// Scratch of encode from Arrow.
    images: RowImages,
}

impl<D: MessageDecoder, E: RowEncoder> ImageSession<D, E> {
    /// A session decoding with `decoder` and encoding with `encoder` rows of `row_type`.
    pub fn new(decoder: D, encoder: E, row_type: FlinkType) -> Self {
        ImageSession {
            decoder,
            encoder,
            row_type,
            row_ends: Vec::new(),
            rows: Rows::default(),
            images: RowImages::default(),
        }
    }

    /// Appends the encoded images to `out` (one message per image).
    fn encode_images<'a>(
        encoder: &mut E,
        images: impl Iterator<Item = &'a [u8]>,
        out: &mut Encoded,
    ) -> Result<(), BenchError> {
        if out.offsets.is_empty() {
            out.offsets.push(offset(out.bytes.len())?);
        }
        for image in images {
            encoder.encode_row(image, &mut out.bytes)?;
            out.offsets.push(offset(out.bytes.len())?);
        }
        Ok(())
    }
}

fn offset(n: usize) -> Result<i32, BenchError> {
    i32::try_from(n).map_err(|_| BenchError::Messages("one batch exceeds 2 GiB".into()))
}

impl<D: MessageDecoder, E: RowEncoder> Session for ImageSession<D, E> {
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
                Self::encode_images(&mut self.encoder, spans, out)
            });
        self.images = images;
        result
    }

    fn encode_binary(&mut self, rows: &Rows, out: &mut Encoded) -> Result<(), BenchError> {
        Self::encode_images(&mut self.encoder, rows.images(), out)
    }
}
