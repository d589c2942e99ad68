//! Produce (key 0, v9-v12): record batches to partition leaders, and per partition the
//! error code, base offset and, on NOT_LEADER_OR_FOLLOWER, the new leader (KIP-951).

use super::{
    begin_request, compact_count, compact_nullable_string, compact_string, end_request,
    put_compact_len, put_compact_nullable_str, put_compact_str, response_header, Malformed,
};
use crate::wire::{put_uvarint, Reader};

/// Produce API key.
pub const API_KEY: i16 = 0;
/// The oldest version spoken (the first flexible one; Kafka >= 2.4).
pub const MIN_VERSION: i16 = 9;
/// The newest version spoken with topic names (v13 names topics by id). Inside a
/// transaction v12 means "add the partition implicitly" (transaction protocol 2), so a
/// transactional producer on protocol 1 speaks at most v11.
pub const MAX_VERSION: i16 = 12;

/// One partition's batches in a request.
#[derive(Debug, Clone, Copy)]
pub struct PartitionData<'a> {
    /// Topic name.
    pub topic: &'a str,
    /// Partition.
    pub partition: i32,
    /// The record batches, back to back.
    pub records: &'a [u8],
}

/// Writes a Produce request; `partitions` grouped by topic.
#[allow(clippy::too_many_arguments)]
pub fn write_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    version: i16,
    transactional_id: Option<&str>,
    acks: i16,
    timeout_ms: i32,
    partitions: &[PartitionData<'_>],
) {
    begin_request(out, API_KEY, version, correlation_id, client_id);
    put_compact_nullable_str(out, transactional_id);
    out.extend_from_slice(&acks.to_be_bytes());
    out.extend_from_slice(&timeout_ms.to_be_bytes());
    let topics: Vec<&[PartitionData<'_>]> =
        partitions.chunk_by(|a, b| a.topic == b.topic).collect();
    put_compact_len(out, topics.len());
    for group in topics {
        put_compact_str(out, group[0].topic);
        put_compact_len(out, group.len());
        for p in group {
            out.extend_from_slice(&p.partition.to_be_bytes());
            put_uvarint(out, p.records.len() as u64 + 1);
            out.extend_from_slice(p.records);
            out.push(0);
        }
        out.push(0);
    }
    end_request(out);
}

/// One partition's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionResponse {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Kafka's error code (0: appended).
    pub error_code: i16,
    /// The offset of the first record appended.
    pub base_offset: i64,
    /// The log start offset (-1: unknown).
    pub log_start_offset: i64,
    /// The broker's message, if any.
    pub error_message: Option<String>,
    /// Records the broker rejected: (index in the batch, message).
    pub record_errors: Vec<(i32, Option<String>)>,
    /// The leader the broker named (id, epoch) with NOT_LEADER_OR_FOLLOWER (v10+).
    pub current_leader: Option<(i32, i32)>,
}

/// A parsed Produce response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProduceResponse {
    /// Every partition answered.
    pub partitions: Vec<PartitionResponse>,
    /// How long the broker throttled this client (ms).
    pub throttle_time_ms: i32,
    /// Brokers named as new leaders: (node id, host, port) (v10+).
    pub node_endpoints: Vec<(i32, String, i32)>,
}

/// Parses a Produce response (v9+).
pub fn parse_response(buf: &[u8], correlation_id: i32) -> Result<ProduceResponse, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    let mut out = ProduceResponse::default();
    for _ in 0..compact_count(&mut r, 3)? {
        let topic = compact_string(&mut r)?;
        for _ in 0..compact_count(&mut r, 31)? {
            let partition = r.i32()?;
            let error_code = r.i16()?;
            let base_offset = r.i64()?;
            r.i64()?; // log_append_time_ms
            let log_start_offset = r.i64()?;
            let mut record_errors = Vec::new();
            for _ in 0..compact_count(&mut r, 6)? {
                let index = r.i32()?;
                let message = compact_nullable_string(&mut r)?;
                r.skip_tagged_fields()?;
                record_errors.push((index, message));
            }
            let error_message = compact_nullable_string(&mut r)?;
            let mut current_leader = None;
            for _ in 0..r.uvarint()? {
                let tag = r.uvarint()?;
                let size =
                    usize::try_from(r.uvarint()?).map_err(|_| Malformed("tag size".into()))?;
                let mut field = Reader::new(r.take(size)?);
                if tag == 0 {
                    current_leader = Some((field.i32()?, field.i32()?));
                }
            }
            out.partitions.push(PartitionResponse {
                topic: topic.clone(),
                partition,
                error_code,
                base_offset,
                log_start_offset,
                error_message,
                record_errors,
                current_leader,
            });
        }
        r.skip_tagged_fields()?;
    }
    out.throttle_time_ms = r.i32()?;
    for _ in 0..r.uvarint()? {
        let tag = r.uvarint()?;
        let size = usize::try_from(r.uvarint()?).map_err(|_| Malformed("tag size".into()))?;
        let mut field = Reader::new(r.take(size)?);
        if tag == 0 {
            for _ in 0..compact_count(&mut field, 10)? {
                let node = field.i32()?;
                let host = compact_string(&mut field)?;
                let port = field.i32()?;
                compact_nullable_string(&mut field)?; // rack
                field.skip_tagged_fields()?;
                out.node_endpoints.push((node, host, port));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn request_groups_by_topic() {
        let mut out = Vec::new();
        let parts = [
            PartitionData {
                topic: "a",
                partition: 0,
                records: b"xy",
            },
            PartitionData {
                topic: "a",
                partition: 1,
                records: b"z",
            },
        ];
        write_request(&mut out, 1, "c", 12, None, -1, 30_000, &parts);
        assert_eq!(
            i32::from_be_bytes(out[..4].try_into().unwrap()) as usize,
            out.len() - 4
        );
        let body = &out[4 + 12..];
        // null transactional id, acks -1, timeout, one topic "a", two partitions.
        assert_eq!(body[0], 0);
        assert_eq!(&body[1..3], &(-1i16).to_be_bytes());
        assert_eq!(&body[7..11], &[2, 2, b'a', 3]);
        assert_eq!(&body[11..15], &0i32.to_be_bytes());
        assert_eq!(&body[15..18], &[3, b'x', b'y']);
    }

    #[test]
    fn errors_and_the_new_leader_are_read() {
        let mut b = Body::header_v1(7);
        b.len(1).str("t").len(1);
        b.i32(2).i16(6).i64(-1).i64(-1).i64(-1).len(0).null();
        // tag 0 (current leader 3, epoch 9): 8 bytes.
        b.raw(&[1, 0, 8]).i32(3).i32(9);
        b.tags(); // topic
        b.i32(0);
        let mut nodes = Body::default();
        nodes.len(1).i32(3).str("h").i32(1).null().tags();
        b.raw(&[1, 0]).raw(&[nodes.0.len() as u8]).raw(&nodes.0);
        let resp = parse_response(&b.0, 7).unwrap();
        let p = &resp.partitions[0];
        assert_eq!(
            (p.partition, p.error_code, p.current_leader),
            (2, 6, Some((3, 9)))
        );
        assert_eq!(resp.node_endpoints, vec![(3, "h".to_string(), 1)]);
    }
}
