//! A fetch session: the partitions one reader is assigned, each with its leader, next
//! offset and stopping offset, and one connection per leader.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::error::{error_name, is_leader_change, FetchError};
use crate::fetch::request::{write_fetch_request, FetchLimits, PartitionFetch};
use crate::fetch::response::parse_fetch_response;
use crate::records::{Record, RecordBatches};

/// Polls in a row a broker's connection may fail before the poll fails (a broker restart or
/// a moved leader is usually over well before; each failure is followed by a leader lookup
/// and a back-off on the Java side).
const MAX_CONNECTION_FAILURES: u32 = 10;

/// Kafka's error code for a fetch offset outside the log.
const OFFSET_OUT_OF_RANGE: i16 = 1;

/// Which records a fetch returns (`isolation.level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// Everything up to the high watermark.
    ReadUncommitted,
    /// Up to the last stable offset, aborted transactions dropped.
    ReadCommitted,
}

/// The caller's id of an assigned partition.
pub type PartitionSlot = i32;

/// One assigned partition.
#[derive(Debug, Clone)]
struct Assigned {
    slot: PartitionSlot,
    topic: String,
    partition: i32,
    leader: String,
    next_offset: i64,
    stop_offset: i64,
    paused: bool,
    /// Records between the next offset and the end the last response reported (the high
    /// watermark, or the last stable offset under `read_committed`).
    lag: i64,
}

/// What a poll did besides handing out records.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Polled {
    /// Records handed to the callback.
    pub records: u64,
    /// Partitions that reached their stopping offset (they stay assigned, and are not
    /// fetched again).
    pub finished: Vec<PartitionSlot>,
    /// Partitions whose leader moved: look the leader up and call
    /// [`FetchSession::set_leader`].
    pub leader_changed: Vec<PartitionSlot>,
    /// Partitions whose next offset is outside the log (deleted by retention, or past its
    /// end): reset them as `auto.offset.reset` says and assign them again.
    pub out_of_range: Vec<PartitionSlot>,
}

/// Fetches the assigned partitions from their leaders. Not thread-safe.
pub struct FetchSession {
    client_id: String,
    isolation: Isolation,
    limits: FetchLimits,
    socket_timeout: Duration,
    assigned: Vec<Assigned>,
    connections: HashMap<String, TcpStream>,
    request: Vec<u8>,
    responses: Vec<(String, i32, Vec<u8>)>,
    correlation: i32,
    connection_failures: HashMap<String, u32>,
}

impl FetchSession {
    /// A session with no partitions.
    pub fn new(client_id: &str, isolation: Isolation, limits: FetchLimits) -> Self {
        let wait = u64::try_from(limits.max_wait_ms).unwrap_or(0);
        FetchSession {
            client_id: client_id.to_string(),
            isolation,
            limits,
            socket_timeout: Duration::from_millis(wait + 30_000),
            assigned: Vec::new(),
            connections: HashMap::new(),
            request: Vec::new(),
            responses: Vec::new(),
            correlation: 0,
            connection_failures: HashMap::new(),
        }
    }

    /// Assigns (or re-assigns) `slot`: `topic`-`partition` led by `leader` (`host:port`),
    /// read from `offset` up to `stop_offset` (exclusive; `i64::MAX` for unbounded).
    pub fn assign(
        &mut self,
        slot: PartitionSlot,
        topic: &str,
        partition: i32,
        leader: &str,
        offset: i64,
        stop_offset: i64,
    ) {
        self.unassign(slot);
        self.assigned.push(Assigned {
            slot,
            topic: topic.to_string(),
            partition,
            leader: leader.to_string(),
            next_offset: offset,
            stop_offset,
            paused: false,
            lag: 0,
        });
        self.assigned
            .sort_by(|a, b| (&a.leader, &a.topic).cmp(&(&b.leader, &b.topic)));
    }

    /// Forgets `slot` (no-op when unknown).
    pub fn unassign(&mut self, slot: PartitionSlot) {
        self.assigned.retain(|a| a.slot != slot);
    }

    /// Sets the leader of `slot` after a leader change.
    pub fn set_leader(&mut self, slot: PartitionSlot, leader: &str) -> Result<(), FetchError> {
        self.find(slot)?.leader = leader.to_string();
        self.assigned
            .sort_by(|a, b| (&a.leader, &a.topic).cmp(&(&b.leader, &b.topic)));
        Ok(())
    }

    /// Pauses or resumes fetching `slot` (watermark alignment).
    pub fn set_paused(&mut self, slot: PartitionSlot, paused: bool) -> Result<(), FetchError> {
        self.find(slot)?.paused = paused;
        Ok(())
    }

    /// The next offset of `slot`.
    pub fn next_offset(&self, slot: PartitionSlot) -> Option<i64> {
        self.assigned
            .iter()
            .find(|a| a.slot == slot)
            .map(|a| a.next_offset)
    }

