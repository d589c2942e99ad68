//! Soak: many records through the native fetch and decode path (karrow-kafka's
//! `FetchSession`, then `AvroConfluentDecoder::decode_batch_binary`, as the kafka-native
//! source does per poll), with the process's resident set size printed as it goes: it must
//! stay flat after warm-up. Run by `make soak` (not part of `make test`):
//!
//! ```text
//! KAFKA_PORT=32092 KAFKA_CONTROLLER_PORT=32093 tests/services/kafka.sh start
//! cargo run --release -p karrow-native --example soak -- 127.0.0.1:32092 10000000
//! ```
//!
//! It produces the records first (natively, to a new topic of 2 partitions), then reads and
//! decodes them all; every `--every` records it prints `records rss_kib decoded_bytes`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::schema_source::{InMemorySchemas, SchemaType};
use karrow_codecs::FlinkType;
use karrow_kafka::compression::Codec;
use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::produce::{Producer, ProducerConfig};
use karrow_kafka::records::RecordRef;
use karrow_kafka::{FetchSession, Isolation};

const WRITER: &str = r#"{"type":"record","name":"Bid","fields":[
  {"name":"auction","type":"long"},{"name":"bidder","type":"long"},
  {"name":"price","type":"long"},{"name":"channel","type":"string"},
  {"name":"url","type":"string"},{"name":"extra","type":["null","string"]}]}"#;

const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[
  {"name":"auction","type":{"type":"BIGINT","nullable":false}},
  {"name":"bidder","type":{"type":"BIGINT","nullable":false}},
  {"name":"price","type":{"type":"BIGINT","nullable":false}},
  {"name":"channel","type":{"type":"VARCHAR","nullable":false,"length":2147483647}},
  {"name":"url","type":{"type":"VARCHAR","nullable":false,"length":2147483647}},
  {"name":"extra","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#;

fn zigzag(v: i64, out: &mut Vec<u8>) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn text(s: &str, out: &mut Vec<u8>) {
    zigzag(s.len() as i64, out);
    out.extend_from_slice(s.as_bytes());
}

/// A Confluent-framed Avro bid (schema id 1), varied by `i`.
fn bid(i: u64, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&[0, 0, 0, 0, 1]);
    zigzag((i % 10_000) as i64, out);
    zigzag((i % 977) as i64, out);
    zigzag((i * 31 % 1_000_000) as i64, out);
    text(
        ["Google", "Facebook", "Baidu", "Apple"][(i % 4) as usize],
        out,
    );
    text(
        &format!("https://www.nexmark.com/item.htm?query={}", i % 1000),
        out,
    );
    if i.is_multiple_of(5) {
        zigzag(0, out);
    } else {
        zigzag(1, out);
        text(&"x".repeat((i % 40) as usize), out);
    }
}

/// The resident set size in KiB (`VmRSS` of /proc/self/status).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bootstrap = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:9092".into());
    let records: u64 = args
        .get(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000_000);
    let every: u64 = (records / 20).max(1);
    let topic = format!(
        "karrow-soak-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0)
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/services/kafka.sh");
    let port = bootstrap.rsplit(':').next().unwrap_or("9092");
    let created = std::process::Command::new("bash")
        .args([script, "create-topic", &topic, "2"])
        .env("KAFKA_PORT", port)
        .status()
        .expect("kafka.sh runs");
    assert!(created.success(), "create-topic failed");

    let started = Instant::now();
    let mut producer = Producer::open(ProducerConfig {
        bootstrap: vec![bootstrap.clone()],
        codec: Codec::Lz4,
        batch_size: 262_144,
        linger: Duration::from_millis(20),
        ..ProducerConfig::default()
    })
    .expect("producer");
    let mut value = Vec::new();
    for i in 0..records {
        bid(i, &mut value);
        let record = RecordRef {
            key: None,
            value: Some(&value),
            timestamp: 1_700_000_000_000 + i as i64,
            header_count: 0,
            headers: &[],
        };
        producer
            .append(&topic, (i % 2) as i32, &record)
            .expect("append");
    }
    producer.flush().expect("flush");
    drop(producer);
    println!(
        "# produced {records} records to {topic} in {:.1} s; rss {} KiB",
        started.elapsed().as_secs_f64(),
        rss_kib()
    );

    let row = FlinkType::from_json_str(ROW).expect("row type");
    let schemas = InMemorySchemas::default().with(1, SchemaType::Avro, WRITER);
    let mut decoder = AvroConfluentDecoder::new(&row, None, Arc::new(schemas)).expect("decoder");
    let mut session = FetchSession::new(
        "karrow-soak",
        Isolation::ReadCommitted,
        FetchLimits::default(),
    );
    for p in 0..2 {
        // Record i went to partition i % 2: the stop offset is each partition's count.
        let count = (records + 1 - p as u64) / 2;
        session.assign(p, &topic, p, &bootstrap, 0, count as i64);
    }
    println!("# records rss_kib images_bytes");
    let (mut read, mut next_report) = (0u64, 0u64);
    let (mut data, mut lengths, mut images) = (Vec::new(), Vec::new(), Vec::new());
    let deadline = Instant::now() + Duration::from_secs(3600);
    while read < records && Instant::now() < deadline {
        data.clear();
        lengths.clear();
        let polled = session
            .poll(|_, r| -> Result<(), ()> {
                let v = r.value.unwrap_or_default();
                data.extend_from_slice(v);
                lengths.push(v.len());
                Ok(())
            })
            .expect("fetch")
            .expect("no callback error");
        let mut at = 0;
        let values = lengths.iter().map(|&n| {
            let v = &data[at..at + n];
            at += n;
            Some(v)
        });
        images.clear();
        decoder
            .decode_batch_binary(values, &mut images)
            .expect("every value decodes");
        read += polled.records;
        if read >= next_report {
            println!("{read} {} {}", rss_kib(), images.len());
            next_report += every;
        }
    }
    println!(
        "# read and decoded {read} records in {:.1} s; rss {} KiB",
        started.elapsed().as_secs_f64(),
        rss_kib()
    );
    assert_eq!(read, records, "every record read");
}
