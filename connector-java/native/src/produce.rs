//! The native producer of the `kafka-native` sink (`'sink.produce-mode' = 'native'`): a
//! [`karrow_kafka::Producer`] fed with encoded records from Java's direct buffers
//! (`docs/jni-contract.md`, "Native produce").
//!
//! Records arrive through `copyIn` in the encoded-records layout: per record [`META_BYTES`]
//! of little-endian metadata, then the keys, the values and the headers back to back. The
//! partition is the record's, or (-1) the stock sink's choice made here: Kafka's murmur2 of the
//! key, the sticky partition for a record without one, or Flink's fixed partitioner. `poll`
//! sends what lingered and reads acknowledgements; transactions, flushes and the committer's
//! EndTxn are `control` requests ([`ProduceControl`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use karrow_kafka::compression::Codec;
use karrow_kafka::connection::ConnectionConfig;
use karrow_kafka::produce::partitioner::{fixed, partition_for_key, Sticky};
use karrow_kafka::produce::{
    Coordinator, ProduceError, Producer, ProducerConfig, ProducerIdAndEpoch,
};
use karrow_kafka::records::RecordRef;
use serde::Deserialize;

use crate::encoded_batch::EncodedBatch;
use crate::error::NativeError;
use crate::kafka_security::SecurityConfig;
use crate::session::{Session, SessionKind};

/// Bytes of one record's metadata: partition i32 (-1: chosen here), topic index i32 (into
/// the configured topics), key length i32 (-1 null), value length i32 (-1 null), header
/// count i32, header bytes i32, timestamp i64 (`i64::MIN`: now); little-endian.
pub const META_BYTES: usize = 32;
/// Longs of the poll summary: records acknowledged so far, bytes buffered (open and
/// unacknowledged batches), producer id, epoch.
pub const SUMMARY_LONGS: usize = 4;
/// Parts `copyIn` takes: metadata, keys, values, headers.
pub const PARTS: usize = 4;

/// How records without a partition get one (`sink.partitioner`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartitionerKind {
    /// Kafka's producer decides (`default` and `round-robin`): murmur2 of the key, sticky
    /// without one.
    Default,
    /// Flink's `FlinkFixedPartitioner`: subtask `i` writes `partitions[i % n]`.
    Fixed,
}

/// What Java passes to `open` (camelCase JSON): Kafka's producer settings as
/// `org.apache.kafka.clients.producer.ProducerConfig` resolved them, plus the sink's.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProduceConfig {
    /// `bootstrap.servers`.
    pub bootstrap: Vec<String>,
    /// `client.id`.
    pub client_id: String,
    /// `acks`.
    pub acks: i16,
    /// `enable.idempotence` (after Kafka's resolution).
    pub idempotence: bool,
    /// `compression.type`: none, gzip, snappy, lz4, zstd.
    pub compression: String,
    /// `compression.gzip.level` / `compression.zstd.level` for the chosen codec.
    pub compression_level: i32,
    /// `batch.size`.
    pub batch_size: usize,
    /// `linger.ms`.
    pub linger_ms: u64,
    /// `max.request.size`.
    pub max_request_size: usize,
    /// `max.in.flight.requests.per.connection`.
    pub max_in_flight: usize,
    /// `request.timeout.ms`.
    pub request_timeout_ms: u64,
    /// `delivery.timeout.ms`.
    pub delivery_timeout_ms: u64,
    /// `retries`.
    pub retries: u32,
    /// `retry.backoff.ms`.
    pub retry_backoff_ms: u64,
    /// `retry.backoff.max.ms`.
    pub retry_backoff_max_ms: u64,
    /// `metadata.max.age.ms`.
    pub metadata_max_age_ms: u64,
    /// `max.block.ms`.
    pub max_block_ms: u64,
    /// `buffer.memory`.
    pub buffer_memory: usize,
    /// `socket.connection.setup.timeout.ms`.
    pub connect_timeout_ms: u64,
    /// `transactional.id` (null: not transactional; the writer sets one per checkpoint).
    pub transactional_id: Option<String>,
    /// Whether the producer is transactional (its id is set later with `set_transactional_id`).
    pub transactional: bool,
    /// `transaction.timeout.ms`.
    pub transaction_timeout_ms: u64,
    /// The topics records name by index (`topic` index in the metadata).
    pub topics: Vec<String>,
    /// `sink.partitioner`.
    pub partitioner: PartitionerKind,
    /// The writer's subtask index (fixed partitioner).
    pub subtask: u32,
    /// TLS and SASL (absent: plaintext).
    #[serde(default)]
    pub security: SecurityConfig,
}

