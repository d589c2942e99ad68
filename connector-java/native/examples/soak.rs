//! Soak (#18): many records through the native source and sink path as the Flink
//! connector drives it — the sessions behind JNI handles (`karrow_native::handles`), each
//! call made as the entry points make it: per poll the native fetch (kind 7) polls and hands
//! out its parts, the Avro decoder (kind 1) decodes the values into Flink row images in one
//! batch call, the Avro encoder (kind 2, its writer schema registered over HTTP) encodes the
//! rows again, and the native producer (kind 9) takes the encoded records (`copyIn`'s
//! layout) and sends them to an output topic. Run by `make soak` (not part of `make test`):
//!
//! ```text
//! KAFKA_PORT=37092 KAFKA_CONTROLLER_PORT=37093 tests/services/kafka.sh start
//! cargo run --release -p karrow-native --example soak -- 127.0.0.1:37092 10000000
//! ```
//!
//! It starts a dev registry in-process, produces the input first (natively, to a new topic of
//! two partitions), then runs the loop above over every record. Every 5% of the records it
//! prints a sample: seconds since the loop started, records, the resident set size, the heap
//! bytes and allocations live (a counting global allocator: every allocation of the process,
//! the sessions' included), the open handles and the bytes their sessions retain
//! (`handles::stats`). After the loop it flushes the producer (every record acknowledged),
//! closes the four handles and prints the same figures again: no handle and no retained
//! buffer may be left (asserted), and the live heap is back near where it was before the
//! sessions opened. "Flat after warm-up" is read off the samples (docs/benchmarks.md, "Soak").

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use karrow_kafka::compression::Codec;
use karrow_kafka::produce::{Producer, ProducerConfig};
use karrow_kafka::records::RecordRef;
use karrow_native::handles::{self, with_session};
use karrow_native::session::SessionKind;
use karrow_native::value_batch::ValueBatch;
use karrow_native::NativeError;
use karrow_registry::{DevRegistry, RegistryClient, RegistryConfig, SchemaDefinition};

/// The system allocator, counting the bytes and allocations live and the allocations made.
struct Counting;

