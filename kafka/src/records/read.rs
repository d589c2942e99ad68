//! Record batches (magic 2) of one partition walked in place, with Kafka's Java consumer
//! rules: the CRC32C of every batch is checked, compressed batches are decompressed
//! ([`crate::compression`]), control batches yield no record, records below the fetch
//! offset are skipped, and under `read_committed` the batches of aborted transactions are
//! dropped.

use crate::compression::decompress;
use crate::error::FetchError;
use crate::fetch::response::AbortedTransaction;
use crate::wire::{Reader, Short};

/// Byte offset of the CRC-covered part of a batch, counted after `base_offset` and
/// `batch_length` (partition_leader_epoch 4 + magic 1 + crc 4).
const CRC_COVERED_FROM: usize = 9;
const ATTR_COMPRESSION: i16 = 0x07;
const ATTR_LOG_APPEND_TIME: i16 = 0x08;
const ATTR_TRANSACTIONAL: i16 = 0x10;
const ATTR_CONTROL: i16 = 0x20;

/// How a record's timestamp was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampType {
    /// By the producer.
    CreateTime,
    /// By the broker when it appended the batch.
    LogAppendTime,
}

/// One record, its bytes borrowed from the fetch response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Offset in the partition.
    pub offset: i64,
    /// Timestamp in epoch milliseconds.
    pub timestamp: i64,
    /// How the timestamp was set.
    pub timestamp_type: TimestampType,
    /// The leader epoch of the batch (-1: unknown).
    pub leader_epoch: i32,
    /// The key (`None`: null).
    pub key: Option<&'a [u8]>,
    /// The value (`None`: null, a tombstone).
    pub value: Option<&'a [u8]>,
    /// The number of headers.
    pub header_count: u32,
    /// The headers as Kafka writes them (per header: varint key length, key, varint value
    /// length, value).
    pub headers: &'a [u8],
}

/// The header of a batch that yields records, and its (possibly compressed) records.
struct BatchHeader<'a> {
    base_offset: i64,
    last_offset: i64,
    base_timestamp: i64,
    max_timestamp: i64,
    log_append_time: bool,
    leader_epoch: i32,
    count: i32,
    compression: i16,
    records: &'a [u8],
}

/// How walking one batch ended.
enum Walked<E> {
    /// Every record was handed on.
    Done,
    /// The stop offset was reached.
    Stopped,
    /// The callback failed.
    Failed(E),
}

/// The records of one partition's part of a fetch response, in offset order.
pub struct RecordBatches<'a> {
    topic: &'a str,
    partition: i32,
    buf: Reader<'a>,
    stop_offset: i64,
    read_committed: bool,
    aborted: Vec<AbortedTransaction>,
    next_aborted: usize,
    aborted_producers: Vec<i64>,
    next_offset: i64,
    decompressed: Vec<u8>,
    whole_batch: bool,
    last_epoch: Option<i32>,
}

impl<'a> RecordBatches<'a> {
    /// Walks `records` (the batches of `topic`-`partition` in a response): records from
    /// `from_offset` up to (not including) `stop_offset`; `aborted` as the response listed
    /// them (used only when `read_committed`).
    pub fn new(
        topic: &'a str,
        partition: i32,
        records: &'a [u8],
        from_offset: i64,
        stop_offset: i64,
        read_committed: bool,
        mut aborted: Vec<AbortedTransaction>,
    ) -> Self {
        aborted.sort_by_key(|a| a.first_offset);
        RecordBatches {
            topic,
            partition,
            buf: Reader::new(records),
            stop_offset,
            read_committed,
            aborted,
            next_aborted: 0,
            aborted_producers: Vec::new(),
            next_offset: from_offset,
            decompressed: Vec::new(),
            whole_batch: false,
            last_epoch: None,
        }
    }

    /// Whether the bytes held at least one complete batch (bytes without one are a fetch
    /// that cannot move on).
    pub fn found_a_batch(&self) -> bool {
        self.whole_batch
    }

