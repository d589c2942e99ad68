//! The native producer against a real Kafka broker: what it writes is read back by the
//! native fetch, record for record.
//!
//! The broker is the one `tests/run-java-tests.sh` starts (`make test` runs this test there
//! with `KARROW_TEST_KAFKA_BOOTSTRAP` set). Without that variable the tests are skipped with
//! a printed reason; with it, an unreachable broker is a failure. By hand:
//!
//! ```text
//! KAFKA_PORT=36092 KAFKA_CONTROLLER_PORT=36093 tests/services/kafka.sh start
//! KARROW_TEST_KAFKA_BOOTSTRAP=127.0.0.1:36092 cargo test -p karrow-kafka --test producer_broker
//! ```

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use karrow_kafka::compression::Codec;
use karrow_kafka::connection::ConnectionConfig;
use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::produce::partitioner::{partition_for_key, Sticky};
use karrow_kafka::produce::{Coordinator, Producer, ProducerConfig, ProducerIdAndEpoch};
use karrow_kafka::records::RecordRef;
use karrow_kafka::{FetchSession, Isolation};
use support::{bootstrap, create_topic, create_topic_with};

fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_nanos();
    format!("karrow-producer-{name}-{nanos}")
}

/// One record as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Read {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    timestamp: i64,
    header_count: u32,
    headers: Vec<u8>,
}

/// Every record of `topic`'s `partitions`, per partition in offset order (read until `expected`
/// records arrived or 60 s passed).
fn read_back(
    bootstrap: &str,
    topic: &str,
    partitions: i32,
    expected: usize,
) -> HashMap<i32, Vec<Read>> {
    let mut session = FetchSession::new(
        "karrow-test",
        Isolation::ReadCommitted,
        FetchLimits::default(),
    );
    for p in 0..partitions {
        session.assign(p, topic, p, bootstrap, 0, i64::MAX);
    }
    let mut out: HashMap<i32, Vec<Read>> = HashMap::new();
    let mut total = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while total < expected && Instant::now() < deadline {
        session
            .poll(|slot, r| -> Result<(), ()> {
                out.entry(slot).or_default().push(Read {
                    key: r.key.map(<[u8]>::to_vec),
                    value: r.value.map(<[u8]>::to_vec),
                    timestamp: r.timestamp,
                    header_count: r.header_count,
                    headers: r.headers.to_vec(),
                });
                total += 1;
                Ok(())
            })
            .expect("fetch")
            .expect("no callback error");
    }
    out
}

fn config(bootstrap: &str, codec: Codec) -> ProducerConfig {
    ProducerConfig {
        bootstrap: vec![bootstrap.to_string()],
        codec,
        batch_size: 16_384,
        linger: Duration::from_millis(5),
        ..ProducerConfig::default()
    }
}

/// Kafka's header encoding of one header.
fn header(key: &[u8], value: Option<&[u8]>) -> Vec<u8> {
    fn varint(out: &mut Vec<u8>, v: i64) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            out.push(z as u8 | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }
    let mut out = Vec::new();
    varint(&mut out, key.len() as i64);
    out.extend_from_slice(key);
    match value {
        Some(v) => {
            varint(&mut out, v.len() as i64);
            out.extend_from_slice(v);
        }
        None => varint(&mut out, -1),
    }
    out
}

