//! The native fetch of the `kafka-native` source: a [`karrow_kafka::FetchSession`] plus the
//! buffers one poll's records are laid out in for Java (`docs/jni-contract.md`, "Native
//! fetch").
//!
//! A poll keeps its records in this session's buffers; Java reads their sizes from the
//! summary, sizes its direct buffers, and has them copied out. Values are laid out as the
//! batch decoders take them (data back to back, int32 lengths, -1 for null), so any value
//! format decodes them with one call. Assignment changes arrive as `control` requests
//! ([`FetchControl`]).

use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::{FetchError, FetchSession, Isolation, Record, TimestampType, Truncation};
use serde::Deserialize;

use crate::error::NativeError;
use crate::kafka_security::{SecurityConfig, TokenJson};
use crate::session::{Session, SessionKind};

/// Bytes of one record's metadata: slot i32, timestamp type i32, offset i64, timestamp
/// i64, leader epoch i32, key length i32 (-1 null), header count i32, header bytes i32;
/// little-endian.
pub const META_BYTES: usize = 40;
/// Longs of the poll summary: records, value bytes, key bytes, header bytes, finished
/// slots, leader-changed slots, out-of-range slots, pending records, truncated slots, then
/// for the consumer metrics Kafka's names: fetch responses read, their latencies summed and
/// the longest (microseconds), the largest partition lag.
pub const SUMMARY_LONGS: usize = 13;
/// Bytes of one truncated slot after the slot lists: slot i32, diverging epoch i32, fetch
/// offset i64, end offset i64; little-endian.
pub const TRUNCATION_BYTES: usize = 24;

/// What Java passes to `open` for a fetch session (camelCase JSON).
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
    /// TLS and SASL (absent: plaintext).
    #[serde(default)]
    pub security: SecurityConfig,
    /// `client.rack` (absent or empty: none): a leader with a rack-aware replica selector
    /// then names a replica to fetch from (KIP-392), which the session follows.
    #[serde(default)]
    pub rack: String,
}

/// A change of the assignment, sent by Java as a `control` request (JSON with an `"op"`).
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum FetchControl {
    /// Assigns (or re-assigns) `slot`: `topic`-`partition`, led by `leader` (`host:port`),
    /// read from `offset` up to `stop_offset` (exclusive; `i64::MAX` unbounded).
    Assign {
        /// Java's slot number for the split.
        slot: i32,
        /// The topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The leader, `host:port`.
        leader: String,
        /// The next offset to read.
        offset: i64,
        /// The offset to stop at (exclusive).
        stop_offset: i64,
        /// The leader epoch of the position (-1, the default: none), as Kafka's consumer
        /// keeps it after a reset to the end offset of a truncated log.
        #[serde(default = "no_epoch")]
        last_fetched_epoch: i32,
    },
    /// Forgets `slot`.
    Unassign {
        /// The slot.
        slot: i32,
    },
    /// Moves `slot` to a new leader (`host:port`).
    SetLeader {
        /// The slot.
        slot: i32,
        /// The new leader.
        leader: String,
    },
    /// Pauses or resumes `slot`.
    SetPaused {
        /// The slot.
        slot: i32,
        /// Whether to pause it.
        paused: bool,
    },
    /// Hands over the OAUTHBEARER token Kafka's login refreshed (connections take it when
    /// they authenticate or re-authenticate).
    SetToken {
        /// The token.
        token: TokenJson,
    },
}

fn no_epoch() -> i32 {
    -1
}

