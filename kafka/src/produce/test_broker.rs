//! A broker on loopback speaking just enough of the protocol for the producer's error paths:
//! one topic "t" with `partitions` partitions it leads, producer id 7, a transaction coordinator
//! (FindCoordinator, InitProducerId, AddPartitionsToTxn, EndTxn) on protocol `tv` that answers a
//! new producer id (8, 9, ...) once an id's epoch is exhausted (`Short.MAX_VALUE - 1`, as Kafka's
//! coordinator), and Produce answers from a script. Everything it is sent is recorded in
//! [`Seen`].

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::protocol::test_support::Body;
use crate::wire::Reader;

/// One batch of a Produce request, as the broker read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Batch {
    pub(crate) version: i16,
    pub(crate) transactional_id: Option<String>,
    pub(crate) partition: i32,
    pub(crate) producer_id: i64,
    pub(crate) epoch: i16,
    pub(crate) base_sequence: i32,
    pub(crate) count: i32,
    pub(crate) transactional: bool,
}

/// What the broker was sent.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Every request's API key, in order.
    pub(crate) keys: Vec<i16>,
    /// Every batch produced, in order.
    pub(crate) batches: Vec<Batch>,
    /// InitProducerId: (transactional id, current id, current epoch).
    pub(crate) init_with: Vec<(Option<String>, i64, i16)>,
    /// AddPartitionsToTxn: (producer id, epoch, partitions).
    pub(crate) added: Vec<(i64, i16, Vec<i32>)>,
    /// EndTxn: (version, producer id, epoch, commit).
    pub(crate) ended: Vec<(i16, i64, i16, bool)>,
}

/// How the broker answers.
#[derive(Debug, Clone)]
pub(crate) struct Script {
    /// Partitions of topic "t".
    pub(crate) partitions: i32,
    /// `transaction.version` finalized (0: the feature is not listed).
    pub(crate) tv: i16,
    /// Produce errors, one per batch in turn (0 once they run out).
    pub(crate) produce_errors: Vec<i16>,
    /// Batches of more records than this are refused with MESSAGE_TOO_LARGE.
    pub(crate) max_records: Option<i32>,
    /// Throttle time (ms) in every Produce response.
    pub(crate) throttle_ms: i32,
    /// Produce requests are read but never answered.
    pub(crate) silent: bool,
    /// EndTxn errors in turn (0 once they run out).
    pub(crate) end_errors: Vec<i16>,
    /// The Produce requests of a connection whose indexes (from 0) fall in this range are
    /// answered only once all of them have been read (so that they are known to be in flight
    /// together); an empty range: each at once.
    pub(crate) held_produces: std::ops::Range<usize>,
    /// How long the answer to a connection's first Produce request waits (time for the
    /// producer to pipeline more requests behind it, if it would).
    pub(crate) first_produce_delay: std::time::Duration,
    /// The epoch a transactional id's first InitProducerId answers.
    pub(crate) first_epoch: i16,
    /// The Produce request with this index (from 0, counted over every connection) is read and
    /// recorded, then its connection is closed without an answer: a broker killed after
    /// appending the batch, its acknowledgement lost with the connection.
    pub(crate) close_at_produce: Option<usize>,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            partitions: 1,
            tv: 2,
            produce_errors: Vec::new(),
            max_records: None,
            throttle_ms: 0,
            silent: false,
            end_errors: Vec::new(),
            held_produces: 0..0,
            first_produce_delay: std::time::Duration::ZERO,
            first_epoch: 0,
            close_at_produce: None,
        }
    }
}

/// The broker's transactional state: the producer id and epoch per transactional id.
#[derive(Default)]
struct State {
    seen: Seen,
    produce_errors: VecDeque<i16>,
    end_errors: VecDeque<i16>,
    epochs: Vec<(String, i64, i16)>,
    /// Producer ids handed out after 7.
    more_ids: i64,
    /// Produce requests read so far, over every connection.
    produce_requests: usize,
}

/// Kafka's coordinator: an epoch of `Short.MAX_VALUE - 1` or more cannot be bumped again, the
/// next one is a new producer id at epoch 0.
const EXHAUSTED: i16 = i16::MAX - 1;

impl State {
    /// The producer id and epoch after `(id, epoch)`'s epoch is bumped.
    fn bump(&mut self, id: i64, epoch: i16) -> (i64, i16) {
        if epoch >= EXHAUSTED {
            self.more_ids += 1;
            (7 + self.more_ids, 0)
        } else {
            (id, epoch + 1)
        }
    }
}