    /// The partition leader epoch of the last complete batch looked at (walked or skipped:
    /// control, aborted or below the fetch offset), as Kafka's consumer takes it for its
    /// position's epoch; -1 for a batch without one (any negative epoch); `None` before the
    /// first batch.
    pub fn last_epoch(&self) -> Option<i32> {
        self.last_epoch
    }

    /// The offset to fetch next: after the last whole batch walked (or the last record
    /// handed on), never below the fetch offset.
    pub fn next_offset(&self) -> i64 {
        self.next_offset
    }

    /// Hands every record to `each`, in offset order, until the complete batches are
    /// walked (a partial batch at the end of the response is left for the next fetch), the
    /// stop offset is reached, or `each` fails (its error is returned inside `Ok`).
    /// Compressed batches are decompressed into a buffer the records borrow from.
    pub fn walk<E>(
        &mut self,
        mut each: impl FnMut(&Record<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, FetchError> {
        while let Some((base_offset, body)) = self.next_batch()? {
            let Some(header) = self.batch_of(base_offset, body)? else {
                continue;
            };
            let mut decompressed = std::mem::take(&mut self.decompressed);
            let walked = self.walk_batch(&header, &mut decompressed, &mut each);
            self.decompressed = decompressed;
            match walked? {
                Walked::Done => {}
                Walked::Stopped => return Ok(Ok(())),
                Walked::Failed(e) => return Ok(Err(e)),
            }
        }
        Ok(Ok(()))
    }

    /// The records of one batch, handed to `each`.
    fn walk_batch<E>(
        &mut self,
        header: &BatchHeader<'_>,
        decompressed: &mut Vec<u8>,
        each: &mut impl FnMut(&Record<'_>) -> Result<(), E>,
    ) -> Result<Walked<E>, FetchError> {
        let records: &[u8] = if header.compression == 0 {
            header.records
        } else {
            decompress(header.compression, header.records, decompressed)
                .map_err(|reason| self.corrupt(header.base_offset, reason))?;
            decompressed
        };
        let mut r = Reader::new(records);
        for _ in 0..header.count {
            let record = read_record(header, &mut r)
                .map_err(|reason| self.corrupt(header.base_offset, reason))?;
            if record.offset >= self.stop_offset {
                self.stop();
                return Ok(Walked::Stopped);
            }
            // Below the next offset: before the fetch offset, or handed on already (a batch
            // the response repeats); Kafka's consumer skips these too.
            if record.offset < self.next_offset {
                continue;
            }
            // `read_record` checked that the offset has a successor.
            self.next_offset = self.next_offset.max(record.offset + 1);
            if let Err(e) = each(&record) {
                return Ok(Walked::Failed(e));
            }
        }
        // `batch_of` checked that the last offset has a successor.
        self.next_offset = self.next_offset.max(header.last_offset + 1);
        Ok(Walked::Done)
    }

    /// Ends the walk at the stop offset: nothing at or after it is read, so the partition
    /// is done even when no record sits exactly at the stop offset (a compacted gap).
    fn stop(&mut self) {
        self.buf = Reader::new(&[]);
        self.next_offset = self.next_offset.max(self.stop_offset);
    }

    fn corrupt(&self, offset: i64, reason: impl Into<String>) -> FetchError {
        FetchError::Corrupt {
            topic: self.topic.to_string(),
            partition: self.partition,
            offset,
            reason: reason.into(),
        }
    }

    /// The base offset and the bytes after the length of the next complete batch below
    /// the stop offset; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<(i64, &'a [u8])>, FetchError> {
        if self.buf.remaining() < 12 {
            return Ok(None);
        }
        let base_offset = self
            .buf
            .i64()
            .map_err(|_| self.corrupt(-1, "short header"))?;
        let length = self
            .buf
            .i32()
            .map_err(|_| self.corrupt(base_offset, "short header"))?;
        let length = usize::try_from(length)
            .map_err(|_| self.corrupt(base_offset, format!("negative batch length {length}")))?;
        if self.buf.remaining() < length {
            // A partial batch: the rest comes with the next fetch.
            self.buf = Reader::new(&[]);
            return Ok(None);
        }
        let body = self
            .buf
            .take(length)
            .map_err(|_| self.corrupt(base_offset, "short batch"))?;
        self.whole_batch = true;
        if base_offset >= self.stop_offset {
            self.stop();
            return Ok(None);
        }
        if let Some(&[a, b, c, d]) = body.get(..4) {
            self.last_epoch = Some(i32::from_be_bytes([a, b, c, d]).max(-1));
        }
        Ok(Some((base_offset, body)))
    }

    /// Checks one batch; `None` when it yields no record (control, aborted, or entirely
    /// below the fetch offset), after advancing the next offset past it.
    fn batch_of(
        &mut self,
        base_offset: i64,
        body: &'a [u8],
    ) -> Result<Option<BatchHeader<'a>>, FetchError> {
        let header = |_: Short| self.corrupt(base_offset, "batch header ends early");
        let mut r = Reader::new(body);
        let leader_epoch = r.i32().map_err(header)?;
        let magic = r.i8().map_err(header)?;
        if magic != 2 {
            return Err(FetchError::Unsupported {
                topic: self.topic.to_string(),
                partition: self.partition,
                offset: base_offset,
                what: format!("record batch magic {magic} (only 2, Kafka >= 0.11)"),
            });
        }
        let crc = r.i32().map_err(header)? as u32;
        if body.len() < CRC_COVERED_FROM || crc32c::crc32c(&body[CRC_COVERED_FROM..]) != crc {
            return Err(self.corrupt(base_offset, "CRC32C mismatch"));
        }
        let attributes = r.i16().map_err(header)?;
        let last_offset_delta = r.i32().map_err(header)?;
        let base_timestamp = r.i64().map_err(header)?;
        let max_timestamp = r.i64().map_err(header)?;
        let producer_id = r.i64().map_err(header)?;
        r.i16().map_err(header)?; // producer_epoch
        r.i32().map_err(header)?; // base_sequence
        let count = r.i32().map_err(header)?;
        if count < 0 {
            return Err(self.corrupt(base_offset, format!("negative record count {count}")));
        }
        // Offsets come from the broker: past i64::MAX they are corrupt, not wrapped.
        let after_last = base_offset
            .checked_add(i64::from(last_offset_delta))
            .and_then(|last| last.checked_add(1))
            .ok_or_else(|| {
                self.corrupt(
                    base_offset,
                    format!("last offset delta {last_offset_delta} overflows the offset"),
                )
            })?;
        let last_offset = after_last - 1;
        let skip = |this: &mut Self| {
            this.next_offset = this.next_offset.max(after_last);
            Ok(None)
        };
        if last_offset < self.next_offset {
            return skip(self);
        }
        let compression = attributes & ATTR_COMPRESSION;
        if compression > 4 {
            return Err(FetchError::Unsupported {
                topic: self.topic.to_string(),
                partition: self.partition,
                offset: base_offset,
                what: format!("compression codec {compression}"),
            });
        }
        let control = attributes & ATTR_CONTROL != 0;
        if self.read_committed && producer_id >= 0 {
            while let Some(a) = self.aborted.get(self.next_aborted) {
                if a.first_offset > last_offset {
                    break;
                }
                self.aborted_producers.push(a.producer_id);
                self.next_aborted += 1;
            }
            if control {
                if control_type(&mut r) == Some(0) {
                    // The abort marker ends the aborted transaction of this producer.
                    self.aborted_producers.retain(|&p| p != producer_id);
                }
                return skip(self);
            }
            if attributes & ATTR_TRANSACTIONAL != 0 && self.aborted_producers.contains(&producer_id)
            {
                return skip(self);
            }
        }
        if control {
            return skip(self);
        }
        let records = &body[r.position()..];
        Ok(Some(BatchHeader {
            base_offset,
            last_offset,
            base_timestamp,
            max_timestamp,
            log_append_time: attributes & ATTR_LOG_APPEND_TIME != 0,
            leader_epoch,
            count,
            compression,
            records,
        }))
    }
}

/// The control record type (0 abort, 1 commit) of a control batch's first record.
fn control_type(records: &mut Reader<'_>) -> Option<i16> {
    let len = usize::try_from(records.varint().ok()?).ok()?;
    let mut r = Reader::new(records.take(len).ok()?);
    r.i8().ok()?;
    r.varint().ok()?;
    r.varint().ok()?;
    let key_len = usize::try_from(r.varint().ok()?).ok()?;
    let mut key = Reader::new(r.take(key_len).ok()?);
    key.i16().ok()?; // version
    key.i16().ok()
}

/// Reads the next record of the batch `header` from `r`.
#[inline]
fn read_record<'r>(
    header: &BatchHeader<'_>,
    r: &mut Reader<'r>,
) -> Result<Record<'r>, &'static str> {
    let len = r.varint().map_err(|_| "record length")?;
    let len = usize::try_from(len).map_err(|_| "negative record length")?;
    let mut rec = Reader::new(r.take(len).map_err(|_| "record ends early")?);
    rec.i8().map_err(|_| "record attributes")?;
    let timestamp_delta = rec.varint().map_err(|_| "timestamp delta")?;
    let offset_delta = rec.varint().map_err(|_| "offset delta")?;
    let key = bytes(&mut rec).map_err(|_| "record key")?;
    let value = bytes(&mut rec).map_err(|_| "record value")?;
    let header_count = rec.varint().map_err(|_| "header count")?;
    let header_count = u32::try_from(header_count).map_err(|_| "negative header count")?;
    let rest = rec.remaining();
    let headers = rec.take(rest).map_err(|_| "headers")?;
    let (timestamp, timestamp_type) = if header.log_append_time {
        (header.max_timestamp, TimestampType::LogAppendTime)
    } else {
        (
            header
                .base_timestamp
                .checked_add(timestamp_delta)
                .ok_or("timestamp delta overflows the timestamp")?,
            TimestampType::CreateTime,
        )
    };
    // An offset must have a successor (the next offset to fetch).
    let offset = header
        .base_offset
        .checked_add(offset_delta)
        .filter(|&o| o < i64::MAX)
        .ok_or("offset delta overflows the offset")?;
    Ok(Record {
        offset,
        timestamp,
        timestamp_type,
        leader_epoch: header.leader_epoch,
        key,
        value,
        header_count,
        headers,
    })
}

