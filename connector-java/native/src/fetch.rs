//! The native fetch of the `kafka-native` source: a [`karrow_kafka::FetchSession`] plus the
//! buffers one poll's records are laid out in for Java (`docs/jni-contract.md`, "Native
//! fetch").
//!
//! A poll keeps its records in this session's buffers; Java reads their sizes from the
//! summary, sizes its direct buffers, and has them copied out. Values are laid out as the
//! batch decoders take them (data back to back, int32 lengths, -1 for null), so any value
//! format decodes them with one call.

use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::{FetchError, FetchSession, Isolation, Record, TimestampType};
use serde::Deserialize;

use crate::error::NativeError;
use crate::handles::HandleType;

/// Bytes of one record's metadata: slot i32, timestamp type i32, offset i64, timestamp
/// i64, leader epoch i32, key length i32 (-1 null), header count i32, header bytes i32;
/// little-endian.
pub const META_BYTES: usize = 40;
/// Longs of the poll summary: records, value bytes, key bytes, header bytes, finished
/// slots, leader-changed slots, out-of-range slots, pending records.
pub const SUMMARY_LONGS: usize = 8;

/// What Java passes to `fetchOpen` (camelCase JSON).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FetchConfig {
    /// `client.id`, sent with every request.
    pub client_id: String,
    /// `isolation.level` is `read_committed`.
    pub read_committed: bool,
    /// `fetch.max.wait.ms`.
    pub max_wait_ms: i32,
    /// `fetch.min.bytes`.
    pub min_bytes: i32,
    /// `fetch.max.bytes`.
    pub max_bytes: i32,
    /// `max.partition.fetch.bytes`.
    pub partition_max_bytes: i32,
}

/// One reader's fetch session and the records of its last poll.
pub struct NativeFetch {
    session: FetchSession,
    meta: Vec<u8>,
    values: Vec<u8>,
    lengths: Vec<i32>,
    keys: Vec<u8>,
    headers: Vec<u8>,
    finished: Vec<i32>,
    leader_changed: Vec<i32>,
    out_of_range: Vec<i32>,
}

impl HandleType for NativeFetch {
    const TAG: u64 = 0x6b61_7266_6574_6368;
}

impl NativeFetch {
    /// Opens a session from Java's JSON configuration.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config: FetchConfig = serde_json::from_str(config_json)
            .map_err(|e| NativeError::Config(format!("native fetch: {e}")))?;
        let isolation = if config.read_committed {
            Isolation::ReadCommitted
        } else {
            Isolation::ReadUncommitted
        };
        let limits = FetchLimits {
            max_wait_ms: config.max_wait_ms,
            min_bytes: config.min_bytes,
            max_bytes: config.max_bytes,
            partition_max_bytes: config.partition_max_bytes,
        };
        Ok(NativeFetch {
            session: FetchSession::new(&config.client_id, isolation, limits),
            meta: Vec::new(),
            values: Vec::new(),
            lengths: Vec::new(),
            keys: Vec::new(),
            headers: Vec::new(),
            finished: Vec::new(),
            leader_changed: Vec::new(),
            out_of_range: Vec::new(),
        })
    }

    /// The session, for assignment changes.
    pub fn session(&mut self) -> &mut FetchSession {
        &mut self.session
    }

    /// Fetches once and lays the records out; returns the summary (see [`SUMMARY_LONGS`]).
    pub fn poll(&mut self) -> Result<[i64; SUMMARY_LONGS], NativeError> {
        self.meta.clear();
        self.values.clear();
        self.lengths.clear();
        self.keys.clear();
        self.headers.clear();
        self.finished.clear();
        self.leader_changed.clear();
        self.out_of_range.clear();
        let (meta, values, lengths, keys, headers) = (
            &mut self.meta,
            &mut self.values,
            &mut self.lengths,
            &mut self.keys,
            &mut self.headers,
        );
        let polled = self
            .session
            .poll(|slot, record: &Record<'_>| {
                lay_out(slot, record, meta, values, lengths, keys, headers)
            })
            .map_err(fetch_error)?
            .map_err(|e| NativeError::InvalidCall(e.to_string()))?;
        self.finished = polled.finished;
        self.leader_changed = polled.leader_changed;
        self.out_of_range = polled.out_of_range;
        Ok([
            self.lengths.len() as i64,
            self.values.len() as i64,
            self.keys.len() as i64,
            self.headers.len() as i64,
            self.finished.len() as i64,
            self.leader_changed.len() as i64,
            self.out_of_range.len() as i64,
            self.session.pending_records(),
        ])
    }

    /// The parts of the last poll, in the order Java's buffers receive them: metadata,
    /// value data, value lengths (native order), keys, headers.
    pub fn output(&self) -> [&[u8]; 5] {
        [
            &self.meta,
            &self.values,
            int_bytes(&self.lengths),
            &self.keys,
            &self.headers,
        ]
    }

    /// The finished slots, then the leader-changed ones, then the out-of-range ones
    /// (little-endian int32).
    pub fn slots(&self) -> Vec<u8> {
        self.finished
            .iter()
            .chain(self.leader_changed.iter())
            .chain(self.out_of_range.iter())
            .flat_map(|s| s.to_le_bytes())
            .collect()
    }
}

fn int_bytes(ints: &[i32]) -> &[u8] {
    // SAFETY: any i32 slice is a valid byte slice of four times its length (native order,
    // as Java's buffer expects).
    unsafe { std::slice::from_raw_parts(ints.as_ptr().cast::<u8>(), std::mem::size_of_val(ints)) }
}

/// Appends one record to the poll's buffers.
#[inline]
fn lay_out(
    slot: i32,
    record: &Record<'_>,
    meta: &mut Vec<u8>,
    values: &mut Vec<u8>,
    lengths: &mut Vec<i32>,
    keys: &mut Vec<u8>,
    headers: &mut Vec<u8>,
) -> Result<(), std::num::TryFromIntError> {
    let key_len = match record.key {
        Some(k) => {
            keys.extend_from_slice(k);
            i32::try_from(k.len())?
        }
        None => -1,
    };
    match record.value {
        Some(v) => {
            values.extend_from_slice(v);
            lengths.push(i32::try_from(v.len())?);
        }
        None => lengths.push(-1),
    }
    headers.extend_from_slice(record.headers);
    let timestamp_type = match record.timestamp_type {
        TimestampType::CreateTime => 0i32,
        TimestampType::LogAppendTime => 1,
    };
    meta.extend_from_slice(&slot.to_le_bytes());
    meta.extend_from_slice(&timestamp_type.to_le_bytes());
    meta.extend_from_slice(&record.offset.to_le_bytes());
    meta.extend_from_slice(&record.timestamp.to_le_bytes());
    meta.extend_from_slice(&record.leader_epoch.to_le_bytes());
    meta.extend_from_slice(&key_len.to_le_bytes());
    meta.extend_from_slice(&i32::try_from(record.header_count)?.to_le_bytes());
    meta.extend_from_slice(&i32::try_from(record.headers.len())?.to_le_bytes());
    Ok(())
}

/// A fetch failure as the error Java sees.
fn fetch_error(e: FetchError) -> NativeError {
    NativeError::Fetch(e.to_string())
}
