//! Record batches (magic 2) written straight from encoded keys, values and headers: the
//! bytes Kafka's Java producer writes for the same records (`DefaultRecordBatch` /
//! `DefaultRecord`), without an object per record.
//!
//! A [`BatchBuilder`] appends records (varint lengths, timestamp and offset deltas, key,
//! value, headers copied as they are) to one growing buffer; [`BatchBuilder::close`]
//! compresses them ([`crate::compression::compress`]) and writes the 61-byte header
//! (producer id, epoch, base sequence, attributes) with its CRC32C. A closed batch can be
//! given another producer id, epoch or sequence before a retry ([`ClosedBatch::restamp`]):
//! only the header and its checksum are rewritten, the records are not.

use thiserror::Error;

use crate::compression::{compress, Codec};
use crate::wire::{put_uvarint, uvarint_len, varint_len, zigzag};

/// Bytes of a v2 batch header: base offset 8, length 4, leader epoch 4, magic 1, crc 4,
/// attributes 2, last offset delta 4, base timestamp 8, max timestamp 8, producer id 8,
/// producer epoch 2, base sequence 4, record count 4.
pub const BATCH_HEADER_BYTES: usize = 61;

/// Where the CRC-covered part starts (the attributes).
const CRC_FROM: usize = 21;
const ATTR_TRANSACTIONAL: i16 = 0x10;

/// One record to append, its bytes borrowed from the caller's encoded buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordRef<'a> {
    /// The key (`None`: null).
    pub key: Option<&'a [u8]>,
    /// The value (`None`: null, a tombstone).
    pub value: Option<&'a [u8]>,
    /// Create time in epoch milliseconds.
    pub timestamp: i64,
    /// How many headers `headers` holds.
    pub header_count: u32,
    /// The headers in Kafka's record encoding (per header: varint key length, key, varint
    /// value length or -1, value), copied verbatim.
    pub headers: &'a [u8],
}

/// Why a record or batch could not be written.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum WriteError {
    /// A key, value or header section longer than a record can hold.
    #[error("a record of {0} bytes is larger than a Kafka record can be")]
    TooLarge(usize),
    /// The record's timestamp is too far from the batch's first timestamp.
    #[error("timestamp {timestamp} is too far from the batch's base timestamp {base}")]
    TimestampRange {
        /// The record's timestamp.
        timestamp: i64,
        /// The batch's base timestamp.
        base: i64,
    },
    /// More records than a batch can count.
    #[error("a record batch holds at most {} records", i32::MAX)]
    TooManyRecords,
    /// Compression failed.
    #[error("{0}")]
    Compression(String),
}

/// Who writes a batch: Kafka's producer id, epoch and the batch's first sequence number
/// (all -1 for a producer that is not idempotent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerStamp {
    /// Producer id (-1: none).
    pub producer_id: i64,
    /// Producer epoch (-1: none).
    pub epoch: i16,
    /// Sequence number of the batch's first record (-1: none).
    pub base_sequence: i32,
    /// Whether the batch belongs to a transaction.
    pub transactional: bool,
}

impl ProducerStamp {
    /// A producer without idempotence.
    pub const NONE: ProducerStamp = ProducerStamp {
        producer_id: -1,
        epoch: -1,
        base_sequence: -1,
        transactional: false,
    };
}

/// Records being collected into one batch.
#[derive(Debug)]
pub struct BatchBuilder {
    codec: Codec,
    /// Header placeholder then the records (uncompressed until [`Self::close`]).
    buf: Vec<u8>,
    count: i32,
    base_timestamp: i64,
    max_timestamp: i64,
}

impl BatchBuilder {
    /// An empty batch whose records will be compressed with `codec`.
    pub fn new(codec: Codec) -> Self {
        BatchBuilder::with_capacity(codec, 0)
    }

    /// An empty batch with room for `capacity` bytes of records.
    pub fn with_capacity(codec: Codec, capacity: usize) -> Self {
        let mut buf = Vec::with_capacity(BATCH_HEADER_BYTES + capacity);
        buf.resize(BATCH_HEADER_BYTES, 0);
        BatchBuilder {
            codec,
            buf,
            count: 0,
            base_timestamp: 0,
            max_timestamp: i64::MIN,
        }
    }

    /// Records appended so far.
    pub fn count(&self) -> i32 {
        self.count
    }

