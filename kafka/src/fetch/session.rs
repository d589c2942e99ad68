//! A fetch session: the partitions one reader is assigned, each with its leader, next
//! offset and stopping offset, and one connection per leader.
//!
//! What the broker's bytes decide is bounded here and below: a response frame is read only
//! up to [`response_limit`] (what `fetch.max.bytes` allows plus a slack for the one batch
//! a broker returns whole past it), each batch decompresses to at most 256 MiB
//! ([`crate::compression`]), and counts, lengths and offsets are checked ([`crate::records`]).
//! Partition error codes are handled as Kafka's Java consumer handles them
//! ([`super::partition_errors`]). Leader epochs (KIP-320): each partition's leader and epoch
//! come from a Metadata request of the session's own ([`super::leaders`]), the epoch is sent
//! as `current_leader_epoch` and the epoch of the last batch read as `last_fetched_epoch`, and
//! a diverging epoch in the answer reports a log truncation ([`Polled::truncated`]); a throttled response makes the session wait out the
//! throttle before its next request to that broker (KIP-219); a wake-up ([`Wakeup`]) ends a
//! blocked poll within [`crate::wakeup::SLICE`], leaving a request whose response has not
//! started in flight, to be read by the next poll.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::connection::{Connection, ConnectionConfig, ConnectionError};
use crate::error::{error_name, FetchError};
use crate::fetch::leaders::{leader_update, lookup, LeaderUpdate};
use crate::fetch::partition_errors::{partition_action, PartitionAction};
use crate::fetch::request::{
    write_fetch_request, FetchLimits, PartitionFetch, SessionMeta, FETCH_API_KEY, FETCH_VERSION,
};
use crate::fetch::response::{parse_fetch_response, DivergingEpoch, FetchResponse};
use crate::records::{Record, RecordBatches};
use crate::wakeup::Wakeup;

/// Polls in a row a broker's connection may fail before the poll fails, once it has also been
/// unreachable for [`UNREACHABLE_LIMIT`] (each failure is followed by a leader lookup and a
/// back-off on the Java side).
const MAX_CONNECTION_FAILURES: u32 = 10;

/// How long a broker may stay unreachable before the poll fails (with at least
/// [`MAX_CONNECTION_FAILURES`] failures in a row). A killed broker stays the leader of its
/// partitions until the controller fences it (`broker.session.timeout.ms`, 9 s by default)
/// and a new leader is elected; Kafka's consumer waits that out (it never gives up on a
/// broker), and so does the session, for up to this long.
pub const UNREACHABLE_LIMIT: Duration = Duration::from_secs(60);

/// How long a preferred read replica (KIP-392) is fetched from before the leader is asked
/// again: Kafka's consumer keeps it for `metadata.max.age.ms` (5 minutes by default).
pub const READ_REPLICA_TTL: Duration = Duration::from_secs(300);

/// The first back-off of a preferred read replica that failed (Kafka's `reconnect.backoff.ms`
/// default): while it lasts, a leader naming that replica is not followed and its partitions
/// are fetched from the leader.
pub const REPLICA_BACKOFF: Duration = Duration::from_millis(50);

/// The longest back-off of a failing preferred read replica (Kafka's
/// `reconnect.backoff.max.ms` default); the back-off doubles per failure in a row up to it.
pub const REPLICA_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The back-off of a preferred read replica after `failures` failures in a row (1, 2, ...):
/// [`REPLICA_BACKOFF`] doubled per failure after the first, at most [`REPLICA_BACKOFF_MAX`],
/// as Kafka's client backs off reconnecting to a node (without its jitter).
pub fn replica_backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    REPLICA_BACKOFF
        .saturating_mul(1u32 << doublings)
        .min(REPLICA_BACKOFF_MAX)
}

/// A preferred read replica that failed: how often in a row, and until when it is not used.
#[derive(Debug, Clone, Copy)]
struct ReplicaBackoff {
    failures: u32,
    until: Instant,
}

/// How long a partition that came back with a retriable error code waits before it is
/// fetched again (the Java consumer's `retry.backoff.ms` default).
pub const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// What a response may exceed `fetch.max.bytes` by: the broker returns the first batch
/// whole even when it is larger (KIP-74), so this is the largest such batch read.
pub const RESPONSE_SLACK: usize = 64 * 1024 * 1024;

/// The longest a throttle is waited out (a hostile `throttle_time_ms` of days is not).
const MAX_THROTTLE: Duration = Duration::from_secs(30);

/// `request.timeout.ms`'s default: how long a response may take beyond the fetch wait.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// `socket.connection.setup.timeout.ms`'s default.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest fetch response read with `limits`: `fetch.max.bytes` (or
/// `max.partition.fetch.bytes`, when larger) plus [`RESPONSE_SLACK`].
pub fn response_limit(limits: &FetchLimits) -> usize {
    let most = limits.max_bytes.max(limits.partition_max_bytes).max(0);
    usize::try_from(most)
        .unwrap_or(0)
        .saturating_add(RESPONSE_SLACK)
}

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
    /// Not fetched before this instant (after a retriable error code).
    retry_at: Option<Instant>,
    /// The leader epoch from the last Metadata answer taken (-1: unknown), sent as the
    /// request's `current_leader_epoch`.
    leader_epoch: i32,
    /// The leader epoch of the last batch fetched (-1: none yet, or a batch without one),
    /// sent as the request's `last_fetched_epoch`.
    last_fetched_epoch: i32,
    /// The leader and its epoch are to be asked for before the next fetch.
    needs_metadata: bool,
    /// The replica the leader named to fetch from instead of itself (KIP-392), until it
    /// expires or an error from it sends the partition back to the leader.
    read_replica: Option<ReadReplica>,
}

/// A preferred read replica (KIP-392).
#[derive(Debug, Clone)]
struct ReadReplica {
    /// Its broker id.
    node: i32,
    /// Its `host:port`.
    address: String,
    /// When the leader is asked again.
    until: Instant,
}