/// A control request (JSON with an `"op"`).
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum ProduceControl {
    /// Sends everything and waits until it is acknowledged.
    Flush,
    /// InitProducerId for the transactional id; replies `{"producer_id", "epoch"}`.
    InitTransactions,
    /// Switches the transactional id (nothing may be open or unsent).
    SetTransactionalId {
        /// The new id.
        transactional_id: String,
    },
    /// Opens a transaction.
    BeginTransaction,
    /// Flushes and commits the open transaction.
    CommitTransaction,
    /// Aborts the open transaction.
    AbortTransaction,
    /// Flink's pre-commit: flushes and hands the open transaction over (no EndTxn); replies
    /// `{"producer_id", "epoch"}` for the committable.
    PrecommitTransaction,
    /// The committer's EndTxn from stored ids; replies `{"error_code", "message"}` (0: done)
    /// rather than failing, so the committer decides what each code means.
    EndTransaction {
        /// The transactional id.
        transactional_id: String,
        /// Its producer id.
        producer_id: i64,
        /// Its epoch.
        epoch: i16,
        /// Commit (true) or abort.
        commit: bool,
    },
    /// Replies the producer's state.
    State,
    /// Replies the partitions of `topic` (ascending ids).
    Partitions {
        /// The topic.
        topic: String,
    },
    /// Hands over the OAUTHBEARER token Kafka's login refreshed (connections take it when
    /// they authenticate or re-authenticate).
    SetToken {
        /// The token.
        token: crate::kafka_security::TokenJson,
    },
}

/// One writer's native producer.
pub struct NativeProducer {
    config: ProducerConfig,
    producer: Producer,
    topics: Vec<String>,
    partitioner: PartitionerKind,
    subtask: u32,
    /// Per topic: the sticky choice for records without a key.
    sticky: Vec<Sticky>,
    /// Per topic: (partition count, partitions with a leader), refreshed per `copyIn`.
    partitions: Vec<(u32, Vec<i32>)>,
    /// The committer's coordinator client (created on the first EndTxn).
    committer: Option<Coordinator>,
    summary: [i64; SUMMARY_LONGS],
}

