//! The iteration order of a `java.util.HashMap` filled by `put`, reproduced without Java.
//!
//! flink-protobuf converts a MAP column into a `new HashMap()` (one `put` per entry of the
//! Flink map, in the binary map's order) and hands it to the builder's `putAll`, whose
//! `LinkedHashMap` keeps the `HashMap`'s iteration order; protobuf-java then writes the
//! entries in that order. So the wire order of map entries is the order a JDK `HashMap`
//! iterates in, which depends on the keys' `hashCode`, the table size (16, doubled when
//! more than 3/4 full, or when a bucket reaches 9 nodes in a table smaller than 64) and,
//! for buckets of 9 or more colliding keys in a table of at least 64, on the red-black
//! "tree bin" the JDK turns the bucket into (its linked order is rearranged on every
//! insertion). [`JavaHashMap`] replays `put` with the JDK's algorithm, tree bins included
//! (their key comparison is `compareTo`, which the key types of protobuf maps — `String`,
//! `Integer`, `Long`, `Boolean` — all implement consistently with `equals`, so the JDK's
//! identity-hash tie break is never reached). The orders in the tests were printed by
//! JDK 17 and JDK 25 alike.
//!
//! The same order is the order of a MAP that Flink's own decoders build: flink-json's two
//! decoders (`JsonParserToRowDataConverters` and `JsonToRowDataConverters`) `put` every
//! entry, in input order, into a `new HashMap<>()` keyed by `BinaryStringData` and wrap it
//! in a `GenericMapData`, whose `keyArray()` / `valueArray()` (and so the `BinaryMapData`
//! Flink's serializer copies it into between operators, and every encoder downstream)
//! iterate the `HashMap`. [`decoded_map_order`] gives that order for json-native's decoders;
//! [`binary_string_hash`] is `BinaryStringData.hashCode()`. `BinaryStringData` is not
//! `Comparable` to itself in `HashMap`'s sense (it implements `Comparable<StringData>`), so
//! inside a tree bin two keys with equal hash codes are ordered by the JDK's identity-hash
//! tie break, which no one can reproduce (not even the JVM from one run to the next).

use std::cmp::Ordering;

/// "No node".
const NIL: u32 = u32::MAX;
/// The table size of a `new HashMap()` at its first `put`.
const INITIAL_CAPACITY: usize = 16;
/// `HashMap.MAXIMUM_CAPACITY`.
const MAXIMUM_CAPACITY: usize = 1 << 30;
/// A bucket receiving its 9th node is treeified (or the table grows first).
const TREEIFY_THRESHOLD: usize = 8;
/// Tree bins split by a resize become lists again at this size or below.
const UNTREEIFY_THRESHOLD: usize = 6;
/// Buckets are only treeified in tables at least this large.
const MIN_TREEIFY_CAPACITY: usize = 64;

/// How the simulated map compares the keys it is given (by the caller's key index).
pub(crate) trait JavaKeys {
    /// `a.equals(b)`.
    fn same(&self, a: u32, b: u32) -> bool;
    /// `a.compareTo(b)` (only consulted inside tree bins).
    fn compare(&self, a: u32, b: u32) -> Ordering;
}

/// One `HashMap.Node` (or `TreeNode`): keys and values are the caller's indexes.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The spread hash (`h ^ (h >>> 16)`).
    hash: i32,
    key: u32,
    value: u32,
    next: u32,
    // Tree-bin links, meaningful while `tree` is set.
    prev: u32,
    parent: u32,
    left: u32,
    right: u32,
    red: bool,
    tree: bool,
}

/// A replay of `java.util.HashMap` insertions that yields the JDK's iteration order;
/// reusable after [`JavaHashMap::clear`].
#[derive(Debug, Default)]
pub(crate) struct JavaHashMap {
    /// Bucket heads (`NIL` for empty buckets); empty until the first `put`.
    table: Vec<u32>,
    /// The previous table during a resize (kept for its allocation).
    old: Vec<u32>,
    nodes: Vec<Node>,
    threshold: usize,
    /// The table size of the first `put` when the map was made with an initial capacity
    /// (`new HashMap(initialCapacity)`); 0 for `new HashMap()`.
    initial_capacity: usize,
}

/// `(int) (capacity * 0.75f)`: the resize threshold of a table of `capacity` buckets.
fn load_threshold(capacity: usize) -> usize {
    (capacity as f32 * 0.75f32) as usize
}

/// `HashMap.hash`: the high half of the hash code folded into the low half.
fn spread(hash_code: i32) -> i32 {
    hash_code ^ ((hash_code as u32) >> 16) as i32
}

/// The bucket of a spread hash in a table of `n` (a power of two) buckets.
fn bucket(hash: i32, n: usize) -> usize {
    (hash as u32 as usize) & (n - 1)
}

