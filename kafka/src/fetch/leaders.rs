//! Where each partition is fetched from, and at which leader epoch: a Metadata request to a
//! broker, and what its answer changes, with the rules of Kafka's Java consumer
//! (`Metadata.updateLatestMetadata`): a partition's leader and epoch are taken from the answer
//! unless its epoch is older than the one known (stale metadata from a broker that has not
//! caught up), which is ignored, the known leader and epoch staying in use.
//!
//! The session asks when a partition is assigned (its epoch is not known yet), after an
//! error code after which the consumer refreshes its metadata (NOT_LEADER_OR_FOLLOWER,
//! FENCED_LEADER_EPOCH, ...), and after the Java side set a new leader. The question goes to
//! the partition's current leader; a broker that cannot be reached, or that knows no leader,
//! leaves the partition to the Java side's lookup ([`super::Polled::leader_changed`]).

use std::time::Instant;

use crate::connection::{Connection, ConnectionConfig};
use crate::error::FetchError;
use crate::protocol::metadata::{self, Metadata};

/// The largest Metadata response read: a few KiB per topic asked for is usual.
pub const METADATA_MAX_BYTES: usize = 8 * 1024 * 1024;

/// What a Metadata answer changes for one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaderUpdate {
    /// Fetch from `leader` (`host:port`, maybe the same) at `epoch` (-1: the broker gave
    /// none).
    Leader {
        /// `host:port`.
        leader: String,
        /// The leader epoch, >= 0, or -1.
        epoch: i32,
    },
    /// The answer's epoch is older than the one known: ignored.
    Stale {
        /// The epoch of the answer.
        epoch: i32,
    },
    /// No leader in the answer (an error code for the topic or the partition, no leader
    /// elected, the partition or the leader's address missing).
    Unknown,
}

/// What `meta` says about `topic`-`partition`, whose known leader epoch is `known_epoch`
/// (-1: none). Every value is the broker's: a negative epoch is taken as none, a leader not
/// among the brokers or with a port outside 1..=65535 as no leader.
pub fn leader_update(
    meta: &Metadata,
    topic: &str,
    partition: i32,
    known_epoch: i32,
) -> LeaderUpdate {
    let Some(p) = meta
        .topics
        .iter()
        .filter(|t| t.error_code == 0 && t.name == topic)
        .flat_map(|t| t.partitions.iter())
        .find(|p| p.partition == partition)
    else {
        return LeaderUpdate::Unknown;
    };
    if p.error_code != 0 || p.leader_id < 0 {
        return LeaderUpdate::Unknown;
    }
    let epoch = p.leader_epoch.max(-1);
    if epoch >= 0 && epoch < known_epoch {
        return LeaderUpdate::Stale { epoch };
    }
    let Some(broker) = meta
        .brokers
        .iter()
        .find(|b| b.node_id == p.leader_id && (1..=65535).contains(&b.port) && !b.host.is_empty())
    else {
        return LeaderUpdate::Unknown;
    };
    LeaderUpdate::Leader {
        leader: format!("{}:{}", broker.host, broker.port),
        epoch,
    }
}

/// Asks `broker` (`host:port`) for the metadata of `topics` on a connection of its own
/// (the fetch connection may have a request in flight), by the request timeout; a wake-up
/// ends the wait.
pub fn lookup(
    broker: &str,
    config: &ConnectionConfig,
    topics: &[&str],
) -> Result<Metadata, FetchError> {
    let mut connection = Connection::open(broker, config).map_err(super::session::connect_error)?;
    connection.version(
        metadata::API_KEY,
        "Metadata",
        metadata::VERSION,
        metadata::VERSION,
    )?;
    let client_id = config.client_id.clone();
    let id = connection
        .send_with(|out, c| metadata::write_request(out, c, &client_id, topics, false))
        .map_err(super::session::connect_error)?;
    let mut buf = Vec::new();
    connection
        .receive_capped(
            &mut buf,
            METADATA_MAX_BYTES,
            "8 MiB for a Metadata response",
            Instant::now() + config.request_timeout,
        )
        .map_err(super::session::connect_error)?;
    metadata::parse_response(&buf, id).map_err(|e| FetchError::Protocol {
        broker: broker.to_string(),
        reason: format!("Metadata: {}", e.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::metadata::{Broker, PartitionMetadata, TopicMetadata};

    fn meta(leader: i32, epoch: i32, port: i32) -> Metadata {
        Metadata {
            brokers: vec![Broker {
                node_id: 1,
                host: "h".into(),
                port,
            }],
            topics: vec![TopicMetadata {
                error_code: 0,
                name: "t".into(),
                partitions: vec![PartitionMetadata {
                    error_code: 0,
                    partition: 0,
                    leader_id: leader,
                    leader_epoch: epoch,
                }],
            }],
        }
    }

    #[test]
    fn a_newer_or_equal_epoch_is_taken_and_an_older_one_ignored() {
        let leader = |epoch| LeaderUpdate::Leader {
            leader: "h:9".into(),
            epoch,
        };
        assert_eq!(leader_update(&meta(1, 5, 9), "t", 0, -1), leader(5));
        assert_eq!(leader_update(&meta(1, 5, 9), "t", 0, 5), leader(5));
        assert_eq!(leader_update(&meta(1, 6, 9), "t", 0, 5), leader(6));
        assert_eq!(
            leader_update(&meta(1, 4, 9), "t", 0, 5),
            LeaderUpdate::Stale { epoch: 4 }
        );
        // No epoch from the broker (any negative value): taken, as none.
        assert_eq!(leader_update(&meta(1, -7, 9), "t", 0, 5), leader(-1));
    }

    #[test]
    fn no_leader_a_missing_partition_or_a_bad_address_is_unknown() {
        assert_eq!(
            leader_update(&meta(-1, 5, 9), "t", 0, -1),
            LeaderUpdate::Unknown
        );
        assert_eq!(
            leader_update(&meta(2, 5, 9), "t", 0, -1),
            LeaderUpdate::Unknown
        );
        assert_eq!(
            leader_update(&meta(1, 5, 9), "t", 1, -1),
            LeaderUpdate::Unknown
        );
        assert_eq!(
            leader_update(&meta(1, 5, 9), "u", 0, -1),
            LeaderUpdate::Unknown
        );
        for port in [0, -1, 65536, i32::MAX] {
            assert_eq!(
                leader_update(&meta(1, 5, port), "t", 0, -1),
                LeaderUpdate::Unknown
            );
        }
        let mut m = meta(1, 5, 9);
        m.topics[0].partitions[0].error_code = 5;
        assert_eq!(leader_update(&m, "t", 0, -1), LeaderUpdate::Unknown);
        m.topics[0].partitions[0].error_code = 0;
        m.topics[0].error_code = 3;
        assert_eq!(leader_update(&m, "t", 0, -1), LeaderUpdate::Unknown);
    }
}
