//! The native producer: records appended to one open batch per partition, batches sent to
//! partition leaders in pipelined Produce requests, acknowledgements read, and failures
//! handled as Kafka's Java producer handles them (`Sender`, `TransactionManager`).
//!
//! Driven by its caller (no thread of its own): [`Producer::append`] adds a record and sends
//! what is ready (full batches; batches older than `linger.ms`), reading the responses that
//! have arrived; [`Producer::poll`] does the same without a record; [`Producer::flush`] sends
//! everything and waits until every batch is acknowledged or has failed.
//!
//! Idempotence: one producer id and epoch (InitProducerId), a sequence number per partition
//! and batch, at most `max.in.flight.requests.per.connection` requests in flight per broker and
//! one batch per partition per request. A retriable error (Kafka's classification,
//! [`crate::error_codes`]) puts the partition's unacknowledged batches back in sequence
//! order, sent one at a time until the first is acknowledged (no reordering); the broker
//! answers DUPLICATE_SEQUENCE_NUMBER for a batch it already has (success, no duplicate).
//! UNKNOWN_PRODUCER_ID and a real sequence gap bump the epoch (InitProducerId with the
//! current id and epoch, KIP-360) and restart every partition's sequences at 0. Errors that
//! mean stale metadata refresh it (and KIP-951's new leader in the response is used at once).
//! A batch not acknowledged within `delivery.timeout.ms` of its creation fails. Any failure
//! that is not retried fails the producer: the next call returns it (Flink's sink fails the
//! job on the first failed send).
//!
//! Transactions (`transactional.id`): [`Producer::init_transactions`] gets the id's producer id
//! and epoch from its coordinator ([`crate::produce::transaction`]), fencing older producers of
//! the id; [`Producer::begin_transaction`], appends, then [`Producer::commit_transaction`] or
//! [`Producer::abort_transaction`]; Flink's two-phase commit instead flushes
//! ([`Producer::flush`]) and hands the id, producer id and epoch to a committer that ends the
//! transaction later ([`crate::produce::Coordinator::end_transaction`]). Under transaction
//! protocol 1 every partition is added with AddPartitionsToTxn before its first batch is sent;
//! under protocol 2 the first batch adds it (Produce v12) and every EndTxn bumps the epoch. In a
//! transaction, errors that would bump an idempotent producer's epoch (UNKNOWN_PRODUCER_ID, a
//! sequence gap) fail the producer instead: the transaction must be aborted, which Flink does
//! by restarting from its last checkpoint.
//!
//! Memory: the bytes of open and unacknowledged batches are bounded by `buffer.memory`; an
//! append that would pass it sends what is ready and waits for acknowledgements, up to
//! `max.block.ms`, then fails as Kafka's producer does. A batch the broker refuses as too
//! large (MESSAGE_TOO_LARGE) is split in two and both halves sent again (down to single
//! records, which then fail); throttled brokers (a throttle time in a response) get no request
//! until the time has passed; the buffers of acknowledged batches are reused for new ones.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use crate::compression::Codec;
use crate::connection::{Connection, ConnectionConfig, ConnectionError};
use crate::error_codes;
use crate::produce::error::ProduceError;
use crate::produce::transaction::{Coordinator, ProducerIdAndEpoch};
use crate::protocol::{init_producer_id, metadata, produce};
use crate::records::{BatchBuilder, ClosedBatch, ProducerStamp, RecordBatches, RecordRef};

const NOT_LEADER_OR_FOLLOWER: i16 = 6;
const FENCED_LEADER_EPOCH: i16 = 74;
const OUT_OF_ORDER_SEQUENCE_NUMBER: i16 = 45;
const DUPLICATE_SEQUENCE_NUMBER: i16 = 46;
const UNKNOWN_PRODUCER_ID: i16 = 59;
const MESSAGE_TOO_LARGE: i16 = 10;
const NETWORK_EXCEPTION: i16 = 13;
const INVALID_PRODUCER_EPOCH: i16 = 47;
const INVALID_TXN_STATE: i16 = 48;
const PRODUCER_FENCED: i16 = 90;

/// The longest a waiting round blocks on one broker before looking at the clock again.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Buffers of acknowledged batches kept for new ones.
const FREE_BUFFERS: usize = 16;

/// Appends between two reads of the clock for `linger.ms`.
const CLOCK_EVERY: u32 = 16;

/// The producer's settings, named as Kafka's producer configuration names them.
#[derive(Debug, Clone)]
pub struct ProducerConfig {
    /// `bootstrap.servers` (`host:port` each).
    pub bootstrap: Vec<String>,
    /// `client.id`, connect and request timeouts, the largest response read.
    pub connection: ConnectionConfig,
    /// `acks`: -1 (all), 1 or 0.
    pub acks: i16,
    /// `enable.idempotence`.
    pub idempotence: bool,
    /// `compression.type` and its level.
    pub codec: Codec,
    /// `batch.size`.
    pub batch_size: usize,
    /// `linger.ms`.
    pub linger: Duration,
    /// `max.request.size`.
    pub max_request_size: usize,
    /// `max.in.flight.requests.per.connection` (at most 5 with idempotence).
    pub max_in_flight: usize,
    /// `request.timeout.ms` (also the broker's wait for acks=all).
    pub request_timeout: Duration,
    /// `delivery.timeout.ms`.
    pub delivery_timeout: Duration,
    /// `retries`.
    pub retries: u32,
    /// `retry.backoff.ms`.
    pub retry_backoff: Duration,
    /// `retry.backoff.max.ms`.
    pub retry_backoff_max: Duration,
    /// `metadata.max.age.ms`.
    pub metadata_max_age: Duration,
    /// `max.block.ms`: how long metadata, memory or a transaction request may be waited for.
    pub max_block: Duration,
    /// `buffer.memory`: the most bytes of batches kept (open and unacknowledged).
    pub buffer_memory: usize,
    /// `transactional.id` (`None`: not transactional).
    pub transactional_id: Option<String>,
    /// `transaction.timeout.ms`.
    pub transaction_timeout: Duration,
}

impl Default for ProducerConfig {
    /// Kafka's producer defaults (4.x).
    fn default() -> Self {
        ProducerConfig {
            bootstrap: Vec::new(),
            connection: ConnectionConfig::default(),
            acks: -1,
            idempotence: true,
            codec: Codec::None,
            batch_size: 16_384,
            linger: Duration::from_millis(5),
            max_request_size: 1_048_576,
            max_in_flight: 5,
            request_timeout: Duration::from_secs(30),
            delivery_timeout: Duration::from_secs(120),
            retries: i32::MAX as u32,
            retry_backoff: Duration::from_millis(100),
            retry_backoff_max: Duration::from_secs(1),
            metadata_max_age: Duration::from_secs(300),
            max_block: Duration::from_secs(60),
            buffer_memory: 32 * 1024 * 1024,
            transactional_id: None,
            transaction_timeout: Duration::from_secs(60),
        }
    }
}

/// A partition of a topic, as metadata lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionInfo {
    /// Partition id.
    pub partition: i32,
    /// Leader node (-1: none right now).
    pub leader: i32,
}

/// A closed batch waiting for its acknowledgement.
#[derive(Debug)]
struct Pending {
    batch: ClosedBatch,
    base_sequence: i32,
    created: Instant,
    attempts: u32,
    in_flight: bool,
    /// Not sent again before this instant (retry back-off).
    not_before: Instant,
}

/// One partition's open batch and its unacknowledged batches, in sequence order.
#[derive(Debug)]
struct PartitionState {
    topic: String,
    partition: i32,
    open: BatchBuilder,
    open_since: Option<Instant>,
    queue: VecDeque<Pending>,
    next_sequence: i32,
    /// After a retriable failure: one batch in flight until the head is acknowledged.
    retrying: bool,
    /// A batch was acknowledged while an earlier one of the partition was not: the broker
    /// appended it first (it accepts any first sequence from a producer the partition has no
    /// state for), so the earlier one can no longer be written in order.
    acked_past_head: bool,
}

/// A request in flight: which partition states' queue heads it carries.
#[derive(Debug)]
struct InFlight {
    correlation: i32,
    /// When it was sent (`request.timeout.ms` counts from here).
    sent: Instant,
    /// (partition state index, base sequence of the batch sent).
    batches: Vec<(usize, i32)>,
}

/// A broker connection and its requests in flight (answered in order).
struct Node {
    address: String,
    conn: Option<Connection>,
    in_flight: VecDeque<InFlight>,
    /// The broker asked for no request before this instant (its throttle time).
    throttled_until: Option<Instant>,
}