impl JavaHashMap {
    /// Forgets every mapping, as a fresh `new HashMap()`.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
        self.nodes.clear();
        self.threshold = 0;
        self.initial_capacity = 0;
    }

    /// Forgets every mapping, as a fresh `new HashMap(initialCapacity)`: the first `put`
    /// makes a table of `tableSizeFor(initialCapacity)` buckets.
    pub(crate) fn clear_with_capacity(&mut self, initial_capacity: usize) {
        self.clear();
        self.initial_capacity = initial_capacity
            .clamp(1, MAXIMUM_CAPACITY)
            .next_power_of_two();
    }

    /// `put(key, value)` of a key whose `hashCode()` is `hash_code`: a new key is added,
    /// an existing one (equal by `keys.same`) keeps its place and takes `value`.
    pub(crate) fn put(&mut self, hash_code: i32, key: u32, value: u32, keys: &impl JavaKeys) {
        let hash = spread(hash_code);
        if self.table.is_empty() {
            self.resize(keys);
        }
        let index = bucket(hash, self.table.len());
        let first = self.table[index];
        if first == NIL {
            self.table[index] = self.new_node(hash, key, value, NIL);
        } else {
            let found = if self.nodes[first as usize].hash == hash
                && keys.same(self.nodes[first as usize].key, key)
            {
                Some(first)
            } else if self.nodes[first as usize].tree {
                self.put_tree_val(first, hash, key, value, keys)
            } else {
                self.put_list_val(first, hash, key, value, keys)
            };
            if let Some(existing) = found {
                self.nodes[existing as usize].value = value;
                return;
            }
        }
        if self.nodes.len() > self.threshold {
            self.resize(keys);
        }
    }

    /// Calls `visit(key, value)` for every mapping in iteration order.
    pub(crate) fn for_each(&self, mut visit: impl FnMut(u32, u32)) {
        for &head in &self.table {
            let mut e = head;
            while e != NIL {
                let node = &self.nodes[e as usize];
                visit(node.key, node.value);
                e = node.next;
            }
        }
    }

    fn new_node(&mut self, hash: i32, key: u32, value: u32, next: u32) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            hash,
            key,
            value,
            next,
            prev: NIL,
            parent: NIL,
            left: NIL,
            right: NIL,
            red: false,
            tree: false,
        });
        id
    }

    /// Walks a list bucket: the equal key's node, or appends a node at the tail (and
    /// treeifies or grows when the bucket now has 9 nodes).
    fn put_list_val(
        &mut self,
        first: u32,
        hash: i32,
        key: u32,
        value: u32,
        keys: &impl JavaKeys,
    ) -> Option<u32> {
        let mut p = first;
        let mut count = 0;
        loop {
            let next = self.nodes[p as usize].next;
            if next == NIL {
                let node = self.new_node(hash, key, value, NIL);
                self.nodes[p as usize].next = node;
                if count >= TREEIFY_THRESHOLD - 1 {
                    self.treeify_bin(hash, keys);
                }
                return None;
            }
            let e = &self.nodes[next as usize];
            if e.hash == hash && keys.same(e.key, key) {
                return Some(next);
            }
            p = next;
            count += 1;
        }
    }

    /// Doubles the table (or creates it), splitting every bucket in order.
    fn resize(&mut self, keys: &impl JavaKeys) {
        let old_cap = self.table.len();
        if old_cap >= MAXIMUM_CAPACITY {
            self.threshold = usize::MAX;
            return;
        }
        let (new_cap, new_threshold) = match old_cap {
            0 if self.initial_capacity > 0 => {
                (self.initial_capacity, load_threshold(self.initial_capacity))
            }
            0 => (INITIAL_CAPACITY, INITIAL_CAPACITY * 3 / 4),
            // Below the default capacity the JDK computes the threshold anew.
            _ if old_cap < INITIAL_CAPACITY => (old_cap * 2, load_threshold(old_cap * 2)),
            _ => (old_cap * 2, self.threshold * 2),
        };
        self.threshold = new_threshold;
        std::mem::swap(&mut self.table, &mut self.old);
        self.table.clear();
        self.table.resize(new_cap, NIL);
        for j in 0..old_cap {
            let e = self.old[j];
            if e == NIL {
                continue;
            }
            let node = self.nodes[e as usize];
            if node.next == NIL {
                self.table[bucket(node.hash, new_cap)] = e;
            } else if node.tree {
                self.split(e, j, old_cap, keys);
            } else {
                let (lo, hi) = self.split_list(e, old_cap);
                if lo != NIL {
                    self.table[j] = lo;
                }
                if hi != NIL {
                    self.table[j + old_cap] = hi;
                }
            }
        }
        self.old.clear();
    }

    /// Splits a list into the nodes staying at their index and those moving up by
    /// `bit`, each in their previous order (setting `prev` links for tree bins). Returns
    /// both heads.
    fn split_list(&mut self, head: u32, bit: usize) -> (u32, u32) {
        let (mut lo_head, mut lo_tail, mut hi_head, mut hi_tail) = (NIL, NIL, NIL, NIL);
        let mut e = head;
        while e != NIL {
            let next = self.nodes[e as usize].next;
            self.nodes[e as usize].next = NIL;
            let stays = (self.nodes[e as usize].hash as u32 as usize) & bit == 0;
            let (h, t) = if stays {
                (&mut lo_head, &mut lo_tail)
            } else {
                (&mut hi_head, &mut hi_tail)
            };
            self.nodes[e as usize].prev = *t;
            if *t == NIL {
                *h = e;
            } else {
                self.nodes[*t as usize].next = e;
            }
            *t = e;
            e = next;
        }
        (lo_head, hi_head)
    }

    /// `TreeNode.split`: a tree bin divided by a resize.
    fn split(&mut self, head: u32, index: usize, bit: usize, keys: &impl JavaKeys) {
        let (lo, hi) = self.split_list(head, bit);
        let count = |map: &Self, mut e: u32| {
            let mut n = 0;
            while e != NIL {
                n += 1;
                e = map.nodes[e as usize].next;
            }
            n
        };
        for (part, other, at) in [(lo, hi, index), (hi, lo, index + bit)] {
            if part == NIL {
                continue;
            }
            self.table[at] = part;
            if count(self, part) <= UNTREEIFY_THRESHOLD {
                self.untreeify(part);
            } else if other != NIL {
                self.treeify(part, keys);
            }
            // Else every node stayed together and the tree is kept as it is.
        }
    }

    fn untreeify(&mut self, head: u32) {
        let mut e = head;
        while e != NIL {
            let node = &mut self.nodes[e as usize];
            node.tree = false;
            e = node.next;
        }
    }

    /// `treeifyBin`: grows a small table, else turns the bucket of `hash` into a tree.
    fn treeify_bin(&mut self, hash: i32, keys: &impl JavaKeys) {
        let n = self.table.len();
        if n < MIN_TREEIFY_CAPACITY {
            self.resize(keys);
            return;
        }
        let head = self.table[bucket(hash, n)];
        let mut prev = NIL;
        let mut e = head;
        while e != NIL {
            let node = &mut self.nodes[e as usize];
            node.tree = true;
            node.prev = prev;
            prev = e;
            e = node.next;
        }
        if head != NIL {
            self.treeify(head, keys);
        }
    }

    /// Which side of `p` a key with `hash` belongs on (`Less`: left).
    fn direction(&self, p: u32, hash: i32, key: u32, keys: &impl JavaKeys) -> Ordering {
        let node = &self.nodes[p as usize];
        match node.hash.cmp(&hash) {
            Ordering::Greater => Ordering::Less,
            Ordering::Less => Ordering::Greater,
            Ordering::Equal => keys.compare(key, node.key),
        }
    }

    /// `TreeNode.treeify`: builds a red-black tree of the list at `head` (in list order)
    /// and moves its root to the front of the bucket.
    fn treeify(&mut self, head: u32, keys: &impl JavaKeys) {
        let mut root = NIL;
        let mut x = head;
        while x != NIL {
            let next = self.nodes[x as usize].next;
            {
                let node = &mut self.nodes[x as usize];
                node.left = NIL;
                node.right = NIL;
                node.tree = true;
            }
            if root == NIL {
                let node = &mut self.nodes[x as usize];
                node.parent = NIL;
                node.red = false;
                root = x;
            } else {
                let (hash, key) = (self.nodes[x as usize].hash, self.nodes[x as usize].key);
                let mut p = root;
                loop {
                    // Distinct keys never compare equal, so the JDK's tie break (which
                    // goes left or right by identity hash) is not needed.
                    let left = self.direction(p, hash, key, keys) != Ordering::Greater;
                    let child = if left {
                        self.nodes[p as usize].left
                    } else {
                        self.nodes[p as usize].right
                    };
                    if child == NIL {
                        self.nodes[x as usize].parent = p;
                        if left {
                            self.nodes[p as usize].left = x;
                        } else {
                            self.nodes[p as usize].right = x;
                        }
                        root = self.balance_insertion(root, x);
                        break;
                    }
                    p = child;
                }
            }
            x = next;
        }
        self.move_root_to_front(root);
    }

    /// `TreeNode.putTreeVal`: the equal key's node, or a new node linked into the tree
    /// and, in the bucket's list, right after its tree parent.
    fn put_tree_val(
        &mut self,
        first: u32,
        hash: i32,
        key: u32,
        value: u32,
        keys: &impl JavaKeys,
    ) -> Option<u32> {
        let mut root = first;
        while self.nodes[root as usize].parent != NIL {
            root = self.nodes[root as usize].parent;
        }
        let mut p = root;
        loop {
            let node = &self.nodes[p as usize];
            if node.hash == hash && keys.same(node.key, key) {
                return Some(p);
            }
            let left = self.direction(p, hash, key, keys) != Ordering::Greater;
            let child = if left { node.left } else { node.right };
            if child != NIL {
                p = child;
                continue;
            }
            let after = self.nodes[p as usize].next;
            let x = self.new_node(hash, key, value, after);
            {
                let node = &mut self.nodes[x as usize];
                node.tree = true;
                node.parent = p;
                node.prev = p;
            }
            if left {
                self.nodes[p as usize].left = x;
            } else {
                self.nodes[p as usize].right = x;
            }
            self.nodes[p as usize].next = x;
            if after != NIL {
                self.nodes[after as usize].prev = x;
            }
            let root = self.balance_insertion(root, x);
            self.move_root_to_front(root);
            return None;
        }
    }

    /// `TreeNode.moveRootToFront`: makes `root` the bucket's first node.
    fn move_root_to_front(&mut self, root: u32) {
        if root == NIL || self.table.is_empty() {
            return;
        }
        let index = bucket(self.nodes[root as usize].hash, self.table.len());
        let first = self.table[index];
        if root == first {
            return;
        }
        self.table[index] = root;
        let (rp, rn) = (
            self.nodes[root as usize].prev,
            self.nodes[root as usize].next,
        );
        if rn != NIL {
            self.nodes[rn as usize].prev = rp;
        }
        if rp != NIL {
            self.nodes[rp as usize].next = rn;
        }
        if first != NIL {
            self.nodes[first as usize].prev = root;
        }
        let node = &mut self.nodes[root as usize];
        node.next = first;
        node.prev = NIL;
    }

    fn rotate_left(&mut self, mut root: u32, p: u32) -> u32 {
        if p == NIL {
            return root;
        }
        let r = self.nodes[p as usize].right;
        if r == NIL {
            return root;
        }
        let rl = self.nodes[r as usize].left;
        self.nodes[p as usize].right = rl;
        if rl != NIL {
            self.nodes[rl as usize].parent = p;
        }
        let pp = self.nodes[p as usize].parent;
        self.nodes[r as usize].parent = pp;
        if pp == NIL {
            root = r;
            self.nodes[r as usize].red = false;
        } else if self.nodes[pp as usize].left == p {
            self.nodes[pp as usize].left = r;
        } else {
            self.nodes[pp as usize].right = r;
        }
        self.nodes[r as usize].left = p;
        self.nodes[p as usize].parent = r;
        root
    }

    fn rotate_right(&mut self, mut root: u32, p: u32) -> u32 {
        if p == NIL {
            return root;
        }
        let l = self.nodes[p as usize].left;
        if l == NIL {
            return root;
        }
        let lr = self.nodes[l as usize].right;
        self.nodes[p as usize].left = lr;
        if lr != NIL {
            self.nodes[lr as usize].parent = p;
        }
        let pp = self.nodes[p as usize].parent;
        self.nodes[l as usize].parent = pp;
        if pp == NIL {
            root = l;
            self.nodes[l as usize].red = false;
        } else if self.nodes[pp as usize].right == p {
            self.nodes[pp as usize].right = l;
        } else {
            self.nodes[pp as usize].left = l;
        }
        self.nodes[l as usize].right = p;
        self.nodes[p as usize].parent = l;
        root
    }

    /// `TreeNode.balanceInsertion`: restores the red-black rules after inserting `x`;
    /// returns the (possibly new) root.
    fn balance_insertion(&mut self, mut root: u32, mut x: u32) -> u32 {
        self.nodes[x as usize].red = true;
        loop {
            let mut xp = self.nodes[x as usize].parent;
            if xp == NIL {
                self.nodes[x as usize].red = false;
                return x;
            }
            let mut xpp = self.nodes[xp as usize].parent;
            if !self.nodes[xp as usize].red || xpp == NIL {
                return root;
            }
            let xppl = self.nodes[xpp as usize].left;
            if xp == xppl {
                let xppr = self.nodes[xpp as usize].right;
                if xppr != NIL && self.nodes[xppr as usize].red {
                    self.nodes[xppr as usize].red = false;
                    self.nodes[xp as usize].red = false;
                    self.nodes[xpp as usize].red = true;
                    x = xpp;
                } else {
                    if x == self.nodes[xp as usize].right {
                        x = xp;
                        root = self.rotate_left(root, x);
                        xp = self.nodes[x as usize].parent;
                        xpp = if xp == NIL {
                            NIL
                        } else {
                            self.nodes[xp as usize].parent
                        };
                    }
                    if xp != NIL {
                        self.nodes[xp as usize].red = false;
                        if xpp != NIL {
                            self.nodes[xpp as usize].red = true;
                            root = self.rotate_right(root, xpp);
                        }
                    }
                }
            } else if xppl != NIL && self.nodes[xppl as usize].red {
                self.nodes[xppl as usize].red = false;
                self.nodes[xp as usize].red = false;
                self.nodes[xpp as usize].red = true;
                x = xpp;
            } else {
                if x == self.nodes[xp as usize].left {
                    x = xp;
                    root = self.rotate_right(root, x);
                    xp = self.nodes[x as usize].parent;
                    xpp = if xp == NIL {
                        NIL
                    } else {
                        self.nodes[xp as usize].parent
                    };
                }
                if xp != NIL {
                    self.nodes[xp as usize].red = false;
                    if xpp != NIL {
                        self.nodes[xpp as usize].red = true;
                        root = self.rotate_left(root, xpp);
                    }
                }
            }
        }
    }
}

