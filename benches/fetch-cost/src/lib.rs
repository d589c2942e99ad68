//! Shared parts of the fetch-cost readers: the command line, the process CPU clock and
//! the one-line report `benches/run-fetch-bench.sh` parses.

use std::error::Error;
use std::time::Duration;

/// What every reader is asked to do.
pub struct Args {
    /// `host:port` of the broker (the leader of every partition: one broker).
    pub bootstrap: String,
    /// The topic to read.
    pub topic: String,
    /// Partitions `0..partitions` are read from their beginning.
    pub partitions: i32,
    /// Stop after this many records.
    pub records: u64,
    /// Reader-specific `key=value` settings.
    pub settings: Vec<(String, String)>,
}

impl Args {
    /// Parses `BOOTSTRAP TOPIC PARTITIONS RECORDS [key=value ...]`.
    pub fn parse(program: &str) -> Result<Args, Box<dyn Error>> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        if args.len() < 4 {
            return Err(format!(
                "usage: {program} BOOTSTRAP TOPIC PARTITIONS RECORDS [key=value ...]"
            )
            .into());
        }
        let settings = args[4..]
            .iter()
            .map(|pair| {
                pair.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .ok_or_else(|| format!("expected key=value, got {pair}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Args {
            bootstrap: args[0].clone(),
            topic: args[1].clone(),
            partitions: args[2].parse()?,
            records: args[3].parse()?,
            settings,
        })
    }
}

/// What one read of the topic took.
pub struct Summary {
    /// Records read.
    pub records: u64,
    /// Sum of every value's length and first byte (compared across readers).
    pub checksum: u64,
    /// Wall time from the first request to the last record.
    pub wall: Duration,
    /// Process CPU time (all threads) over the same span.
    pub cpu: Duration,
}

impl Summary {
    /// Prints the report line, labelled `reader`.
    pub fn print(&self, reader: &str) {
        println!(
            "{reader} records={} wall_s={:.3} cpu_s={:.3} cpu_us_per_record={:.3} checksum={}",
            self.records,
            self.wall.as_secs_f64(),
            self.cpu.as_secs_f64(),
            self.cpu.as_secs_f64() * 1e6 / self.records.max(1) as f64,
            self.checksum
        );
    }
}

/// The checksum contribution of one value.
pub fn value_checksum(value: Option<&[u8]>) -> u64 {
    match value {
        Some(v) => v.len() as u64 + u64::from(v.first().copied().unwrap_or(0)),
        None => 0,
    }
}

/// User plus system CPU time of the whole process so far.
pub fn process_cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}
