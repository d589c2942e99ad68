//! Shared parts of the produce-cost benchmark: the values file both writers read (so the
//! Java producer and the native writer send the same bytes), the process CPU clock, and
//! the report line `benches/run-produce-bench.sh` parses.

use std::error::Error;
use std::time::Duration;

/// The values of one run, back to back, as an encode call hands them to a sink: one data
/// buffer and the end offset of each value.
pub struct Values {
    /// Every value's bytes.
    pub data: Vec<u8>,
    /// `ends[i]` is where value `i` ends in `data`.
    pub ends: Vec<usize>,
}

impl Values {
    /// Value `i`.
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Reads a values file: per value a little-endian u32 length, then the bytes.
    pub fn read(path: &str) -> Result<Values, Box<dyn Error>> {
        let raw = std::fs::read(path)?;
        let mut data = Vec::with_capacity(raw.len());
        let mut ends = Vec::new();
        let mut at = 0;
        while at < raw.len() {
            let len_bytes: [u8; 4] = raw.get(at..at + 4).ok_or("truncated length")?.try_into()?;
            let len = u32::from_le_bytes(len_bytes) as usize;
            at += 4;
            data.extend_from_slice(raw.get(at..at + len).ok_or("truncated value")?);
            at += len;
            ends.push(data.len());
        }
        Ok(Values { data, ends })
    }

    /// The checksum both sides report: the sum of every value's length and first byte.
    pub fn checksum(&self) -> u64 {
        (0..self.len())
            .map(|i| {
                let v = self.get(i);
                v.len() as u64 + u64::from(v.first().copied().unwrap_or(0))
            })
            .sum()
    }
}

/// Writes `count` values shaped like Avro-encoded Nexmark bids (about 110-130 bytes:
/// zig-zag longs of bounded ranges, a channel from a small set, a URL with a random
/// tail, a timestamp, a random `extra`), so that they compress as real records do.
pub fn write_values(path: &str, count: usize) -> Result<(), Box<dyn Error>> {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    const CHANNELS: [&str; 4] = ["Google", "Facebook", "Baidu", "Apple"];
    let mut out = Vec::with_capacity(count * 130);
    let mut value = Vec::with_capacity(256);
    for i in 0..count {
        value.clear();
        value.push(0); // Confluent magic byte
        value.extend_from_slice(&1i32.to_be_bytes()); // schema id
        put_long(&mut value, 1000 + (next() % 10_000) as i64); // auction
        put_long(&mut value, 1000 + (next() % 100_000) as i64); // bidder
        put_long(&mut value, (next() % 10_000_000) as i64); // price
        let channel = CHANNELS[(next() % 4) as usize];
        put_long(&mut value, channel.len() as i64);
        value.extend_from_slice(channel.as_bytes());
        let url = format!(
            "https://www.nexmark.com/{}/item.htm?query=1&channel_id={}",
            ["ebay", "amazon", "walmart"][(next() % 3) as usize],
            next() % 1_000_000
        );
        put_long(&mut value, url.len() as i64);
        value.extend_from_slice(url.as_bytes());
        put_long(&mut value, 1_700_000_000_000 + i as i64 * 3); // date_time
        let extra = (next() % 24) as usize;
        put_long(&mut value, extra as i64);
        for _ in 0..extra {
            value.push(b'a' + (next() % 26) as u8);
        }
        out.extend_from_slice(&(value.len() as u32).to_le_bytes());
        out.extend_from_slice(&value);
    }
    std::fs::write(path, out)?;
    Ok(())
}

fn put_long(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push(z as u8 | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// User plus system CPU time of the whole process so far.
pub fn process_cpu() -> Duration {
    let (user, system) = process_cpu_split();
    user + system
}

/// User and system CPU time of the whole process so far (the system part is mostly the
/// kernel's TCP send and receive on loopback).
pub fn process_cpu_split() -> (Duration, Duration) {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return (Duration::ZERO, Duration::ZERO);
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    (
        Duration::from_micros(micros(usage.ru_utime)),
        Duration::from_micros(micros(usage.ru_stime)),
    )
}