/// For string keys `put` in this order into a `HashMap` made by Flink's
/// `CollectionUtil.newHashMapWithExpectedSize(keys.len())` (Avro's map writer), the index
/// of the entry holding each distinct key's final value, in the map's iteration order.
pub(crate) fn string_map_order(keys: &[&str]) -> Vec<usize> {
    struct Strings<'a>(&'a [&'a str]);
    impl JavaKeys for Strings<'_> {
        fn same(&self, a: u32, b: u32) -> bool {
            self.0[a as usize] == self.0[b as usize]
        }
        fn compare(&self, a: u32, b: u32) -> Ordering {
            string_compare(self.0[a as usize], self.0[b as usize])
        }
    }
    let mut map = JavaHashMap::default();
    map.clear_with_capacity(expected_size_capacity(keys.len()));
    let strings = Strings(keys);
    for (index, key) in keys.iter().enumerate() {
        // Indexes past u32 cannot occur: a map image holds fewer than 2^31 entries.
        map.put(string_hash(key), index as u32, index as u32, &strings);
    }
    let mut order = Vec::with_capacity(keys.len());
    map.for_each(|_, value| order.push(value as usize));
    order
}

/// [`string_map_order`] for keys given as the UTF-16 units of Java strings (which may hold
/// lone surrogates): hashed by `String.hashCode`, equal when their units are.
pub(crate) fn units_map_order(keys: &[Vec<u16>]) -> Vec<usize> {
    struct Units<'a>(&'a [Vec<u16>]);
    impl JavaKeys for Units<'_> {
        fn same(&self, a: u32, b: u32) -> bool {
            self.0[a as usize] == self.0[b as usize]
        }
        fn compare(&self, a: u32, b: u32) -> Ordering {
            // `String.compareTo`: lexicographic over UTF-16 code units.
            self.0[a as usize].cmp(&self.0[b as usize])
        }
    }
    let mut map = JavaHashMap::default();
    map.clear_with_capacity(expected_size_capacity(keys.len()));
    let units = Units(keys);
    for (index, key) in keys.iter().enumerate() {
        // Indexes past u32 cannot occur: a map image holds fewer than 2^31 entries.
        map.put(
            string_hash_of_units(key.iter().copied()),
            index as u32,
            index as u32,
            &units,
        );
    }
    let mut order = Vec::with_capacity(keys.len());
    map.for_each(|_, value| order.push(value as usize));
    order
}