/// A varint length (-1: null) and that many bytes.
#[inline]
fn bytes<'a>(r: &mut Reader<'a>) -> Result<Option<&'a [u8]>, Short> {
    let len = r.varint()?;
    if len < 0 {
        return Ok(None);
    }
    let len = usize::try_from(len).map_err(|_| Short)?;
    r.take(len).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::test_batches::{control_batch, BatchSpec};

    /// A record with its bytes copied out of the walk.
    #[derive(Debug, PartialEq, Eq)]
    struct Owned {
        offset: i64,
        key: Option<Vec<u8>>,
        value: Option<Vec<u8>>,
        timestamp: i64,
        timestamp_type: TimestampType,
        leader_epoch: i32,
        header_count: u32,
        headers: Vec<u8>,
    }

    fn owned(b: &mut RecordBatches<'_>) -> Result<Vec<Owned>, FetchError> {
        let mut out = Vec::new();
        b.walk(|r| -> Result<(), ()> {
            out.push(Owned {
                offset: r.offset,
                key: r.key.map(<[u8]>::to_vec),
                value: r.value.map(<[u8]>::to_vec),
                timestamp: r.timestamp,
                timestamp_type: r.timestamp_type,
                leader_epoch: r.leader_epoch,
                header_count: r.header_count,
                headers: r.headers.to_vec(),
            });
            Ok(())
        })?
        .expect("the callback does not fail");
        Ok(out)
    }

    fn all(b: &mut RecordBatches<'_>) -> Vec<(i64, Option<Vec<u8>>)> {
        owned(b)
            .unwrap()
            .into_iter()
            .map(|r| (r.offset, r.value))
            .collect()
    }

    #[test]
    fn records_keys_values_headers_and_timestamps_are_read_in_place() {
        let batch = BatchSpec::new(10)
            .record(Some(b"k0"), Some(b"v0"), 0, &[(b"h", Some(b"x"))])
            .record(None, None, 5, &[])
            .encode();
        let mut b = RecordBatches::new("t", 0, &batch, 0, i64::MAX, false, vec![]);
        let records = owned(&mut b).unwrap();
        assert_eq!(
            records,
            vec![
                Owned {
                    offset: 10,
                    key: Some(b"k0".to_vec()),
                    value: Some(b"v0".to_vec()),
                    timestamp: 1_000,
                    timestamp_type: TimestampType::CreateTime,
                    leader_epoch: 3,
                    header_count: 1,
                    headers: vec![2, b'h', 2, b'x'],
                },
                Owned {
                    offset: 11,
                    key: None,
                    value: None,
                    timestamp: 1_005,
                    timestamp_type: TimestampType::CreateTime,
                    leader_epoch: 3,
                    header_count: 0,
                    headers: vec![],
                },
            ]
        );
        assert_eq!(b.next_offset(), 12);
    }

    #[test]
    fn log_append_time_uses_the_batch_max_timestamp() {
        let batch = BatchSpec::new(0)
            .log_append_time(9_999)
            .record(None, Some(b"v"), 3, &[])
            .encode();
        let mut b = RecordBatches::new("t", 0, &batch, 0, i64::MAX, false, vec![]);
        let r = &owned(&mut b).unwrap()[0];
        assert_eq!(
            (r.timestamp, r.timestamp_type),
            (9_999, TimestampType::LogAppendTime)
        );
    }

    #[test]
    fn a_failing_callback_stops_the_walk_with_its_error() {
        let bytes = BatchSpec::new(0).values(&[b"a", b"b", b"c"]).encode();
        let mut b = RecordBatches::new("t", 0, &bytes, 0, i64::MAX, false, vec![]);
        let mut seen = 0;
        let outcome = b
            .walk(|_| {
                seen += 1;
                if seen == 2 {
                    Err("stop")
                } else {
                    Ok(())
                }
            })
            .unwrap();
        assert_eq!((outcome, seen), (Err("stop"), 2));
    }

    #[test]
    fn records_below_the_fetch_offset_and_from_the_stop_offset_are_not_returned() {
        let mut bytes = BatchSpec::new(0).values(&[b"a", b"b", b"c"]).encode();
        bytes.extend(BatchSpec::new(3).values(&[b"d", b"e"]).encode());
        let mut b = RecordBatches::new("t", 0, &bytes, 1, 4, false, vec![]);
        assert_eq!(
            all(&mut b),
            vec![
                (1, Some(b"b".to_vec())),
                (2, Some(b"c".to_vec())),
                (3, Some(b"d".to_vec()))
            ]
        );
        assert_eq!(b.next_offset(), 4);
    }

    #[test]
    fn a_stop_offset_in_a_compacted_gap_ends_the_partition() {
        // Offsets 0 and 5 remain of 0..=5 (compaction removed 1..=4); the stop offset is 3.
        let mut bytes = BatchSpec::new(0).values(&[b"a"]).encode();
        let mut gap = BatchSpec::new(5).values(&[b"f"]).encode();
        bytes.append(&mut gap);
        let mut b = RecordBatches::new("t", 0, &bytes, 0, 3, false, vec![]);
        assert_eq!(all(&mut b), vec![(0, Some(b"a".to_vec()))]);
        assert_eq!(b.next_offset(), 3);
        // The same from offset 1: nothing is returned and the partition still ends.
        let mut c = RecordBatches::new("t", 0, &bytes, 1, 3, false, vec![]);
        assert_eq!(all(&mut c), vec![]);
        assert_eq!(c.next_offset(), 3);
    }

    #[test]
    fn a_partial_trailing_batch_is_left_for_the_next_fetch() {
        let mut bytes = BatchSpec::new(0).values(&[b"a"]).encode();
        let second = BatchSpec::new(1).values(&[b"b"]).encode();
        bytes.extend_from_slice(&second[..second.len() - 3]);
        let mut b = RecordBatches::new("t", 0, &bytes, 0, i64::MAX, false, vec![]);
        assert_eq!(all(&mut b), vec![(0, Some(b"a".to_vec()))]);
        assert_eq!(b.next_offset(), 1);
    }

    #[test]
    fn a_bad_crc_is_a_corrupt_batch_naming_the_partition_and_offset() {
        let mut bytes = BatchSpec::new(40).values(&[b"a"]).encode();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        let mut b = RecordBatches::new("t", 7, &bytes, 0, i64::MAX, false, vec![]);
        let e = owned(&mut b).unwrap_err().to_string();
        assert!(
            e.contains("t-7") && e.contains("40") && e.contains("CRC"),
            "{e}"
        );
    }

    /// Offsets and timestamps are the broker's: arithmetic on them that leaves i64 is a
    /// corrupt batch naming the partition, never a wrapped value (release) or a panic (debug).
    #[test]
    fn offsets_and_timestamps_past_i64_are_corrupt_batches_not_wrapped() {
        let corrupt = |bytes: &[u8], from: i64| {
            let mut b = RecordBatches::new("t", 4, bytes, from, i64::MAX, false, vec![]);
            owned(&mut b).unwrap_err().to_string()
        };
        // The last offset delta carries the batch past i64::MAX.
        let bytes = BatchSpec::new(i64::MAX - 1)
            .values(&[b"a", b"b", b"c"])
            .encode();
        let e = corrupt(&bytes, 0);
        assert!(
            e.contains("t-4") && e.contains("overflows the offset"),
            "{e}"
        );
        // The batch's last offset is i64::MAX: no next offset exists.
        let bytes = BatchSpec::new(i64::MAX - 1).values(&[b"a", b"b"]).encode();
        assert!(corrupt(&bytes, 0).contains("last offset delta 1 overflows"));
        // A record's offset delta past i64::MAX (the header's last offset delta is small).
        let bytes = BatchSpec::new(i64::MAX - 1)
            .last_offset_delta(0)
            .values(&[b"a", b"b"])
            .encode();
        let e = corrupt(&bytes, i64::MAX - 1);
        assert!(e.contains("offset delta overflows"), "{e}");
        // A timestamp delta past i64::MAX, and below i64::MIN.
        let bytes = BatchSpec::new(0)
            .base_timestamp(i64::MAX - 5)
            .record(None, Some(b"v"), 6, &[])
            .encode();
        assert!(corrupt(&bytes, 0).contains("timestamp delta overflows"));
        let bytes = BatchSpec::new(0)
            .base_timestamp(i64::MIN + 1)
            .record(None, Some(b"v"), -2, &[])
            .encode();
        assert!(corrupt(&bytes, 0).contains("timestamp delta overflows"));
        // Right at the edge both still read.
        let bytes = BatchSpec::new(i64::MAX - 2)
            .base_timestamp(i64::MAX - 5)
            .record(None, Some(b"v"), 5, &[])
            .encode();
        let mut b = RecordBatches::new("t", 4, &bytes, 0, i64::MAX, false, vec![]);
        let records = owned(&mut b).unwrap();
        assert_eq!(
            (records[0].offset, records[0].timestamp),
            (i64::MAX - 2, i64::MAX)
        );
        assert_eq!(b.next_offset(), i64::MAX - 1);
    }

    #[test]
    fn compressed_batches_give_the_records_of_uncompressed_ones() {
        let spec = || {
            BatchSpec::new(20)
                .record(Some(b"k"), Some(b"v0"), 0, &[(b"h", None)])
                .values(&[b"v1", b"", b"v3"])
        };
        let plain = owned(&mut RecordBatches::new(
            "t",
            0,
            &spec().encode(),
            21,
            i64::MAX,
            false,
            vec![],
        ))
        .unwrap();
        assert_eq!(plain.len(), 3);
        for codec in 1..=4 {
            let bytes = spec().compressed(codec).encode();
            let mut b = RecordBatches::new("t", 0, &bytes, 21, i64::MAX, false, vec![]);
            assert_eq!(owned(&mut b).unwrap(), plain, "codec {codec}");
            assert_eq!(b.next_offset(), 24);
        }
    }

    #[test]
    fn unknown_codecs_and_corrupt_compressed_records_are_errors() {
        let bytes = BatchSpec::new(0).attributes(5).values(&[b"a"]).encode();
        let mut b = RecordBatches::new("t", 0, &bytes, 0, i64::MAX, false, vec![]);
        assert!(owned(&mut b)
            .unwrap_err()
            .to_string()
            .contains("compression codec 5"));
        // gzip flag on records that are not gzip.
        let bytes = BatchSpec::new(0).attributes(1).values(&[b"a"]).encode();
        let mut b = RecordBatches::new("t", 2, &bytes, 0, i64::MAX, false, vec![]);
        let e = owned(&mut b).unwrap_err().to_string();
        assert!(e.contains("t-2") && e.contains("gzip"), "{e}");
    }

    #[test]
    fn control_batches_yield_no_record_but_move_the_offset() {
        let mut bytes = BatchSpec::new(0)
            .producer(5)
            .transactional()
            .values(&[b"a"])
            .encode();
        bytes.extend(control_batch(1, 5, 1));
        let mut b = RecordBatches::new("t", 0, &bytes, 0, i64::MAX, false, vec![]);
        assert_eq!(all(&mut b), vec![(0, Some(b"a".to_vec()))]);
        assert_eq!(b.next_offset(), 2);
    }

    #[test]
    fn read_committed_drops_aborted_transactions_only() {
        // Producer 5 aborts offsets 0..2, producer 6 commits offset 2, 5 then commits 4.
        let mut bytes = BatchSpec::new(0)
            .producer(5)
            .transactional()
            .values(&[b"x", b"y"])
            .encode();
        bytes.extend(
            BatchSpec::new(2)
                .producer(6)
                .transactional()
                .values(&[b"ok"])
                .encode(),
        );
        bytes.extend(control_batch(3, 5, 0));
        bytes.extend(
            BatchSpec::new(4)
                .producer(5)
                .transactional()
                .values(&[b"ok2"])
                .encode(),
        );
        bytes.extend(control_batch(5, 5, 1));
        bytes.extend(control_batch(6, 6, 1));
        let aborted = vec![AbortedTransaction {
            producer_id: 5,
            first_offset: 0,
        }];
        let mut committed = RecordBatches::new("t", 0, &bytes, 0, i64::MAX, true, aborted.clone());
        assert_eq!(
            all(&mut committed),
            vec![(2, Some(b"ok".to_vec())), (4, Some(b"ok2".to_vec()))]
        );
        assert_eq!(committed.next_offset(), 7);
        let mut uncommitted = RecordBatches::new("t", 0, &bytes, 0, i64::MAX, false, aborted);
        assert_eq!(all(&mut uncommitted).len(), 4);
    }
}
