//! `karrow-codecs`: Kafka message bytes decoded into Apache Arrow (and, later, encoded
//! back) with exactly the semantics of Apache Flink's formats.
//!
//! The crate does no I/O: registered schemas come through the
//! [`schema_source::SchemaSource`] trait, which `karrow-registry`'s client implements.

pub mod avro;
pub mod error;
pub mod flink_binary;
pub mod framing;
pub mod id_cache;
pub mod java;
pub mod json;
pub mod protobuf;
pub mod schema_source;
pub mod types;

pub use error::{CodecError, ErrorContext};
pub use types::FlinkType;