/// Where a partition stands in the current transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InTxn {
    /// Not written in this transaction.
    No,
    /// Written; AddPartitionsToTxn not sent yet (protocol 1).
    Pending,
    /// Part of the transaction (added; under protocol 2 by its first batch).
    Added,
}

/// Where the transactional producer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No producer id for the transactional id yet.
    Uninitialized,
    /// Between transactions.
    Ready,
    /// In a transaction.
    InTransaction,
}

/// The transactional state.
struct Txn {
    coordinator: Coordinator,
    /// Transaction protocol version (1 or 2), known after `init_transactions`.
    version: i16,
    phase: Phase,
    /// Per partition state (index as `Producer::states`).
    partitions: Vec<InTxn>,
    /// A record was appended in this transaction.
    has_records: bool,
    /// A failure in this transaction left the partitions' sequences unknown to this producer
    /// (a batch failed or was dropped after it was sent): under protocol 1 the abort is followed
    /// by InitProducerId with the current id and epoch, which bumps the epoch and restarts the
    /// sequences, as Kafka's producer does (`clientSideEpochBumpRequired`). Protocol 2's EndTxn
    /// bumps the epoch itself.
    bump_after_abort: bool,
}

/// The native producer. Not thread-safe; one per sink writer.
pub struct Producer {
    config: ProducerConfig,
    nodes: HashMap<i32, Node>,
    /// The connection for Metadata and InitProducerId.
    control: Option<Connection>,
    /// Topic -> its partitions (from metadata).
    topics: HashMap<String, Vec<PartitionInfo>>,
    metadata_at: Option<Instant>,
    metadata_stale: bool,
    states: Vec<PartitionState>,
    /// Topic -> partition -> index in `states` (looked up by `&str`, no allocation).
    state_of: HashMap<String, HashMap<i32, usize>>,
    /// When [`Self::pump`] last ran: an append pumps when it closed a batch or `linger.ms`
    /// passed since, not per record.
    last_pump: Instant,
    /// Appends since the clock was last read (it is read every [`CLOCK_EVERY`] appends).
    appends_unchecked: u32,
    /// The state the last append went to (the sticky partitioner repeats it).
    last_state: usize,
    producer_id: i64,
    epoch: i16,
    epoch_bump: bool,
    failed: Option<ProduceError>,
    scratch: Vec<u8>,
    response: Vec<u8>,
    /// Records acknowledged so far (for metrics and tests).
    acknowledged: u64,
    /// Bytes of open batches (uncompressed) and of unacknowledged closed ones.
    buffered: usize,
    /// Buffers of acknowledged batches, reused for new ones.
    free: Vec<Vec<u8>>,
    /// Batches split after MESSAGE_TOO_LARGE (for tests and metrics).
    splits: u64,
    txn: Option<Txn>,
}

impl Producer {
    /// Connects to a bootstrap broker, and with idempotence gets a producer id.
    pub fn open(mut config: ProducerConfig) -> Result<Producer, ProduceError> {
        // The socket waits as long as a request may take.
        config.connection.request_timeout = config.request_timeout;
        if config.bootstrap.is_empty() {
            return Err(ProduceError::Config("bootstrap.servers is empty".into()));
        }
        if config.idempotence && (config.acks != -1 || config.max_in_flight > 5) {
            return Err(ProduceError::Config(
                "enable.idempotence needs acks=all and max.in.flight.requests.per.connection <= 5"
                    .into(),
            ));
        }
        if config.transactional_id.is_some() && !config.idempotence {
            return Err(ProduceError::Config(
                "Cannot set a transactional.id without also enabling idempotence.".into(),
            ));
        }
        if config.max_in_flight == 0 || config.batch_size == 0 {
            return Err(ProduceError::Config(
                "batch.size and max.in.flight.requests.per.connection must be positive".into(),
            ));
        }
        let txn = config.transactional_id.as_deref().map(|id| Txn {
            coordinator: Coordinator::new(
                id,
                config.bootstrap.clone(),
                config.connection.clone(),
                config.retry_backoff,
                config.max_block,
            ),
            version: 0,
            phase: Phase::Uninitialized,
            partitions: Vec::new(),
            has_records: false,
            bump_after_abort: false,
        });
        let mut p = Producer {
            config,
            nodes: HashMap::new(),
            control: None,
            topics: HashMap::new(),
            metadata_at: None,
            metadata_stale: true,
            states: Vec::new(),
            state_of: HashMap::new(),
            last_pump: Instant::now(),
            appends_unchecked: 0,
            last_state: usize::MAX,
            producer_id: -1,
            epoch: -1,
            epoch_bump: false,
            failed: None,
            scratch: Vec::new(),
            response: Vec::new(),
            acknowledged: 0,
            buffered: 0,
            free: Vec::new(),
            splits: 0,
            txn,
        };
        if p.config.idempotence && p.txn.is_none() {
            p.init_producer_id()?;
        }
        Ok(p)
    }

    /// InitProducerId for the transactional id (Kafka's `initTransactions`): fences every
    /// older producer of the id and aborts the transaction it left open; returns the producer
    /// id and epoch this producer now writes with. Needs no transaction open here and nothing
    /// unsent.
    pub fn init_transactions(&mut self) -> Result<ProducerIdAndEpoch, ProduceError> {
        self.check_failed()?;
        self.require_idle("initTransactions")?;
        let timeout = self.config.transaction_timeout;
        let txn = self.txn_mut("initTransactions")?;
        if txn.phase == Phase::InTransaction {
            return Err(ProduceError::Config(
                "initTransactions: a transaction is open".into(),
            ));
        }
        let version = txn.coordinator.transaction_version()?;
        let got = txn.coordinator.init_producer_id(timeout, (-1, -1))?;
        txn.version = version;
        txn.phase = Phase::Ready;
        txn.bump_after_abort = false;
        self.adopt(got);
        Ok(got)
    }

    /// Switches to another transactional id (Flink reuses one producer for the ids of
    /// successive checkpoints); [`Self::init_transactions`] must follow. Needs no transaction
    /// open and nothing unsent.
    pub fn set_transactional_id(&mut self, transactional_id: &str) -> Result<(), ProduceError> {
        self.check_failed()?;
        self.require_idle("setTransactionalId")?;
        let txn = self.txn_mut("setTransactionalId")?;
        if txn.phase == Phase::InTransaction {
            return Err(ProduceError::Config(format!(
                "Another transaction {} is still open.",
                txn.coordinator.transactional_id()
            )));
        }
        txn.coordinator.set_transactional_id(transactional_id);
        txn.phase = Phase::Uninitialized;
        self.producer_id = -1;
        self.epoch = -1;
        Ok(())
    }

    /// Starts a transaction (no request: partitions join it with their first batch).
    pub fn begin_transaction(&mut self) -> Result<(), ProduceError> {
        self.check_failed()?;
        let txn = self.txn_mut("beginTransaction")?;
        match txn.phase {
            Phase::Ready => {}
            Phase::Uninitialized => {
                return Err(ProduceError::Config(
                    "Cannot begin a transaction before initTransactions".into(),
                ))
            }
            Phase::InTransaction => {
                return Err(ProduceError::Config(
                    "beginTransaction: a transaction is already open".into(),
                ))
            }
        }
        txn.phase = Phase::InTransaction;
        txn.has_records = false;
        txn.partitions.iter_mut().for_each(|p| *p = InTxn::No);
        Ok(())
    }

    /// Whether a record was appended in the open transaction.
    pub fn has_records_in_transaction(&self) -> bool {
        self.txn
            .as_ref()
            .is_some_and(|t| t.phase == Phase::InTransaction && t.has_records)
    }

