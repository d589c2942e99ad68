//! An encoded batch (session kind 10, `docs/jni-contract.md`): the records one fetched batch
//! gave through a fully fused pipeline (decode -> Calc -> the sink's encoders), in the
//! native producer's encoded-records layout, owned natively between the fused source that
//! made it (`runBatch` on a kind-8 session) and the native producer it is handed to
//! (`handOver`). Java holds it as one handle per fetched batch: no object per record.
//!
//! The batch also carries the failure of its fetched batch, if one: the records are those
//! of the values before the first failing value (as the stock job, record by record, has
//! produced them when it fails), and handing the batch over appends them and then fails
//! with that value's error.

use crate::error::NativeError;
use crate::produce::META_BYTES;
use crate::session::{Session, SessionKind};

/// Longs of an encoded batch's poll summary: records, key + value + header bytes, the index
/// of the failing value of the fetched batch (-1: none).
pub const SUMMARY_LONGS: usize = 3;

/// The records of one fetched batch, encoded, and what failed in it.
#[derive(Debug, Default)]
pub struct EncodedBatch {
    /// Per record [`META_BYTES`] of metadata (the producer's `copyIn` layout).
    pub meta: Vec<u8>,
    /// The keys, back to back.
    pub keys: Vec<u8>,
    /// The values, back to back.
    pub values: Vec<u8>,
    /// The headers, back to back (Kafka's record-header encoding).
    pub headers: Vec<u8>,
    /// Per record, the index of the fetched value it came from.
    pub sources: Vec<u32>,
    /// The first failure of the fetched batch: every record above comes from a value before
    /// the failing one.
    pub failure: Option<NativeError>,
    /// Whether the batch was handed to a producer (a second hand-over fails).
    pub handed_over: bool,
    summary: [i64; SUMMARY_LONGS],
}

impl EncodedBatch {
    /// Records in the batch.
    pub fn count(&self) -> usize {
        self.meta.len() / META_BYTES
    }

    /// Appends one record: the producer picks the partition (-1) and stamps the time
    /// (`i64::MIN`), topic 0, no headers: what the `kafka-native` sink in native produce mode
    /// hands over for a row without metadata columns.
    pub fn push(
        &mut self,
        key: Option<&[u8]>,
        value: &[u8],
        source: u32,
    ) -> Result<(), NativeError> {
        let len = |b: &[u8]| {
            i32::try_from(b.len())
                .map_err(|_| NativeError::InvalidCall("a record over 2 GiB".into()))
        };
        let key_len = match key {
            Some(k) => {
                self.keys.extend_from_slice(k);
                len(k)?
            }
            None => -1,
        };
        let value_len = len(value)?;
        self.values.extend_from_slice(value);
        for word in [-1i32, 0, key_len, value_len, 0, 0] {
            self.meta.extend_from_slice(&word.to_le_bytes());
        }
        self.meta.extend_from_slice(&i64::MIN.to_le_bytes());
        self.sources.push(source);
        Ok(())
    }

    /// The parts the producer appends: metadata, keys, values, headers.
    pub fn parts(&self) -> [&[u8]; 4] {
        [&self.meta, &self.keys, &self.values, &self.headers]
    }

    /// Key, value and header bytes.
    pub fn record_bytes(&self) -> usize {
        self.keys.len() + self.values.len() + self.headers.len()
    }

    /// The error of a producer append that failed at record `record`, attributed to the
    /// fetched value the record came from.
    pub fn attribute(&self, error: NativeError) -> NativeError {
        let source = error
            .record_index()
            .and_then(|r| self.sources.get(r))
            .map(|&s| s as usize);
        match error {
            NativeError::Produce { message, .. } => NativeError::Produce {
                message,
                index: source,
            },
            other => other,
        }
    }
}

/// Appends the records of `batch` (an encoded batch session) to `producer`, once; then
/// fails with the batch's failure, if it has one. Returns the records appended.
pub fn hand_over(batch: &mut dyn Session, producer: &mut dyn Session) -> Result<i32, NativeError> {
    let kind = batch.kind();
    let batch = batch.as_encoded_batch().ok_or_else(|| {
        NativeError::InvalidCall(format!("a {} is not an encoded batch", kind.name()))
    })?;
    if producer.kind() != SessionKind::Produce {
        return Err(NativeError::InvalidCall(format!(
            "an encoded batch is handed to a native producer, not a {}",
            producer.kind().name()
        )));
    }
    if batch.handed_over {
        return Err(NativeError::InvalidCall(
            "the encoded batch was handed over already".into(),
        ));
    }
    batch.handed_over = true;
    let appended = producer.append_batch(batch)?;
    if let Some(failure) = batch.failure.take() {
        return Err(failure);
    }
    i32::try_from(appended).map_err(|_| NativeError::InvalidCall("over 2^31 records".into()))
}

impl Session for EncodedBatch {
    fn kind(&self) -> SessionKind {
        SessionKind::EncodedBatch
    }

    fn retained_bytes(&self) -> usize {
        self.meta.capacity()
            + self.keys.capacity()
            + self.values.capacity()
            + self.headers.capacity()
            + self.sources.capacity() * 4
    }

    /// Records, bytes, and the failing value's index (-1: none).
    fn poll(&mut self) -> Result<&[i64], NativeError> {
        let failed = self
            .failure
            .as_ref()
            .map_or(-1, |f| f.record_index().map_or(-1, |i| i as i64));
        self.summary = [self.count() as i64, self.record_bytes() as i64, failed];
        Ok(&self.summary)
    }

    fn as_encoded_batch(&mut self) -> Option<&mut EncodedBatch> {
        Some(self)
    }
}
