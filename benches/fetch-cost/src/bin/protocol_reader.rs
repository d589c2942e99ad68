//! Reads every record of a topic by speaking Kafka's Fetch protocol (v12) over one TCP
//! connection and walking the record batches of each response in place, with their
//! CRC32C checked as Kafka's Java consumer checks them; reports the process CPU time
//! per record. It answers: what would a fetch cost that builds no object per record?
//!
//! `protocol-reader BOOTSTRAP TOPIC PARTITIONS RECORDS`
//!
//! A measuring tool, not a client: one broker that leads every partition, plaintext,
//! uncompressed batches, read_uncommitted, no fetch sessions; any error code fails the
//! run.

use std::error::Error;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use karrow_fetch_bench::{process_cpu, value_checksum, Args, Summary};

const FETCH_API_KEY: i16 = 1;
const FETCH_VERSION: i16 = 12;
/// Kafka's Java consumer defaults: `fetch.max.bytes`, `max.partition.fetch.bytes`,
/// `fetch.max.wait.ms`.
const MAX_BYTES: i32 = 50 * 1024 * 1024;
const PARTITION_MAX_BYTES: i32 = 1024 * 1024;
const MAX_WAIT_MS: i32 = 500;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> Result<()> {
    let args = Args::parse("protocol-reader")?;
    let mut stream = TcpStream::connect(&args.bootstrap)?;
    stream.set_nodelay(true)?;
    let mut offsets = vec![0i64; usize::try_from(args.partitions)?];
    let (mut read, mut checksum) = (0u64, 0u64);
    let mut response = Vec::new();
    let mut request = Vec::new();
    let cpu_start = process_cpu();
    let start = Instant::now();
    let mut correlation = 0i32;
    while read < args.records {
        correlation += 1;
        fetch_request(&mut request, correlation, &args.topic, &offsets);
        stream.write_all(&request)?;
        read_frame(&mut stream, &mut response)?;
        let got = walk_response(&response, correlation, &mut offsets, &mut checksum)?;
        read += got;
    }
    let summary = Summary {
        records: read,
        checksum,
        wall: start.elapsed(),
        cpu: process_cpu().saturating_sub(cpu_start),
    };
    summary.print("protocol");
    Ok(())
}

/// Writes a size-prefixed Fetch v12 request for `offsets[p]` of every partition `p`.
fn fetch_request(out: &mut Vec<u8>, correlation: i32, topic: &str, offsets: &[i64]) {
    out.clear();
    out.extend_from_slice(&[0; 4]);
    // Request header v2.
    out.extend_from_slice(&FETCH_API_KEY.to_be_bytes());
    out.extend_from_slice(&FETCH_VERSION.to_be_bytes());
    out.extend_from_slice(&correlation.to_be_bytes());
    let client = b"karrow-fetch-bench";
    out.extend_from_slice(&(client.len() as i16).to_be_bytes());
    out.extend_from_slice(client);
    out.push(0); // tagged fields
                 // Body.
    out.extend_from_slice(&(-1i32).to_be_bytes()); // replica_id
    out.extend_from_slice(&MAX_WAIT_MS.to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes()); // min_bytes
    out.extend_from_slice(&MAX_BYTES.to_be_bytes());
    out.push(0); // isolation_level: read_uncommitted
    out.extend_from_slice(&0i32.to_be_bytes()); // session_id
    out.extend_from_slice(&(-1i32).to_be_bytes()); // session_epoch: no session
    put_uvarint(out, 2); // one topic
    put_uvarint(out, topic.len() as u64 + 1);
    out.extend_from_slice(topic.as_bytes());
    put_uvarint(out, offsets.len() as u64 + 1);
    for (partition, offset) in offsets.iter().enumerate() {
        out.extend_from_slice(&(partition as i32).to_be_bytes());
        out.extend_from_slice(&(-1i32).to_be_bytes()); // current_leader_epoch
        out.extend_from_slice(&offset.to_be_bytes());
        out.extend_from_slice(&(-1i32).to_be_bytes()); // last_fetched_epoch
        out.extend_from_slice(&(-1i64).to_be_bytes()); // log_start_offset
        out.extend_from_slice(&PARTITION_MAX_BYTES.to_be_bytes());
        out.push(0); // tagged fields
    }
    out.push(0); // topic tagged fields
    put_uvarint(out, 1); // no forgotten topics
    put_uvarint(out, 1); // rack_id ""
    out.push(0); // tagged fields
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
}

fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads one size-prefixed response into `buf`.
fn read_frame(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<()> {
    let mut size = [0u8; 4];
    stream.read_exact(&mut size)?;
    let size = usize::try_from(i32::from_be_bytes(size))?;
    buf.resize(size, 0);
    stream.read_exact(buf)?;
    Ok(())
}

/// A position in a response.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or("response ends early")?;
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }
    fn i8(&mut self) -> Result<i8> {
        Ok(self.take(1)?[0] as i8)
    }
    fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.take(2)?.try_into()?))
    }
    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into()?))
    }
    fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into()?))
    }
    fn uvarint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }
    fn varint(&mut self) -> Result<i64> {
        let v = self.uvarint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }
    fn skip_tagged_fields(&mut self) -> Result<()> {
        for _ in 0..self.uvarint()? {
            self.uvarint()?;
            let size = usize::try_from(self.uvarint()?)?;
            self.take(size)?;
        }
        Ok(())
    }
    /// A compact (length + 1) byte string or array count; `None` for null.
    fn compact_len(&mut self) -> Result<Option<usize>> {
        Ok(match self.uvarint()? {
            0 => None,
            n => Some(usize::try_from(n - 1)?),
        })
    }
}

/// Walks a Fetch v12 response: advances `offsets`, adds every value to `checksum`;
/// returns the number of records read.
fn walk_response(
    buf: &[u8],
    correlation: i32,
    offsets: &mut [i64],
    checksum: &mut u64,
) -> Result<u64> {
    let mut c = Cursor { buf, pos: 0 };
    if c.i32()? != correlation {
        return Err("response to another request".into());
    }
    c.skip_tagged_fields()?;
    c.i32()?; // throttle_time_ms
    let error = c.i16()?;
    if error != 0 {
        return Err(format!("fetch error code {error}").into());
    }
    c.i32()?; // session_id
    let mut read = 0;
    for _ in 0..c.compact_len()?.unwrap_or(0) {
        let name = c.compact_len()?.unwrap_or(0);
        c.take(name)?;
        for _ in 0..c.compact_len()?.unwrap_or(0) {
            let partition = usize::try_from(c.i32()?)?;
            let error = c.i16()?;
            if error != 0 {
                return Err(format!("partition {partition} error code {error}").into());
            }
            c.i64()?; // high_watermark
            c.i64()?; // last_stable_offset
            c.i64()?; // log_start_offset
            for _ in 0..c.compact_len()?.unwrap_or(0) {
                c.i64()?; // producer_id
                c.i64()?; // first_offset
                c.skip_tagged_fields()?;
            }
            c.i32()?; // preferred_read_replica
            let records = match c.compact_len()? {
                Some(n) => c.take(n)?,
                None => &[],
            };
            let offset = offsets.get_mut(partition).ok_or("unknown partition")?;
            read += walk_batches(records, offset, checksum)?;
            c.skip_tagged_fields()?;
        }
        c.skip_tagged_fields()?;
    }
    Ok(read)
}

/// Walks the record batches of one partition from `*offset` on (a trailing partial
/// batch is left for the next fetch) and advances `*offset` past them.
fn walk_batches(records: &[u8], offset: &mut i64, checksum: &mut u64) -> Result<u64> {
    let mut read = 0;
    let mut c = Cursor {
        buf: records,
        pos: 0,
    };
    while records.len() - c.pos >= 12 {
        let batch_start = c.pos;
        let base_offset = c.i64()?;
        let batch_len = usize::try_from(c.i32()?)?;
        if records.len() - c.pos < batch_len {
            break; // partial batch at the end of the response
        }
        let batch = c.take(batch_len)?;
        let mut b = Cursor { buf: batch, pos: 0 };
        b.i32()?; // partition_leader_epoch
        if b.i8()? != 2 {
            return Err(format!("record batch magic at {batch_start} is not 2").into());
        }
        let crc = b.i32()? as u32;
        if crc32c::crc32c(&batch[b.pos..]) != crc {
            return Err(format!("record batch at offset {base_offset} fails its CRC").into());
        }
        let attributes = b.i16()?;
        if attributes & 0x7 != 0 {
            return Err("compressed batches are not read by this benchmark".into());
        }
        let last_offset_delta = b.i32()?;
        b.i64()?; // base_timestamp
        b.i64()?; // max_timestamp
        b.i64()?; // producer_id
        b.i16()?; // producer_epoch
        b.i32()?; // base_sequence
        let count = b.i32()?;
        let control = attributes & 0x20 != 0;
        for _ in 0..count {
            let len = usize::try_from(b.varint()?)?;
            let mut r = Cursor {
                buf: b.take(len)?,
                pos: 0,
            };
            r.i8()?; // attributes
            r.varint()?; // timestamp delta
            let offset_delta = r.varint()?;
            let key_len = r.varint()?;
            if key_len > 0 {
                r.take(usize::try_from(key_len)?)?;
            }
            let value_len = r.varint()?;
            let value = if value_len >= 0 {
                Some(r.take(usize::try_from(value_len)?)?)
            } else {
                None
            };
            for _ in 0..r.varint()? {
                let k = r.varint()?;
                r.take(usize::try_from(k.max(0))?)?;
                let v = r.varint()?;
                r.take(usize::try_from(v.max(0))?)?;
            }
            if !control && base_offset + offset_delta >= *offset {
                *checksum = checksum.wrapping_add(value_checksum(value));
                read += 1;
            }
        }
        *offset = (*offset).max(base_offset + i64::from(last_offset_delta) + 1);
    }
    Ok(read)
}