/// Keyed records (partitioned by murmur2 as Kafka's producer does), with headers, null
/// values and explicit timestamps, under every codec: read back in order, byte for byte,
/// each exactly once.
#[test]
fn keyed_records_are_read_back_in_order_exactly_once_under_every_codec() {
    let Some(bootstrap) = bootstrap() else { return };
    for codec in [
        Codec::None,
        Codec::Gzip(6),
        Codec::Snappy,
        Codec::Lz4,
        Codec::Zstd(3),
    ] {
        let topic = unique("keyed");
        create_topic(&bootstrap, &topic, 3);
        let mut producer = Producer::open(config(&bootstrap, codec)).expect("producer");
        assert!(
            producer.producer_id_and_epoch().0 >= 0,
            "idempotent: a producer id"
        );
        let count = 5_000;
        let partitions = producer.partitions(&topic).expect("metadata").len() as u32;
        assert_eq!(partitions, 3);
        let mut expected: HashMap<i32, Vec<Read>> = HashMap::new();
        for i in 0..count {
            let key = format!("key-{}", i % 97).into_bytes();
            let value =
                (i % 50 != 7).then(|| format!("value-{i}-{}", "x".repeat(i % 40)).into_bytes());
            let headers = if i % 3 == 0 {
                header(b"h", Some(format!("{i}").as_bytes()))
            } else {
                Vec::new()
            };
            let record = RecordRef {
                key: Some(&key),
                value: value.as_deref(),
                timestamp: 1_700_000_000_000 + i as i64,
                header_count: u32::from(i % 3 == 0),
                headers: &headers,
            };
            let partition = partition_for_key(&key, partitions);
            producer.append(&topic, partition, &record).expect("append");
            expected.entry(partition).or_default().push(Read {
                key: Some(key.clone()),
                value: value.clone(),
                timestamp: record.timestamp,
                header_count: record.header_count,
                headers: headers.clone(),
            });
        }
        producer.flush().expect("flush");
        assert_eq!(producer.acknowledged(), count as u64);
        let read = read_back(&bootstrap, &topic, 3, count);
        for p in 0..3 {
            assert_eq!(
                read.get(&p).map(Vec::len),
                expected.get(&p).map(Vec::len),
                "{codec:?} partition {p}"
            );
            assert_eq!(read.get(&p), expected.get(&p), "{codec:?} partition {p}");
        }
    }
}

/// Records without a key, spread by the sticky partitioner: every record exactly once,
/// per partition in the order sent; linger and several flushes in between.
#[test]
fn keyless_records_spread_sticky_and_every_one_arrives_once() {
    let Some(bootstrap) = bootstrap() else { return };
    let topic = unique("keyless");
    create_topic(&bootstrap, &topic, 3);
    let mut producer = Producer::open(config(&bootstrap, Codec::Lz4)).expect("producer");
    let available: Vec<i32> = producer
        .partitions(&topic)
        .expect("metadata")
        .iter()
        .map(|p| p.partition)
        .collect();
    let mut sticky = Sticky::new(16_384, 42);
    let count = 20_000;
    let mut sent: HashMap<i32, Vec<Vec<u8>>> = HashMap::new();
    for i in 0..count {
        let value = format!("{i:08}").into_bytes();
        let partition = sticky.partition(&available).expect("a partition");
        let record = RecordRef {
            key: None,
            value: Some(&value),
            timestamp: 1_700_000_000_000,
            header_count: 0,
            headers: &[],
        };
        producer.append(&topic, partition, &record).expect("append");
        sticky.appended(value.len() + 8);
        sent.entry(partition).or_default().push(value);
        if i % 7_000 == 6_999 {
            producer.flush().expect("flush");
        }
    }
    producer.flush().expect("flush");
    let read = read_back(&bootstrap, &topic, 3, count);
    let mut total = 0;
    for (p, values) in &sent {
        let got: Vec<Vec<u8>> = read[p]
            .iter()
            .map(|r| r.value.clone().expect("a value"))
            .collect();
        assert_eq!(&got, values, "partition {p}");
        total += got.len();
    }
    assert_eq!(total, count);
    assert!(
        sent.len() > 1,
        "the sticky partitioner moved between partitions"
    );
}

/// A topic that does not exist (and is not created: a broker with auto-creation creates
/// it with 1 partition): partition 5 of it is refused with a clear error, not a hang.
#[test]
fn an_unknown_partition_is_refused() {
    let Some(bootstrap) = bootstrap() else { return };
    let topic = unique("one-partition");
    create_topic(&bootstrap, &topic, 1);
    let mut producer = Producer::open(config(&bootstrap, Codec::None)).expect("producer");
    let record = RecordRef {
        key: None,
        value: Some(b"v"),
        timestamp: 0,
        header_count: 0,
        headers: &[],
    };
    let e = producer.append(&topic, 5, &record).unwrap_err().to_string();
    assert!(e.contains("partition 5") && e.contains(&topic), "{e}");
}

const BOOTSTRAP_TV1_VAR: &str = "KARROW_TEST_KAFKA_BOOTSTRAP_TV1";

