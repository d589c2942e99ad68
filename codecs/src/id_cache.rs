//! A bounded per-schema-id cache for the decoders (resolved plans, compiled schemas, checked
//! ids): a topic whose values carry many schema ids must not grow a decoder's memory without
//! bound.
//!
//! Policy: at most [`ID_CACHE_CAPACITY`] ids per decoder, least recently used evicted first.
//! The capacity is the registry client's own cache size (and the identity-map capacity Flink's
//! `avro-confluent` gives Confluent's client), so the two caches hold the same working set; an
//! evicted id is simply looked up (and resolved) again when it comes back.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// Ids one decoder keeps at most.
pub const ID_CACHE_CAPACITY: usize = 1000;

/// A least-recently-used map from schema id to `V`, holding at most `capacity` ids.
///
/// A hit costs a hash lookup and a counter update; only inserting into a full cache scans
/// for the oldest entry (rare: it follows a registry look-up).
#[derive(Debug)]
pub struct IdCache<V> {
    capacity: usize,
    map: HashMap<i32, (V, u64)>,
    tick: u64,
}

impl<V> Default for IdCache<V> {
    fn default() -> Self {
        IdCache::new(ID_CACHE_CAPACITY)
    }
}

impl<V> IdCache<V> {
    /// An empty cache of at most `capacity` ids (at least one).
    pub fn new(capacity: usize) -> Self {
        IdCache {
            capacity: capacity.max(1),
            map: HashMap::new(),
            tick: 0,
        }
    }

    fn touch(&mut self) -> u64 {
        self.tick = self.tick.wrapping_add(1);
        self.tick
    }

    /// The entry of `id`, marked most recently used.
    pub fn get(&mut self, id: i32) -> Option<&V> {
        let tick = self.touch();
        self.map.get_mut(&id).map(|slot| {
            slot.1 = tick;
            &slot.0
        })
    }

    /// Whether `id` is cached (does not count as a use).
    pub fn contains(&self, id: i32) -> bool {
        self.map.contains_key(&id)
    }

    /// Caches `value` for `id`, evicting the least recently used id when full.
    pub fn insert(&mut self, id: i32, value: V) {
        self.make_room_for(id);
        let tick = self.touch();
        self.map.insert(id, (value, tick));
    }

    /// The entry of `id`, made by `make` when absent (a failure caches nothing).
    pub fn get_or_try_insert_with<E>(
        &mut self,
        id: i32,
        make: impl FnOnce() -> Result<V, E>,
    ) -> Result<&mut V, E> {
        self.make_room_for(id);
        let tick = self.touch();
        match self.map.entry(id) {
            Entry::Occupied(e) => {
                let slot = e.into_mut();
                slot.1 = tick;
                Ok(&mut slot.0)
            }
            Entry::Vacant(e) => Ok(&mut e.insert((make()?, tick)).0),
        }
    }

    /// Evicts the least recently used id when the cache is full and `id` is not in it.
    fn make_room_for(&mut self, id: i32) {
        if self.map.len() < self.capacity || self.map.contains_key(&id) {
            return;
        }
        if let Some(oldest) = self
            .map
            .iter()
            .min_by_key(|(_, (_, used))| *used)
            .map(|(id, _)| *id)
        {
            self.map.remove(&oldest);
        }
    }

    /// Ids cached now.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no id is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_at_most_its_capacity_and_evicts_the_least_recently_used() {
        let mut c = IdCache::new(3);
        for id in 0..3 {
            c.insert(id, id * 10);
        }
        assert_eq!(c.get(0), Some(&0)); // 0 is now the most recent; 1 the oldest
        c.insert(3, 30);
        assert_eq!(c.len(), 3);
        assert!(!c.contains(1));
        assert!(c.contains(0) && c.contains(2) && c.contains(3));
        // Re-inserting a cached id evicts nothing.
        c.insert(3, 31);
        assert_eq!((c.len(), c.get(3)), (3, Some(&31)));
    }

    #[test]
    fn a_topic_with_many_ids_stays_bounded() {
        let mut c = IdCache::new(ID_CACHE_CAPACITY);
        for id in 0..100_000 {
            let made = c.get_or_try_insert_with(id, || Ok::<_, ()>(vec![0u8; 16]));
            assert!(made.is_ok());
        }
        assert_eq!(c.len(), ID_CACHE_CAPACITY);
        // The newest ids are the ones kept.
        assert!(c.contains(99_999) && c.contains(100_000 - ID_CACHE_CAPACITY as i32));
        assert!(!c.contains(100_000 - ID_CACHE_CAPACITY as i32 - 1));
    }

    #[test]
    fn a_failed_make_caches_nothing() {
        let mut c: IdCache<u8> = IdCache::new(2);
        assert_eq!(c.get_or_try_insert_with(7, || Err("down")), Err("down"));
        assert!(c.is_empty());
        assert_eq!(
            c.get_or_try_insert_with(7, || Ok::<_, ()>(1)).map(|v| *v),
            Ok(1)
        );
        assert_eq!(c.get_or_try_insert_with(7, || Err(())).map(|v| *v), Ok(1));
    }
}
