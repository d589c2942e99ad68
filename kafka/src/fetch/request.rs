//! Fetch requests (API key 1, version 12: the last with topic names rather than ids,
//! served by every broker since Kafka 3.1 through 4.x).

use crate::wire::put_uvarint;

/// Fetch API key.
pub const FETCH_API_KEY: i16 = 1;
/// The Fetch version spoken.
pub const FETCH_VERSION: i16 = 12;

/// One partition to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionFetch<'a> {
    /// Topic name.
    pub topic: &'a str,
    /// Partition number.
    pub partition: i32,
    /// The first offset wanted.
    pub offset: i64,
    /// The leader epoch the partition's metadata gave (-1: unknown, which the broker does
    /// not check); a broker on another epoch answers FENCED_LEADER_EPOCH (ours is older) or
    /// UNKNOWN_LEADER_EPOCH (ours is newer) instead of records (KIP-320).
    pub current_leader_epoch: i32,
    /// The leader epoch of the last batch fetched (-1: none yet); when the leader's log
    /// diverges from it before `offset`, the broker answers with a diverging epoch
    /// instead of records (log truncation, KIP-320 and KIP-595).
    pub last_fetched_epoch: i32,
}

/// The fetch session (KIP-227) a request belongs to: `id` 0 and `epoch` -1 for none; `id` 0
/// (or an id to close) and `epoch` 0 to ask for a new one, with every partition (a full
/// fetch); the session's id and its next epoch (>= 1) for an incremental fetch, which names
/// only the partitions whose fetch changed and, in `forgotten`, those to drop from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionMeta<'a> {
    /// The session id (0: none).
    pub id: i32,
    /// The session epoch (-1: no session, 0: create one, >= 1: incremental).
    pub epoch: i32,
    /// (topic, partition) to drop from the session; grouped by topic.
    pub forgotten: &'a [(&'a str, i32)],
}

impl SessionMeta<'_> {
    /// No session: every request is a full fetch.
    pub const NONE: SessionMeta<'static> = SessionMeta {
        id: 0,
        epoch: -1,
        forgotten: &[],
    };
}

/// Sizes and waits of one request (Kafka's Java consumer options of the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchLimits {
    /// `fetch.max.wait.ms`: how long the broker may wait for `min_bytes`.
    pub max_wait_ms: i32,
    /// `fetch.min.bytes`.
    pub min_bytes: i32,
    /// `fetch.max.bytes`: the response limit (the first batch is always returned whole).
    pub max_bytes: i32,
    /// `max.partition.fetch.bytes`.
    pub partition_max_bytes: i32,
}

impl Default for FetchLimits {
    /// The Java consumer's defaults.
    fn default() -> Self {
        FetchLimits {
            max_wait_ms: 500,
            min_bytes: 1,
            max_bytes: 50 * 1024 * 1024,
            partition_max_bytes: 1024 * 1024,
        }
    }
}