/// The brokers to run the transaction tests on, with the protocol each runs: the default one
/// (`KARROW_TEST_KAFKA_BOOTSTRAP`, protocol 2 on Kafka 4.x) and, when
/// `KARROW_TEST_KAFKA_BOOTSTRAP_TV1` is set, one formatted with `transaction.version=1`
/// (`KAFKA_FEATURES=transaction.version=1 tests/services/kafka.sh start`).
fn transaction_brokers() -> Vec<(String, i16)> {
    let mut out = Vec::new();
    if let Some(b) = bootstrap() {
        out.push((b, 2));
    }
    match std::env::var(BOOTSTRAP_TV1_VAR) {
        Ok(b) => out.push((b, 1)),
        Err(_) => eprintln!("protocol 1 skipped: {BOOTSTRAP_TV1_VAR} is not set"),
    }
    out
}

fn transactional_config(bootstrap: &str, id: &str) -> ProducerConfig {
    ProducerConfig {
        transactional_id: Some(id.to_string()),
        ..config(bootstrap, Codec::Lz4)
    }
}

/// Every record of `topic` as (partition, value) under `isolation`, read until `expected`
/// records (or 30 s).
fn values(
    bootstrap: &str,
    topic: &str,
    partitions: i32,
    isolation: Isolation,
    expected: usize,
) -> Vec<(i32, Vec<u8>)> {
    values_within(
        bootstrap,
        topic,
        partitions,
        isolation,
        expected,
        Duration::from_secs(30),
    )
}

/// As [`values`], reading for at most `within`.
fn values_within(
    bootstrap: &str,
    topic: &str,
    partitions: i32,
    isolation: Isolation,
    expected: usize,
    within: Duration,
) -> Vec<(i32, Vec<u8>)> {
    let mut session = FetchSession::new("karrow-test", isolation, FetchLimits::default());
    for p in 0..partitions {
        session.assign(p, topic, p, bootstrap, 0, i64::MAX);
    }
    let mut out = Vec::new();
    let deadline = Instant::now() + within;
    while out.len() < expected && Instant::now() < deadline {
        session
            .poll(|slot, r| -> Result<(), ()> {
                out.push((slot, r.value.map(<[u8]>::to_vec).unwrap_or_default()));
                Ok(())
            })
            .expect("fetch")
            .expect("no callback error");
    }
    out.sort();
    out
}

fn keyed_record<'a>(key: &'a [u8], value: &'a [u8]) -> RecordRef<'a> {
    RecordRef {
        key: Some(key),
        value: Some(value),
        timestamp: 1_700_000_000_000,
        header_count: 0,
        headers: &[],
    }
}

/// Appends `values` (keyed by themselves, murmur2-partitioned over 3 partitions).
fn append_all(producer: &mut Producer, topic: &str, values: &[String]) {
    for v in values {
        let partition = partition_for_key(v.as_bytes(), 3);
        producer
            .append(topic, partition, &keyed_record(v.as_bytes(), v.as_bytes()))
            .expect("append");
    }
}

fn batch(tag: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{tag}-{i:05}")).collect()
}

fn expected(values: &[&[String]]) -> Vec<(i32, Vec<u8>)> {
    let mut out: Vec<(i32, Vec<u8>)> = values
        .iter()
        .flat_map(|vs| vs.iter())
        .map(|v| (partition_for_key(v.as_bytes(), 3), v.as_bytes().to_vec()))
        .collect();
    out.sort();
    out
}