/// For a map whose entries a Flink decoder `put` in this order into a `new HashMap<>()`
/// (flink-json's map converters): `hash_codes[i]` is entry `i`'s key `hashCode()` (0 for a
/// NULL key) and `first_equal[i]` the index of the first entry whose key equals it (`i`
/// itself for a key not seen before). Fills `order` with the index of the entry holding
/// each distinct key's final value (the last equal one: `put` replaces the value and keeps
/// the key's place) in the map's iteration order, reusing `map`.
///
/// Keys with equal hash codes that end up in one tree bin (9 or more keys in one bucket
/// of a table of 64 or more) are ordered by `System.identityHashCode` in the JDK; here they
/// take the left branch, as the JDK does for about half of such pairs.
pub(crate) fn decoded_map_order(
    map: &mut JavaHashMap,
    hash_codes: &[i32],
    first_equal: &[u32],
    order: &mut Vec<u32>,
) {
    /// Only distinct keys are `put` (a repeated key changes no structure in the JDK's
    /// map), so no two put keys are equal.
    struct Distinct;
    impl JavaKeys for Distinct {
        fn same(&self, a: u32, b: u32) -> bool {
            a == b
        }
        fn compare(&self, _: u32, _: u32) -> Ordering {
            Ordering::Less
        }
    }
    order.clear();
    // `order` holds, per first entry of a key, the last entry equal to it.
    order.extend(0..hash_codes.len() as u32);
    for (i, &first) in first_equal.iter().enumerate() {
        if let Some(last) = order.get_mut(first as usize) {
            *last = i as u32;
        }
    }
    map.clear();
    for (i, (&hash, &first)) in hash_codes.iter().zip(first_equal).enumerate() {
        if first as usize == i {
            map.put(hash, i as u32, order[i], &Distinct);
        }
    }
    order.clear();
    map.for_each(|_, last| order.push(last));
}