/// One reader's fetch session and the records of its last poll.
pub struct NativeFetch {
    session: FetchSession,
    /// Where the connections take their OAUTHBEARER token (`None`: another mechanism).
    token: Option<karrow_kafka::security::TokenSource>,
    summary: [i64; SUMMARY_LONGS],
    slots: Vec<u8>,
    meta: Vec<u8>,
    values: Vec<u8>,
    lengths: Vec<i32>,
    keys: Vec<u8>,
    headers: Vec<u8>,
    finished: Vec<i32>,
    leader_changed: Vec<i32>,
    out_of_range: Vec<i32>,
    truncated: Vec<Truncation>,
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
        let security = config.security.build()?;
        let token = security.sasl.as_ref().and_then(|s| s.token.clone());
        Ok(NativeFetch {
            session: FetchSession::new(&config.client_id, isolation, limits)
                .with_rack(&config.rack)
                .with_security(security),
            token,
            summary: [0; SUMMARY_LONGS],
            slots: Vec::new(),
            meta: Vec::new(),
            values: Vec::new(),
            lengths: Vec::new(),
            keys: Vec::new(),
            headers: Vec::new(),
            finished: Vec::new(),
            leader_changed: Vec::new(),
            out_of_range: Vec::new(),
            truncated: Vec::new(),
        })
    }

    /// Applies an assignment change.
    pub fn apply(&mut self, change: FetchControl) -> Result<(), NativeError> {
        let session = &mut self.session;
        match change {
            FetchControl::Assign {
                slot,
                topic,
                partition,
                leader,
                offset,
                stop_offset,
                last_fetched_epoch,
            } => {
                session.assign(slot, &topic, partition, &leader, offset, stop_offset);
                session
                    .set_last_fetched_epoch(slot, last_fetched_epoch)
                    .map_err(|e| NativeError::Fetch(e.to_string()))
            }
            FetchControl::Unassign { slot } => {
                session.unassign(slot);
                Ok(())
            }
            FetchControl::SetLeader { slot, leader } => session
                .set_leader(slot, &leader)
                .map_err(|e| NativeError::Fetch(e.to_string())),
            FetchControl::SetPaused { slot, paused } => session
                .set_paused(slot, paused)
                .map_err(|e| NativeError::Fetch(e.to_string())),
            FetchControl::SetToken { token } => {
                crate::kafka_security::set_token(self.token.as_ref(), &token)
            }
        }
    }

    /// Fetches once and lays the records out; returns the summary (see [`SUMMARY_LONGS`]).
    pub fn fetch_once(&mut self) -> Result<[i64; SUMMARY_LONGS], NativeError> {
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
        self.truncated = polled.truncated;
        self.slots.clear();
        for slot in self
            .finished
            .iter()
            .chain(self.leader_changed.iter())
            .chain(self.out_of_range.iter())
        {
            self.slots.extend_from_slice(&slot.to_le_bytes());
        }
        for t in &self.truncated {
            self.slots.extend_from_slice(&t.slot.to_le_bytes());
            self.slots.extend_from_slice(&t.epoch.to_le_bytes());
            self.slots.extend_from_slice(&t.offset.to_le_bytes());
            self.slots.extend_from_slice(&t.end_offset.to_le_bytes());
        }
        let fetches = self.session.last_fetches();
        Ok([
            self.lengths.len() as i64,
            self.values.len() as i64,
            self.keys.len() as i64,
            self.headers.len() as i64,
            self.finished.len() as i64,
            self.leader_changed.len() as i64,
            self.out_of_range.len() as i64,
            self.session.pending_records(),
            self.truncated.len() as i64,
            i64::try_from(fetches.responses).unwrap_or(i64::MAX),
            i64::try_from(fetches.total_micros).unwrap_or(i64::MAX),
            i64::try_from(fetches.max_micros).unwrap_or(i64::MAX),
            self.session.max_lag(),
        ])
    }

    /// The parts of the last poll, in the order Java's buffers receive them: metadata,
    /// value data, value lengths (native order), keys, headers, then the finished, the
    /// leader-changed and the out-of-range slots (little-endian int32) followed by the
    /// truncated ones ([`TRUNCATION_BYTES`] each).
    pub fn output(&self) -> [&[u8]; 6] {
        [
            &self.meta,
            &self.values,
            int_bytes(&self.lengths),
            &self.keys,
            &self.headers,
            &self.slots,
        ]
    }
}

impl Session for NativeFetch {
    fn kind(&self) -> SessionKind {
        SessionKind::Fetch
    }

    fn retained_bytes(&self) -> usize {
        let ints = self.lengths.capacity()
            + self.finished.capacity()
            + self.leader_changed.capacity()
            + self.out_of_range.capacity();
        let truncated = self.truncated.capacity() * std::mem::size_of::<Truncation>();
        self.meta.capacity()
            + self.values.capacity()
            + self.keys.capacity()
            + self.headers.capacity()
            + self.slots.capacity()
            + ints * std::mem::size_of::<i32>()
            + truncated
    }

    fn control(&mut self, request: &str) -> Result<String, NativeError> {
        // The request may carry a token: never echoed in the error.
        let change: FetchControl = serde_json::from_str(request)
            .map_err(|e| NativeError::InvalidCall(format!("native fetch control request: {e}")))?;
        self.apply(change)?;
        Ok("null".to_string())
    }

    fn waker(&self) -> Option<crate::session::Waker> {
        let wakeup = self.session.wakeup();
        Some(Box::new(move || wakeup.wake()))
    }

    fn poll(&mut self) -> Result<&[i64], NativeError> {
        self.summary = self.fetch_once()?;
        Ok(&self.summary)
    }