/// Writes a size-prefixed Fetch v12 request into `out` (cleared first). `partitions` must
/// be grouped by topic (the same topic in consecutive entries); `read_committed` selects
/// the isolation level; `rack_id` is `client.rack` (empty: none), with which a leader on a
/// broker with a `replica.selector.class` may name a replica to fetch from instead (KIP-392).
/// `session` is the fetch session (KIP-227) the request belongs to ([`SessionMeta::NONE`]: none).
#[allow(clippy::too_many_arguments)]
pub fn write_fetch_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    limits: &FetchLimits,
    read_committed: bool,
    rack_id: &str,
    session: &SessionMeta<'_>,
    partitions: &[PartitionFetch<'_>],
) {
    out.clear();
    out.extend_from_slice(&[0; 4]);
    // Request header v2.
    out.extend_from_slice(&FETCH_API_KEY.to_be_bytes());
    out.extend_from_slice(&FETCH_VERSION.to_be_bytes());
    out.extend_from_slice(&correlation_id.to_be_bytes());
    let client = &client_id.as_bytes()[..client_id.len().min(i16::MAX as usize)];
    out.extend_from_slice(&(client.len() as i16).to_be_bytes());
    out.extend_from_slice(client);
    out.push(0);
    // Body.
    out.extend_from_slice(&(-1i32).to_be_bytes()); // replica_id: a consumer
    out.extend_from_slice(&limits.max_wait_ms.to_be_bytes());
    out.extend_from_slice(&limits.min_bytes.to_be_bytes());
    out.extend_from_slice(&limits.max_bytes.to_be_bytes());
    out.push(u8::from(read_committed));
    out.extend_from_slice(&session.id.to_be_bytes());
    out.extend_from_slice(&session.epoch.to_be_bytes());
    let topics: Vec<&[PartitionFetch<'_>]> =
        partitions.chunk_by(|a, b| a.topic == b.topic).collect();
    put_uvarint(out, topics.len() as u64 + 1);
    for group in topics {
        let topic = group[0].topic.as_bytes();
        put_uvarint(out, topic.len() as u64 + 1);
        out.extend_from_slice(topic);
        put_uvarint(out, group.len() as u64 + 1);
        for p in group {
            out.extend_from_slice(&p.partition.to_be_bytes());
            out.extend_from_slice(&p.current_leader_epoch.to_be_bytes());
            out.extend_from_slice(&p.offset.to_be_bytes());
            out.extend_from_slice(&p.last_fetched_epoch.to_be_bytes());
            out.extend_from_slice(&(-1i64).to_be_bytes()); // log_start_offset
            out.extend_from_slice(&limits.partition_max_bytes.to_be_bytes());
            out.push(0);
        }
        out.push(0);
    }
    let forgotten: Vec<&[(&str, i32)]> = session.forgotten.chunk_by(|a, b| a.0 == b.0).collect();
    put_uvarint(out, forgotten.len() as u64 + 1);
    for group in forgotten {
        let topic = group[0].0.as_bytes();
        put_uvarint(out, topic.len() as u64 + 1);
        out.extend_from_slice(topic);
        put_uvarint(out, group.len() as u64 + 1);
        for (_, partition) in group {
            out.extend_from_slice(&partition.to_be_bytes());
        }
        out.push(0);
    }
    let rack = &rack_id.as_bytes()[..rack_id.len().min(i16::MAX as usize)];
    put_uvarint(out, rack.len() as u64 + 1);
    out.extend_from_slice(rack);
    out.push(0);
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_groups_partitions_by_topic_and_is_size_prefixed() {
        let mut out = Vec::new();
        let parts = [
            PartitionFetch {
                topic: "a",
                partition: 0,
                offset: 5,
                current_leader_epoch: 7,
                last_fetched_epoch: 6,
            },
            PartitionFetch {
                topic: "a",
                partition: 1,
                offset: 7,
                current_leader_epoch: -1,
                last_fetched_epoch: -1,
            },
            PartitionFetch {
                topic: "bb",
                partition: 0,
                offset: 0,
                current_leader_epoch: -1,
                last_fetched_epoch: -1,
            },
        ];
        write_fetch_request(
            &mut out,
            9,
            "c",
            &FetchLimits::default(),
            true,
            "r1",
            &SessionMeta::NONE,
            &parts,
        );
        assert_eq!(
            i32::from_be_bytes(out[..4].try_into().unwrap()) as usize,
            out.len() - 4
        );
        // api key, version, correlation id, client id "c", no tags.
        assert_eq!(&out[4..16], &[0, 1, 0, 12, 0, 0, 0, 9, 0, 1, b'c', 0]);
        // replica -1, wait 500, min 1, max 50 MiB, read_committed, session 0 / -1.
        let body = &out[16..];
        assert_eq!(&body[..4], &(-1i32).to_be_bytes());
        assert_eq!(body[16], 1);
        // two topics (compact count 3); first "a" with two partitions (3).
        assert_eq!(&body[25..29], &[3, 2, b'a', 3]);
        assert_eq!(&body[29..33], &0i32.to_be_bytes());
        // current_leader_epoch, fetch offset, last_fetched_epoch.
        assert_eq!(&body[33..37], &7i32.to_be_bytes());
        assert_eq!(&body[37..45], &5i64.to_be_bytes());
        assert_eq!(&body[45..49], &6i32.to_be_bytes());
        // The end: no forgotten topics (1), rack_id "r1" (compact length 3), no tags.
        assert_eq!(&out[out.len() - 5..], &[1, 3, b'r', b'1', 0]);
    }

    #[test]
    fn an_incremental_request_carries_its_session_and_the_forgotten_partitions() {
        let mut out = Vec::new();
        let session = SessionMeta {
            id: 77,
            epoch: 3,
            forgotten: &[("a", 1), ("a", 2), ("bb", 0)],
        };
        write_fetch_request(
            &mut out,
            1,
            "c",
            &FetchLimits::default(),
            false,
            "",
            &session,
            &[],
        );
        let body = &out[16..];
        assert_eq!(&body[17..21], &77i32.to_be_bytes());
        assert_eq!(&body[21..25], &3i32.to_be_bytes());
        // No topics (1); forgotten: two topics (3): "a" [1, 2], "bb" [0]; rack ""; no tags.
        let mut want = vec![1, 3, 2, b'a', 3];
        want.extend_from_slice(&1i32.to_be_bytes());
        want.extend_from_slice(&2i32.to_be_bytes());
        want.extend_from_slice(&[0, 3, b'b', b'b', 2]);
        want.extend_from_slice(&0i32.to_be_bytes());
        want.extend_from_slice(&[0, 1, 0]);
        assert_eq!(&body[25..], &want[..]);
    }
}
