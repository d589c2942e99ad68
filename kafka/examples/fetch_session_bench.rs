//! Fetch sessions (KIP-227) measured: one native `FetchSession` reading every partition of a
//! topic with many partitions, once with full fetches (every partition in every request) and
//! once with fetch sessions (only the partitions whose fetch changed), in the same run on the
//! same broker. Run by `benches/run-fetch-session-bench.sh`, which starts the broker and
//! creates and fills the topic.
//!
//! ```text
//! fetch_session_bench BOOTSTRAP TOPIC PARTITIONS RECORDS_PER_PARTITION IDLE_POLLS
//! ```
//!
//! Per mode: the time and the client's CPU (user + system, from /proc/self/stat) to read every
//! record, then `IDLE_POLLS` polls with nothing new (`fetch.max.wait.ms` = 5), and the Fetch
//! requests' count and bytes in each phase.

use std::time::Instant;

use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::{FetchSession, Isolation};

/// This process's CPU time (user + system) in seconds, from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime), 12 and 13 after the command name.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        eprintln!("usage: fetch_session_bench BOOTSTRAP TOPIC PARTITIONS RECORDS_PER_PARTITION IDLE_POLLS");
        std::process::exit(2);
    }
    let (bootstrap, topic) = (&args[1], &args[2]);
    let partitions: i32 = args[3].parse().expect("PARTITIONS");
    let per_partition: u64 = args[4].parse().expect("RECORDS_PER_PARTITION");
    let idle_polls: u64 = args[5].parse().expect("IDLE_POLLS");
    let want = per_partition * partitions as u64;
    println!("| mode | read: s | read: CPU s | read: requests | read: request KiB | idle: ms/poll | idle: CPU µs/poll | idle: request bytes/poll |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for sessions in [false, true] {
        let limits = FetchLimits {
            max_wait_ms: 5,
            ..FetchLimits::default()
        };
        let mut session =
            FetchSession::new("karrow-session-bench", Isolation::ReadUncommitted, limits)
                .with_fetch_sessions(sessions);
        // The leader of each partition is learnt by the session's own Metadata request.
        for p in 0..partitions {
            session.assign(p, topic, p, bootstrap, 0, i64::MAX);
        }
        let (start, cpu) = (Instant::now(), cpu_seconds());
        let mut read = 0u64;
        // Every record, or (when the producer lost some) until 100 polls in a row bring none.
        let mut empty = 0;
        while read < want && empty < 100 {
            let polled = session
                .poll(|_, _| -> Result<(), ()> { Ok(()) })
                .expect("fetch")
                .expect("no callback error");
            read += polled.records;
            empty = if polled.records == 0 && read > 0 {
                empty + 1
            } else {
                0
            };
            for slot in polled.leader_changed {
                session.set_leader(slot, bootstrap).expect("assigned");
            }
        }
        let (read_s, read_cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let (f0, i0) = session.fetch_requests();
        let b0 = session.fetch_request_bytes();
        let (start, cpu) = (Instant::now(), cpu_seconds());
        for _ in 0..idle_polls {
            session
                .poll(|_, _| -> Result<(), ()> { Ok(()) })
                .expect("fetch")
                .expect("no callback error");
        }
        let (idle_s, idle_cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let (f1, i1) = session.fetch_requests();
        let b1 = session.fetch_request_bytes();
        let idle_requests = (f1 + i1 - f0 - i0).max(1);
        eprintln!("{read} records read");
        println!(
            "| {} | {:.2} | {:.2} | {} ({} incremental) | {:.0} | {:.2} | {:.0} | {:.0} |",
            if sessions {
                "fetch sessions (KIP-227)"
            } else {
                "full fetches"
            },
            read_s,
            read_cpu,
            f0 + i0,
            i0,
            b0 as f64 / 1024.0,
            idle_s * 1000.0 / idle_polls as f64,
            idle_cpu * 1e6 / idle_polls as f64,
            (b1 - b0) as f64 / idle_requests as f64,
        );
    }
}
