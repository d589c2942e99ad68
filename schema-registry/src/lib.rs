//! Confluent Schema Registry support for karrow.
//!
//! [`RegistryClient`] is the blocking, cached, thread-safe client the decoders use to turn a
//! Confluent schema id into a schema (and writers use to register schemas). Behind the `dev`
//! feature, `DevRegistry` is a small in-process server speaking the same REST API, for the
//! `karrow registry serve` command and tests (the native library links only the client).

#![deny(missing_docs)]

pub mod client;
#[cfg(feature = "dev")]
pub mod dev;
pub mod error;
pub mod model;
mod pct;
pub mod subject;
mod wire;

pub use client::{RegistryClient, RegistryConfig};
#[cfg(feature = "dev")]
pub use dev::{DevRegistry, DevRegistryHandle, DevRegistryOptions};
pub use error::{HttpFailure, RegistryError};
pub use model::{
    CompatibilityLevel, RegisteredSchema, SchemaDefinition, SchemaReference, SchemaType,
    SubjectVersion,
};
pub use subject::SubjectNameStrategy;

/// The media type the Confluent REST API speaks, sent as `Content-Type` and `Accept`.
pub const CONTENT_TYPE: &str = "application/vnd.schemaregistry.v1+json";
