//! The `json` and `json-confluent` formats under benchmark: `JsonRowDecoder` and
//! `JsonRowEncoder` (what `json-native` runs), or their Confluent-framed wrappers (what
//! `json-confluent-native` runs: header checked and cut off, schema ids not validated, the
//! default), with the format's default options, for the row type of `--columns`. The JSON
//! codec reads and writes Flink binary row images ([`ImageSession`]).

use karrow_codecs::json::{
    JavaFloatText, JsonConfluentDecoder, JsonConfluentEncoder, JsonDecodeOptions,
    JsonEncodeOptions, JsonRowDecoder, JsonRowEncoder,
};
use karrow_codecs::types::FlinkType;

use super::error::BenchError;
use super::format::{checked, Format, FormatKind, Session};
use super::image_session::{ImageSession, PlainOrConfluent};

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
        // A type flink-json refuses fails here.
        checked(Json {
            row_type,
            float_text,
            confluent_id,
        })
    }
}

impl Format for Json {
    fn kind(&self) -> FormatKind {
        FormatKind::Json.confluent_framed_if(self.confluent_id.is_some())
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
                PlainOrConfluent::Plain(
                    JsonRowDecoder::new(&self.row_type, decode_options).map_err(schema)?,
                ),
                PlainOrConfluent::Plain(encoder),
            ),
            Some(id) => (
                PlainOrConfluent::Confluent(
                    JsonConfluentDecoder::new(&self.row_type, decode_options, None)
                        .map_err(schema)?,
                ),
                PlainOrConfluent::Confluent(JsonConfluentEncoder::new(encoder, id)),
            ),
        };
        Ok(Box::new(ImageSession::new(
            decoder,
            encoder,
            self.row_type.clone(),
        )))
    }
}
