//! The producer's view of a broker: every response the native producer parses
//! (`karrow_kafka::protocol`), and what it derives from them (version choice, the
//! partitioners over the partitions Metadata names, the leader's address). Seeds are
//! responses written byte by byte as a broker writes them.

use karrow_kafka::produce::partitioner::{fixed, partition_for_key, Sticky};
use karrow_kafka::protocol::{
    api_versions, end_txn, find_coordinator, init_producer_id, metadata, produce, txn_partitions,
};

use crate::Input;

/// The responses, in the order of the selector byte.
const APIS: usize = 7;

/// One response: the first byte picks the API (low 7 bits) and, for EndTxn, the version
/// (high bit: v5), the rest is
/// the response body after its size prefix. The correlation id expected is the one the
/// body starts with, so that every input reaches the body.
pub fn responses(data: &[u8]) {
    let mut input = Input::new(data);
    let selector = input.byte();
    let body = input.rest();
    let correlation = body
        .get(..4)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0);
    match (selector & 0x7f) as usize % APIS {
        0 => {
            if let Ok(versions) = api_versions::parse_response(body, correlation) {
                for &(key, min, max) in versions.apis.iter().take(64) {
                    if let Some(v) = versions.pick(key, min, max) {
                        assert!((min..=max).contains(&v), "picked {v} outside {min}..={max}");
                    }
                }
                let _ = versions.transaction_version();
            }
        }
        1 => {
            if let Ok(response) = produce::parse_response(body, correlation) {
                for p in &response.partitions {
                    let _ = (&p.error_message, &p.record_errors, p.current_leader);
                }
            }
        }
        2 => {
            if let Ok(meta) = metadata::parse_response(body, correlation) {
                route(&meta);
                leaders(&meta);
            }
        }
        3 => {
            let _ = init_producer_id::parse_response(body, correlation);
        }
        4 => {
            let _ = txn_partitions::parse_response(body, correlation);
        }
        5 => {
            let _ = find_coordinator::parse_response(body, correlation);
        }
        _ => {
            let version = if selector & 0x80 != 0 { 5 } else { 4 };
            let _ = end_txn::parse_response(body, correlation, version);
        }
    }
}

/// What the native fetch does with Metadata (`fetch::leaders`): each partition's leader and
/// epoch against a few known epochs; a leader taken has a port and an epoch >= -1, a stale
/// answer an epoch below the known one.
fn leaders(meta: &metadata::Metadata) {
    use karrow_kafka::fetch::leaders::{leader_update, LeaderUpdate};
    for topic in &meta.topics {
        for p in &topic.partitions {
            for known in [-1, 0, p.leader_epoch, i32::MAX] {
                match leader_update(meta, &topic.name, p.partition, known) {
                    LeaderUpdate::Leader { leader, epoch } => {
                        assert!(
                            epoch >= -1 && (epoch < 0 || epoch >= known),
                            "{epoch} {known}"
                        );
                        assert!(leader
                            .rsplit(':')
                            .next()
                            .is_some_and(|port| port.parse::<u16>().is_ok_and(|p| p > 0)));
                    }
                    LeaderUpdate::Stale { epoch } => assert!(epoch >= 0 && epoch < known),
                    LeaderUpdate::Unknown => {}
                }
            }
        }
    }
}

/// What the producer does with Metadata: partitions with a leader, each partitioner over
/// them, the leader's address.
fn route(meta: &metadata::Metadata) {
    let mut sticky = Sticky::new(16_384, 7);
    for topic in &meta.topics {
        let mut ids: Vec<i32> = topic.partitions.iter().map(|p| p.partition).collect();
        ids.sort_unstable();
        let available: Vec<i32> = topic
            .partitions
            .iter()
            .filter(|p| p.leader_id >= 0)
            .map(|p| p.partition)
            .collect();
        for subtask in [0u32, 1, u32::MAX] {
            if let Some(p) = fixed(subtask, &ids) {
                assert!(ids.contains(&p));
            }
        }
        let count = u32::try_from(topic.partitions.len()).unwrap_or(u32::MAX);
        let p = partition_for_key(topic.name.as_bytes(), count);
        assert!(
            p >= 0 && (count == 0 || (p as u32) < count),
            "partition {p} of {count}"
        );
        for _ in 0..3 {
            match sticky.partition(&available) {
                Some(p) => assert!(available.contains(&p)),
                None => assert!(available.is_empty()),
            }
            sticky.appended(10_000);
        }
        for part in topic.partitions.iter().take(16) {
            let _ = meta.address(part.leader_id);
        }
    }
}

/// A response body builder (big-endian numbers, compact lengths as Kafka writes them).
#[derive(Default)]
struct Body(Vec<u8>);

