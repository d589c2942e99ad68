//! The entry order of a MAP Flink's `avro-confluent` decodes (flink-avro 2.2.0, Avro 1.11.4).
//!
//! Avro's `GenericDatumReader.readMap` fills a `new HashMap<>(n)` (`n` the count of the map's
//! first block) with `Utf8` keys in wire order (a repeated key keeps its place and takes the
//! later value); `AvroToRowDataConverters`' map converter then copies that map's entries, in
//! its iteration order, into a `new HashMap<>()` keyed by `StringData`, and wraps it in a
//! `GenericMapData`, whose key and value arrays iterate that second map. So the order the rest
//! of the job sees (a Calc, a sink: `avro-confluent` writes its maps from it) is the iteration
//! order of the second map: `BinaryStringData.hashCode()` buckets (Flink's Murmur3 of the UTF-8
//! bytes, seed 42), ties in the first map's order (`Utf8.hashCode()` buckets), ties in wire
//! order. Both maps are replayed with [`JavaHashMap`].
//!
//! Not reproduced: a bucket of 8 or more colliding keys in a table of 64 or more, which the
//! JDK turns into a tree ordered, for `StringData` keys (not `Comparable` to their own class as
//! `HashMap` requires), by identity hash codes: Flink's order is not deterministic there; and
//! keys whose wire bytes are not UTF-8 are compared and hashed as the decoded text's bytes.

use std::cmp::Ordering;

use crate::java::hash_map::{binary_string_hash, JavaHashMap, JavaKeys};

/// Keys as the UTF-8 bytes the decoder writes.
struct Bytes<'a>(&'a [&'a [u8]]);

impl JavaKeys for Bytes<'_> {
    fn same(&self, a: u32, b: u32) -> bool {
        self.0[a as usize] == self.0[b as usize]
    }
    fn compare(&self, a: u32, b: u32) -> Ordering {
        // `Utf8.compareTo` (unsigned bytes); also used for `StringData` tree bins (see above).
        self.0[a as usize].cmp(self.0[b as usize])
    }
}

/// Avro's `Utf8.hashCode()`: `31 * h + b` over the (signed) bytes.
fn utf8_hash(bytes: &[u8]) -> i32 {
    bytes.iter().fold(0i32, |h, &b| {
        h.wrapping_mul(31).wrapping_add(i32::from(b as i8))
    })
}

/// The entries Flink's decoded map holds, in its order: `(key index, value index)` into the
/// wire entries (`keys[i]` the UTF-8 bytes of entry `i`; a repeated key appears once, with the
/// index of its last value). `first_block` is the item count of the map's first block.
pub(crate) fn flink_map_order(keys: &[&[u8]], first_block: usize) -> Vec<(usize, usize)> {
    let bytes = Bytes(keys);
    let mut avro = JavaHashMap::default();
    // `new HashMap<>((int) count)`: the count is bounded by the collection limits.
    avro.clear_with_capacity(first_block);
    for (i, key) in keys.iter().enumerate() {
        // Indexes fit u32: a map image holds fewer than 2^31 entries.
        avro.put(utf8_hash(key), i as u32, i as u32, &bytes);
    }
    let mut flink = JavaHashMap::default();
    flink.clear();
    avro.for_each(|key, value| {
        flink.put(binary_string_hash(keys[key as usize]), key, value, &bytes);
    });
    let mut order = Vec::with_capacity(keys.len());
    flink.for_each(|key, value| order.push((key as usize, value as usize)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected orders printed by flink-avro 2.2.0 (`GenericDatumReader` + `AvroToRowDataConverters`,
    /// keys then the wire index of each value), for maps written in blocks of `block` items.
    #[test]
    fn the_order_flink_avro_decodes() {
        let letters = "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r";
        let numbered = "k0,k1,k2,k3,k4,k5,k6,k7,k8,k9,k10,k11,k12,k13,k14,k15,k16,k17,k18,k19,k20";
        let cases: &[(usize, &str, &str)] = &[
            (2, "k9,k1", "k1=1 k9=0"),
            (1, letters, "j=9 m=12 n=13 d=3 h=7 l=11 k=10 b=1 r=17 a=0 i=8 q=16 e=4 f=5 c=2 o=14 g=6 p=15"),
            (18, letters, "j=9 m=12 n=13 d=3 h=7 l=11 k=10 b=1 r=17 a=0 i=8 q=16 e=4 f=5 c=2 o=14 g=6 p=15"),
            (3, "x,y,x", "x=2 y=1"),
            (4, "é,ü,日本,a", "ü=1 a=3 é=0 日本=2"),
            (1, numbered, "k6=6 k9=9 k19=19 k3=3 k14=14 k8=8 k0=0 k20=20 k10=10 k18=18 k1=1 k2=2 k15=15 k4=4 k5=5 k12=12 k16=16 k7=7 k11=11 k13=13 k17=17"),
            (21, numbered, "k6=6 k9=9 k19=19 k3=3 k14=14 k8=8 k0=0 k20=20 k10=10 k18=18 k1=1 k2=2 k15=15 k4=4 k5=5 k12=12 k16=16 k7=7 k11=11 k13=13 k17=17"),
            (2, "Aa,BB,AaAa,BBBB,AaBB,BBAa,abcde,😀", "AaAa=2 AaBB=4 BB=1 BBAa=5 Aa=0 abcde=6 BBBB=3 😀=7"),
        ];
        for (block, keys, expected) in cases {
            let keys: Vec<&[u8]> = keys.split(',').map(str::as_bytes).collect();
            let got: Vec<String> = flink_map_order(&keys, *block)
                .into_iter()
                .map(|(k, v)| format!("{}={v}", String::from_utf8_lossy(keys[k])))
                .collect();
            assert_eq!(got.join(" "), *expected, "block {block}");
        }
        // `StringData.fromString(s).hashCode()` as Flink prints it.
        assert_eq!(binary_string_hash(b"k9"), -1121506589);
        assert_eq!(binary_string_hash(b"a"), 1485273170);
        assert_eq!(binary_string_hash("é".as_bytes()), 2119106806);
        assert_eq!(binary_string_hash(b"Aa"), -1818961758);
    }
}
