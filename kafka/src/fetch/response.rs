//! Fetch responses (version 12): per partition, the error code, watermarks, aborted
//! transactions and where its record batches lie in the response buffer.

use std::ops::Range;

use crate::wire::{Reader, Short};

/// A transaction the broker reports aborted in the fetched range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTransaction {
    /// The transaction's producer id.
    pub producer_id: i64,
    /// The first offset of the transaction.
    pub first_offset: i64,
}

/// One partition of a fetch response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionResponse {
    /// Where the topic name lies in the response buffer (a range, not a copy per
    /// partition: a hostile response of many partitions under one long name costs nothing
    /// more); [`PartitionResponse::topic`] reads it.
    pub topic_name: Range<usize>,
    /// Partition number.
    pub partition: i32,
    /// Kafka's error code (0: none).
    pub error_code: i16,
    /// The partition's high watermark.
    pub high_watermark: i64,
    /// The last stable offset (read_committed reads up to it).
    pub last_stable_offset: i64,
    /// Aborted transactions overlapping the returned batches (read_committed only).
    pub aborted: Vec<AbortedTransaction>,
    /// Where the record batches are in the response buffer.
    pub records: Range<usize>,
    /// The diverging epoch (tagged field 0): the leader's log diverges from the request's
    /// `last_fetched_epoch` before the fetch offset; `None` when absent or when its epoch
    /// is negative (Kafka's `FetchResponse.isDivergingEpoch`).
    pub diverging: Option<DivergingEpoch>,
    /// The broker id of the replica the leader asks this client to fetch the partition
    /// from (KIP-392, `client.rack`); -1 (any negative value): none.
    pub preferred_read_replica: i32,
}

/// Where the leader's log ends for the fetch's last fetched epoch, when it diverges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DivergingEpoch {
    /// The largest epoch of the leader's log not after the last fetched epoch (>= 0).
    pub epoch: i32,
    /// The end offset of that epoch in the leader's log (any value the broker sent: the
    /// session checks it).
    pub end_offset: i64,
}

impl PartitionResponse {
    /// The topic name's bytes in `buf`, the response this partition was parsed from.
    pub fn topic<'b>(&self, buf: &'b [u8]) -> &'b [u8] {
        buf.get(self.topic_name.clone()).unwrap_or_default()
    }
}

/// A whole fetch response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchResponse {
    /// How long the broker asks the client to wait before its next request to it (its
    /// quota was exceeded; KIP-219: the broker answered at once and throttles after).
    pub throttle_time_ms: i32,
    /// The top-level error code (0: none; the partitions are then usually empty).
    pub error_code: i16,
    /// The fetch session the broker keeps for this client (KIP-227; 0: none).
    pub session_id: i32,
    /// The partitions, in response order.
    pub partitions: Vec<PartitionResponse>,
}

/// Parses a Fetch v12 response body (after the size prefix). Fails on a correlation id
/// other than `correlation_id`, more than `max_partitions` partitions (more than were
/// asked for), or malformed bytes; a top-level error code is returned in
/// [`FetchResponse::error_code`].
pub fn parse_fetch_response(
    buf: &[u8],
    correlation_id: i32,
    max_partitions: usize,
) -> Result<FetchResponse, String> {
    parse(buf, correlation_id, max_partitions).map_err(|e| match e {
        Parse::Short => format!("the response ends early ({} bytes)", buf.len()),
        Parse::Other(m) => m,
    })
}

enum Parse {
    Short,
    Other(String),
}

impl From<Short> for Parse {
    fn from(_: Short) -> Self {
        Parse::Short
    }
}

fn parse(buf: &[u8], correlation_id: i32, max_partitions: usize) -> Result<FetchResponse, Parse> {
    let mut r = Reader::new(buf);
    let got = r.i32()?;
    if got != correlation_id {
        return Err(Parse::Other(format!(
            "correlation id {got} answers no request in flight (expected {correlation_id})"
        )));
    }
    r.skip_tagged_fields()?; // response header v1
    let throttle_time_ms = r.i32()?;
    let error_code = r.i16()?;
    let session_id = r.i32()?;
    let mut out = Vec::new();
    for _ in 0..r.compact_len()?.unwrap_or(0) {
        let name_len = r.compact_len()?.unwrap_or(0);
        let name_start = r.position();
        r.take(name_len)?;
        let topic_name = name_start..name_start + name_len;
        for _ in 0..r.compact_len()?.unwrap_or(0) {
            if out.len() == max_partitions {
                return Err(Parse::Other(format!(
                    "more partitions than the {max_partitions} fetched"
                )));
            }
            let partition = r.i32()?;
            let error_code = r.i16()?;
            let high_watermark = r.i64()?;
            let last_stable_offset = r.i64()?;
            r.i64()?; // log_start_offset
            let mut aborted = Vec::new();
            for _ in 0..r.compact_len()?.unwrap_or(0) {
                let producer_id = r.i64()?;
                let first_offset = r.i64()?;
                r.skip_tagged_fields()?;
                aborted.push(AbortedTransaction {
                    producer_id,
                    first_offset,
                });
            }
            let preferred_read_replica = r.i32()?;
            let start = r.position();
            let len = r.compact_len()?.unwrap_or(0);
            let records_start = r.position();
            r.take(len)?;
            debug_assert!(records_start >= start);
            // `take` checked that the records lie inside the buffer.
            let diverging = partition_tags(&mut r)?;
            out.push(PartitionResponse {
                topic_name: topic_name.clone(),
                partition,
                error_code,
                high_watermark,
                last_stable_offset,
                aborted,
                records: records_start..records_start + len,
                diverging,
                preferred_read_replica,
            });
        }
        r.skip_tagged_fields()?;
    }
    r.skip_tagged_fields()?;
    Ok(FetchResponse {
        throttle_time_ms,
        error_code,
        session_id,
        partitions: out,
    })
}

