//! Reads every record of a topic with librdkafka and reports the process CPU time per
//! record, the figure that decides whether phase two (fetch in Rust) pays off.
//!
//! `rdkafka-reader BOOTSTRAP TOPIC PARTITIONS RECORDS [librdkafka.key=value ...]`
//!
//! Partitions `0..PARTITIONS` are assigned from their beginning (no group join) and read
//! with `rd_kafka_consume_batch_queue`, which hands over up to 4,096 messages per call
//! without copying their payloads, until `RECORDS` records were read. Each payload's
//! length and first byte are summed so no read is optimised away. Prints one line:
//! `rdkafka records=N wall_s=W cpu_s=C cpu_us_per_record=U checksum=S`, where the CPU time
//! is the whole process's (all librdkafka threads) between the first poll and the last.

use std::error::Error;
use std::time::{Duration, Instant};

use karrow_fetch_bench::{process_cpu, value_checksum, Args, Summary};

use rdkafka::bindings as sys;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Offset, TopicPartitionList};

/// Messages taken per `rd_kafka_consume_batch_queue` call.
const BATCH: usize = 4096;
/// Give up when no record arrives for this long.
const IDLE_LIMIT: Duration = Duration::from_secs(30);

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse("rdkafka-reader")?;
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", &args.bootstrap)
        .set("group.id", "karrow-fetch-bench")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false");
    for (key, value) in &args.settings {
        config.set(key, value);
    }
    let consumer: BaseConsumer = config.create()?;
    let mut assignment = TopicPartitionList::new();
    for partition in 0..args.partitions {
        assignment.add_partition_offset(&args.topic, partition, Offset::Beginning)?;
    }
    consumer.assign(&assignment)?;
    read_all(&consumer, args.records)?.print("rdkafka");
    Ok(())
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
                let value = if m.payload.is_null() {
                    None
                } else {
                    // SAFETY: a non-null payload points at `len` readable bytes, valid until
                    // the message is destroyed below.
                    Some(unsafe { std::slice::from_raw_parts(m.payload as *const u8, m.len) })
                };
                checksum = checksum.wrapping_add(value_checksum(value));
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