impl Body {
    fn header(correlation: i32, tagged: bool) -> Body {
        let mut b = Body::default();
        b.i32(correlation);
        if tagged {
            b.tags();
        }
        b
    }
    fn i8(&mut self, v: i8) -> &mut Self {
        self.0.push(v as u8);
        self
    }
    fn i16(&mut self, v: i16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i64(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn uvarint(&mut self, mut n: u64) -> &mut Self {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
        self
    }
    fn len(&mut self, n: usize) -> &mut Self {
        self.uvarint(n as u64 + 1)
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn null(&mut self) -> &mut Self {
        self.uvarint(0)
    }
    fn tags(&mut self) -> &mut Self {
        self.uvarint(0)
    }
    fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.extend_from_slice(bytes);
        self
    }
    fn seed(&self, selector: u8) -> Vec<u8> {
        let mut out = vec![selector];
        out.extend_from_slice(&self.0);
        out
    }
}

/// Valid responses of every API, with errors, leaders moved, tagged fields and
/// transactions of both protocol versions.
pub fn response_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    // ApiVersions (header v0): produce, fetch, metadata, ...; finalized transaction.version.
    let mut b = Body::header(1, false);
    b.i16(0).len(4);
    for (key, min, max) in [(0, 3, 11), (1, 4, 16), (3, 0, 12), (26, 0, 5)] {
        b.i16(key).i16(min).i16(max).tags();
    }
    b.i32(0);
    let mut features = Body::default();
    features
        .len(1)
        .str("transaction.version")
        .i16(2)
        .i16(0)
        .tags();
    b.uvarint(1)
        .uvarint(2)
        .uvarint(features.0.len() as u64)
        .raw(&features.0);
    seeds.push(b.seed(0));
    let mut b = Body::header(1, false);
    b.i16(35);
    seeds.push(b.seed(0));
    // Produce: one partition acknowledged, one NOT_LEADER_OR_FOLLOWER naming a new leader,
    // one with record errors; node endpoints in the top-level tags.
    let mut b = Body::header(2, true);
    b.len(1).str("t").len(3);
    b.i32(0).i16(0).i64(42).i64(-1).i64(0).len(0).null().tags();
    b.i32(1)
        .i16(6)
        .i64(-1)
        .i64(-1)
        .i64(-1)
        .len(0)
        .str("not the leader");
    b.uvarint(1).uvarint(0).uvarint(8).i32(2).i32(9);
    b.i32(2)
        .i16(87)
        .i64(-1)
        .i64(-1)
        .i64(-1)
        .len(1)
        .i32(3)
        .str("bad record")
        .tags()
        .null()
        .tags();
    b.tags();
    b.i32(0);
    let mut endpoints = Body::default();
    endpoints
        .len(1)
        .i32(2)
        .str("127.0.0.1")
        .i32(9092)
        .null()
        .tags();
    b.uvarint(1)
        .uvarint(0)
        .uvarint(endpoints.0.len() as u64)
        .raw(&endpoints.0);
    seeds.push(b.seed(1));
    // Metadata: two brokers, a topic of three partitions (one without leader), an unknown
    // topic.
    let mut b = Body::header(3, true);
    b.i32(0).len(2);
    b.i32(1).str("127.0.0.1").i32(9092).null().tags();
    b.i32(2).str("localhost").i32(9093).str("rack-a").tags();
    b.str("cluster").i32(1).len(2);
    b.i16(0).str("t").raw(&[7; 16]).i8(0).len(3);
    for (partition, leader) in [(0, 1), (1, 2), (2, -1)] {
        b.i16(if leader < 0 { 5 } else { 0 })
            .i32(partition)
            .i32(leader)
            .i32(4);
        b.len(1).i32(1).len(1).i32(1).len(0).tags();
    }
    b.i32(0).tags();
    b.i16(3)
        .str("missing")
        .raw(&[0; 16])
        .i8(0)
        .len(0)
        .i32(0)
        .tags();
    b.tags();
    seeds.push(b.seed(2));
    // InitProducerId.
    let mut b = Body::header(4, true);
    b.i32(0).i16(0).i64(7).i16(3).tags();
    seeds.push(b.seed(3));
    // AddPartitionsToTxn: two partitions, one failed.
    let mut b = Body::header(5, true);
    b.i32(0).len(1).str("t").len(2);
    b.i32(0).i16(0).tags().i32(1).i16(48).tags();
    b.tags().tags();
    seeds.push(b.seed(4));
    // FindCoordinator v4 (one key).
    let mut b = Body::header(6, true);
    b.i32(0)
        .len(1)
        .str("txn")
        .i32(1)
        .str("127.0.0.1")
        .i32(9092)
        .i16(0)
        .null()
        .tags()
        .tags();
    seeds.push(b.seed(5));
    // EndTxn v4 and v5 (the epoch bumped by the coordinator).
    let mut b = Body::header(7, true);
    b.i32(0).i16(0).tags();
    seeds.push(b.seed(6));
    let mut b = Body::header(7, true);
    b.i32(0).i16(0).i64(7).i16(4).tags();
    seeds.push(b.seed(6 | 0x80));
    seeds
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each seed is a response its parser accepts, so the fuzzer starts past the header.
    #[test]
    fn every_seed_parses() {
        for seed in response_seeds() {
            let body = &seed[1..];
            let correlation = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
            let ok = match (seed[0] & 0x7f) as usize % APIS {
                0 => api_versions::parse_response(body, correlation).map(|_| ()),
                1 => produce::parse_response(body, correlation).map(|_| ()),
                2 => metadata::parse_response(body, correlation).map(|_| ()),
                3 => init_producer_id::parse_response(body, correlation).map(|_| ()),
                4 => txn_partitions::parse_response(body, correlation).map(|_| ()),
                5 => find_coordinator::parse_response(body, correlation).map(|_| ()),
                _ => {
                    let version = if seed[0] & 0x80 != 0 { 5 } else { 4 };
                    end_txn::parse_response(body, correlation, version).map(|_| ())
                }
            };
            let expect_ok = !(seed[0] == 0 && body.len() == 6);
            assert_eq!(ok.is_ok(), expect_ok, "seed {:?}: {ok:?}", &seed[..8]);
        }
    }
}