/// Commit, abort, commit on both transaction protocols: `read_committed` sees the committed
/// transactions exactly once, `read_uncommitted` the aborted one as well.
#[test]
fn transactions_commit_and_abort_on_both_protocols() {
    for (bootstrap, version) in transaction_brokers() {
        let topic = unique(&format!("txn-tv{version}"));
        create_topic(&bootstrap, &topic, 3);
        let id = unique("txn-id");
        let mut producer = Producer::open(transactional_config(&bootstrap, &id)).expect("producer");
        let first = producer.init_transactions().expect("init");
        assert_eq!(producer.transaction_version(), version, "{bootstrap}");
        let (a, b, c) = (batch("a", 3000), batch("b", 2000), batch("c", 1000));
        producer.begin_transaction().expect("begin");
        append_all(&mut producer, &topic, &a);
        producer.commit_transaction().expect("commit a");
        producer.begin_transaction().expect("begin");
        append_all(&mut producer, &topic, &b);
        producer.flush().expect("flush b");
        producer.abort_transaction().expect("abort b");
        producer.begin_transaction().expect("begin");
        append_all(&mut producer, &topic, &c);
        producer.commit_transaction().expect("commit c");
        let (_, epoch) = producer.producer_id_and_epoch();
        if version == 2 {
            assert_eq!(
                epoch,
                first.epoch + 3,
                "protocol 2 bumps the epoch per transaction"
            );
        } else {
            assert_eq!(epoch, first.epoch, "protocol 1 keeps the epoch");
        }
        let want = expected(&[&a, &c]);
        assert_eq!(
            values(&bootstrap, &topic, 3, Isolation::ReadCommitted, want.len()),
            want,
            "tv{version}"
        );
        let all = expected(&[&a, &b, &c]);
        assert_eq!(
            values(&bootstrap, &topic, 3, Isolation::ReadUncommitted, all.len()),
            all,
            "tv{version}"
        );
    }
}

/// Flink's two-phase commit: the writer flushes and hands over (id, producer id, epoch); a
/// committer with nothing but those commits; committing again (a restored committable) is
/// accepted and writes nothing twice.
#[test]
fn a_committer_commits_a_flushed_transaction_from_its_ids() {
    for (bootstrap, version) in transaction_brokers() {
        let topic = unique(&format!("txn-commit-tv{version}"));
        create_topic(&bootstrap, &topic, 3);
        let id = unique("txn-id");
        let values_sent = batch("p", 2500);
        let ids = {
            let mut writer =
                Producer::open(transactional_config(&bootstrap, &id)).expect("producer");
            writer.init_transactions().expect("init");
            writer.begin_transaction().expect("begin");
            append_all(&mut writer, &topic, &values_sent);
            writer.flush().expect("pre-commit");
            let (producer_id, epoch) = writer.producer_id_and_epoch();
            ProducerIdAndEpoch { producer_id, epoch }
            // The writer goes away without ending the transaction.
        };
        let mut committer = Coordinator::new(
            &id,
            vec![bootstrap.clone()],
            ConnectionConfig::default(),
            Duration::from_millis(50),
            Duration::from_secs(30),
        );
        let v = committer.transaction_version().expect("version");
        assert_eq!(v, version);
        committer.end_transaction(ids, true, v).expect("commit");
        let again = committer.end_transaction(ids, true, v);
        assert!(
            again.is_ok(),
            "tv{version}: a second commit of the same transaction: {again:?}"
        );
        let want = expected(&[&values_sent]);
        assert_eq!(
            values(&bootstrap, &topic, 3, Isolation::ReadCommitted, want.len()),
            want,
            "tv{version}"
        );
        // Nothing more arrives (no second copy).
        let more = values_within(
            &bootstrap,
            &topic,
            3,
            Isolation::ReadCommitted,
            want.len() + 1,
            Duration::from_secs(3),
        );
        assert_eq!(more.len(), want.len());
    }
}

/// A second producer of the same transactional id fences the first (whose commit then fails
/// with a fencing error) and aborts the transaction it left open: epoch > 0 says the id was
/// used, and `read_committed` readers are not blocked by the lingering transaction.
#[test]
fn initializing_an_id_again_fences_and_aborts_its_lingering_transaction() {
    for (bootstrap, version) in transaction_brokers() {
        let topic = unique(&format!("txn-fence-tv{version}"));
        create_topic(&bootstrap, &topic, 3);
        let id = unique("txn-id");
        let mut old = Producer::open(transactional_config(&bootstrap, &id)).expect("producer");
        let first = old.init_transactions().expect("init");
        assert_eq!(first.epoch, 0, "a fresh id starts at epoch 0");
        old.begin_transaction().expect("begin");
        append_all(&mut old, &topic, &batch("lingering", 500));
        old.flush().expect("flush");
        let mut new = Producer::open(transactional_config(&bootstrap, &id)).expect("producer");
        let second = new.init_transactions().expect("init again");
        assert!(second.epoch > first.epoch || second.producer_id != first.producer_id);
        let e = old.commit_transaction().expect_err("fenced");
        assert!(
            matches!(e.kafka_code(), 47 | 90),
            "tv{version}: INVALID_PRODUCER_EPOCH or PRODUCER_FENCED, got {e}"
        );
        let fresh = batch("fresh", 300);
        new.begin_transaction().expect("begin");
        append_all(&mut new, &topic, &fresh);
        new.commit_transaction().expect("commit");
        let want = expected(&[&fresh]);
        assert_eq!(
            values(&bootstrap, &topic, 3, Isolation::ReadCommitted, want.len()),
            want,
            "tv{version}"
        );
    }
}

