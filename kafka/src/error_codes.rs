//! Kafka's error codes: name, and how Kafka's Java client classifies each (a retriable
//! exception; an invalid-metadata one, after which the client refreshes its metadata). The
//! facts of `org.apache.kafka.common.protocol.Errors` in kafka-clients 4.2.

/// One error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    /// The code.
    pub code: i16,
    /// Kafka's name.
    pub name: &'static str,
    /// Kafka's client may retry the request.
    pub retriable: bool,
    /// The client's metadata is stale: refresh it (implies retriable).
    pub invalid_metadata: bool,
}

/// Every code Kafka defines, ascending (UNKNOWN_SERVER_ERROR, -1, first).
#[rustfmt::skip]
pub const CODES: &[ErrorCode] = &[
    ErrorCode { code: -1, name: "UNKNOWN_SERVER_ERROR", retriable: false, invalid_metadata: false },
    ErrorCode { code: 1, name: "OFFSET_OUT_OF_RANGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 2, name: "CORRUPT_MESSAGE", retriable: true, invalid_metadata: false },
    ErrorCode { code: 3, name: "UNKNOWN_TOPIC_OR_PARTITION", retriable: true, invalid_metadata: true },
    ErrorCode { code: 4, name: "INVALID_FETCH_SIZE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 5, name: "LEADER_NOT_AVAILABLE", retriable: true, invalid_metadata: true },
    ErrorCode { code: 6, name: "NOT_LEADER_OR_FOLLOWER", retriable: true, invalid_metadata: true },
    ErrorCode { code: 7, name: "REQUEST_TIMED_OUT", retriable: true, invalid_metadata: false },
    ErrorCode { code: 8, name: "BROKER_NOT_AVAILABLE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 9, name: "REPLICA_NOT_AVAILABLE", retriable: true, invalid_metadata: true },
    ErrorCode { code: 10, name: "MESSAGE_TOO_LARGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 11, name: "STALE_CONTROLLER_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 12, name: "OFFSET_METADATA_TOO_LARGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 13, name: "NETWORK_EXCEPTION", retriable: true, invalid_metadata: true },
    ErrorCode { code: 14, name: "COORDINATOR_LOAD_IN_PROGRESS", retriable: true, invalid_metadata: false },
    ErrorCode { code: 15, name: "COORDINATOR_NOT_AVAILABLE", retriable: true, invalid_metadata: false },
    ErrorCode { code: 16, name: "NOT_COORDINATOR", retriable: true, invalid_metadata: false },
    ErrorCode { code: 17, name: "INVALID_TOPIC_EXCEPTION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 18, name: "RECORD_LIST_TOO_LARGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 19, name: "NOT_ENOUGH_REPLICAS", retriable: true, invalid_metadata: false },
    ErrorCode { code: 20, name: "NOT_ENOUGH_REPLICAS_AFTER_APPEND", retriable: true, invalid_metadata: false },
    ErrorCode { code: 21, name: "INVALID_REQUIRED_ACKS", retriable: false, invalid_metadata: false },
    ErrorCode { code: 22, name: "ILLEGAL_GENERATION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 23, name: "INCONSISTENT_GROUP_PROTOCOL", retriable: false, invalid_metadata: false },
    ErrorCode { code: 24, name: "INVALID_GROUP_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 25, name: "UNKNOWN_MEMBER_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 26, name: "INVALID_SESSION_TIMEOUT", retriable: false, invalid_metadata: false },
    ErrorCode { code: 27, name: "REBALANCE_IN_PROGRESS", retriable: false, invalid_metadata: false },
    ErrorCode { code: 28, name: "INVALID_COMMIT_OFFSET_SIZE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 29, name: "TOPIC_AUTHORIZATION_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 30, name: "GROUP_AUTHORIZATION_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 31, name: "CLUSTER_AUTHORIZATION_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 32, name: "INVALID_TIMESTAMP", retriable: false, invalid_metadata: false },
    ErrorCode { code: 33, name: "UNSUPPORTED_SASL_MECHANISM", retriable: false, invalid_metadata: false },
    ErrorCode { code: 34, name: "ILLEGAL_SASL_STATE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 35, name: "UNSUPPORTED_VERSION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 36, name: "TOPIC_ALREADY_EXISTS", retriable: false, invalid_metadata: false },
    ErrorCode { code: 37, name: "INVALID_PARTITIONS", retriable: false, invalid_metadata: false },
    ErrorCode { code: 38, name: "INVALID_REPLICATION_FACTOR", retriable: false, invalid_metadata: false },
    ErrorCode { code: 39, name: "INVALID_REPLICA_ASSIGNMENT", retriable: false, invalid_metadata: false },
    ErrorCode { code: 40, name: "INVALID_CONFIG", retriable: false, invalid_metadata: false },
    ErrorCode { code: 41, name: "NOT_CONTROLLER", retriable: true, invalid_metadata: false },
    ErrorCode { code: 42, name: "INVALID_REQUEST", retriable: false, invalid_metadata: false },
    ErrorCode { code: 43, name: "UNSUPPORTED_FOR_MESSAGE_FORMAT", retriable: false, invalid_metadata: false },
    ErrorCode { code: 44, name: "POLICY_VIOLATION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 45, name: "OUT_OF_ORDER_SEQUENCE_NUMBER", retriable: false, invalid_metadata: false },
    ErrorCode { code: 46, name: "DUPLICATE_SEQUENCE_NUMBER", retriable: false, invalid_metadata: false },
    ErrorCode { code: 47, name: "INVALID_PRODUCER_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 48, name: "INVALID_TXN_STATE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 49, name: "INVALID_PRODUCER_ID_MAPPING", retriable: false, invalid_metadata: false },
    ErrorCode { code: 50, name: "INVALID_TRANSACTION_TIMEOUT", retriable: false, invalid_metadata: false },
    ErrorCode { code: 51, name: "CONCURRENT_TRANSACTIONS", retriable: true, invalid_metadata: false },
    ErrorCode { code: 52, name: "TRANSACTION_COORDINATOR_FENCED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 53, name: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 54, name: "SECURITY_DISABLED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 55, name: "OPERATION_NOT_ATTEMPTED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 56, name: "KAFKA_STORAGE_ERROR", retriable: true, invalid_metadata: true },
    ErrorCode { code: 57, name: "LOG_DIR_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 58, name: "SASL_AUTHENTICATION_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 59, name: "UNKNOWN_PRODUCER_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 60, name: "REASSIGNMENT_IN_PROGRESS", retriable: false, invalid_metadata: false },
    ErrorCode { code: 61, name: "DELEGATION_TOKEN_AUTH_DISABLED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 62, name: "DELEGATION_TOKEN_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 63, name: "DELEGATION_TOKEN_OWNER_MISMATCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 64, name: "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 65, name: "DELEGATION_TOKEN_AUTHORIZATION_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 66, name: "DELEGATION_TOKEN_EXPIRED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 67, name: "INVALID_PRINCIPAL_TYPE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 68, name: "NON_EMPTY_GROUP", retriable: false, invalid_metadata: false },
    ErrorCode { code: 69, name: "GROUP_ID_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 70, name: "FETCH_SESSION_ID_NOT_FOUND", retriable: true, invalid_metadata: false },
    ErrorCode { code: 71, name: "INVALID_FETCH_SESSION_EPOCH", retriable: true, invalid_metadata: false },
    ErrorCode { code: 72, name: "LISTENER_NOT_FOUND", retriable: true, invalid_metadata: true },
    ErrorCode { code: 73, name: "TOPIC_DELETION_DISABLED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 74, name: "FENCED_LEADER_EPOCH", retriable: true, invalid_metadata: true },
    ErrorCode { code: 75, name: "UNKNOWN_LEADER_EPOCH", retriable: true, invalid_metadata: false },
    ErrorCode { code: 76, name: "UNSUPPORTED_COMPRESSION_TYPE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 77, name: "STALE_BROKER_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 78, name: "OFFSET_NOT_AVAILABLE", retriable: true, invalid_metadata: false },
    ErrorCode { code: 79, name: "MEMBER_ID_REQUIRED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 80, name: "PREFERRED_LEADER_NOT_AVAILABLE", retriable: true, invalid_metadata: true },
    ErrorCode { code: 81, name: "GROUP_MAX_SIZE_REACHED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 82, name: "FENCED_INSTANCE_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 83, name: "ELIGIBLE_LEADERS_NOT_AVAILABLE", retriable: true, invalid_metadata: true },
    ErrorCode { code: 84, name: "ELECTION_NOT_NEEDED", retriable: true, invalid_metadata: true },
    ErrorCode { code: 85, name: "NO_REASSIGNMENT_IN_PROGRESS", retriable: false, invalid_metadata: false },
    ErrorCode { code: 86, name: "GROUP_SUBSCRIBED_TO_TOPIC", retriable: false, invalid_metadata: false },
    ErrorCode { code: 87, name: "INVALID_RECORD", retriable: false, invalid_metadata: false },
    ErrorCode { code: 88, name: "UNSTABLE_OFFSET_COMMIT", retriable: true, invalid_metadata: false },
    ErrorCode { code: 89, name: "THROTTLING_QUOTA_EXCEEDED", retriable: true, invalid_metadata: false },
    ErrorCode { code: 90, name: "PRODUCER_FENCED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 91, name: "RESOURCE_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 92, name: "DUPLICATE_RESOURCE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 93, name: "UNACCEPTABLE_CREDENTIAL", retriable: false, invalid_metadata: false },
    ErrorCode { code: 94, name: "INCONSISTENT_VOTER_SET", retriable: false, invalid_metadata: false },
    ErrorCode { code: 95, name: "INVALID_UPDATE_VERSION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 96, name: "FEATURE_UPDATE_FAILED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 97, name: "PRINCIPAL_DESERIALIZATION_FAILURE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 98, name: "SNAPSHOT_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 99, name: "POSITION_OUT_OF_RANGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 100, name: "UNKNOWN_TOPIC_ID", retriable: true, invalid_metadata: true },
    ErrorCode { code: 101, name: "DUPLICATE_BROKER_REGISTRATION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 102, name: "BROKER_ID_NOT_REGISTERED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 103, name: "INCONSISTENT_TOPIC_ID", retriable: true, invalid_metadata: true },
    ErrorCode { code: 104, name: "INCONSISTENT_CLUSTER_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 105, name: "TRANSACTIONAL_ID_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 106, name: "FETCH_SESSION_TOPIC_ID_ERROR", retriable: true, invalid_metadata: false },
    ErrorCode { code: 107, name: "INELIGIBLE_REPLICA", retriable: false, invalid_metadata: false },
    ErrorCode { code: 108, name: "NEW_LEADER_ELECTED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 109, name: "OFFSET_MOVED_TO_TIERED_STORAGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 110, name: "FENCED_MEMBER_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 111, name: "UNRELEASED_INSTANCE_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 112, name: "UNSUPPORTED_ASSIGNOR", retriable: false, invalid_metadata: false },
    ErrorCode { code: 113, name: "STALE_MEMBER_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 114, name: "MISMATCHED_ENDPOINT_TYPE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 115, name: "UNSUPPORTED_ENDPOINT_TYPE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 116, name: "UNKNOWN_CONTROLLER_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 117, name: "UNKNOWN_SUBSCRIPTION_ID", retriable: false, invalid_metadata: false },
    ErrorCode { code: 118, name: "TELEMETRY_TOO_LARGE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 119, name: "INVALID_REGISTRATION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 120, name: "TRANSACTION_ABORTABLE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 121, name: "INVALID_RECORD_STATE", retriable: false, invalid_metadata: false },
    ErrorCode { code: 122, name: "SHARE_SESSION_NOT_FOUND", retriable: true, invalid_metadata: false },
    ErrorCode { code: 123, name: "INVALID_SHARE_SESSION_EPOCH", retriable: true, invalid_metadata: false },
    ErrorCode { code: 124, name: "FENCED_STATE_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 125, name: "INVALID_VOTER_KEY", retriable: false, invalid_metadata: false },
    ErrorCode { code: 126, name: "DUPLICATE_VOTER", retriable: false, invalid_metadata: false },
    ErrorCode { code: 127, name: "VOTER_NOT_FOUND", retriable: false, invalid_metadata: false },
    ErrorCode { code: 128, name: "INVALID_REGULAR_EXPRESSION", retriable: false, invalid_metadata: false },
    ErrorCode { code: 129, name: "REBOOTSTRAP_REQUIRED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 130, name: "STREAMS_INVALID_TOPOLOGY", retriable: false, invalid_metadata: false },
    ErrorCode { code: 131, name: "STREAMS_INVALID_TOPOLOGY_EPOCH", retriable: false, invalid_metadata: false },
    ErrorCode { code: 132, name: "STREAMS_TOPOLOGY_FENCED", retriable: false, invalid_metadata: false },
    ErrorCode { code: 133, name: "SHARE_SESSION_LIMIT_REACHED", retriable: true, invalid_metadata: false },
];

/// What Kafka says about `code` (`None`: a code this table does not know, which Kafka's
/// client maps to UNKNOWN_SERVER_ERROR, not retriable).
pub fn lookup(code: i16) -> Option<&'static ErrorCode> {
    CODES
        .binary_search_by_key(&code, |e| e.code)
        .ok()
        .map(|i| &CODES[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_classifies_as_kafka_does() {
        assert!(CODES.windows(2).all(|w| w[0].code < w[1].code));
        let e = |c| lookup(c).unwrap();
        assert_eq!(e(6).name, "NOT_LEADER_OR_FOLLOWER");
        assert!(e(6).retriable && e(6).invalid_metadata);
        assert!(e(19).retriable && !e(19).invalid_metadata); // NOT_ENOUGH_REPLICAS
        assert!(!e(45).retriable); // OUT_OF_ORDER_SEQUENCE_NUMBER: the producer decides
        assert!(!e(29).retriable); // TOPIC_AUTHORIZATION_FAILED
        assert!(!e(-1).retriable);
        assert!(lookup(30_000).is_none());
    }
}