    /// Whether no record was appended.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The batch's size before compression (header included).
    pub fn uncompressed_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The codec of the batch.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The bytes `record` would add to the batch (before compression), or an error when it
    /// cannot be written at all.
    pub fn record_size(&self, record: &RecordRef<'_>) -> Result<usize, WriteError> {
        let delta = if self.count == 0 {
            0
        } else {
            self.timestamp_delta(record.timestamp)?
        };
        let body = self.body_size(record, delta)?;
        Ok(uvarint_len(zigzag(body as i64)) + body)
    }

    fn timestamp_delta(&self, timestamp: i64) -> Result<i64, WriteError> {
        timestamp
            .checked_sub(self.base_timestamp)
            .ok_or(WriteError::TimestampRange {
                timestamp,
                base: self.base_timestamp,
            })
    }

    /// The record's length after its length prefix.
    fn body_size(&self, r: &RecordRef<'_>, timestamp_delta: i64) -> Result<usize, WriteError> {
        let bytes = |b: Option<&[u8]>| match b {
            Some(b) => varint_len(b.len() as i64) + b.len(),
            None => 1,
        };
        let size = 1 // attributes
            + varint_len(timestamp_delta)
            + varint_len(i64::from(self.count))
            + bytes(r.key)
            + bytes(r.value)
            + varint_len(i64::from(r.header_count))
            + r.headers.len();
        if size > i32::MAX as usize - BATCH_HEADER_BYTES - 5 {
            return Err(WriteError::TooLarge(size));
        }
        Ok(size)
    }

    /// Appends `record` with the next offset delta.
    pub fn append(&mut self, record: &RecordRef<'_>) -> Result<(), WriteError> {
        if self.count == i32::MAX {
            return Err(WriteError::TooManyRecords);
        }
        if self.count == 0 {
            self.base_timestamp = record.timestamp;
        }
        let delta = self.timestamp_delta(record.timestamp)?;
        let body = self.body_size(record, delta)?;
        let out = &mut self.buf;
        out.reserve(body + 5);
        put_uvarint(out, zigzag(body as i64));
        out.push(0); // record attributes: none defined
        put_uvarint(out, zigzag(delta));
        put_uvarint(out, zigzag(i64::from(self.count)));
        put_nullable(out, record.key);
        put_nullable(out, record.value);
        put_uvarint(out, zigzag(i64::from(record.header_count)));
        out.extend_from_slice(record.headers);
        self.count += 1;
        self.max_timestamp = self.max_timestamp.max(record.timestamp);
        Ok(())
    }

    /// Drops the appended records: the builder is empty again.
    pub fn clear(&mut self) {
        self.buf.truncate(BATCH_HEADER_BYTES);
        self.count = 0;
        self.base_timestamp = 0;
        self.max_timestamp = i64::MIN;
    }

    /// Compresses the records (into `scratch`, reused across batches) and writes the header:
    /// the batch as it goes on the wire, stamped with `stamp`. The builder is empty again
    /// afterwards (same codec), with a fresh buffer for the next batch.
    pub fn close(
        &mut self,
        stamp: ProducerStamp,
        scratch: &mut Vec<u8>,
    ) -> Result<ClosedBatch, WriteError> {
        self.close_reusing(stamp, scratch, Vec::new())
    }

    /// As [`Self::close`], the next batch's records going into `next` (the buffer of a batch
    /// that was acknowledged: no fresh allocation, no page faults per batch).
    pub fn close_reusing(
        &mut self,
        stamp: ProducerStamp,
        scratch: &mut Vec<u8>,
        mut next: Vec<u8>,
    ) -> Result<ClosedBatch, WriteError> {
        let mut bytes = if self.codec == Codec::None {
            std::mem::take(&mut self.buf)
        } else {
            scratch.clear();
            scratch.resize(BATCH_HEADER_BYTES, 0);
            compress(self.codec, &self.buf[BATCH_HEADER_BYTES..], scratch)
                .map_err(WriteError::Compression)?;
            let compressed = std::mem::take(scratch);
            // The scratch buffer keeps the uncompressed records' allocation for the next batch.
            *scratch = std::mem::take(&mut self.buf);
            compressed
        };
        let length =
            i32::try_from(bytes.len() - 12).map_err(|_| WriteError::TooLarge(bytes.len()))?;
        let header = &mut bytes[..BATCH_HEADER_BYTES];
        header[0..8].copy_from_slice(&0i64.to_be_bytes()); // base offset: the broker assigns it
        header[8..12].copy_from_slice(&length.to_be_bytes());
        header[12..16].copy_from_slice(&(-1i32).to_be_bytes()); // partition leader epoch
        header[16] = 2; // magic
        header[23..27].copy_from_slice(&(self.count - 1).max(0).to_be_bytes());
        header[27..35].copy_from_slice(&self.base_timestamp.to_be_bytes());
        let max = if self.count == 0 {
            self.base_timestamp
        } else {
            self.max_timestamp
        };
        header[35..43].copy_from_slice(&max.to_be_bytes());
        header[57..61].copy_from_slice(&self.count.to_be_bytes());
        let mut closed = ClosedBatch {
            bytes,
            count: self.count,
            codec: self.codec,
        };
        closed.restamp(stamp);
        next.clear();
        next.reserve(closed.bytes.len().max(BATCH_HEADER_BYTES));
        next.resize(BATCH_HEADER_BYTES, 0);
        self.buf = next;
        self.count = 0;
        self.base_timestamp = 0;
        self.max_timestamp = i64::MIN;
        Ok(closed)
    }
}