fn value_record(value: &[u8]) -> RecordRef<'_> {
    RecordRef {
        key: None,
        value: Some(value),
        timestamp: 1_700_000_000_000,
        header_count: 0,
        headers: &[],
    }
}

/// The coordinator aborts a transaction open longer than `transaction.timeout.ms` and bumps the
/// epoch. Whatever its producer sends next is refused with a fencing error that names the
/// timeout: a batch to a partition of the transaction, a batch to a new partition
/// (AddPartitionsToTxn under protocol 1, the first batch under protocol 2), the commit; the
/// committer's EndTxn from the handed-over ids is refused as well (the error Flink's committer
/// treats as a known failure). `read_committed` sees none of it; a new producer of the id (Flink
/// restarting) writes again.
#[test]
fn a_transaction_open_past_its_timeout_is_aborted_and_its_producer_fenced() {
    for (bootstrap, version) in transaction_brokers() {
        let topic = unique(&format!("txn-timeout-tv{version}"));
        create_topic(&bootstrap, &topic, 3);
        let timeout = Duration::from_millis(1000);
        let open = |name: &str| {
            let id = unique(name);
            let mut p = Producer::open(ProducerConfig {
                transaction_timeout: timeout,
                ..transactional_config(&bootstrap, &id)
            })
            .expect("producer");
            p.init_transactions().expect("init");
            p.begin_transaction().expect("begin");
            p.append(&topic, 0, &value_record(b"timed-out"))
                .expect("append");
            p.flush().expect("flush");
            (id, p)
        };
        let (same_id, mut same) = open("same");
        let (_, mut new_partition) = open("new-partition");
        let (_, mut committing) = open("commit");
        let (handed_id, mut handed) = open("handed");
        let handed_ids = handed.precommit_transaction().expect("pre-commit");

        // A record after them on partition 0 becomes visible to read_committed once all four
        // transactions ended: the coordinator aborted them (it looks every
        // transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 s by default).
        let mut sentinel = Producer::open(config(&bootstrap, Codec::None)).expect("producer");
        sentinel
            .append(&topic, 0, &value_record(b"sentinel"))
            .expect("append");
        sentinel.flush().expect("flush");
        let deadline = Instant::now() + Duration::from_secs(60);
        while values_within(
            &bootstrap,
            &topic,
            3,
            Isolation::ReadCommitted,
            1,
            Duration::from_millis(500),
        )
        .is_empty()
        {
            assert!(
                Instant::now() < deadline,
                "tv{version}: not aborted in 60 s"
            );
        }

        let named = |e: &karrow_kafka::produce::ProduceError| {
            let text = e.to_string();
            assert!(
                text.contains("transaction.timeout.ms (1000 ms)"),
                "tv{version}: {text}"
            );
            e.kafka_code()
        };
        same.append(&topic, 0, &value_record(b"late"))
            .expect("append");
        let produce = named(&same.flush().expect_err("fenced"));
        new_partition
            .append(&topic, 1, &value_record(b"late"))
            .expect("append");
        let added = named(&new_partition.flush().expect_err("fenced"));
        let commit = named(&committing.commit_transaction().expect_err("fenced"));
        let mut committer = Coordinator::new(
            &handed_id,
            vec![bootstrap.clone()],
            ConnectionConfig::default(),
            Duration::from_millis(50),
            Duration::from_secs(30),
        );
        let committed = committer
            .end_transaction(handed_ids, true, version)
            .expect_err("aborted")
            .kafka_code();
        eprintln!(
            "tv{version}: produce {produce}, new partition {added}, commit {commit}, committer {committed}"
        );
        assert_eq!(produce, 47, "tv{version}: INVALID_PRODUCER_EPOCH");
        if version == 1 {
            assert_eq!(added, 90, "tv1: AddPartitionsToTxn answers PRODUCER_FENCED");
            assert_eq!(commit, 90, "tv1: EndTxn answers PRODUCER_FENCED");
            assert_eq!(committed, 90, "tv1: EndTxn answers PRODUCER_FENCED");
        } else {
            assert_eq!(
                added, 47,
                "tv2: the first batch answers INVALID_PRODUCER_EPOCH"
            );
            assert_eq!(commit, 48, "tv2: EndTxn answers INVALID_TXN_STATE");
            assert_eq!(committed, 48, "tv2: EndTxn answers INVALID_TXN_STATE");
        }

        assert_eq!(
            values(&bootstrap, &topic, 3, Isolation::ReadCommitted, 1),
            vec![(0, b"sentinel".to_vec())],
            "tv{version}"
        );
        // Flink restarts: a new producer of the id fences the old one and writes.
        let mut again =
            Producer::open(transactional_config(&bootstrap, &same_id)).expect("producer");
        again.init_transactions().expect("init");
        again.begin_transaction().expect("begin");
        again
            .append(&topic, 2, &value_record(b"again"))
            .expect("append");
        again.commit_transaction().expect("commit");
        assert_eq!(
            values(&bootstrap, &topic, 3, Isolation::ReadCommitted, 2),
            vec![(0, b"sentinel".to_vec()), (2, b"again".to_vec())],
            "tv{version}"
        );
    }
}

