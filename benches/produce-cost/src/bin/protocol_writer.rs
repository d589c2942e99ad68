//! Writes every value of a values file to a topic the way a native sink would: records
//! laid out in one buffer (as an encode call returns them), appended to v2 record batches
//! by `karrow-kafka`'s batch writer (varints, CRC32C, compression), sent in pipelined
//! Produce requests with acks=all; reports the process CPU time per record. It answers:
//! what does producing cost when no object is built per record?
//!
//! `protocol-writer BOOTSTRAP TOPIC PARTITIONS VALUES_FILE MODE CODEC [key=value ...]`
//! `protocol-writer gen-values FILE COUNT`
//!
//! MODE: `acks-all` (no producer id), `idempotent` (InitProducerId, sequence numbers),
//! `transactional` (a transactional id, a transaction committed every
//! `checkpoint.records` records as Flink's checkpoints commit them), `producer` (not the
//! minimal writer: `karrow-kafka`'s idempotent `Producer` with its sticky partitioner,
//! linger.ms 5, flushed every `checkpoint.records` records). CODEC: none, gzip,
//! snappy, lz4, zstd. Settings: `batch.size` (262144, as `kafka-native` sets it),
//! `max.request.size` (1048576), `max.in.flight` (5), `checkpoint.records` (100000).
//!
//! A measuring tool, not a client: one broker that leads every partition, null keys,
//! partitions switched as Kafka's sticky partitioner switches them (when a batch is full;
//! in turn here), any error code fails the run.

use std::error::Error;
use std::time::Instant;

use karrow_kafka::compression::Codec;
use karrow_kafka::connection::{Connection, ConnectionConfig};
use karrow_kafka::protocol::{
    end_txn, find_coordinator, init_producer_id, produce, txn_partitions,
};
use karrow_kafka::records::{BatchBuilder, ClosedBatch, ProducerStamp, RecordRef};
use karrow_produce_bench::{process_cpu, process_cpu_split, write_values, Values};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    AcksAll,
    Idempotent,
    Transactional,
    Producer,
}

struct Settings {
    batch_size: usize,
    max_request_size: usize,
    max_in_flight: usize,
    checkpoint_records: usize,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("gen-values") && args.len() == 3 {
        return write_values(&args[1], args[2].parse()?);
    }
    if args.len() < 6 {
        return Err("usage: protocol-writer BOOTSTRAP TOPIC PARTITIONS VALUES_FILE MODE CODEC [key=value ...] | gen-values FILE COUNT".into());
    }
    let (bootstrap, topic) = (&args[0], &args[1]);
    let partitions: i32 = args[2].parse()?;
    let values = Values::read(&args[3])?;
    let mode = match args[4].as_str() {
        "acks-all" => Mode::AcksAll,
        "idempotent" => Mode::Idempotent,
        "transactional" => Mode::Transactional,
        "producer" => Mode::Producer,
        other => return Err(format!("unknown mode {other}").into()),
    };
    let codec = match args[5].as_str() {
        "none" => Codec::None,
        "gzip" => Codec::Gzip(6),
        "snappy" => Codec::Snappy,
        "lz4" => Codec::Lz4,
        "zstd" => Codec::Zstd(3),
        other => return Err(format!("unknown codec {other}").into()),
    };
    let mut settings = Settings {
        batch_size: 262_144,
        max_request_size: 1_048_576,
        max_in_flight: 5,
        checkpoint_records: 100_000,
    };
    for pair in &args[6..] {
        let (k, v) = pair.split_once('=').ok_or("expected key=value")?;
        match k {
            "batch.size" => settings.batch_size = v.parse()?,
            "max.request.size" => settings.max_request_size = v.parse()?,
            "max.in.flight" => settings.max_in_flight = v.parse()?,
            "checkpoint.records" => settings.checkpoint_records = v.parse()?,
            other => return Err(format!("unknown setting {other}").into()),
        }
    }
    let cpu_start = process_cpu();
    let (user_start, _) = process_cpu_split();
    let start = Instant::now();
    let txn_version = if mode == Mode::Producer {
        write_with_producer(bootstrap, topic, codec, &settings, &values)?;
        -1
    } else {
        let mut writer = Writer::open(bootstrap, topic, partitions, mode, codec, settings)?;
        writer.write_all(&values)?;
        writer.txn_version
    };
    let wall = start.elapsed();
    let cpu = process_cpu().saturating_sub(cpu_start);
    let user = process_cpu_split().0.saturating_sub(user_start);
    let codec_name = &args[5];
    println!(
        "native mode={} codec={codec_name} records={} wall_s={:.3} cpu_s={:.3} cpu_us_per_record={:.3} user_us_per_record={:.3} checksum={} txn_version={}",
        args[4],
        values.len(),
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / values.len().max(1) as f64,
        user.as_secs_f64() * 1e6 / values.len().max(1) as f64,
        values.checksum(),
        txn_version,
    );
    Ok(())
}