/// `BinaryStringData.hashCode()` of the string whose UTF-8 bytes are `bytes`: Flink's
/// `MurmurHashUtils.hashBytes` (MurmurHash3 x86 32-bit, seed 42, the 4-byte words read in
/// the platform's byte order as `MemorySegment.getInt` reads them, each trailing byte
/// mixed alone as a sign-extended `byte`).
pub(crate) fn binary_string_hash(bytes: &[u8]) -> i32 {
    fn mix_k1(k: i32) -> i32 {
        k.wrapping_mul(0xcc9e_2d51_u32 as i32)
            .rotate_left(15)
            .wrapping_mul(0x1b87_3593)
    }
    fn mix_h1(h: i32, k: i32) -> i32 {
        (h ^ k)
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64_u32 as i32)
    }
    let words = bytes.chunks_exact(4);
    let tail = words.remainder();
    let mut h = 42i32;
    for w in words {
        h = mix_h1(h, mix_k1(i32::from_ne_bytes([w[0], w[1], w[2], w[3]])));
    }
    for &b in tail {
        h = mix_h1(h, mix_k1(i32::from(b as i8)));
    }
    // fmix(h1, length)
    h ^= bytes.len() as i32;
    h ^= ((h as u32) >> 16) as i32;
    h = h.wrapping_mul(0x85eb_ca6b_u32 as i32);
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(0xc2b2_ae35_u32 as i32);
    h ^ ((h as u32) >> 16) as i32
}

