//! ARRAY<T> columns from Avro arrays (any number of blocks).

use std::sync::Arc;

use arrow_array::{ArrayRef, ListArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::FieldRef;
use serde_json::Value;

use super::{bad_default, decode_value, decoder_for, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::{Read, ValueRead};
use crate::types::FlinkType;

/// Checks the next block of a collection of `item`s (see [`crate::avro::decode::limits`]): `count`
/// items after `so_far` of earlier blocks; returns the new total.
pub(crate) fn check_block_count(
    count: u64,
    so_far: u64,
    item: &ValueRead,
    cur: &mut Cursor<'_>,
) -> ReadResult<u64> {
    crate::avro::decode::limits::check_block(count, so_far, item.is_zero_width(), cur)
}

/// An array column.
pub(crate) struct ListDecoder {
    field: FieldRef,
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    items: Box<dyn Decoder>,
    len: usize,
}

impl ListDecoder {
    /// A decoder for ARRAY<element>.
    pub(crate) fn new(element: &FlinkType) -> Self {
        ListDecoder {
            field: Arc::new(element.arrow_field("element")),
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
            items: decoder_for(element),
            len: 0,
        }
    }

    fn close_row(&mut self, valid: bool) -> ReadResult<()> {
        let end = i32::try_from(self.len)
            .map_err(|_| ReadError::new("array column exceeds 2^31 items"))?;
        self.offsets.push(end);
        if valid {
            self.nulls.append_non_null();
        } else {
            self.nulls.append_null();
        }
        Ok(())
    }
}

impl Decoder for ListDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let Read::Array(item) = read else {
            return Err(unexpected(read, "an array column"));
        };
        let mut total = 0;
        loop {
            let count = cur.read_block_count()?;
            if count == 0 {
                break;
            }
            total = check_block_count(count, total, item, cur)?;
            for _ in 0..count {
                decode_value(self.items.as_mut(), item, cur)?;
            }
            self.len += count as usize;
        }
        self.close_row(true)
    }

    fn append_null(&mut self) {
        // Offsets fit: `close_row` only fails past 2^31 items, which decode rejects first.
        let end = i32::try_from(self.len).unwrap_or(i32::MAX);
        self.offsets.push(end);
        self.nulls.append_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let items = default
            .as_array()
            .ok_or_else(|| bad_default(default, "array"))?;
        for item in items {
            if item.is_null() {
                self.items.append_null();
            } else {
                self.items.append_default(item)?;
            }
        }
        self.len += items.len();
        self.close_row(true)
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let values = self.items.finish()?;
        let offsets = OffsetBuffer::new(ScalarBuffer::from(std::mem::replace(
            &mut self.offsets,
            vec![0],
        )));
        self.len = 0;
        let array = ListArray::try_new(self.field.clone(), offsets, values, self.nulls.finish())
            .map_err(|e| ReadError::new(format!("building an array column: {e}")))?;
        Ok(Arc::new(array))
    }
}
