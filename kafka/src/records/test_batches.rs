//! Record batches written by the format's rules, for the tests.

use crate::wire::put_varint;

/// One record of a test batch.
struct TestRecord {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    timestamp_delta: i64,
    headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// A batch under construction.
pub(crate) struct BatchSpec {
    base_offset: i64,
    attributes: i16,
    producer_id: i64,
    base_timestamp: i64,
    max_timestamp: Option<i64>,
    /// Overrides the last offset delta (else the record count minus one).
    last_offset_delta: Option<i32>,
    codec: i16,
    records: Vec<TestRecord>,
}

impl BatchSpec {
    pub(crate) fn new(base_offset: i64) -> Self {
        BatchSpec {
            base_offset,
            attributes: 0,
            producer_id: -1,
            base_timestamp: 1_000,
            max_timestamp: None,
            last_offset_delta: None,
            codec: 0,
            records: Vec::new(),
        }
    }
    pub(crate) fn attributes(mut self, a: i16) -> Self {
        self.attributes |= a;
        self
    }
    pub(crate) fn producer(mut self, id: i64) -> Self {
        self.producer_id = id;
        self
    }
    /// Compresses the records with Kafka codec `codec` (1 gzip, 2 snappy, 3 lz4, 4 zstd).
    pub(crate) fn compressed(mut self, codec: i16) -> Self {
        self.codec = codec;
        self.attributes(codec)
    }
    /// The batch's base timestamp (1,000 unless set).
    pub(crate) fn base_timestamp(mut self, timestamp: i64) -> Self {
        self.base_timestamp = timestamp;
        self
    }
    /// A last offset delta other than the record count minus one (a corrupt batch).
    pub(crate) fn last_offset_delta(mut self, delta: i32) -> Self {
        self.last_offset_delta = Some(delta);
        self
    }
    pub(crate) fn transactional(self) -> Self {
        self.attributes(0x10)
    }
    pub(crate) fn log_append_time(mut self, max_timestamp: i64) -> Self {
        self.max_timestamp = Some(max_timestamp);
        self.attributes(0x08)
    }
    pub(crate) fn record(
        mut self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        timestamp_delta: i64,
        headers: &[(&[u8], Option<&[u8]>)],
    ) -> Self {
        self.records.push(TestRecord {
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            timestamp_delta,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_vec(), v.map(<[u8]>::to_vec)))
                .collect(),
        });
        self
    }
    pub(crate) fn values(mut self, values: &[&[u8]]) -> Self {
        for v in values {
            self = self.record(None, Some(v), 0, &[]);
        }
        self
    }

    /// The batch as a broker returns it.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut records = Vec::new();
        for (i, r) in self.records.iter().enumerate() {
            let mut rec = vec![0u8];
            put_varint(&mut rec, r.timestamp_delta);
            put_varint(&mut rec, i as i64);
            put_bytes(&mut rec, r.key.as_deref());
            put_bytes(&mut rec, r.value.as_deref());
            put_varint(&mut rec, r.headers.len() as i64);
            for (k, v) in &r.headers {
                put_bytes(&mut rec, Some(k));
                put_bytes(&mut rec, v.as_deref());
            }
            put_varint(&mut records, rec.len() as i64);
            records.extend(rec);
        }
        let last_delta = self
            .last_offset_delta
            .unwrap_or(self.records.len().saturating_sub(1) as i32);
        let mut covered = Vec::new();
        covered.extend_from_slice(&self.attributes.to_be_bytes());
        covered.extend_from_slice(&last_delta.to_be_bytes());
        covered.extend_from_slice(&self.base_timestamp.to_be_bytes());
        covered.extend_from_slice(
            &self
                .max_timestamp
                .unwrap_or(self.base_timestamp)
                .to_be_bytes(),
        );
        covered.extend_from_slice(&self.producer_id.to_be_bytes());
        covered.extend_from_slice(&0i16.to_be_bytes());
        covered.extend_from_slice(&0i32.to_be_bytes());
        covered.extend_from_slice(&(self.records.len() as i32).to_be_bytes());
        covered.extend(compress(self.codec, &records));
        frame(self.base_offset, &covered)
    }
}

