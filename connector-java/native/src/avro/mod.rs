//! Confluent Avro sessions behind Java handles: one decoder or encoder per parallel
//! Flink reader or writer, with plain-Rust entry points the JNI shims call.

mod decode;
mod encode;

pub use decode::{AvroDecodeSession, AvroValueDecoder};
pub use encode::AvroEncodeSession;