/// The `producer` mode: the crate's idempotent producer, as the native sink will drive it.
fn write_with_producer(
    bootstrap: &str,
    topic: &str,
    codec: Codec,
    settings: &Settings,
    values: &Values,
) -> Result<()> {
    use karrow_kafka::produce::partitioner::Sticky;
    use karrow_kafka::produce::{Producer, ProducerConfig};
    let mut producer = Producer::open(ProducerConfig {
        bootstrap: vec![bootstrap.to_string()],
        codec,
        batch_size: settings.batch_size,
        max_request_size: settings.max_request_size,
        max_in_flight: settings.max_in_flight,
        ..ProducerConfig::default()
    })?;
    let available: Vec<i32> = producer
        .partitions(topic)?
        .iter()
        .map(|p| p.partition)
        .collect();
    let mut sticky = Sticky::new(settings.batch_size, 0x5eed);
    for i in 0..values.len() {
        let value = values.get(i);
        let partition = sticky.partition(&available).ok_or("no partition")?;
        producer.append(
            topic,
            partition,
            &RecordRef {
                key: None,
                value: Some(value),
                timestamp: 1_700_000_000_000 + i as i64,
                header_count: 0,
                headers: &[],
            },
        )?;
        sticky.appended(value.len() + 8);
        if (i + 1) % settings.checkpoint_records == 0 {
            producer.flush()?;
        }
    }
    producer.flush()?;
    Ok(())
}

/// One connection, one open batch per partition, the requests in flight.
struct Writer {
    conn: Connection,
    topic: String,
    mode: Mode,
    settings: Settings,
    builders: Vec<BatchBuilder>,
    /// The next sequence number of each partition.
    sequences: Vec<i32>,
    /// Closed batches waiting for a request: (partition, batch).
    ready: Vec<(i32, ClosedBatch)>,
    ready_bytes: usize,
    in_flight: std::collections::VecDeque<i32>,
    producer_id: i64,
    epoch: i16,
    transactional_id: String,
    txn_version: i16,
    /// Partitions added to the open transaction (protocol 1).
    in_txn: Vec<bool>,
    produce_version: i16,
    /// The next request is the first of a transaction (protocol 2).
    first_in_txn: bool,
    /// Whether the open transaction holds a record.
    records_in_txn: bool,
    scratch: Vec<u8>,
    request_parts: Vec<(i32, ClosedBatch)>,
    response: Vec<u8>,
    /// Compression ratio estimate (Kafka's estimator: starts at 1, improves by 0.005).
    ratio: f32,
}