static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE_ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to `System`, which upholds the contract; the
// counters are only updated after a successful (non-null) allocation.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as u64, Relaxed);
            LIVE_ALLOCATIONS.fetch_add(1, Relaxed);
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size() as u64, Relaxed);
            LIVE_ALLOCATIONS.fetch_add(1, Relaxed);
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation goes through
        // this allocator).
        unsafe { System.dealloc(ptr, layout) };
        LIVE_BYTES.fetch_sub(layout.size() as u64, Relaxed);
        LIVE_ALLOCATIONS.fetch_sub(1, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's pointer, layout and size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE_BYTES.fetch_add(new_size as u64, Relaxed);
            LIVE_BYTES.fetch_sub(layout.size() as u64, Relaxed);
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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

/// A Confluent-framed Avro bid (schema `id`), varied by `i`.
fn bid(id: i32, i: u64, out: &mut Vec<u8>) {
    out.clear();
    out.push(0);
    out.extend_from_slice(&id.to_be_bytes());
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

/// One line of figures: rss, live heap, allocations, open handles, retained bytes.
fn figures() -> String {
    let stats = handles::stats();
    format!(
        "{} {} {} {} {} {}",
        rss_kib(),
        LIVE_BYTES.load(Relaxed) / 1024,
        LIVE_ALLOCATIONS.load(Relaxed),
        ALLOCATIONS.load(Relaxed),
        stats.live_handles.iter().sum::<u64>(),
        stats.retained_bytes.iter().sum::<u64>() / 1024,
    )
}

fn create_topic(port: &str, topic: &str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/services/kafka.sh");
    let created = std::process::Command::new("bash")
        .args([script, "create-topic", topic, "2"])
        .env("KAFKA_PORT", port)
        .status()
        .expect("kafka.sh runs");
    assert!(created.success(), "create-topic {topic} failed");
}

fn open(kind: SessionKind, config: &str) -> i64 {
    handles::open(kind.open(config, &[]).expect("session opens")).expect("handle")
}

fn control(handle: i64, request: &str) {
    with_session(handle, |s| s.control(request)).expect("control request");
}

/// Per record 32 bytes of `copyIn` metadata: partition chosen by the producer, topic 0, no
/// key, the value's length, no headers, the producer's timestamp.
fn record_metadata(value_length: i32, out: &mut Vec<u8>) {
    out.extend_from_slice(&(-1i32).to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&(-1i32).to_le_bytes());
    out.extend_from_slice(&value_length.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&i64::MIN.to_le_bytes());
}

/// Reusable buffers of the loop (Java's direct buffers in the connector).
#[derive(Default)]
struct Buffers {
    lengths: Vec<i32>,
    metadata: Vec<u8>,
}

/// One poll through fetch, decode, encode and produce; returns the records it moved.
fn round(
    fetch: i64,
    decoder: i64,
    encoder: i64,
    producer: i64,
    buffers: &mut Buffers,
) -> Result<u64, NativeError> {
    let records = with_session(fetch, |s| Ok(s.poll()?[0]))?;
    if records == 0 {
        return Ok(0);
    }
    with_session(fetch, |f| {
        let parts = f.polled_parts()?;
        // The parts: metadata, values, their native-order int32 lengths, keys, headers, slots.
        buffers.lengths.clear();
        buffers.lengths.extend(
            parts[2]
                .chunks_exact(4)
                .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]])),
        );
        let values = ValueBatch::new(parts[1], &buffers.lengths)?;
        with_session(decoder, |d| {
            let (rows, _) = d.decode_batch(values)?;
            let count = i32::from_le_bytes([
                rows.header[0],
                rows.header[1],
                rows.header[2],
                rows.header[3],
            ]);
            let count = usize::try_from(count).unwrap_or(0);
            let offset = |i: usize| {
                let at = 4 + 4 * i;
                let h = &rows.header[at..at + 4];
                i32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize - rows.header.len()
            };
            let images: Vec<&[u8]> = (0..count)
                .map(|i| &rows.images[offset(i)..offset(i + 1)])
                .collect();
            with_session(encoder, |e| {
                let (encoded, offsets) = e.encode_batch(&images)?;
                buffers.metadata.clear();
                for pair in offsets.windows(2) {
                    record_metadata(pair[1] - pair[0], &mut buffers.metadata);
                }
                let none: &[u8] = &[];
                let parts: [&[u8]; 4] = [&buffers.metadata, none, encoded, none];
                with_session(producer, |p| {
                    p.copy_in(&parts, count)?;
                    p.poll()?;
                    Ok(())
                })
            })
        })
    })?;
    Ok(records as u64)
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
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let (input, output) = (
        format!("karrow-soak-{stamp}"),
        format!("karrow-soak-{stamp}-out"),
    );
    let port = bootstrap.rsplit(':').next().unwrap_or("9092").to_string();
    create_topic(&port, &input);
    create_topic(&port, &output);
    let registry = DevRegistry::start("127.0.0.1:0".parse().expect("address"), None)
        .expect("dev registry starts");
    let url = registry.url();
    let schema_id = RegistryClient::new(RegistryConfig::from_url(&url))
        .and_then(|c| c.register(&format!("{input}-value"), &SchemaDefinition::avro(WRITER)))
        .expect("writer schema registered");

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
        bid(schema_id, i, &mut value);
        let record = RecordRef {
            key: None,
            value: Some(&value),
            timestamp: 1_700_000_000_000 + i as i64,
            header_count: 0,
            headers: &[],
        };
        producer
            .append(&input, (i % 2) as i32, &record)
            .expect("append");
    }
    producer.flush().expect("flush");
    drop(producer);
    println!(
        "# produced {records} records to {input} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("# before the sessions: rss_kib heap_live_kib heap_live_allocations allocations handles retained_kib");
    println!("# {}", figures());

    let fetch = open(
        SessionKind::Fetch,
        r#"{"clientId":"karrow-soak","readCommitted":true,"maxWaitMs":500,"minBytes":1,
            "maxBytes":52428800,"partitionMaxBytes":1048576}"#,
    );
    let decoder = open(
        SessionKind::AvroDecoder,
        &format!(r#"{{"row_type":{ROW},"url":"{url}"}}"#),
    );
    let encoder = open(
        SessionKind::AvroEncoder,
        &format!(r#"{{"row_type":{ROW},"url":"{url}","subject":"{output}-value"}}"#),
    );
    let producer = open(
        SessionKind::Produce,
        &format!(
            r#"{{"bootstrap":["{bootstrap}"],"clientId":"karrow-soak","acks":-1,"idempotence":true,
            "compression":"lz4","compressionLevel":0,"batchSize":262144,"lingerMs":20,
            "maxRequestSize":1048576,"maxInFlight":5,"requestTimeoutMs":30000,
            "deliveryTimeoutMs":120000,"retries":2147483647,"retryBackoffMs":100,
            "retryBackoffMaxMs":1000,"metadataMaxAgeMs":300000,"maxBlockMs":60000,
            "bufferMemory":33554432,"connectTimeoutMs":10000,"transactionalId":null,
            "transactional":false,"transactionTimeoutMs":60000,"topics":["{output}"],
            "partitioner":"default","subtask":0}}"#
        ),
    );
    for p in 0..2u64 {
        // Record i went to partition i % 2: the stop offset is each partition's count.
        let count = (records + 1 - p) / 2;
        control(
            fetch,
            &format!(
                r#"{{"op":"assign","slot":{p},"topic":"{input}","partition":{p},"leader":"{bootstrap}","offset":0,"stop_offset":{count}}}"#
            ),
        );
    }
    println!("# seconds records rss_kib heap_live_kib heap_live_allocations allocations handles retained_kib");
    let loop_started = Instant::now();
    let (mut read, mut next_report) = (0u64, 0u64);
    let mut buffers = Buffers::default();
    let deadline = Instant::now() + Duration::from_secs(3600);
    while read < records && Instant::now() < deadline {
        read += round(fetch, decoder, encoder, producer, &mut buffers).expect("a round");
        if read >= next_report {
            println!(
                "{:.1} {read} {}",
                loop_started.elapsed().as_secs_f64(),
                figures()
            );
            next_report += every;
        }
    }
    control(producer, r#"{"op":"flush"}"#);
    let acknowledged = with_session(producer, |p| Ok(p.poll()?[0])).expect("producer summary");
    println!(
        "# read, decoded, encoded and produced {read} records in {:.1} s ({acknowledged} acknowledged)",
        loop_started.elapsed().as_secs_f64(),
    );
    println!("# open: {}", figures());
    for handle in [fetch, decoder, encoder, producer] {
        handles::close(handle).expect("close");
    }
    let stats = handles::stats();
    println!("# closed: {}", figures());
    drop(buffers);
    drop(registry);
    println!("# registry stopped: {}", figures());
    assert_eq!(read, records, "every record read");
    assert_eq!(acknowledged as u64, records, "every record produced");
    assert!(
        stats.live_handles.iter().all(|&n| n == 0),
        "handles left open: {stats:?}"
    );
    assert!(
        stats.retained_bytes.iter().all(|&n| n == 0),
        "buffers retained: {stats:?}"
    );
}