impl Assigned {
    /// Where the partition is fetched from: its preferred read replica, or its leader.
    fn target(&self) -> &str {
        self.read_replica
            .as_ref()
            .map_or(self.leader.as_str(), |r| r.address.as_str())
    }

    /// Stops fetching from the preferred read replica; `true` if one was set.
    fn clear_read_replica(&mut self) -> bool {
        self.read_replica.take().is_some()
    }

    fn wanted(&self, now: Instant) -> bool {
        !self.paused
            && self.next_offset < self.stop_offset
            && self.retry_at.is_none_or(|t| t <= now)
    }

    /// Whether the leader and its epoch are to be asked for now.
    fn to_look_up(&self, now: Instant) -> bool {
        self.needs_metadata && self.wanted(now)
    }
}

/// What a poll did besides handing out records.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Polled {
    /// Records handed to the callback.
    pub records: u64,
    /// Partitions that reached their stopping offset (they stay assigned, and are not
    /// fetched again).
    pub finished: Vec<PartitionSlot>,
    /// Partitions whose leader the session could not learn itself (its connection failed,
    /// or the Metadata answer named no leader): look the leader up and call
    /// [`FetchSession::set_leader`]. (After the error codes on which Kafka's consumer
    /// refreshes its metadata the session asks for the leader itself.)
    pub leader_changed: Vec<PartitionSlot>,
    /// Partitions whose next offset is outside the log (deleted by retention, or past its
    /// end, or a diverging epoch without an end offset): reset them as `auto.offset.reset`
    /// says and assign them again.
    pub out_of_range: Vec<PartitionSlot>,
    /// Partitions whose leader's log was truncated below their next offset (a diverging
    /// epoch, KIP-320): as Kafka's consumer does, assign them again at the end offset with
    /// the diverging epoch ([`FetchSession::set_last_fetched_epoch`]) when `auto.offset.reset`
    /// names a policy, or fail with Kafka's `LogTruncationException` when it is `none`.
    /// They are not fetched again until assigned again.
    pub truncated: Vec<Truncation>,
    /// Partitions that came back with a retriable error code, or in a response with a
    /// top-level error, with their codes: they are fetched again after [`RETRY_BACKOFF`],
    /// after a metadata refresh for the codes after which Kafka's consumer refreshes its
    /// metadata ([`PartitionAction::RefreshLeader`]).
    pub retried: Vec<(PartitionSlot, i16)>,
    /// Partitions a Metadata answer gave an epoch older than the one known: the answer was
    /// ignored, as Kafka's consumer ignores stale metadata (slot, ignored epoch).
    pub stale_metadata: Vec<(PartitionSlot, i32)>,
    /// The poll ended early because of a wake-up.
    pub woken: bool,
}

/// A partition whose leader's log ends, for the last epoch fetched, below the partition's
/// next offset: the records after the end offset are gone (an unclean leader election).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// The partition.
    pub slot: PartitionSlot,
    /// Its next offset (the fetch offset).
    pub offset: i64,
    /// The diverging epoch: the largest epoch of the leader's log not after the last
    /// fetched epoch.
    pub epoch: i32,
    /// Where the leader's log ends for that epoch (>= 0, below `offset`): the first offset
    /// known to diverge, which Kafka's consumer resets to.
    pub end_offset: i64,
}

/// A request sent and not answered yet.
#[derive(Debug)]
struct InFlight {
    correlation: i32,
    /// When the request was sent (for the fetch latency).
    sent: Instant,
    /// When the response is due at the latest.
    deadline: Instant,
    /// The session epoch sent (-1: none).
    session_epoch: i32,
    /// The slots fetched and the offset each was fetched from: a response whose offset is
    /// no longer the partition's next offset is stale and dropped, as the consumer drops it.
    fetched: Vec<(PartitionSlot, i64)>,
}

/// One broker: its connection, the request in flight, its throttle, its failures.
#[derive(Default)]
struct Broker {
    connection: Option<Connection>,
    in_flight: Option<InFlight>,
    throttled_until: Option<Instant>,
    failures: u32,
    /// When the failures in a row began.
    failing_since: Option<Instant>,
    /// The fetch session with this broker (KIP-227).
    fetch_session: SessionState,
}

/// A broker's fetch session (KIP-227), kept as Kafka's `FetchSessionHandler` keeps it: the
/// session id the broker gave, the epoch of the next request (0: a full fetch asking for a new
/// session, after none was made, a session error or a new connection), and what the session
/// holds, so an incremental request names only the partitions whose fetch changed (a new
/// offset or epoch, a partition added) and forgets those no longer fetched.
#[derive(Default)]
struct SessionState {
    id: i32,
    epoch: i32,
    /// Per (topic, partition): the (offset, current leader epoch, last fetched epoch) sent.
    sent: HashMap<(String, i32), (i64, i32, i32)>,
}

/// FETCH_SESSION_ID_NOT_FOUND: the broker evicted the session; the next fetch is full, for a
/// new one.
const FETCH_SESSION_ID_NOT_FOUND: i16 = 70;
/// INVALID_FETCH_SESSION_EPOCH: the next fetch is full, closing the session for a new one.
const INVALID_FETCH_SESSION_EPOCH: i16 = 71;

/// One response read this poll.
#[derive(Default)]
struct Response {
    broker: String,
    correlation: i32,
    session_epoch: i32,
    fetched: Vec<(PartitionSlot, i64)>,
    buf: Vec<u8>,
}

/// Fetches the assigned partitions from their leaders. Not thread-safe, except its
/// [`Wakeup`] ([`FetchSession::wakeup`]), which any thread may use.
pub struct FetchSession {
    isolation: Isolation,
    limits: FetchLimits,
    config: ConnectionConfig,
    response_limit: usize,
    assigned: Vec<Assigned>,
    brokers: HashMap<String, Broker>,
    responses: Vec<Response>,
    used: usize,
    wakeup: Wakeup,
    /// `client.rack` (empty: none).
    rack: String,
    /// `host:port` of each broker id, from the last Metadata answer.
    nodes: HashMap<i32, String>,
    /// Records handed out, by the broker (`host:port`) they were fetched from.
    records_by_broker: HashMap<String, u64>,
    /// See [`UNREACHABLE_LIMIT`].
    unreachable_limit: Duration,
    /// Fetch sessions (KIP-227) are used.
    fetch_sessions: bool,
    /// Fetch requests sent: full, incremental, and their bytes.
    requests: (u64, u64, u64),
    /// Preferred read replicas (`host:port`) that failed and are backing off.
    replica_backoff: HashMap<String, ReplicaBackoff>,
    /// The fetch responses the last poll read.
    last_fetches: FetchLatencies,
}