/// The initial capacity Flink's `CollectionUtil.newHashMapWithExpectedSize(n)` asks for.
fn expected_size_capacity(n: usize) -> usize {
    if n <= 2 {
        n + 1
    } else if n < (1 << 30) {
        (n as f32 / 0.75f32).ceil() as usize
    } else {
        i32::MAX as usize
    }
}

/// `Integer.hashCode()`.
pub(crate) fn int_hash(value: i32) -> i32 {
    value
}

/// `Long.hashCode()`.
pub(crate) fn long_hash(value: i64) -> i32 {
    (value ^ ((value as u64) >> 32) as i64) as i32
}

/// `Boolean.hashCode()`.
pub(crate) fn bool_hash(value: bool) -> i32 {
    if value {
        1231
    } else {
        1237
    }
}

/// `String.hashCode()` of the Java string whose UTF-8 form is `text` (the sum over its
/// UTF-16 code units).
pub(crate) fn string_hash(text: &str) -> i32 {
    let mut h: i32 = 0;
    if text.is_ascii() {
        for &b in text.as_bytes() {
            h = h.wrapping_mul(31).wrapping_add(i32::from(b));
        }
    } else {
        for unit in text.encode_utf16() {
            h = h.wrapping_mul(31).wrapping_add(i32::from(unit));
        }
    }
    h
}