impl NativeProducer {
    /// Opens the producer (an idempotent one gets its producer id now; a transactional one
    /// when Java asks for `init_transactions`).
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let c: ProduceConfig = serde_json::from_str(config_json)
            .map_err(|e| NativeError::Config(format!("native producer: {e}")))?;
        if c.topics.is_empty() {
            return Err(NativeError::Config(
                "native producer: no target topic".into(),
            ));
        }
        let codec = match c.compression.as_str() {
            "none" => Codec::None,
            // Kafka's gzip level -1 is deflate's default, 6.
            "gzip" => Codec::Gzip(if c.compression_level < 0 {
                6
            } else {
                c.compression_level.clamp(1, 9) as u32
            }),
            "snappy" => Codec::Snappy,
            "lz4" => Codec::Lz4,
            "zstd" => Codec::Zstd(c.compression_level),
            other => {
                return Err(NativeError::Config(format!(
                    "native producer: compression.type '{other}'"
                )))
            }
        };
        let ms = Duration::from_millis;
        let transactional_id = match (&c.transactional_id, c.transactional) {
            (Some(id), _) => Some(id.clone()),
            // A placeholder until the writer names the first transaction.
            (None, true) => Some(String::new()),
            (None, false) => None,
        };
        let config = ProducerConfig {
            bootstrap: c.bootstrap.clone(),
            connection: ConnectionConfig {
                client_id: c.client_id.clone(),
                connect_timeout: ms(c.connect_timeout_ms),
                request_timeout: ms(c.request_timeout_ms),
                security: c.security.build()?,
                ..ConnectionConfig::default()
            },
            acks: c.acks,
            idempotence: c.idempotence,
            codec,
            batch_size: c.batch_size,
            linger: ms(c.linger_ms),
            max_request_size: c.max_request_size,
            max_in_flight: c.max_in_flight,
            request_timeout: ms(c.request_timeout_ms),
            delivery_timeout: ms(c.delivery_timeout_ms),
            retries: c.retries,
            retry_backoff: ms(c.retry_backoff_ms),
            retry_backoff_max: ms(c.retry_backoff_max_ms),
            metadata_max_age: ms(c.metadata_max_age_ms),
            max_block: ms(c.max_block_ms),
            buffer_memory: c.buffer_memory,
            transactional_id,
            transaction_timeout: ms(c.transaction_timeout_ms),
        };
        let producer = Producer::open(config.clone()).map_err(produce_error)?;
        let seed = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            ^ u64::from(c.subtask).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let sticky = (0..c.topics.len())
            .map(|i| Sticky::new(c.batch_size, seed.wrapping_add(i as u64)))
            .collect();
        Ok(NativeProducer {
            config,
            producer,
            partitions: vec![(0, Vec::new()); c.topics.len()],
            topics: c.topics,
            partitioner: c.partitioner,
            subtask: c.subtask,
            sticky,
            committer: None,
            summary: [0; SUMMARY_LONGS],
        })
    }

    /// Appends the `count` records of `parts` (metadata, keys, values, headers) in order.
    pub fn append(&mut self, parts: &[&[u8]], count: usize) -> Result<(), NativeError> {
        let [meta, keys, values, headers] = parts else {
            return Err(NativeError::InvalidCall(format!(
                "a native producer takes {PARTS} parts, got {}",
                parts.len()
            )));
        };
        if count.checked_mul(META_BYTES) != Some(meta.len()) {
            return Err(NativeError::InvalidCall(format!(
                "{count} records need {} bytes of metadata, got {}",
                count.saturating_mul(META_BYTES),
                meta.len()
            )));
        }
        self.refresh_partitions()?;
        let (mut k, mut v, mut h) = (Cursor::new(keys), Cursor::new(values), Cursor::new(headers));
        let mut now = None;
        for (i, m) in meta.chunks_exact(META_BYTES).enumerate() {
            let int = |at: usize| i32::from_le_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]]);
            let partition = int(0);
            let topic = usize::try_from(int(4))
                .ok()
                .filter(|&t| t < self.topics.len())
                .ok_or_else(|| in_record(i, format!("topic index {} is not configured", int(4))))?;
            let key = k
                .nullable(int(8))
                .map_err(|e| in_record(i, format!("key: {e}")))?;
            let value = v
                .nullable(int(12))
                .map_err(|e| in_record(i, format!("value: {e}")))?;
            let header_count = u32::try_from(int(16))
                .map_err(|_| in_record(i, "a negative header count".into()))?;
            let header_bytes = h
                .nullable(int(20))
                .map_err(|e| in_record(i, format!("headers: {e}")))?
                .unwrap_or_default();
            let mut ts = [0u8; 8];
            ts.copy_from_slice(&m[24..32]);
            let mut timestamp = i64::from_le_bytes(ts);
            if timestamp == i64::MIN {
                // No timestamp: the time of the send, as Kafka's producer stamps it.
                timestamp = *now.get_or_insert_with(now_ms);
            }
            let partition = if partition >= 0 {
                partition
            } else {
                self.choose(topic, key).map_err(|e| in_record(i, e))?
            };
            let record = RecordRef {
                key,
                value,
                timestamp,
                header_count,
                headers: header_bytes,
            };
            self.producer
                .append(&self.topics[topic], partition, &record)
                .map_err(|e| in_record(i, e.to_string()))?;
            if key.is_none() && self.partitioner == PartitionerKind::Default {
                let size =
                    key.map_or(0, <[u8]>::len) + value.map_or(0, <[u8]>::len) + header_bytes.len();
                self.sticky[topic].appended(size);
            }
        }
        if !k.done() || !v.done() || !h.done() {
            return Err(NativeError::InvalidCall(
                "the keys, values or headers are longer than the metadata says".into(),
            ));
        }
        Ok(())
    }

    /// The partition for a record of topic `topic` without one, as the stock sink picks it.
    fn choose(&mut self, topic: usize, key: Option<&[u8]>) -> Result<i32, String> {
        let (count, available) = &self.partitions[topic];
        match self.partitioner {
            PartitionerKind::Fixed => {
                let all: Vec<i32> = (0..*count as i32).collect();
                fixed(self.subtask, &all)
                    .ok_or_else(|| "Partitions of the target topic is empty.".to_string())
            }
            PartitionerKind::Default => match key {
                Some(key) => Ok(partition_for_key(key, *count)),
                None => {
                    let from = if available.is_empty() {
                        (0..*count as i32).collect()
                    } else {
                        available.clone()
                    };
                    self.sticky[topic]
                        .partition(&from)
                        .ok_or_else(|| format!("topic {} has no partition", self.topics[topic]))
                }
            },
        }
    }

    /// Reads the partitions of every topic from the producer's metadata (refreshed when old).
    fn refresh_partitions(&mut self) -> Result<(), NativeError> {
        for (t, topic) in self.topics.iter().enumerate() {
            let parts = self.producer.partitions(topic).map_err(produce_error)?;
            let count = u32::try_from(parts.len()).unwrap_or(u32::MAX);
            let available = parts
                .iter()
                .filter(|p| p.leader >= 0)
                .map(|p| p.partition)
                .collect();
            self.partitions[t] = (count, available);
        }
        Ok(())
    }

    /// Runs a control request; returns its reply (JSON).
    pub fn apply(&mut self, request: ProduceControl) -> Result<String, NativeError> {
        let p = &mut self.producer;
        match request {
            ProduceControl::Flush => p.flush().map_err(produce_error)?,
            ProduceControl::InitTransactions => {
                let ids = p.init_transactions().map_err(produce_error)?;
                return Ok(ids_json(ids));
            }
            ProduceControl::SetTransactionalId { transactional_id } => p
                .set_transactional_id(&transactional_id)
                .map_err(produce_error)?,
            ProduceControl::BeginTransaction => p.begin_transaction().map_err(produce_error)?,
            ProduceControl::CommitTransaction => p.commit_transaction().map_err(produce_error)?,
            ProduceControl::AbortTransaction => p.abort_transaction().map_err(produce_error)?,
            ProduceControl::PrecommitTransaction => {
                let ids = p.precommit_transaction().map_err(produce_error)?;
                return Ok(ids_json(ids));
            }
            ProduceControl::EndTransaction {
                transactional_id,
                producer_id,
                epoch,
                commit,
            } => return Ok(self.end_transaction(&transactional_id, producer_id, epoch, commit)),
            ProduceControl::State => {
                let (producer_id, epoch) = p.producer_id_and_epoch();
                return Ok(serde_json::json!({
                    "transactional_id": p.transactional_id(),
                    "producer_id": producer_id,
                    "epoch": epoch,
                    "in_transaction": p.in_transaction(),
                    "has_records": p.has_records_in_transaction(),
                    "transaction_version": p.transaction_version(),
                    "acknowledged": p.acknowledged(),
                    "splits": p.splits(),
                })
                .to_string());
            }
            ProduceControl::Partitions { topic } => {
                let parts: Vec<i32> = p
                    .partitions(&topic)
                    .map_err(produce_error)?
                    .iter()
                    .map(|p| p.partition)
                    .collect();
                return Ok(serde_json::json!(parts).to_string());
            }
            ProduceControl::SetToken { token } => {
                let source = self
                    .config
                    .connection
                    .security
                    .sasl
                    .as_ref()
                    .and_then(|s| s.token.as_ref());
                crate::kafka_security::set_token(source, &token)?;
            }
        }
        Ok("null".to_string())
    }

    /// EndTxn for a transaction known by its ids only; the outcome as `{"error_code",
    /// "message", "producer_id", "epoch"}` (error 0: done; -1: no Kafka code, e.g. a timeout).
    fn end_transaction(&mut self, id: &str, producer_id: i64, epoch: i16, commit: bool) -> String {
        let coordinator = self.committer.get_or_insert_with(|| {
            Coordinator::new(
                id,
                self.config.bootstrap.clone(),
                self.config.connection.clone(),
                self.config.retry_backoff,
                self.config.max_block,
            )
        });
        coordinator.set_transactional_id(id);
        let ids = ProducerIdAndEpoch { producer_id, epoch };
        let outcome = coordinator
            .transaction_version()
            .and_then(|version| coordinator.end_transaction(ids, commit, version));
        match outcome {
            Ok(ended) => {
                let next = ended.next.unwrap_or(ids);
                serde_json::json!({
                    "error_code": 0,
                    "message": null,
                    "producer_id": next.producer_id,
                    "epoch": next.epoch,
                })
                .to_string()
            }
            Err(e) => serde_json::json!({
                "error_code": e.kafka_code(),
                "message": e.to_string(),
                "retriable": matches!(e, ProduceError::Timeout(_) | ProduceError::Connection(_)),
            })
            .to_string(),
        }
    }

    /// Sends what lingered, reads acknowledgements; the summary.
    pub fn pump(&mut self) -> Result<[i64; SUMMARY_LONGS], NativeError> {
        self.producer.poll().map_err(produce_error)?;
        let (producer_id, epoch) = self.producer.producer_id_and_epoch();
        Ok([
            i64::try_from(self.producer.acknowledged()).unwrap_or(i64::MAX),
            i64::try_from(self.producer.buffered_bytes()).unwrap_or(i64::MAX),
            producer_id,
            i64::from(epoch),
        ])
    }
}