impl Writer {
    fn open(
        bootstrap: &str,
        topic: &str,
        partitions: i32,
        mode: Mode,
        codec: Codec,
        settings: Settings,
    ) -> Result<Writer> {
        let config = ConnectionConfig {
            client_id: "karrow-produce-bench".into(),
            ..ConnectionConfig::default()
        };
        let mut conn = Connection::open(bootstrap, &config)?;
        let txn_version = conn.versions().transaction_version();
        let transactional_id = format!("karrow-produce-bench-{}", std::process::id());
        let mut response = Vec::new();
        let (mut producer_id, mut epoch) = (-1i64, -1i16);
        if mode != Mode::AcksAll {
            if mode == Mode::Transactional {
                // The first lookup creates the transaction state topic: retry until found.
                for attempt in 0.. {
                    let id = conn.round_trip(
                        |out, c| {
                            find_coordinator::write_request(
                                out,
                                c,
                                "karrow-produce-bench",
                                &transactional_id,
                            )
                        },
                        &mut response,
                    )?;
                    let found = find_coordinator::parse_response(&response, id)?;
                    if found.error_code == 0 {
                        break;
                    }
                    if attempt > 100 {
                        return Err(format!("no coordinator: error {}", found.error_code).into());
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            }
            let txn = (mode == Mode::Transactional).then_some(transactional_id.as_str());
            for attempt in 0.. {
                let id = conn.round_trip(
                    |out, c| {
                        init_producer_id::write_request(
                            out,
                            c,
                            "karrow-produce-bench",
                            init_producer_id::VERSION,
                            txn,
                            60_000,
                            (-1, -1),
                        )
                    },
                    &mut response,
                )?;
                let got = init_producer_id::parse_response(&response, id)?;
                if got.error_code == 0 {
                    producer_id = got.producer_id;
                    epoch = got.epoch;
                    break;
                }
                if attempt > 100 {
                    return Err(format!("InitProducerId: error {}", got.error_code).into());
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
        let max_produce = if mode == Mode::Transactional && txn_version < 2 {
            11
        } else {
            produce::MAX_VERSION
        };
        let produce_version = conn.version(
            produce::API_KEY,
            "Produce",
            produce::MIN_VERSION,
            max_produce,
        )?;
        let n = usize::try_from(partitions)?;
        Ok(Writer {
            conn,
            topic: topic.to_string(),
            mode,
            builders: (0..n)
                .map(|_| BatchBuilder::with_capacity(codec, settings.batch_size))
                .collect(),
            settings,
            sequences: vec![0; n],
            ready: Vec::new(),
            ready_bytes: 0,
            in_flight: Default::default(),
            producer_id,
            epoch,
            transactional_id,
            txn_version,
            in_txn: vec![false; n],
            produce_version,
            first_in_txn: mode == Mode::Transactional && txn_version >= 2,
            records_in_txn: false,
            scratch: Vec::new(),
            request_parts: Vec::new(),
            response,
            ratio: 1.0,
        })
    }

    fn write_all(&mut self, values: &Values) -> Result<()> {
        let mut partition = 0usize;
        let timestamp = 1_700_000_000_000i64;
        let compressed = self.builders[0].codec() != Codec::None;
        for i in 0..values.len() {
            let record = RecordRef {
                key: None,
                value: Some(values.get(i)),
                timestamp: timestamp + i as i64,
                header_count: 0,
                headers: &[],
            };
            let size = self.builders[partition].record_size(&record)?;
            let b = &self.builders[partition];
            let estimate = if compressed {
                61 + ((b.uncompressed_bytes() - 61) as f32 * self.ratio * 1.05) as usize
            } else {
                b.uncompressed_bytes()
            };
            if !b.is_empty() && estimate + size > self.settings.batch_size {
                self.close(partition)?;
                partition = (partition + 1) % self.builders.len();
            }
            self.builders[partition].append(&record)?;
            self.records_in_txn = true;
            if self.mode == Mode::Transactional && (i + 1) % self.settings.checkpoint_records == 0 {
                self.commit()?;
            }
        }
        if self.mode == Mode::Transactional {
            self.commit()
        } else {
            self.flush()
        }
    }

    /// Closes the open batch of `partition` and queues it; sends when a request is full.
    fn close(&mut self, partition: usize) -> Result<()> {
        let b = &mut self.builders[partition];
        let count = b.count();
        let uncompressed = b.uncompressed_bytes();
        let stamp = if self.mode == Mode::AcksAll {
            ProducerStamp::NONE
        } else {
            ProducerStamp {
                producer_id: self.producer_id,
                epoch: self.epoch,
                base_sequence: self.sequences[partition],
                transactional: self.mode == Mode::Transactional,
            }
        };
        let batch = b.close(stamp, &mut self.scratch)?;
        if b.codec() != Codec::None {
            let observed = batch.bytes().len() as f32 / uncompressed as f32;
            self.ratio = if observed > self.ratio {
                (self.ratio + 0.05).max(observed)
            } else {
                (self.ratio - 0.005).max(observed)
            };
        }
        self.sequences[partition] = self.sequences[partition].wrapping_add(count);
        let len = batch.bytes().len();
        // A request carries one batch per partition (what brokers accept from an
        // idempotent producer, and what Kafka's sender drains) up to max.request.size.
        let again = self.ready.iter().any(|(p, _)| *p == partition as i32);
        if (again || self.ready_bytes + len > self.settings.max_request_size)
            && !self.ready.is_empty()
        {
            self.send()?;
        }
        self.ready.push((partition as i32, batch));
        self.ready_bytes += len;
        Ok(())
    }

    /// Sends the queued batches in one Produce request.
    fn send(&mut self) -> Result<()> {
        if self.ready.is_empty() {
            return Ok(());
        }
        if self.mode == Mode::Transactional && self.txn_version < 2 {
            let new: Vec<i32> = self
                .ready
                .iter()
                .map(|(p, _)| *p)
                .filter(|&p| !self.in_txn[p as usize])
                .collect();
            if !new.is_empty() {
                self.add_partitions(&new)?;
            }
        }
        while self.in_flight.len() >= self.settings.max_in_flight {
            self.receive_one()?;
        }
        let mut parts = std::mem::take(&mut self.request_parts);
        parts.clear();
        parts.append(&mut self.ready);
        parts.sort_by_key(|(p, _)| *p);
        self.ready_bytes = 0;
        if self.first_in_txn {
            // Protocol 2 adds the partitions with the first Produce of a transaction; while
            // the previous commit completes the broker answers CONCURRENT_TRANSACTIONS, and
            // Kafka's producer retries. That first request goes alone, retried until taken.
            while !self.in_flight.is_empty() {
                self.receive_one()?;
            }
            for attempt in 0.. {
                let id = self.send_parts(&parts)?;
                self.conn.receive(&mut self.response)?;
                let resp = produce::parse_response(&self.response, id)?;
                match resp
                    .partitions
                    .iter()
                    .map(|p| p.error_code)
                    .find(|&e| e != 0)
                {
                    None => break,
                    Some(51) if attempt < 1000 => {
                        std::thread::sleep(std::time::Duration::from_millis(5))
                    }
                    Some(e) => {
                        return Err(format!("first produce of a transaction: error {e}").into())
                    }
                }
            }
            self.first_in_txn = false;
            self.request_parts = parts;
            return Ok(());
        }
        let id = self.send_parts(&parts)?;
        self.request_parts = parts;
        self.in_flight.push_back(id);
        Ok(())
    }

    /// Writes one Produce request of `parts`.
    fn send_parts(&mut self, parts: &[(i32, ClosedBatch)]) -> Result<i32> {
        let topic = self.topic.clone();
        let txn = (self.mode == Mode::Transactional).then_some(self.transactional_id.as_str());
        let version = self.produce_version;
        let data: Vec<produce::PartitionData<'_>> = parts
            .iter()
            .map(|(p, b)| produce::PartitionData {
                topic: &topic,
                partition: *p,
                records: b.bytes(),
            })
            .collect();
        Ok(self.conn.send_with(|out, c| {
            produce::write_request(
                out,
                c,
                "karrow-produce-bench",
                version,
                txn,
                -1,
                30_000,
                &data,
            )
        })?)
    }

    fn receive_one(&mut self) -> Result<()> {
        let id = self.in_flight.pop_front().ok_or("nothing in flight")?;
        self.conn.receive(&mut self.response)?;
        let resp = produce::parse_response(&self.response, id)?;
        for p in &resp.partitions {
            if p.error_code != 0 {
                return Err(format!(
                    "produce to {}-{}: error {}",
                    p.topic, p.partition, p.error_code
                )
                .into());
            }
        }
        Ok(())
    }

    /// Closes every open batch, sends, and waits for every response.
    fn flush(&mut self) -> Result<()> {
        for p in 0..self.builders.len() {
            if !self.builders[p].is_empty() {
                self.close(p)?;
            }
        }
        self.send()?;
        while !self.in_flight.is_empty() {
            self.receive_one()?;
        }
        Ok(())
    }

    fn add_partitions(&mut self, new: &[i32]) -> Result<()> {
        let topic = self.topic.clone();
        let parts: Vec<(&str, i32)> = new.iter().map(|&p| (topic.as_str(), p)).collect();
        let (txn, pid, epoch) = (self.transactional_id.clone(), self.producer_id, self.epoch);
        let id = self.conn.round_trip(
            |out, c| {
                txn_partitions::write_request(
                    out,
                    c,
                    "karrow-produce-bench",
                    &txn,
                    pid,
                    epoch,
                    &parts,
                )
            },
            &mut self.response,
        )?;
        for (t, p, e) in txn_partitions::parse_response(&self.response, id)? {
            if e != 0 {
                return Err(format!("AddPartitionsToTxn {t}-{p}: error {e}").into());
            }
        }
        for &p in new {
            self.in_txn[p as usize] = true;
        }
        Ok(())
    }

    /// Flushes and commits the open transaction (as Flink's committer does after a
    /// checkpoint); on protocol 2 the next transaction gets the bumped epoch.
    fn commit(&mut self) -> Result<()> {
        self.flush()?;
        // Like Kafka's producer, no EndTxn for a transaction that holds no record.
        if !self.records_in_txn {
            return Ok(());
        }
        self.records_in_txn = false;
        let version = if self.txn_version >= 2 {
            end_txn::VERSION_TV2
        } else {
            end_txn::VERSION_TV1
        };
        let (txn, pid, epoch) = (self.transactional_id.clone(), self.producer_id, self.epoch);
        let mut attempt = 0;
        let ended = loop {
            let id = self.conn.round_trip(
                |out, c| {
                    end_txn::write_request(
                        out,
                        c,
                        "karrow-produce-bench",
                        version,
                        &txn,
                        pid,
                        epoch,
                        true,
                    )
                },
                &mut self.response,
            )?;
            let ended = end_txn::parse_response(&self.response, id, version)?;
            attempt += 1;
            match ended.error_code {
                0 => break ended,
                // CONCURRENT_TRANSACTIONS: the previous commit is still being completed.
                51 if attempt < 1000 => std::thread::sleep(std::time::Duration::from_millis(5)),
                e => return Err(format!("EndTxn: error {e}").into()),
            }
        };
        self.first_in_txn = self.txn_version >= 2;
        if version >= 5 {
            self.producer_id = ended.producer_id;
            self.epoch = ended.epoch;
            self.sequences.iter_mut().for_each(|s| *s = 0);
        }
        self.in_txn.iter_mut().for_each(|a| *a = false);
        Ok(())
    }
}
