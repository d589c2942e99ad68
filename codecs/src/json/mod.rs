//! JSON with the exact semantics of Flink's `json` format (flink-json 2.2.0, spec §1):
//! messages decoded straight into Flink binary row images, rows encoded back to the
//! bytes `JsonRowDataSerializationSchema` writes.
//!
//! One file per concern: `options.rs` (the format options), `tokens.rs` (a Jackson-like
//! streaming token reader), `decode/` (tokens -> rows), `encode/` (rows -> bytes).
//! Java's number, date/time and base64 grammars, which flink-json gets from the JVM and
//! Jackson, are in [`crate::java`]. `confluent.rs` adds Confluent's JSON Schema framing
//! (`json-confluent-native`) and `json_schema.rs` the JSON Schema derived from a row type
//! for the registry.

pub mod confluent;
pub mod decode;
pub mod encode;
pub mod json_schema;
pub mod options;
pub(crate) mod tokens;

pub use confluent::{JsonConfluentDecoder, JsonConfluentEncoder};
pub use decode::JsonRowDecoder;
pub use encode::JsonRowEncoder;
pub use options::{
    JavaFloatText, JsonDecodeOptions, JsonEncodeOptions, MapNullKeyMode, TimestampStandard,
};