/// "Fails, then recovers": a record larger than the topic's `max.message.bytes` fails the
/// transaction (MESSAGE_TOO_LARGE once the batch is split down to it: an abortable error for
/// Kafka's producer); the transaction is aborted and the next one commits. Under protocol 1 the
/// abort bumps the epoch (the refused record's sequence was never written), else the next
/// transaction's batch would be refused as out of order. `read_committed` never sees the aborted
/// records, `read_uncommitted` sees those the broker had appended.
#[test]
fn an_abortable_error_aborts_and_the_next_transaction_commits() {
    for (bootstrap, version) in transaction_brokers() {
        let topic = unique(&format!("txn-recovers-tv{version}"));
        create_topic_with(&bootstrap, &topic, 2, &["max.message.bytes=2048"]);
        let mut p = Producer::open(ProducerConfig {
            codec: Codec::None,
            ..transactional_config(&bootstrap, &unique("txn-id"))
        })
        .expect("producer");
        p.init_transactions().expect("init");
        p.begin_transaction().expect("begin");
        let small: Vec<String> = batch("aborted", 20);
        for v in &small {
            p.append(&topic, 0, &value_record(v.as_bytes()))
                .expect("append");
        }
        let big = vec![b'x'; 4000];
        p.append(&topic, 0, &value_record(&big)).expect("append");
        let e = p.flush().expect_err("too large");
        assert!(
            matches!(e.kafka_code(), 10 | 18),
            "tv{version}: MESSAGE_TOO_LARGE or RECORD_LIST_TOO_LARGE, got {e}"
        );
        let before = p.producer_id_and_epoch();
        p.abort_transaction().expect("abort");
        if version == 1 {
            let after = p.producer_id_and_epoch();
            assert!(after != before, "tv1: the abort bumped the epoch");
        }
        let fresh = batch("committed", 30);
        p.begin_transaction().expect("begin");
        for (i, v) in fresh.iter().enumerate() {
            p.append(&topic, (i % 2) as i32, &value_record(v.as_bytes()))
                .expect("append");
        }
        p.commit_transaction()
            .expect("the next transaction commits");
        let mut want: Vec<(i32, Vec<u8>)> = fresh
            .iter()
            .enumerate()
            .map(|(i, v)| ((i % 2) as i32, v.as_bytes().to_vec()))
            .collect();
        want.sort();
        assert_eq!(
            values(&bootstrap, &topic, 2, Isolation::ReadCommitted, want.len()),
            want,
            "tv{version}"
        );
        let uncommitted = values(
            &bootstrap,
            &topic,
            2,
            Isolation::ReadUncommitted,
            want.len() + small.len(),
        );
        for v in &small {
            assert!(
                uncommitted.contains(&(0, v.as_bytes().to_vec())),
                "tv{version}: {v} was appended (and aborted)"
            );
        }
        assert!(!uncommitted.iter().any(|(_, v)| v.len() == big.len()));
    }
}
