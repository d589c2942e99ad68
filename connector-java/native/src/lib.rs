//! `karrow-native`: the single native library the Flink connector loads.
//!
//! Layout: [`jni`] holds the thin `extern "system"` shims (argument conversion, panic
//! and error mapping) and [`handles`] all ownership of objects handed to Java as
//! `long`s. Everything else is plain Rust returning `Result`: [`avro`] (the Confluent
//! Avro session behind a handle), [`config`] (the JSON the Java side passes),
//! [`registry_source`] (writer schemas from the registry) and [`flink_rows`] (Arrow
//! batches written as Flink `BinaryRowData` images).

pub mod avro;
pub mod config;
pub mod error;
pub mod flink_rows;
pub mod handles;
pub mod jni;
pub mod registry_source;

pub use error::NativeError;