    fn polled_parts(&self) -> Result<Vec<&[u8]>, NativeError> {
        Ok(self.output().to_vec())
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use crate::handles;
    use crate::session::SessionKind;

    const CONFIG: &str = r#"{"clientId":"t","readCommitted":false,"maxWaitMs":500,"minBytes":1,"maxBytes":1048576,"partitionMaxBytes":1048576}"#;

    /// `client.rack` is taken (the configuration refuses unknown fields).
    #[test]
    fn a_rack_is_taken_from_the_configuration() {
        let with_rack = CONFIG.replace('}', r#","rack":"rack-2"}"#);
        super::NativeFetch::open(&with_rack).unwrap();
        super::NativeFetch::open(CONFIG).unwrap();
    }

    /// An assignment names the position's epoch after a reset from a truncation, and none
    /// otherwise (the field is optional).
    #[test]
    fn an_assignment_carries_the_last_fetched_epoch_or_none() {
        let mut fetch = super::NativeFetch::open(CONFIG).unwrap();
        for (json, epoch) in [
            (
                r#"{"op":"assign","slot":3,"topic":"t","partition":0,"leader":"127.0.0.1:1","offset":5,"stop_offset":9,"last_fetched_epoch":4}"#,
                4,
            ),
            (
                r#"{"op":"assign","slot":3,"topic":"t","partition":0,"leader":"127.0.0.1:1","offset":5,"stop_offset":9}"#,
                -1,
            ),
        ] {
            fetch.apply(serde_json::from_str(json).unwrap()).unwrap();
            assert_eq!(fetch.session.epochs(3), Some((-1, epoch)));
        }
    }

    /// A broker on loopback that answers ApiVersions (Fetch and Metadata v12), Metadata (topic
    /// `t` partition 0 led by itself at epoch 2) and every Fetch with a diverging epoch (1, 3)
    /// for `t`-0: the wire format written out by hand, as Kafka's message definitions give it.
    fn diverging_broker() -> String {
        use std::io::{Read, Write};
        fn uv(out: &mut Vec<u8>, n: usize) {
            out.push(u8::try_from(n + 1).unwrap());
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                std::thread::spawn(move || loop {
                    let mut size = [0u8; 4];
                    if stream.read_exact(&mut size).is_err() {
                        return;
                    }
                    let mut req = vec![0u8; usize::try_from(i32::from_be_bytes(size)).unwrap()];
                    if stream.read_exact(&mut req).is_err() {
                        return;
                    }
                    let key = i16::from_be_bytes([req[0], req[1]]);
                    let mut b = req[4..8].to_vec(); // correlation id
                    match key {
                        18 => {
                            b.extend_from_slice(&0i16.to_be_bytes());
                            uv(&mut b, 2);
                            for (k, max) in [(1i16, 17i16), (3, 12)] {
                                b.extend_from_slice(&k.to_be_bytes());
                                b.extend_from_slice(&0i16.to_be_bytes());
                                b.extend_from_slice(&max.to_be_bytes());
                                b.push(0);
                            }
                            b.extend_from_slice(&[0, 0, 0, 0, 0]);
                        }
                        3 => {
                            b.push(0);
                            b.extend_from_slice(&0i32.to_be_bytes());
                            uv(&mut b, 1);
                            b.extend_from_slice(&0i32.to_be_bytes());
                            uv(&mut b, 9);
                            b.extend_from_slice(b"127.0.0.1");
                            b.extend_from_slice(&i32::from(address.port()).to_be_bytes());
                            b.extend_from_slice(&[0, 0]); // rack null, tags
                            b.extend_from_slice(&[0]); // cluster id null
                            b.extend_from_slice(&0i32.to_be_bytes());
                            uv(&mut b, 1);
                            b.extend_from_slice(&0i16.to_be_bytes());
                            uv(&mut b, 1);
                            b.push(b't');
                            b.extend_from_slice(&[0; 17]); // topic id, is_internal
                            uv(&mut b, 1);
                            b.extend_from_slice(&0i16.to_be_bytes());
                            b.extend_from_slice(&0i32.to_be_bytes()); // partition
                            b.extend_from_slice(&0i32.to_be_bytes()); // leader
                            b.extend_from_slice(&2i32.to_be_bytes()); // leader epoch
                            b.extend_from_slice(&[1, 1, 1, 0]); // no replicas, tags
                            b.extend_from_slice(&0i32.to_be_bytes());
                            b.extend_from_slice(&[0, 0]);
                        }
                        _ => {
                            b.push(0);
                            b.extend_from_slice(&0i32.to_be_bytes()); // throttle
                            b.extend_from_slice(&0i16.to_be_bytes());
                            b.extend_from_slice(&0i32.to_be_bytes()); // session
                            uv(&mut b, 1);
                            uv(&mut b, 1);
                            b.push(b't');
                            uv(&mut b, 1);
                            b.extend_from_slice(&0i32.to_be_bytes());
                            b.extend_from_slice(&0i16.to_be_bytes());
                            for watermark in [10i64, 10, 0] {
                                b.extend_from_slice(&watermark.to_be_bytes());
                            }
                            uv(&mut b, 0); // aborted
                            b.extend_from_slice(&(-1i32).to_be_bytes());
                            uv(&mut b, 0); // records
                            b.extend_from_slice(&[1, 0, 13]); // tag 0, 13 bytes
                            b.extend_from_slice(&1i32.to_be_bytes());
                            b.extend_from_slice(&3i64.to_be_bytes());
                            b.extend_from_slice(&[0, 0, 0]); // its tags, the topic's, the response's
                        }
                    }
                    let _ = stream.write_all(&u32::try_from(b.len()).unwrap().to_be_bytes());
                    let _ = stream.write_all(&b);
                });
            }
        });
        address.to_string()
    }

