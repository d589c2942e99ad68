//! `karrow-native`: the single native library the Flink connector loads.
//!
//! Layout: [`jni`] holds the generic `extern "system"` entry points (argument conversion,
//! panic and error mapping); [`handles`] all ownership of the sessions handed to Java as
//! `long`s; [`session`] the [`session::Session`] trait every kind of session implements
//! and the table of kinds. Everything else is plain Rust returning `Result`: [`avro`],
//! [`json`], [`protobuf`] (the decode and encode sessions of each format; every decoder
//! shares [`row_list`]), [`fetch`] (the native fetch session), [`produce`] (the native
//! producer session), [`config`] (the JSON the Java side passes), [`value_batch`] (the
//! input of batch calls) and [`encoded_values`] (the output of batch encodes). Writer
//! schemas come from `karrow-registry`'s client, which is the codecs' schema source.
//! Flink binary rows are written and read by `karrow_codecs::flink_binary`.

pub mod avro;
pub mod config;
pub mod encoded_batch;
pub mod encoded_values;
pub mod error;
pub mod fetch;
pub mod handles;
pub mod jni;
pub mod json;
pub mod kafka_security;
pub mod operators;
pub mod produce;
pub mod protobuf;
pub mod row_list;
pub mod session;
pub mod value_batch;

pub use error::NativeError;