/// Starts the broker; returns its address and what it sees.
pub(crate) fn start(script: Script) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let port = address.port();
    let state = Arc::new(Mutex::new(State {
        produce_errors: script.produce_errors.iter().copied().collect(),
        end_errors: script.end_errors.iter().copied().collect(),
        ..State::default()
    }));
    let seen_view = Arc::new(Mutex::new(Seen::default()));
    let view = seen_view.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let (state, script, view) = (state.clone(), script.clone(), view.clone());
            let mut held: Vec<Vec<u8>> = Vec::new();
            let mut produces = 0usize;
            std::thread::spawn(move || loop {
                let mut size = [0u8; 4];
                if stream.read_exact(&mut size).is_err() {
                    return;
                }
                let mut req = vec![0u8; i32::from_be_bytes(size) as usize];
                if stream.read_exact(&mut req).is_err() {
                    return;
                }
                let (reply, close) = {
                    let mut st = state.lock().expect("lock");
                    let reply = answer(&req, &script, port, &mut st);
                    let mut close = false;
                    if i16::from_be_bytes([req[0], req[1]]) == 0 {
                        close = script.close_at_produce == Some(st.produce_requests);
                        st.produce_requests += 1;
                    }
                    // Publish a copy for the test to read.
                    let mut v = view.lock().expect("lock");
                    v.keys.clone_from(&st.seen.keys);
                    v.batches.clone_from(&st.seen.batches);
                    v.init_with.clone_from(&st.seen.init_with);
                    v.added.clone_from(&st.seen.added);
                    v.ended.clone_from(&st.seen.ended);
                    (reply, close)
                };
                if close {
                    // Dropping the stream closes the connection, answers held for it included.
                    return;
                }
                let Some(reply) = reply else { continue };
                let mut out = (reply.0.len() as i32).to_be_bytes().to_vec();
                out.extend_from_slice(&reply.0);
                if i16::from_be_bytes([req[0], req[1]]) == 0 {
                    let index = produces;
                    produces += 1;
                    if index == 0 {
                        std::thread::sleep(script.first_produce_delay);
                    }
                    if script.held_produces.contains(&index) {
                        held.push(out);
                        if index + 1 < script.held_produces.end {
                            continue;
                        }
                        out = held.concat();
                        held.clear();
                    }
                }
                if stream.write_all(&out).is_err() {
                    return;
                }
            });
        }
    });
    (address.to_string(), seen_view)
}

fn compact_str(r: &mut Reader<'_>) -> Option<String> {
    let n = r.compact_len().expect("length")?;
    Some(String::from_utf8_lossy(r.take(n).expect("string")).into_owned())
}

