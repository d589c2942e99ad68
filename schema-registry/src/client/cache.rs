//! A bounded, thread-safe least-recently-used cache.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard};

/// At most `capacity` entries; inserting into a full cache evicts the least recently used one.
pub(crate) struct LruCache<K, V> {
    capacity: usize,
    inner: Mutex<Inner<K, V>>,
}

struct Inner<K, V> {
    /// Key -> (value, last-use tick).
    map: HashMap<K, (V, u64)>,
    /// Last-use tick -> key, oldest first.
    order: BTreeMap<u64, K>,
    tick: u64,
}

impl<K: Hash + Eq + Clone, V: Clone> LruCache<K, V> {
    /// An empty cache holding at most `capacity` entries (at least one).
    pub(crate) fn new(capacity: usize) -> Self {
        LruCache {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner {
                map: HashMap::new(),
                order: BTreeMap::new(),
                tick: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<K, V>> {
        // A panic while holding the lock cannot leave the maps inconsistent in a way that
        // matters for a cache, so a poisoned lock is simply taken over.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cached value for `key`, marking it most recently used.
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        inner.tick += 1;
        let tick = inner.tick;
        let (value, last) = inner.map.get_mut(key)?;
        let old = std::mem::replace(last, tick);
        let value = value.clone();
        if let Some(k) = inner.order.remove(&old) {
            inner.order.insert(tick, k);
        }
        Some(value)
    }

    /// Caches `value` under `key`, evicting the least recently used entry when full.
    pub(crate) fn insert(&self, key: K, value: V) {
        let mut guard = self.lock();
        let inner = &mut *guard;
        inner.tick += 1;
        let tick = inner.tick;
        if let Some((_, old)) = inner.map.insert(key.clone(), (value, tick)) {
            inner.order.remove(&old);
        }
        inner.order.insert(tick, key);
        while inner.map.len() > self.capacity {
            let Some((_, oldest)) = inner.order.pop_first() else {
                break;
            };
            inner.map.remove(&oldest);
        }
    }

    /// Number of cached entries.
    pub(crate) fn len(&self) -> usize {
        self.lock().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let c = LruCache::new(2);
        c.insert(1, "a");
        c.insert(2, "b");
        assert_eq!(c.get(&1), Some("a"));
        c.insert(3, "c");
        assert_eq!(c.get(&2), None);
        assert_eq!(c.get(&1), Some("a"));
        assert_eq!(c.get(&3), Some("c"));
        c.insert(3, "c2");
        assert_eq!(c.len(), 2);
        assert_eq!(c.get(&3), Some("c2"));
    }
}