/// `String.hashCode()` of the Java string whose UTF-16 code units are `units`.
pub(crate) fn string_hash_of_units(units: impl Iterator<Item = u16>) -> i32 {
    units.fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `String.compareTo`: lexicographic over UTF-16 code units.
pub(crate) fn string_compare(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.as_bytes().cmp(b.as_bytes())
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_of_an_expected_size_as_avro_writes_them() {
        // HashMap<String,_> sized for 4 entries (capacity 8): "b"=98 -> bucket 2,
        // "a"=97 -> 1, "c"=99 -> 3, "aa"=3104 -> 0 (3104 & 7), so aa, a, b, c.
        assert_eq!(string_map_order(&["b", "a", "c", "aa"]), vec![3, 1, 0, 2]);
        // A duplicate keeps its first position and takes the last value.
        assert_eq!(string_map_order(&["x", "y", "x"]), vec![2, 1]);
        assert_eq!(string_map_order(&[]), Vec::<usize>::new());
        assert_eq!(string_hash("hello"), 99162322);
        assert_eq!(string_hash("\u{1F600}"), 1772899); // 0xD83D * 31 + 0xDE00
    }

    /// Keys given as Java strings.
    struct Strings<'a>(&'a [&'a str]);

    impl JavaKeys for Strings<'_> {
        fn same(&self, a: u32, b: u32) -> bool {
            self.0[a as usize] == self.0[b as usize]
        }
        fn compare(&self, a: u32, b: u32) -> Ordering {
            string_compare(self.0[a as usize], self.0[b as usize])
        }
    }

    /// Keys given as Java ints.
    struct Ints<'a>(&'a [i32]);

    impl JavaKeys for Ints<'_> {
        fn same(&self, a: u32, b: u32) -> bool {
            self.0[a as usize] == self.0[b as usize]
        }
        fn compare(&self, a: u32, b: u32) -> Ordering {
            self.0[a as usize].cmp(&self.0[b as usize])
        }
    }

    fn string_order(keys: &[&str]) -> Vec<String> {
        let mut map = JavaHashMap::default();
        let k = Strings(keys);
        for (i, key) in keys.iter().enumerate() {
            map.put(string_hash(key), i as u32, i as u32, &k);
        }
        let mut out = Vec::new();
        map.for_each(|key, _| out.push(keys[key as usize].to_string()));
        out
    }

    fn int_order(keys: &[i32]) -> Vec<(i32, u32)> {
        let mut map = JavaHashMap::default();
        let k = Ints(keys);
        for (i, key) in keys.iter().enumerate() {
            map.put(int_hash(*key), i as u32, i as u32, &k);
        }
        let mut out = Vec::new();
        map.for_each(|key, value| out.push((keys[key as usize], value)));
        out
    }

    // Expected orders: the keys of `new LinkedHashMap<>(hashMap)` after the same `put`s,
    // printed by JDK 17 and JDK 25 (identical).

    #[test]
    fn binary_string_hash_codes_as_flink_computes_them() {
        // BinaryStringData.fromString(s).hashCode() printed by Flink 2.2.0 on JDK 17 (x86-64).
        for (text, hash) in [
            ("", 142_593_372),
            ("a", 1_485_273_170),
            ("ab", -97_053_317),
            ("abc", 1_322_437_556),
            ("abcd", -396_302_900),
            ("hello", -1_008_564_952),
            ("h\u{e9}llo w\u{f6}rld", -281_075_962),
            ("\u{ff}\u{80}", 527_477_494),
            ("key-12345678", 1_368_893_410),
        ] {
            assert_eq!(binary_string_hash(text.as_bytes()), hash, "{text:?}");
        }
    }

    #[test]
    fn decoded_maps_iterate_as_a_hash_map_of_binary_strings() {
        let keys = [
            "zeta", "alpha", "mid", "b", "a", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9",
            "k10", "k11", "k12", "k13", "k14", "a", "k6",
        ];
        let hashes: Vec<i32> = keys
            .iter()
            .map(|k| binary_string_hash(k.as_bytes()))
            .collect();
        let first: Vec<u32> = keys
            .iter()
            .map(|k| keys.iter().position(|o| o == k).unwrap_or(0) as u32)
            .collect();
        let (mut map, mut order) = (JavaHashMap::default(), Vec::new());
        decoded_map_order(&mut map, &hashes, &first, &mut order);
        let written: Vec<(&str, u32)> = order.iter().map(|&i| (keys[i as usize], i)).collect();
        // The keys of a HashMap<BinaryStringData, _> after the same puts, printed by JDK 17
        // (the repeated "a" and "k6" keep their places and take the last values).
        assert_eq!(
            written,
            [
                ("k6", 20),
                ("k9", 13),
                ("k3", 7),
                ("k14", 18),
                ("k8", 12),
                ("b", 3),
                ("k10", 14),
                ("zeta", 0),
                ("alpha", 1),
                ("k1", 5),
                ("k2", 6),
                ("a", 19),
                ("k4", 8),
                ("k5", 9),
                ("mid", 2),
                ("k12", 16),
                ("k7", 11),
                ("k11", 15),
                ("k13", 17),
            ]
        );
    }

    #[test]
    fn java_hash_codes() {
        assert_eq!(string_hash("hello"), 99_162_322);
        assert_eq!(string_hash(""), 0);
        // U+1F600 is the surrogate pair D83D DE00; é is one unit 0xE9.
        assert_eq!(string_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
        assert_eq!(string_hash("é"), 0xE9);
        assert_eq!(long_hash(-1), 0);
        assert_eq!(long_hash(1 << 32), 1);
        assert_eq!(long_hash(i64::MIN), i32::MIN);
        assert_eq!((bool_hash(true), bool_hash(false)), (1231, 1237));
        assert_eq!(string_hash("Aa"), string_hash("BB"));
    }

    #[test]
    fn supplementary_characters_compare_as_utf16() {
        // U+FFFF > U+1F600 in UTF-16 (0xFFFF vs 0xD83D), the opposite of code point order.
        assert_eq!(string_compare("\u{FFFF}", "\u{1F600}"), Ordering::Greater);
        assert_eq!(string_compare("a", "b"), Ordering::Less);
    }

    #[test]
    fn small_maps_iterate_by_bucket_then_insertion() {
        assert_eq!(
            string_order(&["zeta", "alpha", "mid", "b", "a"]),
            ["zeta", "a", "b", "alpha", "mid"]
        );
        let ints = int_order(&[100, 3, -1, 17, 1]);
        let keys: Vec<i32> = ints.iter().map(|&(k, _)| k).collect();
        assert_eq!(keys, [-1, 17, 1, 3, 100]);
    }

    #[test]
    fn repeated_keys_keep_their_place_and_take_the_last_value() {
        assert_eq!(int_order(&[5, 3, 5]), [(3, 1), (5, 2)]);
    }

    #[test]
    fn growing_past_three_quarters_doubles_the_table() {
        let keys: Vec<String> = (0..20).map(|i| format!("k{}", 19 - i)).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        assert_eq!(
            string_order(&refs),
            [
                "k0", "k1", "k2", "k3", "k4", "k11", "k5", "k10", "k6", "k13", "k7", "k12", "k8",
                "k15", "k9", "k14", "k17", "k16", "k19", "k18"
            ]
        );
    }

    #[test]
    fn colliding_strings_form_a_tree_bin() {
        // 16 strings with one hash code: the bucket grows the table to 32 and 64, then
        // becomes a tree bin whose list order follows the tree insertions.
        let keys = [
            "BBBBAaAa", "AaAaBBBB", "BBAaAaAa", "AaBBBBAa", "AaBBAaAa", "AaAaAaAa", "BBBBBBAa",
            "BBAaAaBB", "BBAaBBAa", "AaAaAaBB", "BBAaBBBB", "AaAaBBAa", "AaBBAaBB", "BBBBBBBB",
            "AaBBBBBB", "BBBBAaBB",
        ];
        assert_eq!(
            string_order(&keys),
            [
                "BBAaAaAa", "BBBBAaAa", "AaAaBBBB", "AaAaBBAa", "AaBBBBAa", "AaBBBBBB", "AaBBAaBB",
                "AaBBAaAa", "AaAaAaAa", "BBBBBBAa", "BBBBAaBB", "BBBBBBBB", "BBAaAaBB", "BBAaBBAa",
                "AaAaAaBB", "BBAaBBBB"
            ]
        );
    }

    #[test]
    fn tree_bins_of_ints_with_a_repeated_key() {
        let keys = [
            1063, 1051, 1039, 1015, 1009, 384, 1006, 832, 1075, 0, 896, 1024, 1024, 1030, 1078,
            256, 1102, 192, 576, 1090, 128, 1088, 1096, 1087, 1033, 64, 1003, 1060, 1048, 512,
            1042, 1057, 1018, 1021, 320, 1069, 1084, 960, 1072, 1054, 640, 1093, 1152, 1066, 1081,
            1216, 768, 1027, 1036, 448, 1012, 704, 1045, 1000, 1099,
        ];
        let expected = [
            (640, 40),
            (384, 5),
            (768, 46),
            (0, 9),
            (896, 10),
            (1024, 12),
            (256, 15),
            (512, 29),
            (128, 20),
            (1152, 42),
            (1027, 47),
            (1030, 13),
            (1033, 24),
            (1036, 48),
            (1039, 2),
            (1042, 30),
            (1045, 52),
            (1048, 28),
            (1051, 1),
            (1054, 39),
            (1057, 31),
            (1060, 27),
            (1063, 0),
            (1066, 43),
            (1069, 35),
            (1072, 38),
            (1075, 8),
            (1078, 14),
            (1081, 44),
            (1084, 36),
            (1087, 23),
            (832, 7),
            (960, 37),
            (320, 34),
            (192, 17),
            (576, 18),
            (704, 51),
            (448, 49),
            (64, 25),
            (1088, 21),
            (1216, 45),
            (1090, 19),
            (1093, 41),
            (1096, 22),
            (1099, 54),
            (1102, 16),
            (1000, 53),
            (1003, 26),
            (1006, 6),
            (1009, 4),
            (1012, 50),
            (1015, 3),
            (1018, 32),
            (1021, 33),
        ];
        assert_eq!(int_order(&keys), expected);
    }

    #[test]
    fn a_resize_splits_a_tree_bin_into_two_trees() {
        let mut keys: Vec<i32> = (0..24).map(|i| 64 * ((i * 7) % 24)).collect();
        keys.extend((0..60).map(|i| 5 + 2 * i));
        let order: Vec<i32> = int_order(&keys).iter().map(|&(k, _)| k).collect();
        let mut expected = vec![384, 896, 0, 1280, 256, 128, 768, 1152, 512, 640, 1024, 1408];
        expected.extend((0..30).map(|i| 5 + 2 * i));
        expected.extend([
            704, 448, 1344, 1216, 192, 320, 832, 64, 576, 960, 1088, 1472,
        ]);
        expected.extend((0..30).map(|i| 65 + 2 * i));
        assert_eq!(order, expected);
    }

    #[test]
    fn longs_folding_to_one_hash_code() {
        struct Longs(Vec<i64>);
        impl JavaKeys for Longs {
            fn same(&self, a: u32, b: u32) -> bool {
                self.0[a as usize] == self.0[b as usize]
            }
            fn compare(&self, a: u32, b: u32) -> Ordering {
                self.0[a as usize].cmp(&self.0[b as usize])
            }
        }
        // i * (2^32 + 1): high and low halves equal, so every hash code is 0.
        let keys = Longs((0..12).map(|i| i * ((1 << 32) + 1)).collect());
        let mut map = JavaHashMap::default();
        for (i, &k) in keys.0.iter().enumerate() {
            map.put(long_hash(k), i as u32, i as u32, &keys);
        }
        let mut order = Vec::new();
        map.for_each(|k, _| order.push(k));
        assert_eq!(order, [3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn booleans_and_non_ascii_strings() {
        let mut map = JavaHashMap::default();
        struct Bools([bool; 2]);
        impl JavaKeys for Bools {
            fn same(&self, a: u32, b: u32) -> bool {
                self.0[a as usize] == self.0[b as usize]
            }
            fn compare(&self, a: u32, b: u32) -> Ordering {
                self.0[a as usize].cmp(&self.0[b as usize])
            }
        }
        let bools = Bools([true, false]);
        map.put(bool_hash(true), 0, 0, &bools);
        map.put(bool_hash(false), 1, 1, &bools);
        let mut order = Vec::new();
        map.for_each(|k, _| order.push(k));
        assert_eq!(order, [1, 0]);
        assert_eq!(
            string_order(&["é", "\u{1F600}", "\u{FFFF}", "z", "ab"]),
            ["ab", "\u{1F600}", "é", "z", "\u{FFFF}"]
        );
    }
}