    /// Whether a transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.txn
            .as_ref()
            .is_some_and(|t| t.phase == Phase::InTransaction)
    }

    /// The transactional id (`None`: not transactional).
    pub fn transactional_id(&self) -> Option<&str> {
        self.txn.as_ref().map(|t| t.coordinator.transactional_id())
    }

    /// The cluster's transaction protocol (1 or 2), known after [`Self::init_transactions`]
    /// (0 before, and for a producer that is not transactional).
    pub fn transaction_version(&self) -> i16 {
        self.txn.as_ref().map_or(0, |t| t.version)
    }

    /// Flushes and commits the open transaction (EndTxn); under protocol 2 the producer
    /// continues with the epoch the coordinator answered.
    pub fn commit_transaction(&mut self) -> Result<(), ProduceError> {
        self.txn_mut("commitTransaction")?;
        if !self.in_transaction() {
            return Err(ProduceError::Config(
                "commitTransaction: no transaction is open".into(),
            ));
        }
        self.flush()?;
        self.end_transaction(true)
    }

    /// Flink's pre-commit: flushes, then hands the open transaction over to whoever ends it
    /// from the returned ids ([`Coordinator::end_transaction`]: Flink's committer, after the
    /// checkpoint completed). The producer forgets it and must be initialized again
    /// ([`Self::init_transactions`], with this or another id) before its next transaction.
    pub fn precommit_transaction(&mut self) -> Result<ProducerIdAndEpoch, ProduceError> {
        self.txn_mut("precommitTransaction")?;
        if !self.in_transaction() {
            return Err(ProduceError::Config(
                "precommitTransaction: no transaction is open".into(),
            ));
        }
        self.flush()?;
        let ids = ProducerIdAndEpoch {
            producer_id: self.producer_id,
            epoch: self.epoch,
        };
        let txn = self.txn_mut("precommitTransaction")?;
        txn.phase = Phase::Uninitialized;
        txn.has_records = false;
        txn.partitions.iter_mut().for_each(|p| *p = InTxn::No);
        Ok(ids)
    }

    /// Aborts the open transaction: unsent batches are dropped, batches in flight are waited
    /// for (their outcome no longer matters), then EndTxn (abort) is sent when anything reached
    /// the transaction. Also clears a failure of a send, so the producer can go on with the
    /// next transaction (a fenced producer's EndTxn fails, and that failure stays).
    ///
    /// Sequences: batches never sent give their sequence numbers back (Kafka's producer numbers
    /// a batch only when it sends it). When a batch failed or was dropped after it was sent, the
    /// broker's last sequence is unknown: under protocol 1 the abort is followed by
    /// InitProducerId with the current producer id and epoch, which bumps the epoch (or, once
    /// it is exhausted, answers a new producer id) and restarts every sequence at 0, as Kafka's
    /// producer does after an abortable error; under protocol 2 the abort's EndTxn does that.
    pub fn abort_transaction(&mut self) -> Result<(), ProduceError> {
        self.txn_mut("abortTransaction")?;
        if !self.in_transaction() {
            return Err(ProduceError::Config(
                "abortTransaction: no transaction is open".into(),
            ));
        }
        self.drop_unsent(false);
        let deadline = Instant::now() + self.config.max_block;
        while self.nodes.values().any(|n| !n.in_flight.is_empty()) {
            if Instant::now() >= deadline {
                return Err(ProduceError::Timeout(format!(
                    "abortTransaction: requests still in flight after max.block.ms ({} ms)",
                    self.config.max_block.as_millis()
                )));
            }
            let _ = self.pump(true);
            self.failed = None;
            self.drop_unsent(false);
        }
        self.failed = None;
        // No request is in flight: what is left are the batches that failed.
        self.drop_unsent(true);
        for s in &mut self.states {
            s.retrying = false;
            s.acked_past_head = false;
        }
        self.end_transaction(false)?;
        let timeout = self.config.transaction_timeout;
        let current = (self.producer_id, self.epoch);
        let txn = self.txn_mut("abortTransaction")?;
        let bump = std::mem::take(&mut txn.bump_after_abort) && txn.version < 2;
        if bump {
            match txn.coordinator.init_producer_id(timeout, current) {
                Ok(next) => self.adopt(next),
                Err(e) => {
                    // Without a new epoch the sequences cannot continue.
                    if let Some(txn) = self.txn.as_mut() {
                        txn.phase = Phase::Uninitialized;
                    }
                    return Err(self.fail(e));
                }
            }
        }
        Ok(())
    }

    /// EndTxn for the open transaction, if it reached the coordinator (protocol 1: a
    /// partition was added; protocol 2: a batch was sent); then between transactions.
    fn end_transaction(&mut self, commit: bool) -> Result<(), ProduceError> {
        let producer = ProducerIdAndEpoch {
            producer_id: self.producer_id,
            epoch: self.epoch,
        };
        let txn = self.txn_mut("endTransaction")?;
        let started = txn.partitions.contains(&InTxn::Added);
        let version = txn.version;
        let ended = if started {
            match txn.coordinator.end_transaction(producer, commit, version) {
                Ok(e) => e.next,
                Err(e) => return Err(self.fail(e)),
            }
        } else {
            None
        };
        let txn = self.txn_mut("endTransaction")?;
        txn.phase = Phase::Ready;
        txn.has_records = false;
        txn.partitions.iter_mut().for_each(|p| *p = InTxn::No);
        if let Some(next) = ended {
            self.adopt(next);
        }
        Ok(())
    }

    /// Writes with `producer` from now on; sequences restart at 0 when it differs.
    fn adopt(&mut self, producer: ProducerIdAndEpoch) {
        if (producer.producer_id, producer.epoch) != (self.producer_id, self.epoch) {
            self.producer_id = producer.producer_id;
            self.epoch = producer.epoch;
            for s in &mut self.states {
                s.next_sequence = 0;
            }
        }
    }

    /// Drops the open batches and the unsent queued ones (an aborted transaction's), and with
    /// `failed_too` those marked in flight whose request was answered with a failure. Batches
    /// never sent, behind every batch kept, give their sequence numbers back; a dropped batch that
    /// was sent (a failed one, or one whose retry waited) leaves the broker's sequence unknown,
    /// which the abort resolves with an epoch bump.
    fn drop_unsent(&mut self, failed_too: bool) {
        let mut freed = 0;
        let mut unknown = false;
        for s in &mut self.states {
            freed += s
                .open
                .uncompressed_bytes()
                .saturating_sub(crate::records::write::BATCH_HEADER_BYTES);
            s.open.clear();
            s.open_since = None;
            let mut first_dropped = None;
            let mut kept_behind = false;
            s.queue.retain(|p| {
                if p.in_flight && !failed_too {
                    kept_behind |= first_dropped.is_some();
                    return true;
                }
                unknown |= p.attempts > 0;
                first_dropped.get_or_insert(p.base_sequence);
                freed += p.batch.bytes().len();
                false
            });
            if let Some(sequence) = first_dropped {
                if kept_behind {
                    unknown = true;
                } else {
                    s.next_sequence = sequence;
                }
            }
        }
        self.buffered = self.buffered.saturating_sub(freed);
        if unknown {
            if let Some(txn) = self.txn.as_mut() {
                txn.bump_after_abort = true;
            }
        }
    }

    fn txn_mut(&mut self, op: &str) -> Result<&mut Txn, ProduceError> {
        self.txn.as_mut().ok_or_else(|| {
            ProduceError::Config(format!("{op}: the producer has no transactional.id"))
        })
    }

    /// Fails unless every batch was sent and acknowledged.
    fn require_idle(&self, op: &str) -> Result<(), ProduceError> {
        let busy = self
            .states
            .iter()
            .any(|s| !s.open.is_empty() || !s.queue.is_empty());
        if busy {
            return Err(ProduceError::Config(format!(
                "{op}: batches are not flushed yet"
            )));
        }
        Ok(())
    }

    /// Batches split after MESSAGE_TOO_LARGE so far.
    pub fn splits(&self) -> u64 {
        self.splits
    }

    /// Bytes of open and unacknowledged batches (bounded by `buffer.memory`).
    pub fn buffered_bytes(&self) -> usize {
        self.buffered
    }

    /// The producer id and epoch (-1, -1 without idempotence).
    pub fn producer_id_and_epoch(&self) -> (i64, i16) {
        (self.producer_id, self.epoch)
    }

    /// Records acknowledged so far.
    pub fn acknowledged(&self) -> u64 {
        self.acknowledged
    }

    /// The partitions of `topic`, fetching metadata when it is unknown or old (waiting up to
    /// `max.block.ms` for the topic to appear).
    pub fn partitions(&mut self, topic: &str) -> Result<&[PartitionInfo], ProduceError> {
        let deadline = Instant::now() + self.config.max_block;
        let old = self
            .metadata_at
            .is_none_or(|t| t.elapsed() > self.config.metadata_max_age);
        if !self.topics.contains_key(topic) || old || self.metadata_stale {
            loop {
                self.refresh_metadata(Some(topic))?;
                if self.topics.get(topic).is_some_and(|p| !p.is_empty()) {
                    break;
                }
                if Instant::now() >= deadline {
                    return Err(ProduceError::Timeout(format!(
                        "Topic {topic} not present in metadata after {} ms.",
                        self.config.max_block.as_millis()
                    )));
                }
                std::thread::sleep(self.config.retry_backoff);
            }
        }
        Ok(self.topics.get(topic).map_or(&[][..], Vec::as_slice))
    }

    /// Appends `record` to `topic`-`partition` and sends what is ready.
    pub fn append(
        &mut self,
        topic: &str,
        partition: i32,
        record: &RecordRef<'_>,
    ) -> Result<(), ProduceError> {
        self.check_failed()?;
        if let Some(txn) = &self.txn {
            if txn.phase != Phase::InTransaction {
                return Err(ProduceError::Config(format!(
                    "Cannot send to {topic}-{partition} outside a transaction: a transactional \
                     producer sends only between beginTransaction and its commit or abort"
                )));
            }
        }
        let index = self
            .state_index(topic, partition)
            .map_err(|e| self.refused_append(e))?;
        let size = self.states[index].open.record_size(record)?;
        if size + crate::records::write::BATCH_HEADER_BYTES > self.config.max_request_size {
            return Err(self.refused_append(ProduceError::RecordTooLarge {
                size,
                limit: self.config.max_request_size,
            }));
        }
        if self.buffered + size > self.config.buffer_memory {
            self.make_room(size).map_err(|e| self.refused_append(e))?;
        }
        if let Some(txn) = &mut self.txn {
            txn.has_records = true;
            if txn.partitions[index] == InTxn::No {
                // Protocol 2: the first batch adds the partition (Kafka's producer counts the
                // transaction as started from the first send); protocol 1: AddPartitionsToTxn
                // before that batch is sent.
                txn.partitions[index] = if txn.version >= 2 {
                    InTxn::Added
                } else {
                    InTxn::Pending
                };
            }
        }
        let mut closed = false;
        let state = &self.states[index];
        if !state.open.is_empty() && state.open.uncompressed_bytes() + size > self.config.batch_size
        {
            self.close_open(index)?;
            closed = true;
        }
        let state = &mut self.states[index];
        state.open.append(record)?;
        self.buffered += size;
        if state.open_since.is_none() {
            state.open_since = Some(Instant::now());
        }
        if state.open.uncompressed_bytes() >= self.config.batch_size {
            self.close_open(index)?;
            closed = true;
        }
        // Sending and reading cost system calls: only when a batch is ready or a lingering
        // one may be (the clock itself is read every CLOCK_EVERY appends; a caller with few
        // records calls poll() on a timer, as the sink writer does).
        self.appends_unchecked += 1;
        if closed
            || (self.appends_unchecked >= CLOCK_EVERY
                && self.last_pump.elapsed() >= self.config.linger)
        {
            self.pump(false)?;
        }
        if self.appends_unchecked >= CLOCK_EVERY {
            self.appends_unchecked = 0;
        }
        Ok(())
    }

    /// Sends lingered batches and reads the responses that arrived, without waiting.
    pub fn poll(&mut self) -> Result<(), ProduceError> {
        self.check_failed()?;
        self.pump(false)
    }

    /// Sends every batch and waits until all are acknowledged (or the first failure).
    pub fn flush(&mut self) -> Result<(), ProduceError> {
        self.check_failed()?;
        for i in 0..self.states.len() {
            if !self.states[i].open.is_empty() {
                self.close_open(i)?;
            }
        }
        while self.states.iter().any(|s| !s.queue.is_empty()) {
            self.pump(true)?;
        }
        Ok(())
    }

    /// Waits until `size` more bytes fit in `buffer.memory`: closes the open batches so they
    /// can be sent, and reads acknowledgements, up to `max.block.ms`.
    fn make_room(&mut self, size: usize) -> Result<(), ProduceError> {
        let deadline = Instant::now() + self.config.max_block;
        while self.buffered + size > self.config.buffer_memory {
            if self.buffered == 0 {
                // Nothing to wait for: the record alone is larger than the whole buffer.
                return Err(ProduceError::RecordTooLarge {
                    size,
                    limit: self.config.buffer_memory,
                });
            }
            if Instant::now() >= deadline {
                return Err(ProduceError::Timeout(format!(
                    "Failed to allocate {size} bytes within the configured max blocking time {} ms. \
                     Total memory: {} bytes. Available memory: {} bytes.",
                    self.config.max_block.as_millis(),
                    self.config.buffer_memory,
                    self.config.buffer_memory.saturating_sub(self.buffered)
                )));
            }
            for i in 0..self.states.len() {
                if !self.states[i].open.is_empty() {
                    self.close_open(i)?;
                }
            }
            self.pump(true)?;
        }
        Ok(())
    }

    /// An append refused with what Kafka's producer raises as an `ApiException` (a record larger
    /// than `max.request.size` or `buffer.memory`, no metadata or no memory within
    /// `max.block.ms`): inside a transaction the record is missing from it, so the transaction
    /// becomes abortable, as `KafkaProducer.doSend` makes it (`maybeTransitionToErrorState`):
    /// every later call returns the error until [`Self::abort_transaction`], and under protocol 1
    /// the abort bumps the epoch. Outside a transaction the error is only returned (Kafka's
    /// idempotent producer keeps no state for it either).
    fn refused_append(&mut self, e: ProduceError) -> ProduceError {
        let abortable = matches!(
            e,
            ProduceError::RecordTooLarge { .. }
                | ProduceError::Timeout(_)
                | ProduceError::Connection(_)
        );
        if abortable && self.in_transaction() {
            self.fail(e)
        } else {
            e
        }
    }

    fn check_failed(&self) -> Result<(), ProduceError> {
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Keeps `e` as the producer's failure (the first one stays). In a transaction a failure
    /// that is not fatal leaves the sequences unknown: the abort bumps the epoch (protocol 1).
    fn fail(&mut self, e: ProduceError) -> ProduceError {
        let e = self.explain_fencing(e);
        if let Some(txn) = self.txn.as_mut() {
            if txn.phase == Phase::InTransaction && needs_epoch_bump(&e) {
                txn.bump_after_abort = true;
            }
        }
        if self.failed.is_none() {
            self.failed = Some(e.clone());
        }
        e
    }

    /// A fencing answer in a transaction (INVALID_PRODUCER_EPOCH or PRODUCER_FENCED from a
    /// partition leader or the coordinator, INVALID_TXN_STATE for a commit) names its likely
    /// cause: the coordinator aborted the transaction because it was open longer than
    /// `transaction.timeout.ms`, bumping the epoch (or another producer of the id fenced it).
    fn explain_fencing(&self, e: ProduceError) -> ProduceError {
        if self.txn.is_none() {
            return e;
        }
        let timeout = self.config.transaction_timeout.as_millis();
        let hint = |message: Option<String>| {
            let cause = format!(
                "the broker has ended this transaction: most likely it was open longer than \
                 transaction.timeout.ms ({timeout} ms) and the transaction coordinator aborted \
                 it, or another producer with the same transactional.id fenced this one; its \
                 records are aborted"
            );
            Some(match message {
                Some(m) => format!("{m}; {cause}"),
                None => cause,
            })
        };
        match e {
            ProduceError::Partition {
                topic,
                partition,
                code: code @ (INVALID_PRODUCER_EPOCH | PRODUCER_FENCED),
                name,
                message,
            } => ProduceError::Partition {
                topic,
                partition,
                code,
                name,
                message: hint(message),
            },
            ProduceError::Transaction {
                op,
                transactional_id,
                code,
                name,
                message,
            } if matches!(code, INVALID_PRODUCER_EPOCH | PRODUCER_FENCED)
                || (code == INVALID_TXN_STATE && op == "EndTxn (commit)") =>
            {
                ProduceError::Transaction {
                    op,
                    transactional_id,
                    code,
                    name,
                    message: hint(message),
                }
            }
            e => e,
        }
    }

    fn state_index(&mut self, topic: &str, partition: i32) -> Result<usize, ProduceError> {
        if let Some(s) = self.states.get(self.last_state) {
            if s.partition == partition && s.topic == topic {
                return Ok(self.last_state);
            }
        }
        if let Some(&i) = self.state_of.get(topic).and_then(|m| m.get(&partition)) {
            self.last_state = i;
            return Ok(i);
        }
        let known = self
            .partitions(topic)?
            .iter()
            .any(|p| p.partition == partition);
        if !known {
            return Err(ProduceError::Config(format!(
                "partition {partition} of topic {topic} does not exist"
            )));
        }
        let i = self.states.len();
        self.states.push(PartitionState {
            topic: topic.to_string(),
            partition,
            open: BatchBuilder::with_capacity(self.config.codec, self.config.batch_size),
            open_since: None,
            queue: VecDeque::new(),
            next_sequence: 0,
            retrying: false,
            acked_past_head: false,
        });
        if let Some(txn) = &mut self.txn {
            txn.partitions.push(InTxn::No);
        }
        self.state_of
            .entry(topic.to_string())
            .or_default()
            .insert(partition, i);
        Ok(i)
    }

    /// Closes the open batch of state `i` into its queue, stamped with the next sequence.
    fn close_open(&mut self, i: usize) -> Result<(), ProduceError> {
        let idempotent = self.config.idempotence;
        let transactional = self.txn.is_some();
        let (producer_id, epoch) = (self.producer_id, self.epoch);
        let next_buffer = self.free.pop().unwrap_or_default();
        let state = &mut self.states[i];
        let count = state.open.count();
        let base_sequence = if idempotent { state.next_sequence } else { -1 };
        let stamp = if idempotent {
            ProducerStamp {
                producer_id,
                epoch,
                base_sequence,
                transactional,
            }
        } else {
            ProducerStamp::NONE
        };
        let open_bytes = state
            .open
            .uncompressed_bytes()
            .saturating_sub(crate::records::write::BATCH_HEADER_BYTES);
        let batch = state
            .open
            .close_reusing(stamp, &mut self.scratch, next_buffer)?;
        let closed_bytes = batch.bytes().len();
        // Sequences wrap at i32::MAX, as Kafka's do.
        state.next_sequence = increment_sequence(state.next_sequence, count);
        let created = state.open_since.take().unwrap_or_else(Instant::now);
        state.queue.push_back(Pending {
            batch,
            base_sequence,
            created,
            attempts: 0,
            in_flight: false,
            not_before: created,
        });
        self.buffered = self.buffered.saturating_sub(open_bytes) + closed_bytes;
        Ok(())
    }

    /// One round of work: expire, bump the epoch if needed, send ready batches, read
    /// responses (all in flight when `wait`, else those that arrived).
    fn pump(&mut self, wait: bool) -> Result<(), ProduceError> {
        let now = Instant::now();
        self.last_pump = now;
        self.expire(now)?;
        let lingered: Vec<usize> = (0..self.states.len())
            .filter(|&i| {
                let s = &self.states[i];
                !s.open.is_empty() && s.open_since.is_some_and(|t| now >= t + self.config.linger)
            })
            .collect();
        for i in lingered {
            self.close_open(i)?;
        }
        if self.epoch_bump && self.nodes.values().all(|n| n.in_flight.is_empty()) {
            self.bump_epoch()?;
        }
        if self.metadata_stale {
            // A failed refresh is retried by the next round; the batches wait meanwhile.
            if let Err(e) = self.refresh_metadata(None) {
                if wait {
                    std::thread::sleep(self.config.retry_backoff);
                }
                if matches!(e, ProduceError::Connection(_)) {
                    return Ok(());
                }
                return Err(self.fail(e));
            }
        }
        if !self.epoch_bump {
            self.send_ready()?;
        }
        let nodes: Vec<i32> = self.nodes.keys().copied().collect();
        let mut waited = false;
        // Every response that arrived, from every broker.
        for &node in &nodes {
            while self.response_arrived(node, None) {
                waited = true;
                self.read_one(node)?;
            }
        }
        if wait && !waited {
            // Waiting: a short while for the oldest request's broker (bounded, so callers with
            // a deadline, such as an append waiting for memory, keep it).
            let oldest = self
                .nodes
                .iter()
                .filter_map(|(&id, n)| n.in_flight.front().map(|f| (f.sent, id)))
                .min();
            if let Some((_, node)) = oldest {
                waited = true;
                if self.response_arrived(node, Some(WAIT_SLICE)) {
                    self.read_one(node)?;
                }
            }
        }
        if wait && !waited {
            // Nothing in flight: batches wait for a back-off, a leader or the epoch bump.
            let next = self
                .states
                .iter()
                .flat_map(|s| s.queue.iter())
                .filter(|p| !p.in_flight)
                .map(|p| p.not_before)
                .min();
            let pause = next
                .map(|t| t.saturating_duration_since(Instant::now()))
                .unwrap_or(self.config.retry_backoff)
                .clamp(Duration::from_millis(1), self.config.retry_backoff_max);
            std::thread::sleep(pause);
        }
        self.check_failed()
    }

    /// Fails the producer when a batch outlived `delivery.timeout.ms`.
    fn expire(&mut self, now: Instant) -> Result<(), ProduceError> {
        for s in &self.states {
            if let Some(p) = s
                .queue
                .iter()
                .find(|p| !p.in_flight && now >= p.created + self.config.delivery_timeout)
            {
                let e = ProduceError::Timeout(format!(
                    "Expiring {} record(s) for {}-{}: {} ms has passed since batch creation",
                    p.batch.count(),
                    s.topic,
                    s.partition,
                    now.duration_since(p.created).as_millis()
                ));
                return Err(self.fail(e));
            }
        }
        Ok(())
    }

    /// Whether `s`'s next batch to be acknowledged is its first of this producer epoch
    /// (sequence 0). A broker with no state for the producer accepts any first sequence, so a
    /// batch pipelined behind a failed sequence 0 (a partition not yet ready on a freshly
    /// created topic answers NOT_LEADER_OR_FOLLOWER) would be appended first and the retry of
    /// sequence 0 could then never be written in order. Sending that first batch alone costs
    /// one round trip per partition and epoch, and changes no byte written. Kafka's Java
    /// producer pipelines it and fails the write in that race (OutOfOrderSequenceException).
    fn first_of_epoch_unacknowledged(&self, s: &PartitionState) -> bool {
        self.config.idempotence && s.queue.front().is_some_and(|p| p.base_sequence == 0)
    }

    /// Builds and sends one request per leader with the next batch of each of its
    /// partitions, while the leader has room for another request in flight.
    fn send_ready(&mut self) -> Result<(), ProduceError> {
        self.add_pending_partitions()?;
        let now = Instant::now();
        loop {
            // Group sendable queue entries by leader.
            let mut by_node: HashMap<i32, Vec<(usize, usize)>> = HashMap::new();
            for (i, s) in self.states.iter().enumerate() {
                let Some(leader) = self.leader_of(&s.topic, s.partition) else {
                    if !s.queue.is_empty() {
                        // Batches without a leader: look it up again (after a back-off).
                        self.metadata_stale = true;
                    }
                    continue;
                };
                if let Some(txn) = &self.txn {
                    if txn.partitions.get(i) != Some(&InTxn::Added) {
                        // Protocol 1: not added to the transaction yet.
                        continue;
                    }
                }
                let in_flight = s.queue.iter().filter(|p| p.in_flight).count();
                let limit = if s.retrying || self.first_of_epoch_unacknowledged(s) {
                    1
                } else {
                    self.config.max_in_flight
                };
                if in_flight >= limit {
                    continue;
                }
                if let Some(q) = s.queue.iter().position(|p| !p.in_flight) {
                    // Never send past an earlier batch that waits (order by sequence).
                    if s.queue[q].not_before <= now {
                        by_node.entry(leader).or_default().push((i, q));
                    }
                }
            }
            let mut sent_any = false;
            for (node, mut entries) in by_node {
                if !self.node_has_room(node) {
                    continue;
                }
                if self.ensure_connected(node).is_err() {
                    continue;
                }
                // One batch per partition, up to max.request.size (the first always goes).
                entries.sort_by(|a, b| {
                    (&self.states[a.0].topic, self.states[a.0].partition)
                        .cmp(&(&self.states[b.0].topic, self.states[b.0].partition))
                });
                let mut size = 0;
                let mut chosen = Vec::new();
                for (i, q) in entries {
                    let len = self.states[i].queue[q].batch.bytes().len();
                    if !chosen.is_empty() && size + len > self.config.max_request_size {
                        break;
                    }
                    size += len;
                    chosen.push((i, q));
                }
                self.send_request(node, &chosen)?;
                sent_any = true;
            }
            if !sent_any {
                return Ok(());
            }
        }
    }

    /// Protocol 1: AddPartitionsToTxn for the partitions written in this transaction that
    /// are not part of it yet, before any of their batches is sent.
    fn add_pending_partitions(&mut self) -> Result<(), ProduceError> {
        let Some(txn) = &self.txn else {
            return Ok(());
        };
        let mut pending: Vec<usize> = (0..txn.partitions.len())
            .filter(|&i| txn.partitions[i] == InTxn::Pending && !self.states[i].queue.is_empty())
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        pending.sort_by(|&a, &b| {
            (&self.states[a].topic, self.states[a].partition)
                .cmp(&(&self.states[b].topic, self.states[b].partition))
        });
        let producer = ProducerIdAndEpoch {
            producer_id: self.producer_id,
            epoch: self.epoch,
        };
        let partitions: Vec<(&str, i32)> = pending
            .iter()
            .map(|&i| (self.states[i].topic.as_str(), self.states[i].partition))
            .collect();
        let Some(txn) = self.txn.as_mut() else {
            return Ok(());
        };
        if let Err(e) = txn.coordinator.add_partitions(producer, &partitions) {
            return Err(self.fail(e));
        }
        for i in pending {
            txn.partitions[i] = InTxn::Added;
        }
        Ok(())
    }

    /// Whether a response from `node` is there to be read, waiting up to `within` for one
    /// (`None`: not at all). A broker that failed, or whose oldest request is older than
    /// `request.timeout.ms`, loses its connection (its batches are retried).
    fn response_arrived(&mut self, node: i32, within: Option<Duration>) -> bool {
        let request_timeout = self.config.request_timeout;
        let Some(n) = self.nodes.get_mut(&node) else {
            return false;
        };
        let Some(sent) = n.in_flight.front().map(|f| f.sent) else {
            return false;
        };
        let Some(conn) = n.conn.as_mut() else {
            return false;
        };
        let ready = match within {
            None => conn.response_ready(),
            Some(d) => conn.response_ready_within(d),
        };
        match ready {
            Ok(true) => true,
            Ok(false) => {
                if sent.elapsed() > request_timeout {
                    let e = conn.io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!(
                            "no response within request.timeout.ms ({} ms)",
                            request_timeout.as_millis()
                        ),
                    ));
                    self.connection_lost(node, e);
                }
                false
            }
            Err(e) => {
                self.connection_lost(node, e);
                false
            }
        }
    }

    fn node_has_room(&self, node: i32) -> bool {
        self.nodes.get(&node).is_none_or(|n| {
            n.in_flight.len() < self.config.max_in_flight
                && n.throttled_until.is_none_or(|t| Instant::now() >= t)
        })
    }

    fn send_request(&mut self, node: i32, chosen: &[(usize, usize)]) -> Result<(), ProduceError> {
        let acks = self.config.acks;
        let timeout_ms = i32::try_from(self.config.request_timeout.as_millis()).unwrap_or(i32::MAX);
        let Some(n) = self.nodes.get_mut(&node) else {
            return Ok(());
        };
        let Some(conn) = n.conn.as_mut() else {
            return Ok(());
        };
        // A transactional producer on protocol 1 speaks at most v11: v12 would ask the broker
        // to add the partition implicitly.
        let max_version = match &self.txn {
            Some(t) if t.version < 2 => produce::MAX_VERSION - 1,
            _ => produce::MAX_VERSION,
        };
        let transactional_id = self.txn.as_ref().map(|t| t.coordinator.transactional_id());
        let version = match conn.version(
            produce::API_KEY,
            "Produce",
            produce::MIN_VERSION,
            max_version,
        ) {
            Ok(v) => v,
            Err(e) => {
                let e = ProduceError::Connection(e.to_string());
                return Err(self.fail(e));
            }
        };
        let data: Vec<produce::PartitionData<'_>> = chosen
            .iter()
            .map(|&(i, q)| produce::PartitionData {
                topic: &self.states[i].topic,
                partition: self.states[i].partition,
                records: self.states[i].queue[q].batch.bytes(),
            })
            .collect();
        let client_id = conn.client_id().to_string();
        let sent = conn.send_with(|out, c| {
            produce::write_request(
                out,
                c,
                &client_id,
                version,
                transactional_id,
                acks,
                timeout_ms,
                &data,
            );
        });
        drop(data);
        match sent {
            Ok(correlation) => {
                if acks == 0 {
                    conn.expect_no_response(correlation);
                }
                let mut batches = Vec::with_capacity(chosen.len());
                for &(i, q) in chosen {
                    let p = &mut self.states[i].queue[q];
                    p.in_flight = true;
                    p.attempts += 1;
                    batches.push((i, p.base_sequence));
                }
                if acks == 0 {
                    // No response comes: the batches count as sent.
                    for &(i, _) in chosen {
                        if let Some(p) = self.states[i].queue.pop_front() {
                            self.release(p.batch);
                        }
                    }
                } else if let Some(n) = self.nodes.get_mut(&node) {
                    n.in_flight.push_back(InFlight {
                        correlation,
                        sent: Instant::now(),
                        batches,
                    });
                }
                Ok(())
            }
            Err(e) => {
                self.connection_lost(node, e);
                Ok(())
            }
        }
    }

    /// Reads the oldest response of `node` and settles its batches.
    fn read_one(&mut self, node: i32) -> Result<(), ProduceError> {
        let Some(n) = self.nodes.get_mut(&node) else {
            return Ok(());
        };
        let (Some(conn), Some(front)) = (n.conn.as_mut(), n.in_flight.front()) else {
            return Ok(());
        };
        let correlation = front.correlation;
        if let Err(e) = conn.receive(&mut self.response) {
            self.connection_lost(node, e);
            return Ok(());
        }
        let parsed = produce::parse_response(&self.response, correlation);
        let Some(done) = self
            .nodes
            .get_mut(&node)
            .and_then(|n| n.in_flight.pop_front())
        else {
            return Ok(());
        };
        let response = match parsed {
            Ok(r) => r,
            Err(e) => {
                let e = ProduceError::Connection(format!("malformed Produce response: {}", e.0));
                return Err(self.fail(e));
            }
        };
        if response.throttle_time_ms > 0 {
            // KIP-219: the broker answered at once and expects no request from this client
            // until its throttle time has passed (at most a minute is honoured: the value is
            // the broker's to choose).
            let pause = Duration::from_millis(response.throttle_time_ms.min(60_000) as u64);
            if let Some(n) = self.nodes.get_mut(&node) {
                n.throttled_until = Some(Instant::now() + pause);
            }
        }
        for (i, base_sequence) in done.batches {
            let (topic, partition) = (self.states[i].topic.clone(), self.states[i].partition);
            let answer = response
                .partitions
                .iter()
                .find(|p| p.topic == topic && p.partition == partition);
            let Some(answer) = answer else {
                // Not answered: retried as a network error would be.
                self.retry(i, base_sequence, NETWORK_EXCEPTION, None)?;
                continue;
            };
            self.settle(i, base_sequence, answer)?;
        }
        Ok(())
    }

    /// What Kafka's `Sender.completeBatch` does with one partition's answer.
    fn settle(
        &mut self,
        i: usize,
        base_sequence: i32,
        answer: &produce::PartitionResponse,
    ) -> Result<(), ProduceError> {
        let code = answer.error_code;
        if code == 0 || code == DUPLICATE_SEQUENCE_NUMBER {
            // The broker has the batch, whether or not an earlier batch's retry marked it for
            // sending again meanwhile: it must not be sent again (under a bumped epoch it would
            // be appended twice). No response of a request sent before an epoch bump can arrive
            // after it (the bump waits for every request), so the sequence names this batch.
            let s = &mut self.states[i];
            let at = s
                .queue
                .iter()
                .position(|p| p.base_sequence == base_sequence);
            if at.is_some_and(|at| at > 0) {
                s.acked_past_head = true;
            }
            let acked = at.and_then(|at| s.queue.remove(at));
            if s.queue.front().is_none_or(|p| !p.in_flight) {
                s.retrying = false;
            }
            if let Some(p) = acked {
                self.release(p.batch);
            }
            return Ok(());
        }
        if code == MESSAGE_TOO_LARGE {
            if let Some(halves) = self.split(i, base_sequence)? {
                self.splits += halves;
                return Ok(());
            }
        }
        let info = error_codes::lookup(code);
        if matches!(code, NOT_LEADER_OR_FOLLOWER | FENCED_LEADER_EPOCH)
            || info.is_some_and(|e| e.invalid_metadata)
        {
            self.metadata_stale = true;
        }
        if self.txn.is_some() && matches!(code, UNKNOWN_PRODUCER_ID | OUT_OF_ORDER_SEQUENCE_NUMBER)
        {
            // A transaction cannot continue past a lost producer state or a sequence gap: the
            // transaction is aborted (Kafka's producer raises an abortable error).
            let s = &self.states[i];
            let e = ProduceError::Partition {
                topic: s.topic.clone(),
                partition: s.partition,
                code,
                name: crate::error::error_name(code),
                message: Some("the transaction cannot continue and must be aborted".to_string()),
            };
            return Err(self.fail(e));
        }
        if self.config.idempotence && code == UNKNOWN_PRODUCER_ID {
            // The broker lost this producer's state (retention): bump the epoch, restart the
            // sequences, retry. Without a log start offset the answer came from a broker the
            // partition is leaving: retry as it is, as Kafka's producer does.
            if answer.log_start_offset != -1 {
                self.epoch_bump = true;
            }
            return self.retry(i, base_sequence, code, answer.current_leader);
        }
        if self.config.idempotence && code == OUT_OF_ORDER_SEQUENCE_NUMBER {
            // Earlier batches of the partition still unacknowledged: this one failed because of
            // them; retry in order. Otherwise there is a real gap: bump the epoch.
            let s = &self.states[i];
            let earlier = s
                .queue
                .iter()
                .take_while(|p| p.base_sequence != base_sequence)
                .count();
            if earlier == 0 && s.acked_past_head {
                // Later batches were appended before this one: writing it now would reorder the
                // partition. Kafka's producer fails such a batch (OutOfOrderSequenceException).
                let e = ProduceError::Partition {
                    topic: s.topic.clone(),
                    partition: s.partition,
                    code,
                    name: crate::error::error_name(code),
                    message: Some(
                        "the broker appended later batches of this partition before this one \
                         (it had no state for this producer yet); the batch cannot be written \
                         in order"
                            .to_string(),
                    ),
                };
                return Err(self.fail(e));
            }
            if earlier == 0 {
                self.epoch_bump = true;
            }
            return self.retry(i, base_sequence, code, answer.current_leader);
        }
        if info.is_some_and(|e| e.retriable) {
            return self.retry(i, base_sequence, code, answer.current_leader);
        }
        let s = &self.states[i];
        let e = ProduceError::Partition {
            topic: s.topic.clone(),
            partition: s.partition,
            code,
            name: crate::error::error_name(code),
            message: answer.error_message.clone().or_else(|| {
                (code == MESSAGE_TOO_LARGE).then(|| {
                    "the batch is larger than the broker accepts (message.max.bytes); lower batch.size".to_string()
                })
            }),
        };
        Err(self.fail(e))
    }

    /// An acknowledged batch: counted, its bytes leave `buffer.memory` and its buffer is kept
    /// for a new batch.
    fn release(&mut self, batch: ClosedBatch) {
        self.acknowledged += batch.count() as u64;
        self.buffered = self.buffered.saturating_sub(batch.bytes().len());
        if self.free.len() < FREE_BUFFERS {
            self.free.push(batch.into_bytes());
        }
    }

    /// MESSAGE_TOO_LARGE for a batch of more than one record: the batch is split in two
    /// halves (same first sequence: the broker appended none of it), which replace it and are
    /// sent again in order. Returns `None` for a single record (the error stands), else the
    /// number of batches added. Kafka's producer splits by `batch.size`, which cannot shrink a
    /// batch the broker refuses below that size (KAFKA-8350); halving always ends.
    fn split(&mut self, i: usize, base_sequence: i32) -> Result<Option<u64>, ProduceError> {
        let transactional = self.txn.is_some();
        let idempotent = self.config.idempotence;
        let (producer_id, epoch) = (self.producer_id, self.epoch);
        let s = &mut self.states[i];
        let Some(at) = s
            .queue
            .iter()
            .position(|p| p.base_sequence == base_sequence)
        else {
            return Ok(None);
        };
        let count = s.queue[at].batch.count();
        if count < 2 {
            return Ok(None);
        }
        let codec = s.queue[at].batch.codec();
        let half = count / 2;
        let mut first = BatchBuilder::with_capacity(codec, 0);
        let mut second = BatchBuilder::with_capacity(codec, 0);
        let (topic, partition) = (s.topic.clone(), s.partition);
        let mut n = 0;
        let walked = RecordBatches::new(
            &topic,
            partition,
            s.queue[at].batch.bytes(),
            0,
            i64::MAX,
            false,
            vec![],
        )
        .walk(|r| {
            let builder = if n < half { &mut first } else { &mut second };
            n += 1;
            builder.append(&RecordRef {
                key: r.key,
                value: r.value,
                timestamp: r.timestamp,
                header_count: r.header_count,
                headers: r.headers,
            })
        });
        match walked {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(self.fail(e.into())),
            Err(e) => {
                return Err(self.fail(ProduceError::Connection(format!(
                    "splitting a batch of {topic}-{partition} the broker refused as too large: {e}"
                ))))
            }
        }
        let stamp = |base_sequence| {
            if idempotent {
                ProducerStamp {
                    producer_id,
                    epoch,
                    base_sequence,
                    transactional,
                }
            } else {
                ProducerStamp::NONE
            }
        };
        let second_sequence = if idempotent {
            increment_sequence(base_sequence, first.count())
        } else {
            -1
        };
        let a = first.close(stamp(base_sequence), &mut self.scratch)?;
        let b = second.close(stamp(second_sequence), &mut self.scratch)?;
        let s = &mut self.states[i];
        let Some(old) = s.queue.remove(at) else {
            return Ok(None);
        };
        let added = a.bytes().len() + b.bytes().len();
        self.buffered = self.buffered.saturating_sub(old.batch.bytes().len()) + added;
        let make = |batch, base_sequence| Pending {
            batch,
            base_sequence,
            created: old.created,
            attempts: 0,
            in_flight: false,
            not_before: Instant::now(),
        };
        s.queue.insert(at, make(b, second_sequence));
        s.queue.insert(at, make(a, base_sequence));
        // The batches after it are sent again in order, one at a time until the head is
        // acknowledged, as after a retriable error.
        s.retrying = true;
        for p in s.queue.iter_mut().skip(at) {
            p.in_flight = false;
        }
        Ok(Some(1))
    }

    /// Puts the partition's batches from `base_sequence` on back for another attempt,
    /// after a back-off, one in flight at a time; fails once retries or the delivery
    /// timeout are used up.
    fn retry(
        &mut self,
        i: usize,
        base_sequence: i32,
        code: i16,
        new_leader: Option<(i32, i32)>,
    ) -> Result<(), ProduceError> {
        if let Some((leader, _)) = new_leader.filter(|l| l.0 >= 0) {
            let (topic, partition) = (self.states[i].topic.clone(), self.states[i].partition);
            if let Some(parts) = self.topics.get_mut(&topic) {
                if let Some(p) = parts.iter_mut().find(|p| p.partition == partition) {
                    p.leader = leader;
                }
            }
        }
        let retries = self.config.retries;
        let backoff = self.backoff_for(i, base_sequence);
        let delivery = self.config.delivery_timeout;
        let s = &mut self.states[i];
        let Some(at) = s
            .queue
            .iter()
            .position(|p| p.base_sequence == base_sequence)
        else {
            return Ok(());
        };
        let p = &s.queue[at];
        if p.attempts > retries || p.created.elapsed() >= delivery {
            let e = ProduceError::Partition {
                topic: s.topic.clone(),
                partition: s.partition,
                code,
                name: crate::error::error_name(code),
                message: Some(format!("gave up after {} attempts", p.attempts)),
            };
            return Err(self.fail(e));
        }
        let s = &mut self.states[i];
        s.retrying = true;
        let not_before = Instant::now() + backoff;
        // This batch and every later one are sent again, in order (the later ones' answers,
        // if they come, settle them: success, duplicate or an error retried the same way).
        for p in s.queue.iter_mut().skip(at) {
            p.in_flight = false;
            p.not_before = p.not_before.max(not_before);
        }
        Ok(())
    }

    /// Kafka's exponential back-off: `retry.backoff.ms` doubled per attempt, capped.
    fn backoff_for(&self, i: usize, base_sequence: i32) -> Duration {
        let attempts = self.states[i]
            .queue
            .iter()
            .find(|p| p.base_sequence == base_sequence)
            .map_or(1, |p| p.attempts.max(1));
        let factor = 1u32 << (attempts - 1).min(10);
        (self.config.retry_backoff * factor).min(self.config.retry_backoff_max)
    }

    /// A connection failed: its requests' batches are retried (NETWORK_EXCEPTION) after a
    /// metadata refresh.
    fn connection_lost(&mut self, node: i32, error: ConnectionError) {
        let Some(n) = self.nodes.get_mut(&node) else {
            return;
        };
        n.conn = None;
        let lost: Vec<InFlight> = n.in_flight.drain(..).collect();
        self.metadata_stale = true;
        for request in lost {
            for (i, base_sequence) in request.batches {
                if let Err(e) = self.retry(i, base_sequence, NETWORK_EXCEPTION, None) {
                    // Out of retries: the connection error is the cause.
                    let _ = self.fail(ProduceError::Connection(format!("{error}; {e}")));
                }
            }
        }
    }

    fn ensure_connected(&mut self, node: i32) -> Result<(), ProduceError> {
        let Some(n) = self.nodes.get_mut(&node) else {
            return Err(ProduceError::Connection(format!(
                "no address for broker {node}"
            )));
        };
        if n.conn.is_none() {
            match Connection::open(&n.address, &self.config.connection) {
                Ok(c) => n.conn = Some(c),
                Err(e) => {
                    self.metadata_stale = true;
                    // As Kafka's producer fails on an authentication exception: a retry
                    // does not mend a wrong password or an untrusted certificate.
                    return Err(match ProduceError::from_connection(&e) {
                        error @ ProduceError::Authentication(_) => self.fail(error),
                        error => error,
                    });
                }
            }
        }
        Ok(())
    }

    fn leader_of(&self, topic: &str, partition: i32) -> Option<i32> {
        let leader = self
            .topics
            .get(topic)?
            .iter()
            .find(|p| p.partition == partition)?
            .leader;
        (leader >= 0 && self.nodes.contains_key(&leader)).then_some(leader)
    }

    /// The control connection (Metadata, InitProducerId): its own socket, so its answers
    /// never interleave with Produce responses. Connected to a known broker, else to a
    /// bootstrap server.
    fn any_connection(&mut self) -> Result<&mut Connection, ProduceError> {
        if self.control.is_none() {
            let mut last = None;
            let candidates: Vec<String> = self
                .nodes
                .values()
                .map(|n| n.address.clone())
                .chain(self.config.bootstrap.iter().cloned())
                .collect();
            for address in candidates {
                match Connection::open(&address, &self.config.connection) {
                    Ok(conn) => {
                        self.control = Some(conn);
                        break;
                    }
                    Err(e) => last = Some(e),
                }
            }
            if self.control.is_none() {
                return Err(match last {
                    None => ProduceError::Connection("no broker to connect to".to_string()),
                    Some(e) => match ProduceError::from_connection(&e) {
                        error @ ProduceError::Authentication(_) => self.fail(error),
                        error => error,
                    },
                });
            }
        }
        self.control
            .as_mut()
            .ok_or_else(|| ProduceError::Connection("the connection was lost".into()))
    }

    /// Asks a broker for the metadata of `topic` and of every topic written so far.
    fn refresh_metadata(&mut self, topic: Option<&str>) -> Result<(), ProduceError> {
        let mut names: Vec<String> = self.topics.keys().cloned().collect();
        if let Some(t) = topic {
            if !names.iter().any(|n| n == t) {
                names.push(t.to_string());
            }
        }
        let mut response = std::mem::take(&mut self.response);
        let outcome = (|| {
            let conn = self.any_connection()?;
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let client_id = conn.client_id().to_string();
            let id = conn
                .round_trip(
                    |out, c| metadata::write_request(out, c, &client_id, &refs, true),
                    &mut response,
                )
                .map_err(|e| ProduceError::Connection(e.to_string()))?;
            metadata::parse_response(&response, id).map_err(|e| {
                ProduceError::Connection(format!("malformed Metadata response: {}", e.0))
            })
        })();
        self.response = response;
        let meta = match outcome {
            Ok(m) => m,
            Err(e) => {
                // Drop the connection that failed so the next attempt makes another.
                self.control = None;
                return Err(e);
            }
        };
        for b in &meta.brokers {
            let address = format!("{}:{}", b.host, b.port);
            let node = self.nodes.entry(b.node_id).or_insert_with(|| Node {
                address: address.clone(),
                conn: None,
                in_flight: VecDeque::new(),
                throttled_until: None,
            });
            node.address = address;
        }
        for t in meta.topics {
            if t.error_code == 29 {
                return Err(self.fail(ProduceError::Partition {
                    topic: t.name,
                    partition: -1,
                    code: 29,
                    name: "TOPIC_AUTHORIZATION_FAILED",
                    message: None,
                }));
            }
            if t.error_code != 0 {
                continue;
            }
            let mut parts: Vec<PartitionInfo> = t
                .partitions
                .iter()
                .map(|p| PartitionInfo {
                    partition: p.partition,
                    leader: if p.error_code == 0 { p.leader_id } else { -1 },
                })
                .collect();
            parts.sort_by_key(|p| p.partition);
            self.topics.insert(t.name, parts);
        }
        self.metadata_at = Some(Instant::now());
        self.metadata_stale = false;
        Ok(())
    }

    /// InitProducerId: a new producer id, or (with one) the next epoch of the current one.
    fn init_producer_id(&mut self) -> Result<(), ProduceError> {
        let current = (self.producer_id, self.epoch);
        let deadline = Instant::now() + self.config.max_block;
        loop {
            let mut response = std::mem::take(&mut self.response);
            let outcome = (|| {
                let conn = self.any_connection()?;
                let version = conn
                    .version(
                        init_producer_id::API_KEY,
                        "InitProducerId",
                        3,
                        init_producer_id::VERSION,
                    )
                    .map_err(|e| ProduceError::Connection(e.to_string()))?;
                let client_id = conn.client_id().to_string();
                let id = conn
                    .round_trip(
                        |out, c| {
                            init_producer_id::write_request(
                                out, c, &client_id, version, None, 60_000, current,
                            )
                        },
                        &mut response,
                    )
                    .map_err(|e| ProduceError::Connection(e.to_string()))?;
                init_producer_id::parse_response(&response, id).map_err(|e| {
                    ProduceError::Connection(format!("malformed InitProducerId response: {}", e.0))
                })
            })();
            self.response = response;
            if outcome.is_err() {
                self.control = None;
            }
            match outcome {
                Ok(got) if got.error_code == 0 => {
                    self.producer_id = got.producer_id;
                    self.epoch = got.epoch;
                    return Ok(());
                }
                Ok(got) if error_codes::lookup(got.error_code).is_some_and(|e| e.retriable) => {}
                Ok(got) => {
                    return Err(ProduceError::Partition {
                        topic: String::new(),
                        partition: -1,
                        code: got.error_code,
                        name: crate::error::error_name(got.error_code),
                        message: Some("InitProducerId failed".into()),
                    })
                }
                Err(ProduceError::Connection(_)) if Instant::now() < deadline => {}
                Err(e) => return Err(e),
            }
            if Instant::now() >= deadline {
                return Err(ProduceError::Timeout("InitProducerId timed out".into()));
            }
            std::thread::sleep(self.config.retry_backoff);
        }
    }

    /// Bumps the epoch (no request in flight) and restamps every unacknowledged batch with
    /// the new epoch and sequences restarting at 0 per partition.
    fn bump_epoch(&mut self) -> Result<(), ProduceError> {
        if let Err(e) = self.init_producer_id() {
            return Err(self.fail(e));
        }
        let (producer_id, epoch) = (self.producer_id, self.epoch);
        for s in &mut self.states {
            let mut sequence = 0;
            for p in &mut s.queue {
                p.base_sequence = sequence;
                p.in_flight = false;
                p.batch.restamp(ProducerStamp {
                    producer_id,
                    epoch,
                    base_sequence: sequence,
                    transactional: false,
                });
                sequence = increment_sequence(sequence, p.batch.count());
            }
            s.next_sequence = sequence;
            s.acked_past_head = false;
        }
        self.epoch_bump = false;
        Ok(())
    }
}

/// Whether a failure in a transaction calls for an epoch bump after the abort, as Kafka's
/// producer decides (`maybeTransitionToErrorState`, the coordinator handlers): every failed
/// send but the fatal ones (fenced, authorization, an unsupported version, an unknown producer
/// id mapping), and UNKNOWN_PRODUCER_ID from the coordinator. A bad setting or call is not a
/// send.
fn needs_epoch_bump(e: &ProduceError) -> bool {
    const FATAL: [i16; 5] = [31, 35, 49, 53, PRODUCER_FENCED];
    match e {
        ProduceError::Config(_) => false,
        ProduceError::Transaction { code, .. } => *code == 59,
        e => !FATAL.contains(&e.kafka_code()),
    }
}

/// `sequence + count`, wrapping past i32::MAX to 0 (Kafka's `DefaultRecordBatch.incrementSequence`).
fn increment_sequence(sequence: i32, count: i32) -> i32 {
    if sequence > i32::MAX - count {
        count - (i32::MAX - sequence) - 1
    } else {
        sequence + count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_wrap_as_kafkas_do() {
        assert_eq!(increment_sequence(0, 5), 5);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
    }
}
