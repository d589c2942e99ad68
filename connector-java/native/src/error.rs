//! The native library's error type and the context it carries to the Java exception.

use karrow_codecs::CodecError;
use karrow_registry::RegistryError;

/// Every failure a native entry point can report to Java.
///
/// Kept small (the large errors are boxed): every call returns a `Result` of it, and the
/// per-record calls move that result through the handle check and the JNI shim.
#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    /// Decoding failed (bad bytes, unknown schema id, resolution error).
    #[error(transparent)]
    Codec(Box<CodecError>),
    /// The registry client could not be built.
    #[error(transparent)]
    Registry(Box<RegistryError>),
    /// A sink could not register (or find) its writer schema: the registry refused it or
    /// could not be reached within the client's bounds. Begins like the stock format's
    /// message ("Could not register schema in registry") and names the subject and URL(s).
    #[error("Could not register schema in registry: subject '{subject}' at {urls}: {source}")]
    Register {
        /// The subject the schema was to be registered under.
        subject: String,
        /// The registry URL(s) configured.
        urls: String,
        /// The client's failure.
        source: Box<RegistryError>,
    },
    /// The configuration passed from Java is invalid.
    #[error("invalid karrow configuration: {0}")]
    Config(String),
    /// The arguments of a call are invalid (null handle, bad lengths).
    #[error("invalid call: {0}")]
    InvalidCall(String),
    /// A record of a batch failed with an error that does not carry the record's index
    /// itself (e.g. a row that cannot be written as JSON).
    #[error("{source} (record {index} of the batch)")]
    InRecord {
        /// Index of the failing record inside the batch.
        index: usize,
        /// The record's failure.
        source: Box<CodecError>,
    },
    /// The native fetch failed (connection, protocol, partition error, corrupt batch).
    #[error("native fetch: {0}")]
    Fetch(String),
    /// A row of an operator pipeline failed as Flink's generated code would (the job fails),
    /// or the pipeline around it failed.
    #[error("operator pipeline: {message}")]
    Operator {
        /// Index of the failing input row or value in the batch, when one failed.
        index: Option<usize>,
        /// What failed (Flink's exception class and message for a row).
        message: String,
    },
    /// The native producer failed (connection, a broker's refusal, a transaction error, a
    /// record that cannot be written, a bad layout of the records passed).
    #[error("native produce: {message}{}", index.map(|i| format!(" (record {i} of the batch)")).unwrap_or_default())]
    Produce {
        /// What failed.
        message: String,
        /// The record of the batch it concerns, if one.
        index: Option<usize>,
    },
    /// A panic was caught at the JNI boundary.
    #[error("internal error in karrow native code (please report): {0}")]
    Panic(String),
}

impl From<CodecError> for NativeError {
    #[cold]
    fn from(error: CodecError) -> Self {
        NativeError::Codec(Box::new(error))
    }
}

impl From<RegistryError> for NativeError {
    #[cold]
    fn from(error: RegistryError) -> Self {
        NativeError::Registry(Box::new(error))
    }
}

impl NativeError {
    /// The index of the failing record inside the batch, when known.
    pub fn record_index(&self) -> Option<usize> {
        match self {
            NativeError::Codec(e) => e.context().and_then(|c| c.record_index),
            NativeError::InRecord { index, .. } => Some(*index),
            NativeError::Operator { index, .. } => *index,
            NativeError::Produce { index, .. } => *index,
            _ => None,
        }
    }

    /// Attributes `error` to record `index` of a batch: in its own context when the error
    /// has one, otherwise by wrapping it.
    pub fn at_record(error: CodecError, index: usize) -> Self {
        if error.context().is_some() {
            NativeError::from(error.at(index, None))
        } else {
            NativeError::InRecord {
                index,
                source: Box::new(error),
            }
        }
    }

    /// The Confluent schema id involved, when known.
    pub fn schema_id(&self) -> Option<i32> {
        match self {
            NativeError::Codec(e) => e.context().and_then(|c| c.schema_id),
            _ => None,
        }
    }
}
