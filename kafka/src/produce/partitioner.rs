//! Partitions chosen as the stock Flink Kafka sink chooses them.
//!
//! `sink.partitioner` `default` and `round-robin` both leave the choice to Kafka's producer
//! (Flink returns no partitioner for either): a record with a key goes to
//! `toPositive(murmur2(key)) % partitionCount` ([`partition_for_key`], Kafka's
//! `BuiltInPartitioner.partitionForKey`); a record without one to the partition the
//! producer sticks to until about `batch.size` bytes were sent there ([`Sticky`]).
//! `fixed` is Flink's `FlinkFixedPartitioner`: subtask `i` writes every record to
//! `partitions[i % partitions.len()]` ([`fixed`]). A custom partitioner class runs in Java,
//! with Kafka's Java producer.

/// Kafka's murmur2 (`Utils.murmur2`): 32-bit MurmurHash2 with seed `0x9747b28c`, the
/// input read as little-endian 4-byte words.
pub fn murmur2(data: &[u8]) -> i32 {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    // Java's `int` arithmetic wraps; so does this.
    let mut h: u32 = 0x9747_b28c ^ data.len() as u32;
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut k = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        if tail.len() == 3 {
            h ^= u32::from(tail[2]) << 16;
        }
        if tail.len() >= 2 {
            h ^= u32::from(tail[1]) << 8;
        }
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// The partition Kafka's producer picks for a record with `key` in a topic of
/// `partition_count` partitions (`partition_count` > 0).
pub fn partition_for_key(key: &[u8], partition_count: u32) -> i32 {
    // Utils.toPositive: the sign bit cleared (not the absolute value).
    let positive = (murmur2(key) & 0x7fff_ffff) as u32;
    (positive % partition_count.max(1)) as i32
}

/// Flink's fixed partitioner: `partitions[subtask % partitions.len()]`, `partitions` being
/// the topic's partition ids in ascending order (what the sink context lists); `None`
/// when the topic has none (Flink fails: "Partitions of the target topic is empty.").
pub fn fixed(subtask: u32, partitions: &[i32]) -> Option<i32> {
    if partitions.is_empty() {
        return None;
    }
    partitions.get(subtask as usize % partitions.len()).copied()
}

/// Kafka's sticky choice for records without a key (`BuiltInPartitioner`): stay on one
/// partition until at least `batch_size` bytes were appended to it, then move to another
/// partition, picked at random among those with a leader. Kafka's adaptive variant also
/// weighs partitions by their queue sizes; either way the choice is random, so keyless
/// output is compared as a multiset, as the stock sink can only be compared with itself.
#[derive(Debug, Clone)]
pub struct Sticky {
    current: Option<i32>,
    produced: usize,
    batch_size: usize,
    rng: u64,
}

impl Sticky {
    /// A partitioner switching after `batch_size` bytes (`batch.size`; at least 1), seeded
    /// with `seed`.
    pub fn new(batch_size: usize, seed: u64) -> Self {
        Sticky {
            current: None,
            produced: 0,
            batch_size: batch_size.max(1),
            rng: seed | 1,
        }
    }

    /// The partition for the next record among `available` (partitions with a leader;
    /// non-empty), `None` when none is available.
    pub fn partition(&mut self, available: &[i32]) -> Option<i32> {
        if available.is_empty() {
            return None;
        }
        match self.current {
            Some(p) if self.produced < self.batch_size && available.contains(&p) => Some(p),
            previous => {
                // Move to another partition: never the one just left while others exist.
                let left = previous.and_then(|p| available.iter().position(|&q| q == p));
                let chosen = match left {
                    Some(at) if available.len() > 1 => {
                        let mut pick = (self.next_random() % (available.len() as u64 - 1)) as usize;
                        if pick >= at {
                            pick += 1;
                        }
                        available[pick]
                    }
                    _ => available[(self.next_random() % available.len() as u64) as usize],
                };
                self.current = Some(chosen);
                self.produced = 0;
                Some(chosen)
            }
        }
    }

    /// Counts `bytes` appended to the current partition.
    pub fn appended(&mut self, bytes: usize) {
        self.produced = self.produced.saturating_add(bytes);
    }

    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's own test vectors of `Utils.murmur2`.
    #[test]
    fn murmur2_is_kafkas() {
        for (input, want) in [
            (&b"21"[..], -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ] {
            assert_eq!(murmur2(input), want, "{}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn keys_go_where_kafka_sends_them() {
        // toPositive clears the sign bit: -973932308 & 0x7fffffff = 1173551340.
        assert_eq!(partition_for_key(b"21", 3), 1_173_551_340 % 3);
        assert_eq!(partition_for_key(b"abc", 1), 0);
        // An empty key is a key (murmur2 of nothing), not a missing one.
        assert_eq!(partition_for_key(b"", 7), (murmur2(b"") & 0x7fff_ffff) % 7);
    }

    #[test]
    fn fixed_is_flinks() {
        assert_eq!(fixed(0, &[0, 1, 2]), Some(0));
        assert_eq!(fixed(4, &[0, 1, 2]), Some(1));
        assert_eq!(fixed(1, &[]), None);
    }

    #[test]
    fn sticky_stays_for_a_batch_then_moves_among_available_partitions() {
        let mut s = Sticky::new(100, 7);
        let first = s.partition(&[0, 1, 2]).unwrap();
        s.appended(60);
        assert_eq!(s.partition(&[0, 1, 2]), Some(first));
        s.appended(60);
        let second = s.partition(&[0, 1, 2]).unwrap();
        assert_ne!(second, first);
        // A partition that lost its leader is left at once.
        assert_ne!(s.partition(&[first]).unwrap(), second);
        assert_eq!(s.partition(&[]), None);
        let mut one = Sticky::new(1, 3);
        for _ in 0..5 {
            assert_eq!(one.partition(&[4]), Some(4));
            one.appended(10);
        }
    }
}