/// A batch at `base_offset` of `count` records whose records part is `records` as it is,
/// flagged with `codec` (for corrupt or hostile compressed data).
pub(crate) fn batch_with_records(
    base_offset: i64,
    codec: i16,
    count: i32,
    records: &[u8],
) -> Vec<u8> {
    let mut covered = Vec::new();
    covered.extend_from_slice(&codec.to_be_bytes());
    covered.extend_from_slice(&(count - 1).max(0).to_be_bytes());
    covered.extend_from_slice(&1_000i64.to_be_bytes());
    covered.extend_from_slice(&1_000i64.to_be_bytes());
    covered.extend_from_slice(&(-1i64).to_be_bytes());
    covered.extend_from_slice(&0i16.to_be_bytes());
    covered.extend_from_slice(&0i32.to_be_bytes());
    covered.extend_from_slice(&count.to_be_bytes());
    covered.extend_from_slice(records);
    frame(base_offset, &covered)
}

/// A control batch of `producer_id` at `offset`: type 0 abort, 1 commit.
pub(crate) fn control_batch(offset: i64, producer_id: i64, kind: i16) -> Vec<u8> {
    let mut key = Vec::new();
    key.extend_from_slice(&0i16.to_be_bytes());
    key.extend_from_slice(&kind.to_be_bytes());
    let mut rec = vec![0u8];
    put_varint(&mut rec, 0);
    put_varint(&mut rec, 0);
    put_bytes(&mut rec, Some(&key));
    put_bytes(&mut rec, Some(&[0, 0, 0, 0, 0, 0]));
    put_varint(&mut rec, 0);
    let mut records = Vec::new();
    put_varint(&mut records, rec.len() as i64);
    records.extend(rec);
    let mut covered = Vec::new();
    covered.extend_from_slice(&0x30i16.to_be_bytes());
    covered.extend_from_slice(&0i32.to_be_bytes());
    covered.extend_from_slice(&1_000i64.to_be_bytes());
    covered.extend_from_slice(&1_000i64.to_be_bytes());
    covered.extend_from_slice(&producer_id.to_be_bytes());
    covered.extend_from_slice(&0i16.to_be_bytes());
    covered.extend_from_slice(&(-1i32).to_be_bytes());
    covered.extend_from_slice(&1i32.to_be_bytes());
    covered.extend(records);
    frame(offset, &covered)
}

/// `records` compressed as Kafka's Java producer compresses them.
fn compress(codec: i16, records: &[u8]) -> Vec<u8> {
    use std::io::Write;
    match codec {
        0 => records.to_vec(),
        1 => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(records).expect("in memory");
            gz.finish().expect("in memory")
        }
        2 => snap::raw::Encoder::new()
            .compress_vec(records)
            .expect("in memory"),
        3 => {
            let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
            lz.write_all(records).expect("in memory");
            lz.finish().expect("in memory")
        }
        4 => {
            ruzstd::encoding::compress_to_vec(records, ruzstd::encoding::CompressionLevel::Fastest)
        }
        other => panic!("no test codec {other}"),
    }
}

fn put_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        Some(b) => {
            put_varint(out, b.len() as i64);
            out.extend_from_slice(b);
        }
        None => put_varint(out, -1),
    }
}

/// base_offset, length, leader epoch 3, magic 2, CRC32C of `covered`, then `covered`.
fn frame(base_offset: i64, covered: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&base_offset.to_be_bytes());
    out.extend_from_slice(&((4 + 1 + 4 + covered.len()) as i32).to_be_bytes());
    out.extend_from_slice(&3i32.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&crc32c::crc32c(covered).to_be_bytes());
    out.extend_from_slice(covered);
    out
}

