//! The errors of a fetch, each naming where it happened.

use thiserror::Error;

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
    match code {
        1 => "OFFSET_OUT_OF_RANGE",
        2 => "CORRUPT_MESSAGE",
        3 => "UNKNOWN_TOPIC_OR_PARTITION",
        5 => "LEADER_NOT_AVAILABLE",
        6 => "NOT_LEADER_OR_FOLLOWER",
        7 => "REQUEST_TIMED_OUT",
        29 => "TOPIC_AUTHORIZATION_FAILED",
        56 => "KAFKA_STORAGE_ERROR",
        74 => "FENCED_LEADER_EPOCH",
        75 => "UNKNOWN_LEADER_EPOCH",
        78 => "OFFSET_NOT_AVAILABLE",
        100 => "UNKNOWN_TOPIC_ID",
        _ => "see Kafka's protocol error codes",
    }
}

/// Whether `code` means the partition's leader moved (or is moving): fetch again after
/// the caller looked the leader up.
pub fn is_leader_change(code: i16) -> bool {
    matches!(code, 5 | 6 | 74 | 75 | 56 | 78)
}