/// The fetch responses of one poll and how long they took (Kafka's consumer records each
/// response's latency in `fetch-latency-avg`/`-max` and counts it in `fetch-rate`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FetchLatencies {
    /// Responses read.
    pub responses: u64,
    /// Their latencies (request sent to response read) summed, in microseconds.
    pub total_micros: u64,
    /// The longest of them, in microseconds.
    pub max_micros: u64,
}

impl FetchSession {
    /// A session with no partitions.
    pub fn new(client_id: &str, isolation: Isolation, limits: FetchLimits) -> Self {
        let wakeup = Wakeup::new();
        let response_limit = response_limit(&limits);
        FetchSession {
            isolation,
            limits,
            config: ConnectionConfig {
                client_id: client_id.to_string(),
                connect_timeout: CONNECT_TIMEOUT,
                request_timeout: REQUEST_TIMEOUT,
                max_response_bytes: response_limit,
                wakeup: Some(wakeup.clone()),
                security: crate::security::Security::default(),
            },
            response_limit,
            assigned: Vec::new(),
            brokers: HashMap::new(),
            responses: Vec::new(),
            used: 0,
            wakeup,
            rack: String::new(),
            nodes: HashMap::new(),
            records_by_broker: HashMap::new(),
            unreachable_limit: UNREACHABLE_LIMIT,
            fetch_sessions: true,
            replica_backoff: HashMap::new(),
            last_fetches: FetchLatencies::default(),
            requests: (0, 0, 0),
        }
    }

    /// Fetch requests sent so far: (full, incremental (KIP-227)).
    pub fn fetch_requests(&self) -> (u64, u64) {
        (self.requests.0, self.requests.1)
    }

    /// Bytes of the Fetch requests sent so far (size prefixes included).
    pub fn fetch_request_bytes(&self) -> u64 {
        self.requests.2
    }

    /// This session with fetch sessions (KIP-227, the default, as Kafka's consumer) or with a
    /// full fetch of every partition on every request (`false`). Set before the first poll.
    pub fn with_fetch_sessions(mut self, on: bool) -> Self {
        self.fetch_sessions = on;
        self
    }

    /// This session fetching as a client in rack `rack` (`client.rack`; empty: none): a
    /// leader on a broker with a rack-aware `replica.selector.class` then names a replica to
    /// fetch from instead (KIP-392), which the session follows as Kafka's consumer does:
    /// until [`READ_REPLICA_TTL`] passes, or the replica answers with an error after which
    /// the consumer refreshes its metadata, or out of range, or cannot be reached (then back
    /// to the leader). Set before the first poll.
    pub fn with_rack(mut self, rack: &str) -> Self {
        self.rack = rack.to_string();
        self
    }

    /// Where `slot` is fetched from now (`host:port`): its preferred read replica, or its
    /// leader.
    pub fn fetching_from(&self, slot: PartitionSlot) -> Option<&str> {
        self.assigned
            .iter()
            .find(|a| a.slot == slot)
            .map(Assigned::target)
    }

    /// The leader `slot` is known to have (`host:port`).
    pub fn leader(&self, slot: PartitionSlot) -> Option<&str> {
        self.assigned
            .iter()
            .find(|a| a.slot == slot)
            .map(|a| a.leader.as_str())
    }

    /// The broker id of the preferred read replica `slot` is fetched from (KIP-392), if any.
    pub fn read_replica(&self, slot: PartitionSlot) -> Option<i32> {
        self.assigned
            .iter()
            .find(|a| a.slot == slot)
            .and_then(|a| a.read_replica.as_ref().map(|r| r.node))
    }

    /// Records handed out so far, by the broker (`host:port`) they were fetched from.
    pub fn records_by_broker(&self) -> &HashMap<String, u64> {
        &self.records_by_broker
    }

    /// The fetch responses the last poll read, with their latencies.
    pub fn last_fetches(&self) -> FetchLatencies {
        self.last_fetches
    }

    /// The largest lag of an assigned partition (records between its next offset and the end
    /// the last response reported), as Kafka's `records-lag-max` takes it; 0 with none.
    pub fn max_lag(&self) -> i64 {
        self.assigned
            .iter()
            .map(|a| a.lag)
            .max()
            .unwrap_or(0)
            .max(0)
    }

    /// Sorts the partitions by where they are fetched from, then topic (a request per broker,
    /// partitions grouped by topic).
    fn sort_assigned(&mut self) {
        self.assigned
            .sort_by(|a, b| (a.target(), a.topic.as_str()).cmp(&(b.target(), b.topic.as_str())));
    }

    /// The partitions fetched from `broker`, whose connection failed: those read from a
    /// preferred read replica go back to their leader (as Kafka's consumer clears the
    /// replica after a failed fetch), the others are reported as leader changes.
    /// A replica that failed backs off ([`replica_backoff`]): the leader's naming it again is
    /// not followed until the back-off has passed, so its partitions stay on their leader.
    fn target_failed(&mut self, broker: &str, polled: &mut Polled) {
        let mut was_replica = false;
        for a in self.assigned.iter_mut().filter(|a| a.target() == broker) {
            if a.clear_read_replica() {
                a.needs_metadata = true;
                was_replica = true;
            } else {
                polled.leader_changed.push(a.slot);
            }
        }
        if was_replica {
            let now = Instant::now();
            let b = self
                .replica_backoff
                .entry(broker.to_string())
                .or_insert(ReplicaBackoff {
                    failures: 0,
                    until: now,
                });
            b.failures = b.failures.saturating_add(1);
            b.until = now + replica_backoff(b.failures);
        }
        self.sort_assigned();
    }