    fn find(&mut self, slot: PartitionSlot) -> Result<&mut Assigned, FetchError> {
        self.assigned
            .iter_mut()
            .find(|a| a.slot == slot)
            .ok_or_else(|| FetchError::Usage(format!("partition slot {slot} is not assigned")))
    }

    /// Records not fetched yet in all assigned partitions, as of the last responses (what
    /// Flink reports as `pendingRecords`).
    pub fn pending_records(&self) -> i64 {
        self.assigned
            .iter()
            .fold(0i64, |sum, a| sum.saturating_add(a.lag))
    }

    /// Whether any assigned partition is still to be fetched.
    pub fn has_work(&self) -> bool {
        self.assigned
            .iter()
            .any(|a| !a.paused && a.next_offset < a.stop_offset)
    }

    /// Sends one Fetch request to each leader of a partition still to be read, and hands
    /// every record of the responses, in offset order per partition, to `each` with its
    /// slot. A connection that fails is dropped (the next poll reconnects) and its
    /// partitions are reported in [`Polled::leader_changed`] (the poll fails after
    /// [`MAX_CONNECTION_FAILURES`] in a row); so are partition errors that mean a leader
    /// change; out-of-range offsets are reported in [`Polled::out_of_range`]; other errors
    /// fail the poll.
    pub fn poll<E>(
        &mut self,
        mut each: impl FnMut(PartitionSlot, &Record<'_>) -> Result<(), E>,
    ) -> Result<Result<Polled, E>, FetchError> {
        let mut polled = Polled::default();
        let (sent, failed) = self.send_requests()?;
        for broker in &failed {
            polled.leader_changed.extend(
                self.assigned
                    .iter()
                    .filter(|a| &a.leader == broker)
                    .map(|a| a.slot),
            );
        }
        if !sent {
            // Nothing to fetch (all paused or finished): wait as a fetch with no data would.
            let wait = u64::try_from(self.limits.max_wait_ms.clamp(0, 100)).unwrap_or(0);
            std::thread::sleep(Duration::from_millis(wait));
            return Ok(Ok(polled));
        }
        let responses = std::mem::take(&mut self.responses);
        let mut outcome = Ok(());
        for (broker, correlation, buf) in &responses {
            let parts = parse_fetch_response(buf, *correlation).map_err(|reason| {
                self.connections.remove(broker);
                FetchError::Protocol {
                    broker: broker.clone(),
                    reason,
                }
            })?;
            for part in parts {
                let Some(assigned) = self
                    .assigned
                    .iter_mut()
                    .find(|a| a.topic == part.topic && a.partition == part.partition)
                else {
                    continue;
                };
                if part.error_code != 0 {
                    if part.error_code == OFFSET_OUT_OF_RANGE {
                        polled.out_of_range.push(assigned.slot);
                        continue;
                    }
                    if is_leader_change(part.error_code) {
                        polled.leader_changed.push(assigned.slot);
                        continue;
                    }
                    return Err(FetchError::Partition {
                        topic: part.topic,
                        partition: part.partition,
                        offset: assigned.next_offset,
                        code: part.error_code,
                        name: error_name(part.error_code),
                    });
                }
                let mut batches = RecordBatches::new(
                    &assigned.topic,
                    assigned.partition,
                    &buf[part.records.clone()],
                    assigned.next_offset,
                    assigned.stop_offset,
                    self.isolation == Isolation::ReadCommitted,
                    part.aborted,
                );
                let slot = assigned.slot;
                let records = &mut polled.records;
                let walked = batches.walk(|record| {
                    *records += 1;
                    each(slot, record)
                })?;
                if let Err(e) = walked {
                    outcome = Err(e);
                    break;
                }
                assigned.next_offset = batches.next_offset();
                let end = if self.isolation == Isolation::ReadCommitted {
                    part.last_stable_offset
                } else {
                    part.high_watermark
                };
                // The end comes from the broker: any value, so no overflow either way.
                assigned.lag = end
                    .min(assigned.stop_offset)
                    .saturating_sub(assigned.next_offset)
                    .max(0);
                if assigned.next_offset >= assigned.stop_offset {
                    polled.finished.push(assigned.slot);
                }
            }
            if outcome.is_err() {
                break;
            }
        }
        self.responses = responses;
        Ok(outcome.map(|()| polled))
    }

    /// Sends the requests of this poll and reads their responses into `self.responses`;
    /// `false` when there was nothing to fetch. A broker whose connection fails is dropped
    /// from this poll and returned (its partitions are then reported as leader changes, so
    /// the caller looks their leaders up and backs off), until it fails
    /// [`MAX_CONNECTION_FAILURES`] polls in a row: then the poll fails.
    fn send_requests(&mut self) -> Result<(bool, Vec<String>), FetchError> {
        let mut responses = std::mem::take(&mut self.responses);
        let mut used = 0;
        let mut sent: Vec<(String, i32)> = Vec::new();
        let mut failed: Vec<String> = Vec::new();
        let mut start = 0;
        while start < self.assigned.len() {
            let leader = self.assigned[start].leader.clone();
            let end = start
                + self.assigned[start..]
                    .iter()
                    .take_while(|a| a.leader == leader)
                    .count();
            let fetches: Vec<PartitionFetch<'_>> = self.assigned[start..end]
                .iter()
                .filter(|a| !a.paused && a.next_offset < a.stop_offset)
                .map(|a| PartitionFetch {
                    topic: &a.topic,
                    partition: a.partition,
                    offset: a.next_offset,
                })
                .collect();
            start = end;
            if fetches.is_empty() {
                continue;
            }
            self.correlation = self.correlation.wrapping_add(1);
            write_fetch_request(
                &mut self.request,
                self.correlation,
                &self.client_id,
                &self.limits,
                self.isolation == Isolation::ReadCommitted,
                &fetches,
            );
            let written = connection(&mut self.connections, &leader, self.socket_timeout).and_then(
                |stream| {
                    stream
                        .write_all(&self.request)
                        .map_err(|source| FetchError::Io {
                            broker: leader.clone(),
                            source,
                        })
                },
            );
            match written {
                Ok(()) => sent.push((leader, self.correlation)),
                Err(e) => {
                    self.connection_failed(&leader, e)?;
                    failed.push(leader);
                }
            }
        }
        for (broker, correlation) in sent {
            if responses.len() <= used {
                responses.push((String::new(), 0, Vec::new()));
            }
            let slot = &mut responses[used];
            let Some(stream) = self.connections.get_mut(&broker) else {
                return Err(FetchError::Usage(format!("no connection to {broker}")));
            };
            match read_frame(stream, &mut slot.2) {
                Ok(()) => {
                    slot.0.clone_from(&broker);
                    slot.1 = correlation;
                    used += 1;
                    self.connection_failures.remove(&broker);
                }
                Err(source) => {
                    let error = FetchError::Io {
                        broker: broker.clone(),
                        source,
                    };
                    self.connection_failed(&broker, error)?;
                    failed.push(broker);
                }
            }
        }
        responses.truncate(used);
        self.responses = responses;
        Ok((used > 0 || !failed.is_empty(), failed))
    }

    /// Drops the connection to `broker` after `error`; fails once the broker has failed
    /// [`MAX_CONNECTION_FAILURES`] polls in a row.
    fn connection_failed(&mut self, broker: &str, error: FetchError) -> Result<(), FetchError> {
        self.connections.remove(broker);
        let failures = self
            .connection_failures
            .entry(broker.to_string())
            .or_insert(0);
        *failures += 1;
        if *failures >= MAX_CONNECTION_FAILURES {
            return Err(error);
        }
        Ok(())
    }
}

/// The connection to `broker`, opened on first use.
fn connection<'c>(
    connections: &'c mut HashMap<String, TcpStream>,
    broker: &str,
    timeout: Duration,
) -> Result<&'c mut TcpStream, FetchError> {
    if !connections.contains_key(broker) {
        let io = |source| FetchError::Io {
            broker: broker.to_string(),
            source,
        };
        let address = broker
            .to_socket_addrs()
            .map_err(io)?
            .next()
            .ok_or_else(|| io(std::io::Error::other("the address resolves to nothing")))?;
        let stream = TcpStream::connect_timeout(&address, Duration::from_secs(30)).map_err(io)?;
        if crate::connection::is_self_connected(&stream) {
            // No broker on a loopback port in the ephemeral range: see `Connection::open`.
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                format!("no broker listening on {address} (the socket connected to itself)"),
            )));
        }
        stream.set_nodelay(true).map_err(io)?;
        stream.set_read_timeout(Some(timeout)).map_err(io)?;
        stream.set_write_timeout(Some(timeout)).map_err(io)?;
        connections.insert(broker.to_string(), stream);
    }
    connections
        .get_mut(broker)
        .ok_or_else(|| FetchError::Usage(format!("no connection to {broker}")))
}