impl Session for NativeProducer {
    fn kind(&self) -> SessionKind {
        SessionKind::Produce
    }

    fn retained_bytes(&self) -> usize {
        self.producer.buffered_bytes()
    }

    fn control(&mut self, request: &str) -> Result<String, NativeError> {
        let request: ProduceControl = serde_json::from_str(request).map_err(|e| {
            // The request may carry a token: its text is never echoed.
            NativeError::InvalidCall(format!("native producer control request: {e}"))
        })?;
        self.apply(request)
    }

    fn poll(&mut self) -> Result<&[i64], NativeError> {
        self.summary = self.pump()?;
        Ok(&self.summary)
    }

    fn copy_in(&mut self, parts: &[&[u8]], count: usize) -> Result<(), NativeError> {
        self.append(parts, count)
    }

    fn append_batch(&mut self, batch: &EncodedBatch) -> Result<usize, NativeError> {
        let count = batch.count();
        self.append(&batch.parts(), count)
            .map_err(|e| batch.attribute(e))?;
        Ok(count)
    }
}

/// Reads consecutive byte ranges of one part, bounded by it.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    /// The next `length` bytes (`None` for -1).
    fn nullable(&mut self, length: i32) -> Result<Option<&'a [u8]>, String> {
        if length == -1 {
            return Ok(None);
        }
        let n = usize::try_from(length).map_err(|_| format!("length {length}"))?;
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "{n} bytes at {} run past the {} bytes given",
                    self.at,
                    self.bytes.len()
                )
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(Some(out))
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

