//! `karrow-native`: the single native library the Flink connector loads.
//!
//! Layout: [`jni`] holds the thin `extern "system"` shims (argument conversion, panic
//! and error mapping) and [`handles`] all ownership of objects handed to Java as
//! `long`s. Everything else is plain Rust returning `Result`: [`avro`] (the Confluent
//! Avro sessions behind handles), [`json`] (the JSON sessions of `json-native`),
//! [`config`] (the JSON the Java side passes), and [`registry_source`] (writer schemas
//! from the registry).
//! Flink binary rows are written and read by `karrow_codecs::flink_binary`.

pub mod avro;
pub mod config;
pub mod encoded_values;
pub mod error;
pub mod fetch;
pub mod handles;
pub mod jni;
pub mod json;
pub mod protobuf;
pub mod registry_source;
pub mod row_list;

pub use error::NativeError;
