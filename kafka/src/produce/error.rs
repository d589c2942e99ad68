//! Why producing failed, each naming where.

use thiserror::Error;

use crate::connection::ConnectionError;
use crate::records::WriteError;

/// A produce failure. Cloneable: the producer keeps its first failure and returns it from
/// every later call, as Flink's sink rethrows its first asynchronous send failure.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ProduceError {
    /// A setting that cannot work.
    #[error("invalid producer configuration: {0}")]
    Config(String),
    /// A record larger than `max.request.size`.
    #[error("The message is {size} bytes when serialized which is larger than {limit}, which is the value of the max.request.size configuration.")]
    RecordTooLarge {
        /// The record's serialized size.
        size: usize,
        /// `max.request.size`.
        limit: usize,
    },
    /// A record or batch could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Metadata, a producer id or a delivery did not come in time.
    #[error("{0}")]
    Timeout(String),
    /// No broker could be reached, or one answered outside the protocol.
    #[error("{0}")]
    Connection(String),
    /// A connection failed its TLS handshake or SASL authentication (Kafka's
    /// `SslAuthenticationException` / `SaslAuthenticationException`): not retried, as Kafka's
    /// producer does not retry them.
    #[error("{0}")]
    Authentication(String),
    /// The transaction coordinator refused a request (InitProducerId with a transactional id,
    /// AddPartitionsToTxn, EndTxn, FindCoordinator) with an error that is not retried.
    #[error("{op} for transactional id {transactional_id} failed with Kafka error {code} ({name}){}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Transaction {
        /// The request.
        op: &'static str,
        /// The transactional id.
        transactional_id: String,
        /// Kafka's error code.
        code: i16,
        /// Kafka's name of it.
        name: &'static str,
        /// What it concerned (a partition), if anything.
        message: Option<String>,
    },
    /// The broker refused a batch (or a producer id) with an error that is not retried.
    #[error("producing to {topic}-{partition} failed with Kafka error {code} ({name}){}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Partition {
        /// Topic ("" when no partition is concerned).
        topic: String,
        /// Partition (-1 when none is concerned).
        partition: i32,
        /// Kafka's error code.
        code: i16,
        /// Kafka's name of it.
        name: &'static str,
        /// The broker's message, or what was done.
        message: Option<String>,
    },
}

impl ProduceError {
    /// A failed connection: [`ProduceError::Authentication`] for a TLS or SASL failure and for
    /// a plaintext connection answered by a TLS listener (a wrong port or `security.protocol`,
    /// which no retry mends: the fetch fails at once on it too),
    /// [`ProduceError::Connection`] (retried) otherwise.
    pub fn from_connection(e: &ConnectionError) -> ProduceError {
        match e {
            ConnectionError::Tls { .. }
            | ConnectionError::Authentication { .. }
            | ConnectionError::TlsListener { .. } => ProduceError::Authentication(e.to_string()),
            other => ProduceError::Connection(other.to_string()),
        }
    }

    /// Kafka's error code behind this failure (-1 when there is none: a timeout, a connection,
    /// a bad setting).
    pub fn kafka_code(&self) -> i16 {
        match self {
            ProduceError::Partition { code, .. } | ProduceError::Transaction { code, .. } => *code,
            ProduceError::RecordTooLarge { .. } => 10,
            _ => -1,
        }
    }
}
