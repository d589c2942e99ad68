//! The errors of `karrow bench`: each prints as one line, and each maps to an exit code.

use std::path::PathBuf;

use karrow_codecs::CodecError;

/// Every way `karrow bench` can fail.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The options do not make sense together (exit code 2, like a parse error).
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The schema or row type given is not usable (unknown type, unsupported construct).
    #[error("schema: {0}")]
    Schema(String),
    /// The schema registry could not be reached or answered with an error.
    #[error("schema registry: {0}")]
    Registry(String),
    /// The Kafka topic could not be read (unreachable broker, no such topic, empty topic).
    #[error("kafka: {0}")]
    Kafka(String),
    /// The message input is not well formed (bad length prefix, bad base64).
    #[error("messages: {0}")]
    Messages(String),
    /// A message does not decode with the native decoder.
    #[error("message {index} does not decode: {message}")]
    Decode {
        /// Index of the message in the input.
        index: usize,
        /// The codec's error.
        message: String,
    },
    /// Any other codec failure (encode, row images).
    #[error("{0}")]
    Codec(#[from] CodecError),
    /// A debug build was asked to measure without `--allow-debug`.
    #[error("this is a debug build: its figures mean nothing; build with --release (or pass --allow-debug)")]
    DebugBuild,
}

impl BenchError {
    /// The process exit code for this error: 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            BenchError::Usage(_) => 2,
            _ => 1,
        }
    }

    /// An [`BenchError::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BenchError::Io {
            path: path.into(),
            source,
        }
    }
}