/// A partition's tagged fields: the diverging epoch (tag 0) is read, the others (the
/// current leader, tag 1; the snapshot id, tag 2) skipped. Each field is read inside its
/// own size, so a field longer or shorter than Kafka's is malformed, never misread.
fn partition_tags(r: &mut Reader<'_>) -> Result<Option<DivergingEpoch>, Parse> {
    let mut diverging = None;
    for _ in 0..r.uvarint()? {
        let tag = r.uvarint()?;
        let size = usize::try_from(r.uvarint()?).map_err(|_| Parse::Short)?;
        let field = r.take(size)?;
        if tag == 0 {
            let mut f = Reader::new(field);
            let epoch = f.i32()?;
            let end_offset = f.i64()?;
            f.skip_tagged_fields()?;
            if f.remaining() != 0 {
                return Err(Parse::Other(format!(
                    "a diverging epoch of {size} bytes ({} more than its fields)",
                    f.remaining()
                )));
            }
            diverging = (epoch >= 0).then_some(DivergingEpoch { epoch, end_offset });
        }
    }
    Ok(diverging)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::test_batches::{fetch_response, TestPartition};

    /// A response with one partition of `t`, one aborted transaction and `records`.
    fn response(correlation: i32, records: &[u8]) -> Vec<u8> {
        let mut part = TestPartition::new("t", 3, 0, 100);
        part.last_stable_offset = 90;
        part.aborted.push((77, 12));
        fetch_response(correlation, &part, records)
    }

    #[test]
    fn partitions_watermarks_aborted_transactions_and_records_are_read() {
        let buf = response(4, b"batches");
        let parts = parse_fetch_response(&buf, 4, 1).unwrap().partitions;
        assert_eq!(parts.len(), 1);
        let p = &parts[0];
        assert_eq!(
            (p.topic(&buf), p.partition, p.error_code),
            (&b"t"[..], 3, 0)
        );
        assert_eq!((p.high_watermark, p.last_stable_offset), (100, 90));
        assert_eq!(
            p.aborted,
            vec![AbortedTransaction {
                producer_id: 77,
                first_offset: 12
            }]
        );
        assert_eq!(&buf[p.records.clone()], b"batches");
        assert_eq!(p.preferred_read_replica, -1);
        let mut part = TestPartition::new("t", 3, 0, 100);
        part.preferred_read_replica = 2;
        let buf = fetch_response(5, &part, &[]);
        let p = &parse_fetch_response(&buf, 5, 1).unwrap().partitions[0];
        assert_eq!(p.preferred_read_replica, 2);
    }

    #[test]
    fn a_diverging_epoch_is_read_and_a_negative_one_is_none() {
        let mut part = TestPartition::new("t", 0, 0, 10);
        part.diverging = Some((4, 17));
        let buf = fetch_response(1, &part, &[]);
        let p = &parse_fetch_response(&buf, 1, 1).unwrap().partitions[0];
        assert_eq!(
            p.diverging,
            Some(DivergingEpoch {
                epoch: 4,
                end_offset: 17
            })
        );
        part.diverging = Some((-1, -1));
        let buf = fetch_response(1, &part, &[]);
        assert_eq!(
            parse_fetch_response(&buf, 1, 1).unwrap().partitions[0].diverging,
            None
        );
        assert_eq!(
            parse_fetch_response(&response(2, b""), 2, 1)
                .unwrap()
                .partitions[0]
                .diverging,
            None
        );
    }

    /// A diverging epoch field whose size does not hold its two numbers, or holds more.
    #[test]
    fn a_diverging_epoch_of_the_wrong_size_is_malformed() {
        let part = TestPartition::new("t", 0, 0, 10);
        let whole = fetch_response(1, &part, &[]);
        // The partition's tagged fields are the third byte from the end (then the topic's and
        // the response's): replace them with one tag 0 of 4 bytes, then of 14 (Kafka's is 13: the two numbers and no tags).
        for (size, want) in [(4usize, "ends early"), (14, "more than its fields")] {
            let mut buf = whole[..whole.len() - 3].to_vec();
            buf.extend_from_slice(&[1, 0, size as u8]);
            buf.extend_from_slice(&vec![0; size]);
            buf.extend_from_slice(&[0, 0]);
            let e = parse_fetch_response(&buf, 1, 1).unwrap_err();
            assert!(e.contains(want), "{size}: {e}");
        }
    }

    #[test]
    fn wrong_correlation_and_truncation_are_errors() {
        let buf = response(4, b"x");
        assert!(parse_fetch_response(&buf, 5, 1)
            .unwrap_err()
            .contains("correlation id 4"));
        assert!(parse_fetch_response(&buf[..buf.len() - 3], 4, 1)
            .unwrap_err()
            .contains("ends early"));
        // A partition more than fetched.
        assert!(parse_fetch_response(&buf, 4, 0)
            .unwrap_err()
            .contains("more partitions than the 0 fetched"));
    }
}