/// A finished batch: its wire bytes (base offset 0, leader epoch -1) and record count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedBatch {
    bytes: Vec<u8>,
    count: i32,
    codec: Codec,
}

impl ClosedBatch {
    /// The batch as it goes into a Produce request.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Its number of records.
    pub fn count(&self) -> i32 {
        self.count
    }

    /// Its codec.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The batch's buffer, for reuse by another batch.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Writes `stamp` (producer id, epoch, base sequence, transactional flag) into the
    /// header and recomputes the CRC32C.
    pub fn restamp(&mut self, stamp: ProducerStamp) {
        let mut attributes = self.codec.id();
        if stamp.transactional {
            attributes |= ATTR_TRANSACTIONAL;
        }
        let h = &mut self.bytes;
        h[21..23].copy_from_slice(&attributes.to_be_bytes());
        h[43..51].copy_from_slice(&stamp.producer_id.to_be_bytes());
        h[51..53].copy_from_slice(&stamp.epoch.to_be_bytes());
        h[53..57].copy_from_slice(&stamp.base_sequence.to_be_bytes());
        let crc = crc32c::crc32c(&h[CRC_FROM..]);
        h[17..21].copy_from_slice(&crc.to_be_bytes());
    }
}

/// A varint length and the bytes, or -1 for null.
#[inline]
fn put_nullable(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => {
            put_uvarint(out, zigzag(b.len() as i64));
            out.extend_from_slice(b);
        }
        None => out.push(1), // zig-zag -1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{RecordBatches, TimestampType};

    fn stamp() -> ProducerStamp {
        ProducerStamp {
            producer_id: 42,
            epoch: 3,
            base_sequence: 7,
            transactional: false,
        }
    }

    /// Kafka's header encoding of `(key, value)` pairs.
    fn headers(pairs: &[(&[u8], Option<&[u8]>)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, v) in pairs {
            put_nullable(&mut out, Some(k));
            put_nullable(&mut out, *v);
        }
        out
    }

    #[test]
    fn batches_read_back_with_every_field_under_every_codec() {
        let h = headers(&[(b"h1", Some(b"x")), (b"h2", None)]);
        let long = vec![b'z'; 70_000];
        let records = [
            RecordRef {
                key: Some(b"k0"),
                value: Some(b"v0"),
                timestamp: 1_700_000_000_000,
                header_count: 2,
                headers: &h,
            },
            RecordRef {
                key: None,
                value: None,
                timestamp: 1_699_999_999_000, // earlier than the base: a negative delta
                header_count: 0,
                headers: &[],
            },
            RecordRef {
                key: Some(b""),
                value: Some(&long),
                timestamp: 1_700_000_000_005,
                header_count: 0,
                headers: &[],
            },
        ];
        for codec in [
            Codec::None,
            Codec::Gzip(6),
            Codec::Snappy,
            Codec::Lz4,
            Codec::Zstd(3),
        ] {
            let mut b = BatchBuilder::new(codec);
            for r in &records {
                let before = b.uncompressed_bytes();
                let size = b.record_size(r).unwrap();
                b.append(r).unwrap();
                assert_eq!(b.uncompressed_bytes() - before, size, "{codec:?}");
            }
            let closed = b.close(stamp(), &mut Vec::new()).unwrap();
            assert!(b.is_empty());
            let mut read = Vec::new();
            RecordBatches::new("t", 0, closed.bytes(), 0, i64::MAX, false, vec![])
                .walk(|r| -> Result<(), ()> {
                    read.push((
                        r.offset,
                        r.key.map(<[u8]>::to_vec),
                        r.value.map(<[u8]>::to_vec),
                        r.timestamp,
                        r.timestamp_type,
                        r.header_count,
                        r.headers.to_vec(),
                    ));
                    Ok(())
                })
                .unwrap()
                .unwrap();
            assert_eq!(read.len(), 3, "{codec:?}");
            for (i, (r, got)) in records.iter().zip(&read).enumerate() {
                assert_eq!(got.0, i as i64);
                assert_eq!(got.1.as_deref(), r.key);
                assert_eq!(got.2.as_deref(), r.value);
                assert_eq!((got.3, got.4), (r.timestamp, TimestampType::CreateTime));
                assert_eq!((got.5, got.6.as_slice()), (r.header_count, r.headers));
            }
            let bytes = closed.bytes();
            assert_eq!(&bytes[27..35], &1_700_000_000_000i64.to_be_bytes());
            assert_eq!(&bytes[35..43], &1_700_000_000_005i64.to_be_bytes());
            assert_eq!(i16::from_be_bytes([bytes[21], bytes[22]]), codec.id());
        }
    }

    /// The bytes Kafka's Java producer writes for one known record (DefaultRecordBatch
    /// layout, worked out by hand from the format): the same bytes here.
    #[test]
    fn an_uncompressed_batch_is_byte_for_byte_the_v2_format() {
        let mut b = BatchBuilder::new(Codec::None);
        b.append(&RecordRef {
            key: None,
            value: Some(b"abc"),
            timestamp: 5,
            header_count: 0,
            headers: &[],
        })
        .unwrap();
        let closed = b.close(stamp(), &mut Vec::new()).unwrap();
        let mut want = Vec::new();
        want.extend_from_slice(&0i64.to_be_bytes());
        want.extend_from_slice(&((BATCH_HEADER_BYTES - 12 + 10) as i32).to_be_bytes());
        want.extend_from_slice(&(-1i32).to_be_bytes());
        want.push(2);
        let crc_at = want.len();
        want.extend_from_slice(&[0; 4]);
        want.extend_from_slice(&0i16.to_be_bytes()); // attributes
        want.extend_from_slice(&0i32.to_be_bytes()); // last offset delta
        want.extend_from_slice(&5i64.to_be_bytes());
        want.extend_from_slice(&5i64.to_be_bytes());
        want.extend_from_slice(&42i64.to_be_bytes());
        want.extend_from_slice(&3i16.to_be_bytes());
        want.extend_from_slice(&7i32.to_be_bytes());
        want.extend_from_slice(&1i32.to_be_bytes());
        // length 9 (zig-zag 18), attributes, ts delta 0, offset delta 0, key -1 (1),
        // value length 3 (6) "abc", no headers.
        want.extend_from_slice(&[18, 0, 0, 0, 1, 6, b'a', b'b', b'c', 0]);
        let crc = crc32c::crc32c(&want[CRC_FROM..]);
        want[crc_at..crc_at + 4].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(closed.bytes(), want.as_slice());
    }

    #[test]
    fn restamping_rewrites_the_producer_fields_and_the_crc_only() {
        let mut b = BatchBuilder::new(Codec::Lz4);
        b.append(&RecordRef {
            key: Some(b"k"),
            value: Some(b"v"),
            timestamp: 1,
            header_count: 0,
            headers: &[],
        })
        .unwrap();
        let mut closed = b.close(stamp(), &mut Vec::new()).unwrap();
        let before = closed.bytes().to_vec();
        closed.restamp(ProducerStamp {
            producer_id: 43,
            epoch: 0,
            base_sequence: 0,
            transactional: true,
        });
        let after = closed.bytes();
        assert_eq!(&after[61..], &before[61..]);
        assert_eq!(&after[43..51], &43i64.to_be_bytes());
        assert_eq!(
            i16::from_be_bytes([after[21], after[22]]),
            Codec::Lz4.id() | 0x10
        );
        // Still a valid batch (the reader checks the CRC).
        let mut n = 0;
        RecordBatches::new("t", 0, after, 0, i64::MAX, false, vec![])
            .walk(|_| -> Result<(), ()> {
                n += 1;
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn timestamps_too_far_apart_are_refused_not_wrapped() {
        let mut b = BatchBuilder::new(Codec::None);
        let r = |timestamp| RecordRef {
            key: None,
            value: None,
            timestamp,
            header_count: 0,
            headers: &[],
        };
        b.append(&r(i64::MIN)).unwrap();
        assert!(matches!(
            b.append(&r(i64::MAX)),
            Err(WriteError::TimestampRange { .. })
        ));
        assert!(b.record_size(&r(i64::MAX)).is_err());
        assert_eq!(b.count(), 1);
    }
}