/// The reply to one request (`None`: no reply).
fn answer(req: &[u8], script: &Script, port: u16, st: &mut State) -> Option<Body> {
    let key = i16::from_be_bytes([req[0], req[1]]);
    let version = i16::from_be_bytes([req[2], req[3]]);
    let correlation = i32::from_be_bytes([req[4], req[5], req[6], req[7]]);
    let client_len = i16::from_be_bytes([req[8], req[9]]) as usize;
    let mut r = Reader::new(&req[10 + client_len + 1..]);
    st.seen.keys.push(key);
    let mut b = Body::header_v1(correlation);
    match key {
        18 => {
            let mut b = Body::default();
            b.i32(correlation).i16(0).len(6);
            for (k, lo, hi) in [
                (0, 9, 12),
                (3, 12, 12),
                (10, 4, 4),
                (22, 3, 5),
                (24, 3, 3),
                (26, 4, 5),
            ] {
                b.i16(k).i16(lo).i16(hi).tags();
            }
            b.i32(0);
            if script.tv > 0 {
                let mut features = Body::default();
                features
                    .len(1)
                    .str("transaction.version")
                    .i16(script.tv)
                    .i16(0)
                    .tags();
                b.raw(&[1, 2]).len(features.0.len() - 1).raw(&features.0);
            } else {
                b.tags();
            }
            return Some(b);
        }
        3 => {
            b.i32(0)
                .len(1)
                .i32(1)
                .str("127.0.0.1")
                .i32(i32::from(port))
                .null()
                .tags();
            b.str("c")
                .i32(1)
                .len(1)
                .i16(0)
                .str("t")
                .raw(&[1; 16])
                .raw(&[0]);
            b.len(script.partitions as usize);
            for p in 0..script.partitions {
                b.i16(0).i32(p).i32(1).i32(0).len(0).len(0).len(0).tags();
            }
            b.i32(0).tags().tags();
        }
        10 => {
            b.i32(0)
                .len(1)
                .str("x")
                .i32(1)
                .str("127.0.0.1")
                .i32(i32::from(port))
                .i16(0)
                .null()
                .tags()
                .tags();
        }
        22 => {
            let id = compact_str(&mut r);
            r.i32().expect("timeout");
            let (current, current_epoch) = (r.i64().expect("id"), r.i16().expect("epoch"));
            st.seen.init_with.push((id.clone(), current, current_epoch));
            let (pid, epoch) = match &id {
                Some(id) => match st.epochs.iter().position(|(t, _, _)| t == id) {
                    Some(at) => {
                        let (_, pid, epoch) = st.epochs[at];
                        let next = st.bump(pid, epoch);
                        (st.epochs[at].1, st.epochs[at].2) = next;
                        next
                    }
                    None => {
                        st.epochs.push((id.clone(), 7, script.first_epoch));
                        (7, script.first_epoch)
                    }
                },
                None if current == 7 => (7, current_epoch + 1),
                None => (7, 0),
            };
            b.i32(0).i16(0).i64(pid).i16(epoch).tags();
        }
        24 => {
            compact_str(&mut r);
            let (id, epoch) = (r.i64().expect("id"), r.i16().expect("epoch"));
            let topics = r.compact_len().expect("topics").unwrap_or(0);
            let mut parts = Vec::new();
            for _ in 0..topics {
                compact_str(&mut r);
                for _ in 0..r.compact_len().expect("partitions").unwrap_or(0) {
                    parts.push(r.i32().expect("partition"));
                }
                r.skip_tagged_fields().expect("tags");
            }
            st.seen.added.push((id, epoch, parts.clone()));
            b.i32(0).len(1).str("t").len(parts.len());
            for p in parts {
                b.i32(p).i16(0).tags();
            }
            b.tags().tags();
        }
        26 => {
            let id = compact_str(&mut r).unwrap_or_default();
            let (pid, epoch) = (r.i64().expect("id"), r.i16().expect("epoch"));
            let commit = r.i8().expect("commit") != 0;
            st.seen.ended.push((version, pid, epoch, commit));
            let error = st.end_errors.pop_front().unwrap_or(0);
            b.i32(0).i16(error);
            if version >= 5 {
                let next = if error == 0 {
                    st.bump(pid, epoch)
                } else {
                    (pid, epoch)
                };
                if error == 0 {
                    if let Some(entry) = st.epochs.iter_mut().find(|(t, _, _)| *t == id) {
                        (entry.1, entry.2) = next;
                    }
                }
                b.i64(next.0).i16(next.1);
            }
            b.tags();
        }
        0 => {
            let transactional_id = compact_str(&mut r);
            r.i16().expect("acks");
            r.i32().expect("timeout");
            let mut answers = Vec::new();
            for _ in 0..r.compact_len().expect("topics").unwrap_or(0) {
                compact_str(&mut r);
                for _ in 0..r.compact_len().expect("partitions").unwrap_or(0) {
                    let partition = r.i32().expect("partition");
                    let records = r.compact_len().expect("records").unwrap_or(0);
                    let batch = r.take(records).expect("batch");
                    r.skip_tagged_fields().expect("tags");
                    let count = i32::from_be_bytes(batch[57..61].try_into().expect("4"));
                    let attributes = i16::from_be_bytes([batch[21], batch[22]]);
                    st.seen.batches.push(Batch {
                        version,
                        transactional_id: transactional_id.clone(),
                        partition,
                        producer_id: i64::from_be_bytes(batch[43..51].try_into().expect("8")),
                        epoch: i16::from_be_bytes([batch[51], batch[52]]),
                        base_sequence: i32::from_be_bytes(batch[53..57].try_into().expect("4")),
                        count,
                        transactional: attributes & 0x10 != 0,
                    });
                    let error = if script.max_records.is_some_and(|m| count > m) {
                        10
                    } else {
                        st.produce_errors.pop_front().unwrap_or(0)
                    };
                    answers.push((partition, error));
                }
                r.skip_tagged_fields().expect("tags");
            }
            if script.silent {
                return None;
            }
            b.len(1).str("t").len(answers.len());
            for (partition, error) in answers {
                b.i32(partition)
                    .i16(error)
                    .i64(0)
                    .i64(-1)
                    .i64(0)
                    .len(0)
                    .null()
                    .tags();
            }
            b.tags().i32(script.throttle_ms).tags();
        }
        _ => {
            std::thread::sleep(Duration::from_millis(10));
            return None;
        }
    }
    Some(b)
}
