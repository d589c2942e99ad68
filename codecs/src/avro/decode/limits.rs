//! What the item counts of one Avro value may claim (`docs/parity/avro.md`, "Limits").
//!
//! An array or map block states its item count before its items. Items that take at least
//! one byte cannot outnumber the bytes left, so their cost is bounded by the message. Items
//! that take none (`null`, a record without fields, `fixed(0)`, a record whose fields the
//! reader skips or fills from defaults) are bounded by nothing on the wire: a 70-byte message
//! can claim 2^28 of them. Java Avro checks each collection against
//! `org.apache.avro.limits.collectionItems.maxLength` (2^31 - 9 items by default, the JVM's
//! largest array) and then allocates per item, so Flink runs out of heap long before that
//! limit; karrow applies Java's limit with Java's message, and its own documented limit on
//! the zero-width items of one value.

use super::cursor::{Cursor, ReadError, ReadResult};

/// Java Avro's `SystemLimitException.MAX_ARRAY_VM_LIMIT`: the most items one array or map
/// may have in total (Flink sets no `org.apache.avro.limits.*` property, so this default
/// applies).
pub const MAX_COLLECTION_ITEMS: u64 = 2_147_483_639;

/// The most items that take no bytes on the wire one value may contain, over all its arrays
/// and maps together (karrow's limit; Java Avro allocates per item without a bound).
pub const MAX_ZERO_WIDTH_ITEMS: u64 = 1 << 20;

/// Checks the next block of a collection being read: `count` items after `so_far` items of
/// earlier blocks, each taking no bytes when `zero_width`. Returns the new total.
pub(crate) fn check_block(
    count: u64,
    so_far: u64,
    zero_width: bool,
    cur: &mut Cursor<'_>,
) -> ReadResult<u64> {
    let total = so_far.saturating_add(count);
    if total > MAX_COLLECTION_ITEMS {
        // Java's text (an UnsupportedOperationException from SystemLimitException).
        return Err(ReadError::new(format!(
            "Cannot read collections larger than {MAX_COLLECTION_ITEMS} items in Java library"
        )));
    }
    if zero_width {
        cur.take_zero_width_items(count)?;
    } else if count > cur.remaining() as u64 {
        return Err(ReadError::new(format!(
            "block of {count} items cannot fit in the {} bytes left (truncated or corrupt message)",
            cur.remaining()
        )));
    }
    Ok(total)
}

/// The error of a value past [`MAX_ZERO_WIDTH_ITEMS`].
#[cold]
pub(crate) fn too_many_zero_width_items() -> ReadError {
    ReadError::new(format!(
        "the value has more than {MAX_ZERO_WIDTH_ITEMS} array or map items that take no bytes \
         (null, empty records, fixed(0)): karrow's limit per value"
    ))
}