/// One partition of a test fetch response.
pub(crate) struct TestPartition {
    pub(crate) topic: &'static str,
    pub(crate) partition: i32,
    pub(crate) error: i16,
    pub(crate) high_watermark: i64,
    pub(crate) last_stable_offset: i64,
    /// (producer id, first offset) of aborted transactions.
    pub(crate) aborted: Vec<(i64, i64)>,
    /// (epoch, end offset) of a diverging epoch (the partition's tagged field 0).
    pub(crate) diverging: Option<(i32, i64)>,
    /// The preferred read replica's broker id (KIP-392; -1: none).
    pub(crate) preferred_read_replica: i32,
}

impl TestPartition {
    /// `topic`-`partition` answered with `error`, at `high_watermark` (also the last stable
    /// offset), no aborted transaction.
    pub(crate) fn new(
        topic: &'static str,
        partition: i32,
        error: i16,
        high_watermark: i64,
    ) -> Self {
        TestPartition {
            topic,
            partition,
            error,
            high_watermark,
            last_stable_offset: high_watermark,
            aborted: Vec::new(),
            diverging: None,
            preferred_read_replica: -1,
        }
    }
}

/// A Fetch v12 response body (after the size) with one partition holding `records`.
pub(crate) fn fetch_response(correlation: i32, part: &TestPartition, records: &[u8]) -> Vec<u8> {
    fetch_response_with(correlation, 0, 0, part, records)
}

/// [`fetch_response`] with a throttle time and a top-level error code.
pub(crate) fn fetch_response_with(
    correlation: i32,
    throttle_ms: i32,
    error: i16,
    part: &TestPartition,
    records: &[u8],
) -> Vec<u8> {
    use crate::wire::put_uvarint;
    let mut b = Vec::new();
    b.extend_from_slice(&correlation.to_be_bytes());
    b.push(0);
    b.extend_from_slice(&throttle_ms.to_be_bytes());
    b.extend_from_slice(&error.to_be_bytes());
    b.extend_from_slice(&0i32.to_be_bytes()); // session
    put_uvarint(&mut b, 2);
    put_uvarint(&mut b, part.topic.len() as u64 + 1);
    b.extend_from_slice(part.topic.as_bytes());
    put_uvarint(&mut b, 2);
    b.extend_from_slice(&part.partition.to_be_bytes());
    b.extend_from_slice(&part.error.to_be_bytes());
    b.extend_from_slice(&part.high_watermark.to_be_bytes());
    b.extend_from_slice(&part.last_stable_offset.to_be_bytes());
    b.extend_from_slice(&0i64.to_be_bytes()); // log start
    put_uvarint(&mut b, part.aborted.len() as u64 + 1);
    for (producer_id, first_offset) in &part.aborted {
        b.extend_from_slice(&producer_id.to_be_bytes());
        b.extend_from_slice(&first_offset.to_be_bytes());
        b.push(0);
    }
    b.extend_from_slice(&part.preferred_read_replica.to_be_bytes());
    put_uvarint(&mut b, records.len() as u64 + 1);
    b.extend_from_slice(records);
    match part.diverging {
        Some((epoch, end_offset)) => {
            b.extend_from_slice(&[1, 0, 13]);
            b.extend_from_slice(&epoch.to_be_bytes());
            b.extend_from_slice(&end_offset.to_be_bytes());
            b.push(0);
        }
        None => b.push(0),
    }
    b.push(0);
    b.push(0);
    b
}

/// `batch` (one encoded batch) with its partition leader epoch set to `epoch` (the field
/// lies outside the CRC).
pub(crate) fn with_epoch(mut batch: Vec<u8>, epoch: i32) -> Vec<u8> {
    batch[12..16].copy_from_slice(&epoch.to_be_bytes());
    batch
}

/// A broker on loopback that answers each Fetch request with the next of `bodies`
/// (a closure of the request's correlation id); returns its `host:port`.
pub(crate) fn fake_broker(bodies: Vec<Box<dyn Fn(i32) -> Vec<u8> + Send>>) -> String {
    crate::fetch::test_peer::peer(
        bodies
            .into_iter()
            .map(crate::fetch::test_peer::Reply::Body)
            .collect(),
    )
}
