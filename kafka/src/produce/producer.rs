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

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use crate::compression::Codec;
use crate::connection::{Connection, ConnectionConfig, ConnectionError};
use crate::error_codes;
use crate::produce::error::ProduceError;
use crate::protocol::{init_producer_id, metadata, produce};
use crate::records::{BatchBuilder, ClosedBatch, ProducerStamp, RecordRef};

const NOT_LEADER_OR_FOLLOWER: i16 = 6;
const FENCED_LEADER_EPOCH: i16 = 74;
const OUT_OF_ORDER_SEQUENCE_NUMBER: i16 = 45;
const DUPLICATE_SEQUENCE_NUMBER: i16 = 46;
const UNKNOWN_PRODUCER_ID: i16 = 59;
const MESSAGE_TOO_LARGE: i16 = 10;

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
    /// `max.block.ms`: how long metadata may be waited for.
    pub max_block: Duration,
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
}

/// A request in flight: which partition states' queue heads it carries.
#[derive(Debug)]
struct InFlight {
    correlation: i32,
    /// (partition state index, base sequence of the batch sent).
    batches: Vec<(usize, i32)>,
}

/// A broker connection and its requests in flight (answered in order).
struct Node {
    address: String,
    conn: Option<Connection>,
    in_flight: VecDeque<InFlight>,
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
        };
        if p.config.idempotence {
            p.init_producer_id()?;
        }
        Ok(p)
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
        let index = self.state_index(topic, partition)?;
        let size = self.states[index].open.record_size(record)?;
        if size + crate::records::write::BATCH_HEADER_BYTES > self.config.max_request_size {
            return Err(ProduceError::RecordTooLarge {
                size,
                limit: self.config.max_request_size,
            });
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

    fn check_failed(&self) -> Result<(), ProduceError> {
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn fail(&mut self, e: ProduceError) -> ProduceError {
        if self.failed.is_none() {
            self.failed = Some(e.clone());
        }
        e
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
        });
        self.state_of
            .entry(topic.to_string())
            .or_default()
            .insert(partition, i);
        Ok(i)
    }

    /// Closes the open batch of state `i` into its queue, stamped with the next sequence.
    fn close_open(&mut self, i: usize) -> Result<(), ProduceError> {
        let idempotent = self.config.idempotence;
        let (producer_id, epoch) = (self.producer_id, self.epoch);
        let state = &mut self.states[i];
        let count = state.open.count();
        let base_sequence = if idempotent { state.next_sequence } else { -1 };
        let stamp = if idempotent {
            ProducerStamp {
                producer_id,
                epoch,
                base_sequence,
                transactional: false,
            }
        } else {
            ProducerStamp::NONE
        };
        let batch = state.open.close(stamp, &mut self.scratch)?;
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
        for node in nodes {
            // Without waiting: every response that arrived. Waiting: the oldest one.
            while let Some(n) = self.nodes.get_mut(&node) {
                if n.in_flight.is_empty() {
                    break;
                }
                let Some(conn) = n.conn.as_mut() else {
                    break;
                };
                let ready = match conn.response_ready() {
                    Ok(r) => r,
                    Err(e) => {
                        self.connection_lost(node, e);
                        break;
                    }
                };
                if !ready && !wait {
                    break;
                }
                waited = true;
                self.read_one(node)?;
                if wait {
                    break;
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

    /// Builds and sends one request per leader with the next batch of each of its
    /// partitions, while the leader has room for another request in flight.
    fn send_ready(&mut self) -> Result<(), ProduceError> {
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
                let in_flight = s.queue.iter().filter(|p| p.in_flight).count();
                let limit = if s.retrying {
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

    fn node_has_room(&self, node: i32) -> bool {
        self.nodes
            .get(&node)
            .is_none_or(|n| n.in_flight.len() < self.config.max_in_flight)
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
        let version = match conn.version(
            produce::API_KEY,
            "Produce",
            produce::MIN_VERSION,
            produce::MAX_VERSION,
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
            produce::write_request(out, c, &client_id, version, None, acks, timeout_ms, &data);
        });
        drop(data);
        match sent {
            Ok(correlation) => {
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
                            self.acknowledged += p.batch.count() as u64;
                        }
                    }
                } else if let Some(n) = self.nodes.get_mut(&node) {
                    n.in_flight.push_back(InFlight {
                        correlation,
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
        for (i, base_sequence) in done.batches {
            let (topic, partition) = (self.states[i].topic.clone(), self.states[i].partition);
            let answer = response
                .partitions
                .iter()
                .find(|p| p.topic == topic && p.partition == partition);
            let Some(answer) = answer else {
                // Not answered: retried as a network error would be.
                self.retry(i, base_sequence, 13, None)?;
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
            let s = &mut self.states[i];
            if let Some(at) = s
                .queue
                .iter()
                .position(|p| p.in_flight && p.base_sequence == base_sequence)
            {
                if let Some(p) = s.queue.remove(at) {
                    self.acknowledged += p.batch.count() as u64;
                }
            }
            if s.queue.front().is_none_or(|p| !p.in_flight) {
                s.retrying = false;
            }
            return Ok(());
        }
        let info = error_codes::lookup(code);
        if matches!(code, NOT_LEADER_OR_FOLLOWER | FENCED_LEADER_EPOCH)
            || info.is_some_and(|e| e.invalid_metadata)
        {
            self.metadata_stale = true;
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
                if let Err(e) = self.retry(i, base_sequence, 13, None) {
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
                    return Err(ProduceError::Connection(e.to_string()));
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
                return Err(ProduceError::Connection(last.map_or_else(
                    || "no broker to connect to".to_string(),
                    |e| e.to_string(),
                )));
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
        }
        self.epoch_bump = false;
        Ok(())
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
    use crate::protocol::test_support::Body;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    #[test]
    fn sequences_wrap_as_kafkas_do() {
        assert_eq!(increment_sequence(0, 5), 5);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
    }

    /// What the scripted broker saw: every Produce request's batch header fields
    /// (producer id, epoch, base sequence, record count) and InitProducerId's current ids.
    #[derive(Default)]
    struct Seen {
        produced: Vec<(i64, i16, i32, i32)>,
        init_with: Vec<(i64, i16)>,
    }

    /// A broker on loopback speaking just enough of the protocol: one topic "t" with one
    /// partition it leads, producer id 7 (epoch 0, then bumped), and Produce answers taken
    /// from `errors` in turn (0 once they run out).
    fn scripted_broker(errors: Vec<i16>) -> (String, Arc<Mutex<Seen>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let errors = Arc::new(Mutex::new(VecDeque::from(errors)));
        let (s2, port) = (seen.clone(), address.port());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let (seen, errors) = (s2.clone(), errors.clone());
                std::thread::spawn(move || loop {
                    let mut size = [0u8; 4];
                    if stream.read_exact(&mut size).is_err() {
                        return;
                    }
                    let mut req = vec![0u8; i32::from_be_bytes(size) as usize];
                    if stream.read_exact(&mut req).is_err() {
                        return;
                    }
                    let key = i16::from_be_bytes([req[0], req[1]]);
                    let correlation = i32::from_be_bytes([req[4], req[5], req[6], req[7]]);
                    let client_len = i16::from_be_bytes([req[8], req[9]]) as usize;
                    let body = &req[10 + client_len + 1..];
                    let reply = match key {
                        18 => {
                            let mut b = Body::default();
                            b.i32(correlation).i16(0).len(3);
                            b.i16(0).i16(9).i16(12).tags();
                            b.i16(3).i16(12).i16(12).tags();
                            b.i16(22).i16(3).i16(5).tags();
                            b.i32(0).tags();
                            b
                        }
                        3 => {
                            let mut b = Body::header_v1(correlation);
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
                                .raw(&[0])
                                .len(1);
                            b.i16(0).i32(0).i32(1).i32(0).len(0).len(0).len(0).tags();
                            b.i32(0).tags().tags();
                            b
                        }
                        22 => {
                            // transactional id (null: 0), timeout, current id, epoch.
                            let id = i64::from_be_bytes(body[5..13].try_into().unwrap());
                            let epoch = i16::from_be_bytes(body[13..15].try_into().unwrap());
                            seen.lock().unwrap().init_with.push((id, epoch));
                            let mut b = Body::header_v1(correlation);
                            b.i32(0)
                                .i16(0)
                                .i64(7)
                                .i16(if id == 7 { epoch + 1 } else { 0 })
                                .tags();
                            b
                        }
                        0 => {
                            // The batch starts after: txn id (1), acks 2, timeout 4, topics (1),
                            // name (2), partitions (1), index 4, records length varint.
                            let mut at = 1 + 2 + 4 + 1 + 2 + 1 + 4;
                            while body[at] & 0x80 != 0 {
                                at += 1;
                            }
                            let batch = &body[at + 1..];
                            seen.lock().unwrap().produced.push((
                                i64::from_be_bytes(batch[43..51].try_into().unwrap()),
                                i16::from_be_bytes(batch[51..53].try_into().unwrap()),
                                i32::from_be_bytes(batch[53..57].try_into().unwrap()),
                                i32::from_be_bytes(batch[57..61].try_into().unwrap()),
                            ));
                            let error = errors.lock().unwrap().pop_front().unwrap_or(0);
                            let mut b = Body::header_v1(correlation);
                            b.len(1).str("t").len(1);
                            b.i32(0)
                                .i16(error)
                                .i64(0)
                                .i64(-1)
                                .i64(0)
                                .len(0)
                                .null()
                                .tags();
                            b.tags().i32(0).tags();
                            b
                        }
                        _ => return,
                    };
                    let mut out = (reply.0.len() as i32).to_be_bytes().to_vec();
                    out.extend_from_slice(&reply.0);
                    if stream.write_all(&out).is_err() {
                        return;
                    }
                });
            }
        });
        (address.to_string(), seen)
    }

    fn producer(broker: &str) -> Producer {
        Producer::open(ProducerConfig {
            bootstrap: vec![broker.to_string()],
            retry_backoff: Duration::from_millis(1),
            retry_backoff_max: Duration::from_millis(5),
            delivery_timeout: Duration::from_secs(20),
            ..ProducerConfig::default()
        })
        .unwrap()
    }

    fn send(p: &mut Producer, n: usize) {
        for i in 0..n {
            let value = format!("v{i}");
            p.append(
                "t",
                0,
                &RecordRef {
                    key: None,
                    value: Some(value.as_bytes()),
                    timestamp: 1,
                    header_count: 0,
                    headers: &[],
                },
            )
            .unwrap();
        }
    }

    #[test]
    fn a_retriable_error_resends_the_same_batch_with_the_same_sequence() {
        // NOT_LEADER_OR_FOLLOWER, then NOT_ENOUGH_REPLICAS, then accepted.
        let (broker, seen) = scripted_broker(vec![6, 19]);
        let mut p = producer(&broker);
        send(&mut p, 3);
        p.flush().unwrap();
        assert_eq!(p.acknowledged(), 3);
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen.produced,
            vec![(7, 0, 0, 3); 3],
            "three attempts, one batch"
        );
        drop(seen);
        send(&mut p, 2);
        p.flush().unwrap();
    }

    #[test]
    fn a_duplicate_sequence_is_a_success_not_a_second_copy() {
        let (broker, seen) = scripted_broker(vec![46]);
        let mut p = producer(&broker);
        send(&mut p, 2);
        p.flush().unwrap();
        send(&mut p, 1);
        p.flush().unwrap();
        assert_eq!(p.acknowledged(), 3);
        // The next batch continues the sequence after the duplicate one.
        assert_eq!(
            seen.lock().unwrap().produced,
            vec![(7, 0, 0, 2), (7, 0, 2, 1)]
        );
    }

    #[test]
    fn an_unknown_producer_id_bumps_the_epoch_and_restarts_the_sequence() {
        let (broker, seen) = scripted_broker(vec![0, 59]);
        let mut p = producer(&broker);
        send(&mut p, 2);
        p.flush().unwrap();
        send(&mut p, 3);
        p.flush().unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen.init_with,
            vec![(-1, -1), (7, 0)],
            "KIP-360: the current id and epoch"
        );
        assert_eq!(
            seen.produced,
            vec![(7, 0, 0, 2), (7, 0, 2, 3), (7, 1, 0, 3)]
        );
        assert_eq!(p.producer_id_and_epoch(), (7, 1));
    }

    #[test]
    fn an_error_that_is_not_retried_fails_the_producer_naming_the_partition() {
        // TOPIC_AUTHORIZATION_FAILED.
        let (broker, _) = scripted_broker(vec![29]);
        let mut p = producer(&broker);
        send(&mut p, 1);
        let e = p.flush().unwrap_err().to_string();
        assert!(
            e.contains("t-0") && e.contains("TOPIC_AUTHORIZATION_FAILED"),
            "{e}"
        );
        // Every later call returns the same failure.
        assert_eq!(p.poll().unwrap_err().to_string(), e);
    }
}