fn ids_json(ids: ProducerIdAndEpoch) -> String {
    serde_json::json!({"producer_id": ids.producer_id, "epoch": ids.epoch}).to_string()
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A produce failure as the error Java sees.
fn produce_error(e: ProduceError) -> NativeError {
    NativeError::Produce {
        message: e.to_string(),
        index: None,
    }
}

fn in_record(index: usize, message: String) -> NativeError {
    NativeError::Produce {
        message,
        index: Some(index),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: &str) -> String {
        format!(
            r#"{{"bootstrap":["127.0.0.1:1"],"clientId":"c","acks":-1,"idempotence":false,
            "compression":"none","compressionLevel":0,"batchSize":16384,"lingerMs":5,
            "maxRequestSize":1048576,"maxInFlight":5,"requestTimeoutMs":1000,
            "deliveryTimeoutMs":2000,"retries":1,"retryBackoffMs":10,"retryBackoffMaxMs":100,
            "metadataMaxAgeMs":300000,"maxBlockMs":100,"bufferMemory":1048576,
            "connectTimeoutMs":100,"transactionalId":null,"transactional":false,
            "transactionTimeoutMs":60000,"partitioner":"default","subtask":0{extra}}}"#
        )
    }

    fn open_error(json: &str) -> String {
        match NativeProducer::open(json) {
            Ok(_) => panic!("opened"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_bad_configuration_fails_the_open_with_the_reason() {
        assert!(open_error(&config(r#","topics":[]"#)).contains("no target topic"));
        assert!(open_error(&config(r#","topics":["t"],"extra":1"#)).contains("unknown field"));
        let brotli = config(r#","topics":["t"]"#).replace(r#""none""#, r#""brotli""#);
        assert!(open_error(&brotli).contains("compression.type 'brotli'"));
        assert!(open_error("{").contains("native producer"));
    }

    #[test]
    fn a_cursor_never_reads_past_its_part() {
        let bytes = [1u8, 2, 3, 4];
        let mut c = Cursor::new(&bytes);
        assert_eq!(c.nullable(-1), Ok(None));
        assert_eq!(c.nullable(3), Ok(Some(&bytes[..3])));
        assert!(!c.done());
        assert!(c.nullable(2).unwrap_err().contains("run past the 4 bytes"));
        assert!(c.nullable(-2).unwrap_err().contains("length -2"));
        assert!(c.nullable(i32::MAX).is_err());
        assert_eq!(c.nullable(1), Ok(Some(&bytes[3..])));
        assert!(c.done());
    }
}