    /// A truncation reaches Java through the summary's ninth long and 24 bytes after the
    /// slot lists: slot, diverging epoch, fetch offset, end offset.
    #[test]
    fn a_truncation_is_laid_out_after_the_slot_lists() {
        let broker = diverging_broker();
        let mut fetch = super::NativeFetch::open(CONFIG).unwrap();
        let assign = format!(
            r#"{{"op":"assign","slot":5,"topic":"t","partition":0,"leader":"{broker}","offset":7,"stop_offset":99,"last_fetched_epoch":2}}"#
        );
        fetch.apply(serde_json::from_str(&assign).unwrap()).unwrap();
        let summary = fetch.fetch_once().unwrap();
        assert_eq!(summary.len(), super::SUMMARY_LONGS);
        assert_eq!(
            (summary[0], summary[4], summary[5], summary[6]),
            (0, 0, 0, 0)
        );
        assert_eq!(summary[8], 1, "one truncated slot");
        // The fetch metrics: one response, its latency, the largest lag (none reported).
        assert_eq!(summary[9], 1, "one fetch response");
        assert!(
            summary[10] >= summary[11] && summary[11] >= 0,
            "{summary:?}"
        );
        assert_eq!(summary[12], 0);
        let slots = fetch.output()[5];
        assert_eq!(slots.len(), super::TRUNCATION_BYTES);
        assert_eq!(&slots[..4], &5i32.to_le_bytes());
        assert_eq!(&slots[4..8], &1i32.to_le_bytes());
        assert_eq!(&slots[8..16], &7i64.to_le_bytes());
        assert_eq!(&slots[16..24], &3i64.to_le_bytes());
        assert_eq!(fetch.session.epochs(5), Some((2, 2)));
    }

    /// Flink's `wakeUp` arrives on another thread while the fetch blocks: `wake` reaches
    /// the session through its handle during the poll, and the poll returns with nothing
    /// (here it blocks on a broker that accepts and never answers).
    #[test]
    fn a_wake_through_the_handle_ends_a_poll_blocked_on_a_silent_broker() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let broker = listener.local_addr().unwrap().to_string();
        let _silent = std::thread::spawn(move || {
            let kept: Vec<_> = listener.incoming().take(1).collect();
            std::thread::sleep(Duration::from_secs(120));
            drop(kept);
        });
        let handle = handles::open(SessionKind::Fetch.open(CONFIG, &[]).unwrap()).unwrap();
        let assign = format!(
            r#"{{"op":"assign","slot":0,"topic":"t","partition":0,"leader":"{broker}","offset":0,"stop_offset":9}}"#
        );
        handles::with_session(handle, |s| s.control(&assign)).unwrap();
        let (done, finished) = mpsc::channel();
        let poller = std::thread::spawn(move || {
            let summary = handles::with_session(handle, |s| s.poll().map(<[i64]>::to_vec));
            let _ = done.send(());
            summary
        });
        while finished.recv_timeout(Duration::from_millis(50)).is_err() {
            handles::wake(handle).unwrap();
        }
        let summary = poller.join().unwrap().unwrap();
        assert_eq!(summary[0], 0, "no records");
        // Not a timed-out connection (which reports the partition's leader as changed).
        assert_eq!(summary[5], 0, "woken, not timed out");
        handles::close(handle).unwrap();
        assert!(handles::wake(handle).is_err(), "a closed handle");
    }
}
