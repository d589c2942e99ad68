//! Java's semantics that Flink's formats inherit from the JVM, decided here once for every
//! format (and for the operator core's casts):
//! - [`numbers`]: `Long.parseLong` and friends, `Double.parseDouble` / `Float.parseFloat`,
//!   `new BigDecimal(String)` with Flink's rescaling, and the texts of `Double.toString`,
//!   `Float.toString` and `BigDecimal.toString` / `toPlainString`;
//! - [`temporal`]: the `java.time` date and time grammars Flink parses and prints with;
//! - [`base64`]: Jackson's base64, as flink-json reads and writes BINARY values;
//! - [`utf8`]: the text Java makes of (possibly malformed) UTF-8 bytes;
//! - [`big_integer`]: `BigInteger`'s two's-complement byte arrays (decimal unscaled values);
//! - [`hash_map`]: the iteration order of a `java.util.HashMap` (map entries are written
//!   in it).

pub(crate) mod base64;
pub mod big_integer;
pub(crate) mod hash_map;
pub(crate) mod numbers;
pub(crate) mod temporal;
pub(crate) mod utf8;