/// Reads one size-prefixed response into `buf`.
fn read_frame(stream: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<()> {
    let mut size = [0u8; 4];
    stream.read_exact(&mut size)?;
    let size = usize::try_from(i32::from_be_bytes(size))
        .map_err(|_| std::io::Error::other("negative response size"))?;
    buf.resize(size, 0);
    stream.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leader nobody listens on (connection refused at once on loopback).
    const NOBODY: &str = "127.0.0.1:1";

    #[test]
    fn a_refused_connection_reports_a_leader_change_until_it_failed_too_often() {
        let mut session =
            FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
        session.assign(7, "topic", 0, NOBODY, 0, i64::MAX);
        for _ in 1..MAX_CONNECTION_FAILURES {
            let polled = session
                .poll(|_, _| -> Result<(), ()> { Ok(()) })
                .expect("a failure below the limit is reported, not raised")
                .expect("no record");
            assert_eq!(polled.leader_changed, vec![7]);
            assert_eq!(polled.records, 0);
        }
        let e = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .expect_err("the limit fails the poll")
            .to_string();
        assert!(e.contains(NOBODY), "{e}");
    }

    #[test]
    fn a_poll_hands_out_records_and_reports_lag_finished_leader_moves_and_out_of_range() {
        use crate::records::test_batches::{fake_broker, fetch_response, BatchSpec, TestPartition};
        let batch = BatchSpec::new(0).values(&[b"a", b"b", b"c"]).encode();
        let broker = fake_broker(vec![
            Box::new(move |c| fetch_response(c, &TestPartition::new("t", 0, 0, 10), &batch)),
            Box::new(|c| fetch_response(c, &TestPartition::new("t", 0, 6, 10), &[])),
            Box::new(|c| fetch_response(c, &TestPartition::new("t", 0, 1, 10), &[])),
        ]);
        let mut session =
            FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
        session.assign(4, "t", 0, &broker, 0, i64::MAX);
        let mut seen = Vec::new();
        let polled = session
            .poll(|slot, r| -> Result<(), ()> {
                seen.push((slot, r.offset, r.value.map(<[u8]>::to_vec)));
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(
            seen,
            vec![
                (4, 0, Some(b"a".to_vec())),
                (4, 1, Some(b"b".to_vec())),
                (4, 2, Some(b"c".to_vec()))
            ]
        );
        assert_eq!(polled.records, 3);
        assert_eq!(session.next_offset(4), Some(3));
        // High watermark 10, next offset 3.
        assert_eq!(session.pending_records(), 7);
        let moved = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .unwrap()
            .unwrap();
        assert_eq!(moved.leader_changed, vec![4]);
        let out = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .unwrap()
            .unwrap();
        assert_eq!(out.out_of_range, vec![4]);
    }

    /// The watermarks are the broker's: the lag of a partition and the sum over partitions
    /// saturate instead of overflowing (a panic in debug, a wrapped count in release).
    #[test]
    fn lag_from_extreme_watermarks_saturates() {
        use crate::records::test_batches::{fake_broker, fetch_response, BatchSpec, TestPartition};
        let batch = BatchSpec::new(0).values(&[b"a"]).encode();
        let broker = fake_broker(vec![
            Box::new(move |c| fetch_response(c, &TestPartition::new("t", 0, 0, i64::MAX), &batch)),
            Box::new(|c| fetch_response(c, &TestPartition::new("t", 1, 0, i64::MAX), &[])),
        ]);
        let mut session =
            FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
        // Two partitions on one leader: one request, one response each poll; the first
        // response answers partition 0, the second partition 1.
        session.assign(0, "t", 0, &broker, 0, i64::MAX);
        session.assign(1, "t", 1, &broker, i64::MIN + 1, i64::MAX);
        for _ in 0..2 {
            session
                .poll(|_, _| -> Result<(), ()> { Ok(()) })
                .unwrap()
                .unwrap();
        }
        assert_eq!(session.pending_records(), i64::MAX);
    }

    #[test]
    fn a_bounded_partition_finishes_at_its_stop_offset() {
        use crate::records::test_batches::{fake_broker, fetch_response, BatchSpec, TestPartition};
        let batch = BatchSpec::new(0).values(&[b"a", b"b", b"c"]).encode();
        let broker = fake_broker(vec![Box::new(move |c| {
            fetch_response(c, &TestPartition::new("t", 0, 0, 3), &batch)
        })]);
        let mut session =
            FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
        session.assign(1, "t", 0, &broker, 0, 2);
        let polled = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .unwrap()
            .unwrap();
        assert_eq!((polled.records, polled.finished), (2, vec![1]));
        assert_eq!(session.pending_records(), 0);
        assert!(!session.has_work());
    }

    #[test]
    fn nothing_to_fetch_waits_briefly_and_returns_nothing() {
        let mut session =
            FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
        session.assign(1, "topic", 0, NOBODY, 5, 5);
        assert!(!session.has_work());
        let polled = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .expect("no request is sent")
            .expect("no record");
        assert_eq!(polled, Polled::default());
        session.assign(1, "topic", 0, NOBODY, 0, 5);
        session.set_paused(1, true).expect("assigned");
        assert!(!session.has_work());
        assert!(session.set_paused(2, true).is_err());
    }
}
