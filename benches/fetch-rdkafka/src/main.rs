//! Reads every record of a topic with librdkafka and reports the process CPU time per
//! record, the figure that decides whether phase two (fetch in Rust) pays off.
//!
//! `karrow-fetch-bench BOOTSTRAP TOPIC PARTITIONS RECORDS [librdkafka.key=value ...]`
//!
//! Partitions `0..PARTITIONS` are assigned from their beginning (no group join) and read
//! with `rd_kafka_consume_batch_queue`, which hands over up to 4,096 messages per call
//! without copying their payloads, until `RECORDS` records were read. Each payload's
//! length and first byte are summed so no read is optimised away. Prints one line:
//! `rdkafka records=N wall_s=W cpu_s=C cpu_us_per_record=U checksum=S`, where the CPU time
//! is the whole process's (all librdkafka threads) between the first poll and the last.

use std::error::Error;
use std::time::{Duration, Instant};

use rdkafka::bindings as sys;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Offset, TopicPartitionList};

/// Messages taken per `rd_kafka_consume_batch_queue` call.
const BATCH: usize = 4096;
/// Give up when no record arrives for this long.
const IDLE_LIMIT: Duration = Duration::from_secs(30);

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        return Err(
            "usage: karrow-fetch-bench BOOTSTRAP TOPIC PARTITIONS RECORDS [key=value ...]".into(),
        );
    }
    let partitions: i32 = args[3].parse()?;
    let records: u64 = args[4].parse()?;
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", &args[1])
        .set("group.id", "karrow-fetch-bench")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false");
    for pair in &args[5..] {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got {pair}"))?;
        config.set(key, value);
    }
    let consumer: BaseConsumer = config.create()?;
    let mut assignment = TopicPartitionList::new();
    for partition in 0..partitions {
        assignment.add_partition_offset(&args[2], partition, Offset::Beginning)?;
    }
    consumer.assign(&assignment)?;
    let summary = read_all(&consumer, records)?;
    println!(
        "rdkafka records={} wall_s={:.3} cpu_s={:.3} cpu_us_per_record={:.3} checksum={}",
        summary.records,
        summary.wall.as_secs_f64(),
        summary.cpu.as_secs_f64(),
        summary.cpu.as_secs_f64() * 1e6 / summary.records.max(1) as f64,
        summary.checksum
    );
    Ok(())
}

/// What one read of the topic took.
struct Summary {
    records: u64,
    checksum: u64,
    wall: Duration,
    cpu: Duration,
}

/// Reads `records` records from the consumer's queue.
fn read_all(consumer: &BaseConsumer, records: u64) -> Result<Summary, Box<dyn Error>> {
    // SAFETY: the client pointer is valid while `consumer` lives; the queue handle is
    // destroyed below, before `consumer` is dropped.
    let queue = unsafe { sys::rd_kafka_queue_get_consumer(consumer.client().native_ptr()) };
    if queue.is_null() {
        return Err("librdkafka returned no consumer queue".into());
    }
    let mut messages: Vec<*mut sys::rd_kafka_message_t> = vec![std::ptr::null_mut(); BATCH];
    let (mut read, mut checksum) = (0u64, 0u64);
    let mut failure = None;
    let cpu_start = process_cpu();
    let start = Instant::now();
    let mut last_record = Instant::now();
    while read < records {
        // SAFETY: `queue` is valid and `messages` has room for `BATCH` pointers.
        let got =
            unsafe { sys::rd_kafka_consume_batch_queue(queue, 100, messages.as_mut_ptr(), BATCH) };
        for &message in messages.iter().take(usize::try_from(got).unwrap_or(0)) {
            // SAFETY: librdkafka returned `got` valid messages, each destroyed exactly once
            // right after it is read.
            let m = unsafe { &*message };
            if m.err == sys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
                let first = if m.len > 0 && !m.payload.is_null() {
                    // SAFETY: a non-empty payload points at `len` readable bytes.
                    u64::from(unsafe { *(m.payload as *const u8) })
                } else {
                    0
                };
                checksum = checksum.wrapping_add(m.len as u64 + first);
                read += 1;
                last_record = Instant::now();
            } else if failure.is_none() {
                failure = Some(format!("consume error {:?}", m.err));
            }
            // SAFETY: see above.
            unsafe { sys::rd_kafka_message_destroy(message) };
        }
        if failure.is_some() || last_record.elapsed() > IDLE_LIMIT {
            break;
        }
    }
    let wall = start.elapsed();
    let cpu = process_cpu().saturating_sub(cpu_start);
    // SAFETY: created above, not used after this.
    unsafe { sys::rd_kafka_queue_destroy(queue) };
    if let Some(failure) = failure {
        return Err(failure.into());
    }
    if read < records {
        return Err(format!("only {read} of {records} records arrived").into());
    }
    Ok(Summary {
        records: read,
        checksum,
        wall,
        cpu,
    })
}

/// User plus system CPU time of the whole process so far.
fn process_cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}