    /// Whether the preferred read replica at `address` is backing off after failing.
    pub fn replica_backing_off(&self, address: &str) -> bool {
        self.replica_backoff
            .get(address)
            .is_some_and(|b| b.until > Instant::now())
    }

    /// This session with its connections secured as `security` says (TLS, SASL); set before
    /// the first poll.
    pub fn with_security(mut self, security: crate::security::Security) -> Self {
        self.config.security = security;
        self
    }

    /// The wake-up of this session: [`Wakeup::wake`] from any thread ends the poll that is
    /// blocked now (or the next one) early, with [`Polled::woken`] set.
    pub fn wakeup(&self) -> Wakeup {
        self.wakeup.clone()
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
        // A re-assignment keeps the epoch known: an answer older than it stays stale.
        let leader_epoch = self
            .assigned
            .iter()
            .find(|a| a.slot == slot && a.topic == topic && a.partition == partition)
            .map_or(-1, |a| a.leader_epoch);
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
            retry_at: None,
            leader_epoch,
            last_fetched_epoch: -1,
            needs_metadata: true,
            read_replica: None,
        });
        self.sort_assigned();
    }

    /// Forgets `slot` (no-op when unknown).
    pub fn unassign(&mut self, slot: PartitionSlot) {
        self.assigned.retain(|a| a.slot != slot);
    }

    /// Sets the leader of `slot` after a leader change (its epoch is asked of it before the
    /// next fetch).
    pub fn set_leader(&mut self, slot: PartitionSlot, leader: &str) -> Result<(), FetchError> {
        let a = self.find(slot)?;
        a.leader = leader.to_string();
        a.needs_metadata = true;
        a.read_replica = None;
        self.sort_assigned();
        Ok(())
    }

    /// Sets the epoch of the last batch fetched of `slot` (-1: none; any negative value is
    /// taken as none): what Kafka's consumer keeps with a position it resets to after a log
    /// truncation.
    pub fn set_last_fetched_epoch(
        &mut self,
        slot: PartitionSlot,
        epoch: i32,
    ) -> Result<(), FetchError> {
        self.find(slot)?.last_fetched_epoch = epoch.max(-1);
        Ok(())
    }

    /// The leader epoch `slot` is fetched at (`current_leader_epoch`) and the epoch of its
    /// last batch fetched (`last_fetched_epoch`); -1 when unknown.
    pub fn epochs(&self, slot: PartitionSlot) -> Option<(i32, i32)> {
        self.assigned
            .iter()
            .find(|a| a.slot == slot)
            .map(|a| (a.leader_epoch, a.last_fetched_epoch))
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

    /// Sends one Fetch request to each leader of a partition still to be read (unless one
    /// is in flight already, or the broker's throttle has not run out), and hands every
    /// record of the responses, in offset order per partition, to `each` with its slot.
    ///
    /// A connection that fails is dropped (the next poll reconnects) and its partitions
    /// are reported in [`Polled::leader_changed`] (the poll fails after
    /// `MAX_CONNECTION_FAILURES` (10) in a row); partition error codes are handled as
    /// [`super::partition_errors`] says. A TLS listener, an oversized or malformed
    /// response and an unsupported Fetch version fail the poll.
    pub fn poll<E>(
        &mut self,
        mut each: impl FnMut(PartitionSlot, &Record<'_>) -> Result<(), E>,
    ) -> Result<Result<Polled, E>, FetchError> {
        let mut polled = Polled::default();
        self.last_fetches = FetchLatencies::default();
        if self.wakeup.take() {
            polled.woken = true;
            return Ok(Ok(polled));
        }
        let now = Instant::now();
        let mut expired = false;
        for a in &mut self.assigned {
            if a.read_replica.as_ref().is_some_and(|r| r.until <= now) {
                a.read_replica = None;
                expired = true;
            }
        }
        if expired {
            self.sort_assigned();
        }
        if self.refresh_leaders(now, &mut polled)? {
            polled.woken = true;
            return Ok(Ok(polled));
        }
        let failed = self.send_requests(now)?;
        for broker in &failed {
            self.target_failed(broker, &mut polled);
        }
        let waiting = self.brokers.values().any(|b| b.in_flight.is_some());
        if !waiting {
            if failed.is_empty() {
                // Nothing to fetch (all paused, finished, backing off or throttled).
                self.idle(now);
            }
            polled.woken = self.wakeup.take();
            return Ok(Ok(polled));
        }
        self.used = 0;
        if self.read_responses(&mut polled)? {
            polled.woken = self.wakeup.take();
        }
        let responses = std::mem::take(&mut self.responses);
        let outcome = self.handle_responses(&responses[..self.used], &mut polled, &mut each);
        // The response buffers are kept for the next poll.
        self.responses = responses;
        Ok(outcome?.map(|()| polled))
    }

    /// Waits (wake-able) as a fetch that returns nothing would: up to 100 ms, or until
    /// the first back-off or throttle ends (at most `fetch.max.wait.ms`).
    fn idle(&self, now: Instant) {
        let ms = |v: i32| Duration::from_millis(u64::try_from(v.max(0)).unwrap_or(0));
        let next_retry = self.assigned.iter().filter_map(|a| a.retry_at);
        let throttles = self.brokers.values().filter_map(|b| b.throttled_until);
        let until = match next_retry.chain(throttles).filter(|&t| t > now).min() {
            Some(first) => first.min(now + ms(self.limits.max_wait_ms)),
            None => now + ms(self.limits.max_wait_ms.min(100)),
        };
        self.wakeup.sleep_until(until);
    }

    /// Asks the leader of each partition to be fetched whose leader epoch is to be known
    /// ([`super::leaders`]) for it, one Metadata request per broker; `true` when a wake-up
    /// ended the wait. A broker that cannot be reached, or an answer without a leader, is
    /// reported in [`Polled::leader_changed`] (the Java side looks the leader up), and the
    /// partition waits [`RETRY_BACKOFF`]; a malformed answer fails the poll.
    fn refresh_leaders(&mut self, now: Instant, polled: &mut Polled) -> Result<bool, FetchError> {
        let mut brokers: Vec<String> = self
            .assigned
            .iter()
            .filter(|a| a.to_look_up(now))
            .map(|a| a.leader.clone())
            .collect();
        if brokers.is_empty() {
            return Ok(false);
        }
        brokers.sort();
        brokers.dedup();
        for broker in brokers {
            let mut topics: Vec<&str> = self
                .assigned
                .iter()
                .filter(|a| a.leader == broker && a.to_look_up(now))
                .map(|a| a.topic.as_str())
                .collect();
            topics.sort_unstable();
            topics.dedup();
            let answer = match lookup(&broker, &self.config, &topics) {
                Ok(meta) => Some(meta),
                Err(FetchError::Connection(ConnectionError::Woken { .. })) => return Ok(true),
                Err(e @ FetchError::Io { .. }) => {
                    // Counted as the fetch connection's failures are.
                    let b = self.brokers.entry(broker.clone()).or_default();
                    b.connection = None;
                    b.in_flight = None;
                    count_failure(b, e, self.unreachable_limit)?;
                    // As Kafka's consumer asks any broker it knows for metadata: one other
                    // broker of the last answer that does not fail now.
                    match self.other_node(&broker) {
                        Some(other) => match lookup(&other, &self.config, &topics) {
                            Ok(meta) => Some(meta),
                            Err(FetchError::Connection(ConnectionError::Woken { .. })) => {
                                return Ok(true)
                            }
                            Err(FetchError::Io { .. }) => None,
                            Err(e) => return Err(e),
                        },
                        None => None,
                    }
                }
                Err(e) => return Err(e),
            };
            if let Some(meta) = &answer {
                let nodes: HashMap<i32, String> = meta
                    .brokers
                    .iter()
                    .filter(|b| (1..=65535).contains(&b.port) && !b.host.is_empty())
                    .map(|b| (b.node_id, format!("{}:{}", b.host, b.port)))
                    .collect();
                if !nodes.is_empty() {
                    self.nodes = nodes;
                }
            }
            for a in self
                .assigned
                .iter_mut()
                .filter(|a| a.leader == broker && a.to_look_up(now))
            {
                let update = answer.as_ref().map_or(LeaderUpdate::Unknown, |meta| {
                    leader_update(meta, &a.topic, a.partition, a.leader_epoch)
                });
                match update {
                    LeaderUpdate::Leader { leader, epoch } => {
                        a.leader = leader;
                        a.leader_epoch = epoch;
                        a.needs_metadata = false;
                    }
                    LeaderUpdate::Stale { epoch } => {
                        // Fetched from the leader and at the epoch known.
                        a.needs_metadata = false;
                        polled.stale_metadata.push((a.slot, epoch));
                    }
                    LeaderUpdate::Unknown => {
                        a.retry_at = Some(now + RETRY_BACKOFF);
                        polled.leader_changed.push(a.slot);
                    }
                }
            }
        }
        self.sort_assigned();
        Ok(false)
    }

    /// A broker of the last Metadata answer other than `broker`, preferring one this session
    /// is connected to and that has not failed.
    fn other_node(&self, broker: &str) -> Option<String> {
        let mut others: Vec<&String> = self.nodes.values().filter(|n| *n != broker).collect();
        others.sort_by_key(|n| {
            let b = self.brokers.get(n.as_str());
            (
                b.is_none_or(|b| b.failures > 0),
                b.is_none_or(|b| b.connection.is_none()),
                n.as_str(),
            )
        });
        others.first().map(|n| (*n).clone())
    }

    /// Sends this poll's requests; returns the brokers whose connection failed (dropped
    /// from this poll; their partitions are then reported as leader changes), failing once
    /// one has failed [`MAX_CONNECTION_FAILURES`] polls in a row.
    fn send_requests(&mut self, now: Instant) -> Result<Vec<String>, FetchError> {
        let mut failed: Vec<String> = Vec::new();
        let mut start = 0;
        while start < self.assigned.len() {
            let leader = self.assigned[start].target().to_string();
            let end = start
                + self.assigned[start..]
                    .iter()
                    .take_while(|a| a.target() == leader)
                    .count();
            let group = start..end;
            start = end;
            // A broker fetched from only as a preferred read replica never fails the poll: its
            // partitions go back to their leader (the consumer never gives up on a node either).
            let limit = if self.assigned[group.clone()]
                .iter()
                .all(|a| a.read_replica.is_some())
            {
                Duration::MAX
            } else {
                self.unreachable_limit
            };
            let broker = self.brokers.entry(leader.clone()).or_default();
            if broker.in_flight.is_some() || broker.throttled_until.is_some_and(|t| t > now) {
                continue;
            }
            broker.throttled_until = None;
            let all: Vec<PartitionFetch<'_>> = self.assigned[group.clone()]
                .iter()
                .filter(|a| a.wanted(now))
                .map(|a| PartitionFetch {
                    topic: &a.topic,
                    partition: a.partition,
                    offset: a.next_offset,
                    current_leader_epoch: a.leader_epoch,
                    last_fetched_epoch: a.last_fetched_epoch,
                })
                .collect();
            if all.is_empty() {
                continue;
            }
            let state = &mut broker.fetch_session;
            if broker.connection.is_none() {
                // A new connection: a full fetch (the broker may have evicted the session).
                state.epoch = 0;
            }
            let key = |f: &PartitionFetch<'_>| (f.topic.to_string(), f.partition);
            let data =
                |f: &PartitionFetch<'_>| (f.offset, f.current_leader_epoch, f.last_fetched_epoch);
            let mut forgotten_owned: Vec<(String, i32)> = Vec::new();
            let fetches: Vec<PartitionFetch<'_>> = if !self.fetch_sessions || state.epoch == 0 {
                all.clone()
            } else {
                let keep: std::collections::HashSet<(String, i32)> = all.iter().map(key).collect();
                forgotten_owned = state
                    .sent
                    .keys()
                    .filter(|k| !keep.contains(*k))
                    .cloned()
                    .collect();
                forgotten_owned.sort();
                all.iter()
                    .filter(|f| state.sent.get(&key(f)) != Some(&data(f)))
                    .cloned()
                    .collect()
            };
            let forgotten: Vec<(&str, i32)> = forgotten_owned
                .iter()
                .map(|(t, p)| (t.as_str(), *p))
                .collect();
            let meta = if self.fetch_sessions {
                state.sent = all.iter().map(|f| (key(f), data(f))).collect();
                SessionMeta {
                    id: state.id,
                    epoch: state.epoch,
                    forgotten: &forgotten,
                }
            } else {
                SessionMeta::NONE
            };
            let fetched: Vec<(PartitionSlot, i64)> = self.assigned[group]
                .iter()
                .filter(|a| a.wanted(now))
                .map(|a| (a.slot, a.next_offset))
                .collect();
            let sent = send_fetch(
                broker,
                &leader,
                &self.config,
                &self.limits,
                self.isolation,
                &self.rack,
                &meta,
                &fetches,
            );
            match sent {
                Ok((correlation, size)) => {
                    self.requests.2 += size as u64;
                    if meta.epoch > 0 {
                        self.requests.1 += 1;
                    } else {
                        self.requests.0 += 1;
                    }
                    let wait = u64::try_from(self.limits.max_wait_ms.max(0)).unwrap_or(0);
                    broker.in_flight = Some(InFlight {
                        correlation,
                        sent: Instant::now(),
                        session_epoch: meta.epoch,
                        deadline: Instant::now()
                            + Duration::from_millis(wait)
                            + self.config.request_timeout,
                        fetched,
                    });
                }
                Err(FetchError::Connection(ConnectionError::Woken { .. })) => {
                    // Woken while connecting: not the broker's failure.
                    broker.connection = None;
                    return Ok(failed);
                }
                Err(e) => {
                    connection_failed(broker, e, limit)?;
                    failed.push(leader);
                }
            }
        }
        Ok(failed)
    }

    /// Reads the responses of the requests in flight into `self.responses[..self.used]`;
    /// `true` when a wake-up ended the wait.
    fn read_responses(&mut self, polled: &mut Polled) -> Result<bool, FetchError> {
        let mut waiting: Vec<String> = self
            .brokers
            .iter()
            .filter(|(_, b)| b.in_flight.is_some())
            .map(|(name, _)| name.clone())
            .collect();
        waiting.sort();
        for name in waiting {
            let Some(broker) = self.brokers.get_mut(&name) else {
                continue;
            };
            let (Some(connection), Some(in_flight)) =
                (broker.connection.as_mut(), broker.in_flight.as_ref())
            else {
                broker.in_flight = None;
                continue;
            };
            if self.responses.len() <= self.used {
                self.responses.push(Response::default());
            }
            let slot = &mut self.responses[self.used];
            let read = connection.receive_capped(
                &mut slot.buf,
                self.response_limit,
                "'fetch.max.bytes' plus 64 MiB for a batch returned whole: raise \
                 'fetch.max.bytes' if a record batch is larger",
                in_flight.deadline,
            );
            match read {
                Ok(()) => {
                    let done = broker.in_flight.take();
                    if let Some(done) = done {
                        let micros =
                            u64::try_from(done.sent.elapsed().as_micros()).unwrap_or(u64::MAX);
                        let l = &mut self.last_fetches;
                        l.responses += 1;
                        l.total_micros = l.total_micros.saturating_add(micros);
                        l.max_micros = l.max_micros.max(micros);
                        slot.broker.clone_from(&name);
                        slot.correlation = done.correlation;
                        slot.session_epoch = done.session_epoch;
                        slot.fetched = done.fetched;
                        self.used += 1;
                    }
                    broker.failures = 0;
                    broker.failing_since = None;
                    // A replica that answers is no longer backing off.
                    self.replica_backoff.remove(&name);
                }
                Err(ConnectionError::Woken { in_flight, .. }) => {
                    if !in_flight {
                        // Part of the response was read: the stream is unusable.
                        broker.connection = None;
                        broker.in_flight = None;
                    }
                    return Ok(true);
                }
                Err(ConnectionError::Io { broker: b, source }) => {
                    broker.in_flight = None;
                    // Replica-only when it serves some partitions and all of them as a read
                    // replica (a broker serving none is not exempt from the limit).
                    let mut served = self
                        .assigned
                        .iter()
                        .filter(|a| a.target() == name)
                        .peekable();
                    let replica_only =
                        served.peek().is_some() && served.all(|a| a.read_replica.is_some());
                    connection_failed(
                        broker,
                        FetchError::Io { broker: b, source },
                        if replica_only {
                            Duration::MAX
                        } else {
                            self.unreachable_limit
                        },
                    )?;
                    self.target_failed(&name, polled);
                }
                Err(e) => {
                    broker.connection = None;
                    broker.in_flight = None;
                    return Err(FetchError::Connection(e));
                }
            }
        }
        Ok(false)
    }

    /// Walks the responses read this poll.
    fn handle_responses<E>(
        &mut self,
        responses: &[Response],
        polled: &mut Polled,
        each: &mut impl FnMut(PartitionSlot, &Record<'_>) -> Result<(), E>,
    ) -> Result<Result<(), E>, FetchError> {
        let now = Instant::now();
        let mut resort = false;
        let outcome = self.walk_responses(responses, polled, each, now, &mut resort);
        if resort {
            self.sort_assigned();
        }
        outcome
    }

    /// [`FetchSession::handle_responses`]; sets `resort` when a partition's fetch target
    /// changed.
    fn walk_responses<E>(
        &mut self,
        responses: &[Response],
        polled: &mut Polled,
        each: &mut impl FnMut(PartitionSlot, &Record<'_>) -> Result<(), E>,
        now: Instant,
        resort: &mut bool,
    ) -> Result<Result<(), E>, FetchError> {
        for response in responses {
            let FetchResponse {
                throttle_time_ms,
                error_code,
                session_id,
                partitions,
            } = parse_fetch_response(&response.buf, response.correlation, response.fetched.len())
                .map_err(|reason| {
                if let Some(b) = self.brokers.get_mut(&response.broker) {
                    b.connection = None;
                }
                FetchError::Protocol {
                    broker: response.broker.clone(),
                    reason,
                }
            })?;
            if throttle_time_ms > 0 {
                let throttle = Duration::from_millis(u64::try_from(throttle_time_ms).unwrap_or(0))
                    .min(MAX_THROTTLE);
                if let Some(b) = self.brokers.get_mut(&response.broker) {
                    b.throttled_until = Some(now + throttle);
                }
            }
            if response.session_epoch >= 0 {
                if let Some(b) = self.brokers.get_mut(&response.broker) {
                    next_session(
                        &mut b.fetch_session,
                        response.session_epoch,
                        error_code,
                        session_id,
                    );
                }
            }
            if error_code != 0 {
                // The consumer drops such a response and fetches the partitions again (at
                // once after a fetch session error: the next request is a full fetch).
                let session_error = error_code == FETCH_SESSION_ID_NOT_FOUND
                    || error_code == INVALID_FETCH_SESSION_EPOCH;
                for &(slot, offset) in &response.fetched {
                    if let Some(a) = self.assigned.iter_mut().find(|a| a.slot == slot) {
                        if a.next_offset == offset {
                            if !session_error {
                                a.retry_at = Some(now + RETRY_BACKOFF);
                            }
                            polled.retried.push((slot, error_code));
                        }
                    }
                }
                continue;
            }
            for part in partitions {
                let Some(assigned) = self.assigned.iter_mut().find(|a| {
                    a.partition == part.partition && a.topic.as_bytes() == part.topic(&response.buf)
                }) else {
                    continue;
                };
                // Stale: not fetched by this request, or from another offset than the
                // partition's next one (it was re-assigned since): dropped.
                let fetched_from = response
                    .fetched
                    .iter()
                    .find(|(slot, _)| *slot == assigned.slot)
                    .map(|&(_, offset)| offset);
                if fetched_from != Some(assigned.next_offset) {
                    continue;
                }
                assigned.retry_at = None;
                match partition_action(part.error_code) {
                    PartitionAction::Read => {}
                    PartitionAction::OutOfRange => {
                        // From a preferred read replica (behind the leader, or not caught up
                        // yet): back to the leader, as the consumer does; else reset.
                        if !assigned.clear_read_replica() {
                            polled.out_of_range.push(assigned.slot);
                        }
                        *resort = true;
                        continue;
                    }
                    PartitionAction::RefreshLeader => {
                        *resort |= assigned.clear_read_replica();
                        assigned.needs_metadata = true;
                        assigned.retry_at = Some(now + RETRY_BACKOFF);
                        polled.retried.push((assigned.slot, part.error_code));
                        continue;
                    }
                    PartitionAction::Retry => {
                        assigned.retry_at = Some(now + RETRY_BACKOFF);
                        polled.retried.push((assigned.slot, part.error_code));
                        continue;
                    }
                    PartitionAction::Fail => {
                        return Err(FetchError::Partition {
                            topic: assigned.topic.clone(),
                            partition: part.partition,
                            offset: assigned.next_offset,
                            code: part.error_code,
                            name: error_name(part.error_code),
                        });
                    }
                }
                if let Some(diverging) = part.diverging {
                    diverged(assigned, diverging, polled);
                    continue;
                }
                if part.preferred_read_replica >= 0 {
                    // KIP-392: the leader names the replica to fetch from (its answer holds
                    // no records then). A broker id not in the last Metadata answer: the
                    // metadata is refreshed and the partition fetched from the leader.
                    let backing_off = |address: &str| {
                        self.replica_backoff
                            .get(address)
                            .is_some_and(|b| b.until > now)
                    };
                    match self.nodes.get(&part.preferred_read_replica) {
                        // A replica backing off after it failed: the leader serves meanwhile
                        // (the consumer, too, fetches from the leader after clearing it).
                        Some(address) if *address != assigned.leader && backing_off(address) => {
                            *resort |= assigned.clear_read_replica();
                        }
                        Some(address) if *address != assigned.leader => {
                            let moved = assigned.target() != address;
                            assigned.read_replica = Some(ReadReplica {
                                node: part.preferred_read_replica,
                                address: address.clone(),
                                until: now + READ_REPLICA_TTL,
                            });
                            *resort |= moved;
                        }
                        Some(_) => *resort |= assigned.clear_read_replica(),
                        None => assigned.needs_metadata = true,
                    }
                }
                let bytes = &response.buf[part.records.clone()];
                let mut batches = RecordBatches::new(
                    &assigned.topic,
                    assigned.partition,
                    bytes,
                    assigned.next_offset,
                    assigned.stop_offset,
                    self.isolation == Isolation::ReadCommitted,
                    part.aborted,
                );
                let slot = assigned.slot;
                let records = &mut polled.records;
                let before = *records;
                let walked = batches.walk(|record| {
                    *records += 1;
                    each(slot, record)
                });
                if *records > before {
                    *self
                        .records_by_broker
                        .entry(response.broker.clone())
                        .or_default() += *records - before;
                }
                let walked = walked?;
                if let Err(e) = walked {
                    return Ok(Err(e));
                }
                if !bytes.is_empty() && !batches.found_a_batch() {
                    return Err(FetchError::NoProgress {
                        topic: assigned.topic.clone(),
                        partition: part.partition,
                        offset: assigned.next_offset,
                        bytes: bytes.len(),
                    });
                }
                if batches.next_offset() > assigned.next_offset {
                    // The position moves on with the epoch of the last batch looked at, as
                    // the consumer's does.
                    assigned.last_fetched_epoch = batches.last_epoch().unwrap_or(-1);
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
        }
        Ok(Ok(()))
    }
}

/// Sends one Fetch request to `broker` (connecting first when needed); returns its
/// correlation id and size in bytes.
#[allow(clippy::too_many_arguments)]
fn send_fetch(
    broker: &mut Broker,
    name: &str,
    config: &ConnectionConfig,
    limits: &FetchLimits,
    isolation: Isolation,
    rack: &str,
    session: &SessionMeta<'_>,
    fetches: &[PartitionFetch<'_>],
) -> Result<(i32, usize), FetchError> {
    if broker.connection.is_none() {
        let connection = Connection::open(name, config).map_err(connect_error)?;
        // Only Fetch v12 is spoken (topic names; v13 on needs topic ids).
        connection.version(FETCH_API_KEY, "Fetch", FETCH_VERSION, FETCH_VERSION)?;
        broker.connection = Some(connection);
    }
    let Some(connection) = broker.connection.as_mut() else {
        return Err(FetchError::Usage(format!("no connection to {name}")));
    };
    let client_id = &config.client_id;
    let read_committed = isolation == Isolation::ReadCommitted;
    let mut size = 0;
    connection
        .send_with(|out, correlation| {
            write_fetch_request(
                out,
                correlation,
                client_id,
                limits,
                read_committed,
                rack,
                session,
                fetches,
            );
            size = out.len();
        })
        .map(|correlation| (correlation, size))
        .map_err(connect_error)
}

/// The fetch session after the answer to a request of session epoch `sent` (>= 0), as Kafka's
/// `FetchSessionHandler.handleResponse` moves it on: a full fetch answered with a session id
/// makes that session (next epoch 1), without one leaves none (the next fetch asks again); an
/// incremental one moves the epoch on (1 after `i32::MAX`), or ends the session when the
/// broker answers without an id; FETCH_SESSION_ID_NOT_FOUND forgets the session and any other
/// top-level error closes it for a new one (a full fetch next).
fn next_session(state: &mut SessionState, sent: i32, error_code: i16, session_id: i32) {
    match error_code {
        0 if session_id == 0 => {
            state.id = 0;
            state.epoch = 0;
        }
        0 if sent == 0 => {
            state.id = session_id;
            state.epoch = 1;
        }
        0 => state.epoch = sent.checked_add(1).unwrap_or(1),
        FETCH_SESSION_ID_NOT_FOUND => {
            state.id = 0;
            state.epoch = 0;
        }
        _ => state.epoch = 0,
    }
}

/// What a diverging epoch in the answer for `a` means, with the rules of Kafka's consumer
/// (`SubscriptionState.maybeCompleteValidation`, which compares the end offset the leader
/// gives for the position's epoch with the position): an end offset below the next offset
/// is a truncation ([`Polled::truncated`]); an undefined (negative) one is reset as
/// `auto.offset.reset` says ([`Polled::out_of_range`]); one at or past the next offset
/// truncates nothing fetched, and the partition is fetched again with the diverging epoch
/// as its last (or, when that was the epoch sent already, with none, so a broker repeating
/// itself cannot hold the partition in place).
fn diverged(a: &mut Assigned, d: DivergingEpoch, polled: &mut Polled) {
    if d.end_offset < 0 {
        polled.out_of_range.push(a.slot);
    } else if d.end_offset < a.next_offset {
        polled.truncated.push(Truncation {
            slot: a.slot,
            offset: a.next_offset,
            epoch: d.epoch,
            end_offset: d.end_offset,
        });
        // Not fetched again until assigned again.
        a.paused = true;
    } else if d.epoch != a.last_fetched_epoch {
        a.last_fetched_epoch = d.epoch;
    } else {
        a.last_fetched_epoch = -1;
    }
}

/// A connection error: a socket failure (retried as a leader change) or one a retry does
/// not mend.
pub(crate) fn connect_error(e: ConnectionError) -> FetchError {
    match e {
        ConnectionError::Io { broker, source } => FetchError::Io { broker, source },
        other => FetchError::Connection(other),
    }
}

/// Drops the connection to `broker` after `error`; fails at once on an error a retry does
/// not mend, and once the broker has failed [`MAX_CONNECTION_FAILURES`] polls in a row over
/// at least `limit` ([`UNREACHABLE_LIMIT`]).
fn connection_failed(
    broker: &mut Broker,
    error: FetchError,
    limit: Duration,
) -> Result<(), FetchError> {
    broker.connection = None;
    broker.in_flight = None;
    if !matches!(error, FetchError::Io { .. }) {
        return Err(error);
    }
    count_failure(broker, error, limit)
}

/// Counts one more failure of `broker` in a row; `error` once it has failed
/// [`MAX_CONNECTION_FAILURES`] times over at least `limit`.
fn count_failure(
    broker: &mut Broker,
    error: FetchError,
    limit: Duration,
) -> Result<(), FetchError> {
    broker.failures = broker.failures.saturating_add(1);
    let since = *broker.failing_since.get_or_insert_with(Instant::now);
    if broker.failures >= MAX_CONNECTION_FAILURES && since.elapsed() >= limit {
        return Err(error);
    }
    Ok(())
}

#[cfg(test)]
#[path = "session_hostile_tests.rs"]
mod hostile_tests;

#[cfg(test)]
#[path = "session_epoch_tests.rs"]
mod epoch_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// A leader nobody listens on (connection refused at once on loopback).
    const NOBODY: &str = "127.0.0.1:1";

    #[test]
    fn a_refused_connection_reports_a_leader_change_until_it_failed_too_often() {
        let mut session =
            FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
        // Failures are counted; the time a broker may stay unreachable is not waited out here.
        session.unreachable_limit = Duration::ZERO;
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
    fn a_poll_hands_out_records_and_reports_lag_finished_moved_leaders_and_out_of_range() {
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
        // NOT_LEADER_OR_FOLLOWER: retried after a metadata refresh (the peer still leads).
        let moved = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .unwrap()
            .unwrap();
        assert_eq!(moved.retried, vec![(4, 6)]);
        let mut out = Polled::default();
        while out.out_of_range.is_empty() {
            out = session
                .poll(|_, _| -> Result<(), ()> { Ok(()) })
                .unwrap()
                .unwrap();
        }
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

#[cfg(test)]
#[path = "session_replica_tests.rs"]
mod replica_tests;

#[cfg(test)]
#[path = "session_incremental_tests.rs"]
mod incremental_tests;
