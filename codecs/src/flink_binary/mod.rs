//! Flink's binary row format (`BinaryRowData`, `BinaryArrayData`, `BinaryMapData`):
//! what Flink's runtime stores and serializes rows as, so handing Flink rows in this
//! format means no Java object per field.
//!
//! Layouts (little-endian, as Flink's `MemorySegment` uses native order on x86-64):
//! - row: a null-bit header of `((arity + 63 + 8) / 64) * 8` bytes whose first byte is
//!   the RowKind and whose bit `i + 8` marks field `i` NULL; then one 8-byte slot per
//!   field; then the variable part, every piece padded to 8 bytes.
//! - fixed-width values sit in their slot; strings and binaries of at most 7 bytes sit
//!   in the slot too, with `0x80 | len` in its last byte; longer ones, nested rows,
//!   arrays, maps, non-compact decimals (p > 18, 16 bytes reserved) and timestamps
//!   (p > 3) go to the variable part and the slot holds `offset << 32 | size` (offset
//!   from the row start; for a non-compact timestamp the low word is the
//!   nano-of-millisecond instead and the variable part holds the epoch millis).
//! - array: 4-byte element count, null bits in 4-byte words, elements of 1/2/4/8 bytes
//!   by type (8 for variable-length ones), padded to 8, then the variable part.
//! - map: 4-byte size of the key array, the key array, then the value array.
//!
//! Every image is position-independent (offsets are relative to its own start), so a
//! nested image can be copied as bytes.
//!
//! karrow extends the format in one place: an image the Java side marks as keeping what a
//! Java row holds beyond Flink's layout (sub-millisecond nanos of compact timestamps, lone
//! surrogates), described in `java_detail.rs`.

pub(crate) mod elements;
mod from_arrow;
pub(crate) mod java_detail;
pub(crate) mod layout;
#[cfg(test)]
pub(crate) mod render;
pub(crate) mod slots;
#[cfg(test)]
pub(crate) mod test_images;
mod to_arrow;

pub use from_arrow::{write_batch_rows, RowImages};
pub use to_arrow::read_batch_rows;
