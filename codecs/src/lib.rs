//! `karrow-codecs`: Kafka message bytes decoded into Apache Arrow (and, later, encoded
//! back) with exactly the semantics of Apache Flink's formats.
//!
//! The crate does no I/O: writer schemas are obtained through the
//! [`avro::WriterSchemaSource`] trait, and JSON schema ids are checked through the
//! [`json::JsonSchemaSource`] trait, which the native library implements on top of the
//! schema registry client.

pub mod avro;
pub mod error;
pub mod flink_binary;
pub mod framing;
pub(crate) mod java;
pub mod json;
pub mod protobuf;
pub mod types;

pub use error::{CodecError, ErrorContext};
pub use types::FlinkType;
