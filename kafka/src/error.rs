//! The errors of a fetch, each naming where it happened.

use thiserror::Error;

use crate::connection::ConnectionError;

/// Why a fetch failed.
#[derive(Debug, Error)]
pub enum FetchError {
    /// The connection to a broker failed.
    #[error("Kafka broker {broker}: {source}")]
    Io {
        /// `host:port` of the broker.
        broker: String,
        /// What the socket said.
        #[source]
        source: std::io::Error,
    },
    /// A broker connection failed in a way a retry does not mend: a TLS listener, a
    /// response over the size limit, an unsupported protocol version, a malformed
    /// ApiVersions response.
    #[error(transparent)]
    Connection(#[from] ConnectionError),
    /// The broker returned bytes for a partition but not one complete record batch, so
    /// the fetch cannot move on (Kafka's consumer fails the same way).
    #[error(
        "fetching {topic}-{partition} at offset {offset}: the broker returned {bytes} bytes but \
         no complete record batch"
    )]
    NoProgress {
        /// Topic.
        topic: String,
        /// Partition.
        partition: i32,
        /// The offset fetched.
        offset: i64,
        /// The bytes returned for the partition.
        bytes: usize,
    },
    /// A response did not follow the Fetch protocol.
    #[error("malformed fetch response from {broker}: {reason}")]
    Protocol {
        /// `host:port` of the broker.
        broker: String,
        /// What was wrong.
        reason: String,
    },
    /// The broker answered a partition with an error code this reader does not recover
    /// from by itself.
    #[error("fetching {topic}-{partition} at offset {offset}: Kafka error {code} ({name})")]
    Partition {
        /// Topic.
        topic: String,
        /// Partition.
        partition: i32,
        /// The offset fetched.
        offset: i64,
        /// Kafka's error code.
        code: i16,
        /// Kafka's name for it.
        name: &'static str,
    },
    /// A record batch is corrupt (bad CRC, bad magic, truncated records).
    #[error("corrupt record batch in {topic}-{partition} at offset {offset}: {reason}")]
    Corrupt {
        /// Topic.
        topic: String,
        /// Partition.
        partition: i32,
        /// Base offset of the batch.
        offset: i64,
        /// What was wrong.
        reason: String,
    },
    /// A record batch uses something this reader does not read.
    #[error("{topic}-{partition} at offset {offset}: {what} is not supported by the native fetch")]
    Unsupported {
        /// Topic.
        topic: String,
        /// Partition.
        partition: i32,
        /// Base offset of the batch.
        offset: i64,
        /// What is unsupported.
        what: String,
    },
    /// A call that does not fit the session's state (e.g. an unknown slot).
    #[error("{0}")]
    Usage(String),
}

/// Kafka's name of an error code, for messages.
pub fn error_name(code: i16) -> &'static str {
    crate::error_codes::lookup(code).map_or("an error code Kafka does not define", |e| e.name)
}
