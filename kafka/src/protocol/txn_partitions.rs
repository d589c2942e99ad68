//! AddPartitionsToTxn (key 24, v3): adds partitions to a transaction before the first
//! record is produced to them (transaction protocol 1; protocol 2 adds them implicitly).

use super::{
    begin_request, compact_count, compact_string, end_request, put_compact_len, put_compact_str,
    response_header, Malformed,
};
use crate::wire::Reader;

/// AddPartitionsToTxn API key.
pub const API_KEY: i16 = 24;
/// The client version (v4 and later are broker-to-broker).
pub const VERSION: i16 = 3;

/// Writes an AddPartitionsToTxn v3 request; `partitions` grouped by topic.
pub fn write_request(
    out: &mut Vec<u8>,
    correlation_id: i32,
    client_id: &str,
    transactional_id: &str,
    producer_id: i64,
    epoch: i16,
    partitions: &[(&str, i32)],
) {
    begin_request(out, API_KEY, VERSION, correlation_id, client_id);
    put_compact_str(out, transactional_id);
    out.extend_from_slice(&producer_id.to_be_bytes());
    out.extend_from_slice(&epoch.to_be_bytes());
    let topics: Vec<&[(&str, i32)]> = partitions.chunk_by(|a, b| a.0 == b.0).collect();
    put_compact_len(out, topics.len());
    for group in topics {
        put_compact_str(out, group[0].0);
        put_compact_len(out, group.len());
        for (_, p) in group {
            out.extend_from_slice(&p.to_be_bytes());
        }
        out.push(0);
    }
    end_request(out);
}

/// Parses an AddPartitionsToTxn v3 response: (topic, partition, error code) of each.
pub fn parse_response(
    buf: &[u8],
    correlation_id: i32,
) -> Result<Vec<(String, i32, i16)>, Malformed> {
    let mut r = Reader::new(buf);
    response_header(&mut r, correlation_id)?;
    r.i32()?; // throttle_time_ms
    let mut out = Vec::new();
    for _ in 0..compact_count(&mut r, 3)? {
        let topic = compact_string(&mut r)?;
        for _ in 0..compact_count(&mut r, 7)? {
            let partition = r.i32()?;
            let error = r.i16()?;
            r.skip_tagged_fields()?;
            out.push((topic.clone(), partition, error));
        }
        r.skip_tagged_fields()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn results_per_partition() {
        let mut b = Body::header_v1(4);
        b.i32(0)
            .len(1)
            .str("t")
            .len(2)
            .i32(0)
            .i16(0)
            .tags()
            .i32(1)
            .i16(53)
            .tags()
            .tags()
            .tags();
        assert_eq!(
            parse_response(&b.0, 4).unwrap(),
            vec![("t".to_string(), 0, 0), ("t".to_string(), 1, 53)]
        );
    }
}
