//! What a fetch does with a partition's error code: exactly what Kafka's Java consumer
//! does with it (`FetchCollector.handleInitializeErrors`, kafka-clients 4.x).
//!
//! | code | Kafka's name | what the consumer does | here |
//! |---|---|---|---|
//! | 6, 74 | NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH | refresh metadata, fetch again | [`PartitionAction::RefreshLeader`] |
//! | 9 | REPLICA_NOT_AVAILABLE | refresh metadata, fetch again | [`PartitionAction::RefreshLeader`] |
//! | 56, 78 | KAFKA_STORAGE_ERROR, OFFSET_NOT_AVAILABLE | refresh metadata, fetch again | [`PartitionAction::RefreshLeader`] |
//! | 3, 100, 103 | UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, INCONSISTENT_TOPIC_ID | refresh metadata (with a warning), fetch again | [`PartitionAction::RefreshLeader`] |
//! | 75 | UNKNOWN_LEADER_EPOCH | fetch again | [`PartitionAction::Retry`] |
//! | -1 | UNKNOWN_SERVER_ERROR | fetch again (with a warning) | [`PartitionAction::Retry`] |
//! | 1 | OFFSET_OUT_OF_RANGE | reset as `auto.offset.reset` says, or fail | [`PartitionAction::OutOfRange`] |
//! | 29 | TOPIC_AUTHORIZATION_FAILED | fail | [`PartitionAction::Fail`] |
//! | 2 | CORRUPT_MESSAGE | fail | [`PartitionAction::Fail`] |
//! | any other | | fail ("unexpected error code") | [`PartitionAction::Fail`] |

/// What to do with a partition that came back with an error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionAction {
    /// No error: read its records.
    Read,
    /// The leader (or the metadata) is stale: ask for the partition's leader and epoch
    /// again ([`super::leaders`]), then fetch again after the retry back-off.
    RefreshLeader,
    /// Fetch again from the same leader (after the retry back-off).
    Retry,
    /// The fetch offset is outside the log.
    OutOfRange,
    /// Fail the poll.
    Fail,
}

/// The action for error code `code` of a partition in a fetch response.
pub fn partition_action(code: i16) -> PartitionAction {
    match code {
        0 => PartitionAction::Read,
        6 | 74 | 9 | 56 | 78 | 3 | 100 | 103 => PartitionAction::RefreshLeader,
        75 | -1 => PartitionAction::Retry,
        1 => PartitionAction::OutOfRange,
        _ => PartitionAction::Fail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_as_the_java_consumer_handles_them() {
        for code in [6, 74, 9, 56, 78, 3, 100, 103] {
            assert_eq!(
                partition_action(code),
                PartitionAction::RefreshLeader,
                "{code}"
            );
        }
        assert_eq!(partition_action(-1), PartitionAction::Retry);
        assert_eq!(partition_action(75), PartitionAction::Retry);
        assert_eq!(partition_action(1), PartitionAction::OutOfRange);
        // LEADER_NOT_AVAILABLE is a metadata error, never a fetch one: the consumer calls it
        // unexpected.
        for code in [2, 5, 29, 35, 42, i16::MIN, i16::MAX] {
            assert_eq!(partition_action(code), PartitionAction::Fail, "{code}");
        }
        assert_eq!(partition_action(0), PartitionAction::Read);
    }
}
