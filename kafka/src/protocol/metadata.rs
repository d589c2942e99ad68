//! Metadata (key 3, v12): the brokers, and per topic its partitions with their leader and
//! leader epoch, which the producer routes batches by.

use super::{
    begin_request, compact_count, compact_nullable_string, compact_string, end_request,
    put_compact_len, put_compact_str, response_header, Malformed,
};
use crate::wire::Reader;

/// Metadata API key.
pub const API_KEY: i16 = 3;
/// The version spoken (nullable topic names; Kafka >= 3.1).
pub const VERSION: i16 = 12;

/// A broker of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    /// Node id.
    pub node_id: i32,
    /// Host.
    pub host: String,
    /// Port.
    pub port: i32,
}

/// One partition of a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// Kafka's error code (0: none; LEADER_NOT_AVAILABLE while an election runs).
    pub error_code: i16,
    /// Partition index.
    pub partition: i32,
    /// The leader's node id (-1: none).
    pub leader_id: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
}

/// One topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    /// Kafka's error code (0: none; UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED).
    pub error_code: i16,
    /// Topic name.
    pub name: String,
    /// Its partitions, in the broker's order.
    pub partitions: Vec<PartitionMetadata>,
}

/// A parsed Metadata response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    /// Every broker.
    pub brokers: Vec<Broker>,
    /// The topics asked for.
    pub topics: Vec<TopicMetadata>,
}

impl Metadata {
    /// `host:port` of broker `node_id`.
    pub fn address(&self, node_id: i32) -> Option<String> {
        self.brokers
            .iter()
            .find(|b| b.node_id == node_id)
            .map(|b| format!("{}:{}", b.host, b.port))
    }
}

/// Writes a Metadata v12 request for `topics`; `allow_auto_create` is the producer's
/// `allow.auto.create.topics`.
pub fn write_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    topics: &[&str],
    allow_auto_create: bool,
) {
    begin_request(out, API_KEY, VERSION, correlation_id, client_id);
    put_compact_len(out, topics.len());
    for t in topics {
        out.extend_from_slice(&[0; 16]); // topic id: unknown, the name decides
        put_compact_str(out, t);
        out.push(0);
    }
    out.push(u8::from(allow_auto_create));
    out.push(0); // include_topic_authorized_operations
    end_request(out);
}

/// Parses a Metadata v12 response.
pub fn parse_response(buf: &[u8], correlation_id: i32) -> Result<Metadata, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    r.i32()?; // throttle_time_ms
    let mut out = Metadata::default();
    for _ in 0..compact_count(&mut r, 11)? {
        let node_id = r.i32()?;
        let host = compact_string(&mut r)?;
        let port = r.i32()?;
        compact_nullable_string(&mut r)?; // rack
        r.skip_tagged_fields()?;
        out.brokers.push(Broker {
            node_id,
            host,
            port,
        });
    }
    compact_nullable_string(&mut r)?; // cluster_id
    r.i32()?; // controller_id
    for _ in 0..compact_count(&mut r, 25)? {
        let error_code = r.i16()?;
        let name = compact_string(&mut r)?;
        r.take(16)?; // topic id
        r.i8()?; // is_internal
        let mut partitions = Vec::new();
        for _ in 0..compact_count(&mut r, 17)? {
            let error_code = r.i16()?;
            let partition = r.i32()?;
            let leader_id = r.i32()?;
            let leader_epoch = r.i32()?;
            for _ in 0..3 {
                // replica, ISR and offline node ids
                let n = compact_count(&mut r, 4)?;
                r.take(n * 4)?;
            }
            r.skip_tagged_fields()?;
            partitions.push(PartitionMetadata {
                error_code,
                partition,
                leader_id,
                leader_epoch,
            });
        }
        r.i32()?; // topic_authorized_operations
        r.skip_tagged_fields()?;
        out.topics.push(TopicMetadata {
            error_code,
            name,
            partitions,
        });
    }
    r.skip_tagged_fields()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn brokers_partitions_and_leaders_are_read() {
        let mut b = Body::header_v1(8);
        b.i32(0)
            .len(1)
            .i32(1)
            .str("127.0.0.1")
            .i32(9092)
            .null()
            .tags();
        b.str("cluster").i32(1);
        b.len(1).i16(0).str("t").raw(&[7; 16]).raw(&[0]).len(2);
        b.i16(0)
            .i32(0)
            .i32(1)
            .i32(5)
            .len(1)
            .i32(1)
            .len(1)
            .i32(1)
            .len(0)
            .tags();
        b.i16(5).i32(1).i32(-1).i32(-1).len(0).len(0).len(0).tags();
        b.i32(0).tags().tags();
        let m = parse_response(&b.0, 8).unwrap();
        assert_eq!(m.address(1).as_deref(), Some("127.0.0.1:9092"));
        let t = &m.topics[0];
        assert_eq!((t.name.as_str(), t.partitions.len()), ("t", 2));
        assert_eq!(
            t.partitions[0],
            PartitionMetadata {
                error_code: 0,
                partition: 0,
                leader_id: 1,
                leader_epoch: 5
            }
        );
        assert_eq!(
            (t.partitions[1].error_code, t.partitions[1].leader_id),
            (5, -1)
        );
    }
}
