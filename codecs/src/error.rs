//! Typed errors of the codecs, with the context a Flink user needs to find the record.

use std::fmt;

/// Where in the input an error happened; every field is optional because not every
/// layer knows every part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorContext {
    /// Index of the record inside the decoded batch.
    pub record_index: Option<usize>,
    /// Confluent schema id read from the message header.
    pub schema_id: Option<i32>,
    /// Path of the field being decoded, e.g. `bids.price`.
    pub field: Option<String>,
}

impl fmt::Display for ErrorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(i) = self.record_index {
            parts.push(format!("record {i} of the batch"));
        }
        if let Some(id) = self.schema_id {
            parts.push(format!("schema id {id}"));
        }
        if let Some(field) = &self.field {
            parts.push(format!("field '{field}'"));
        }
        if parts.is_empty() {
            Ok(())
        } else {
            write!(f, " ({})", parts.join(", "))
        }
    }
}

/// Every failure the codecs can report.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The row type handed over by Flink could not be read or is not supported by the format.
    #[error("invalid row type: {0}")]
    InvalidType(String),
    /// An Avro schema (from the registry or the `schema` option) could not be parsed.
    #[error("invalid Avro schema: {0}")]
    InvalidSchema(String),
    /// The explicit reader schema does not describe the table's row type.
    #[error(
        "Schema provided for 'avro-confluent-native' format does not match the table schema: {0}"
    )]
    SchemaMismatch(String),
    /// A Flink binary row could not be written or read.
    #[error("Flink binary row: {0}")]
    Rows(String),
    /// The message does not start with the Confluent magic byte.
    #[error("Unknown data format. Magic number does not match{context}")]
    BadMagic {
        /// Where it happened.
        context: ErrorContext,
    },
    /// A Confluent-framed value is shorter than the 5-byte header (its first byte, if any,
    /// is the magic byte 0). Reported with the same text as a wrong magic byte.
    #[error(
        "Unknown data format. Magic number does not match: a Confluent value starts with a \
         5-byte header, this one has {length} bytes{context}"
    )]
    ShortHeader {
        /// Length of the value in bytes (0..=4).
        length: usize,
        /// Where it happened.
        context: ErrorContext,
    },
    /// The writer schema could not be obtained (unknown id, registry down).
    #[error("{message}{context}")]
    WriterSchema {
        /// The registry's message, naming the id.
        message: String,
        /// Where it happened.
        context: ErrorContext,
    },
    /// The bytes are not a valid datum of the writer schema, or cannot be resolved into
    /// the reader schema.
    #[error("Failed to deserialize Avro record: {message}{context}")]
    Malformed {
        /// What was wrong.
        message: String,
        /// Where it happened.
        context: ErrorContext,
    },
    /// A JSON message could not be decoded into the row type (syntax, shape or a field
    /// conversion, as flink-json would fail).
    #[error("Failed to deserialize JSON: {message}{context}")]
    Json {
        /// What was wrong, naming the field when a field failed.
        message: String,
        /// Where it happened.
        context: ErrorContext,
    },
    /// A row could not be written as JSON (e.g. a NULL map key under `map-null-key.mode`
    /// FAIL).
    #[error("Could not serialize row: {0}")]
    JsonEncode(String),
    /// A protobuf message could not be decoded (malformed wire bytes, invalid UTF-8 in a
    /// proto3 string, an enum value a numeric column cannot take).
    #[error("Failed to deserialize PB object: {message}{context}")]
    Protobuf {
        /// What was wrong, naming the field when one failed.
        message: String,
        /// Where it happened.
        context: ErrorContext,
    },
    /// A Protobuf schema (descriptor set or `.proto` text) could not be used.
    #[error("invalid Protobuf schema: {0}")]
    InvalidProtobufSchema(String),
    /// A row could not be written as a protobuf message.
    #[error("Failed to serialize PB object: {0}")]
    ProtobufEncode(String),
}

impl CodecError {
    /// The context of this error, when it has one.
    pub fn context(&self) -> Option<&ErrorContext> {
        match self {
            CodecError::BadMagic { context }
            | CodecError::ShortHeader { context, .. }
            | CodecError::WriterSchema { context, .. }
            | CodecError::Malformed { context, .. }
            | CodecError::Json { context, .. }
            | CodecError::Protobuf { context, .. } => Some(context),
            _ => None,
        }
    }

    /// Returns this error with the record index and schema id filled in where unknown.
    pub fn at(mut self, record_index: usize, schema_id: Option<i32>) -> Self {
        if let Some(context) = self.context_mut() {
            context.record_index.get_or_insert(record_index);
        }
        self.with_schema_id(schema_id)
    }

    /// Returns this error with the schema id filled in where unknown.
    pub fn with_schema_id(mut self, schema_id: Option<i32>) -> Self {
        if let Some(context) = self.context_mut() {
            if context.schema_id.is_none() {
                context.schema_id = schema_id;
            }
        }
        self
    }

    fn context_mut(&mut self) -> Option<&mut ErrorContext> {
        match self {
            CodecError::BadMagic { context }
            | CodecError::ShortHeader { context, .. }
            | CodecError::WriterSchema { context, .. }
            | CodecError::Malformed { context, .. }
            | CodecError::Json { context, .. }
            | CodecError::Protobuf { context, .. } => Some(context),
            _ => None,
        }
    }
}
