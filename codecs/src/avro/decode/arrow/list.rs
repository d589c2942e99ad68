//! ARRAY<T> columns from Avro arrays (any number of blocks).

use std::sync::Arc;

use arrow_array::{ArrayRef, ListArray};
use arrow_schema::FieldRef;
use serde_json::Value;

use super::column::OffsetsColumn;
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
    rows: OffsetsColumn,
    items: Box<dyn Decoder>,
}

impl ListDecoder {
    /// A decoder for ARRAY<element>.
    pub(crate) fn new(element: &FlinkType) -> Self {
        ListDecoder {
            field: Arc::new(element.arrow_field("element")),
            rows: OffsetsColumn::default(),
            items: decoder_for(element),
        }
    }

    fn close_row(&mut self) -> ReadResult<()> {
        self.rows.push(self.items.len(), true, "an array")
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
        }
        self.close_row()
    }

    fn append_null(&mut self) {
        self.rows.push_null();
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
        self.close_row()
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn truncate(&mut self, len: usize) {
        self.rows.truncate(len);
        // Also the items of a row that failed before it was closed.
        self.items.truncate(self.rows.item_end());
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        // Items of an unclosed row cannot be here: a failed value is truncated away.
        // Both parts are reset before either error is returned.
        let values = self.items.finish();
        let (offsets, nulls) = self.rows.finish();
        let values = values?;
        let array = ListArray::try_new(self.field.clone(), offsets, values, nulls)
            .map_err(|e| ReadError::new(format!("building an array column: {e}")))?;
        Ok(Arc::new(array))
    }
}
