//! MAP<STRING, V> and MULTISET<STRING> columns from Avro maps.

use std::sync::Arc;

use arrow_array::{make_array, Array, ArrayRef, MapArray, StringArray, StructArray};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_data::transform::MutableArrayData;
use arrow_schema::{DataType, FieldRef, Fields};
use serde_json::Value;

use super::column::OffsetsColumn;
use super::list::check_block_count;
use super::string::StringDecoder;
use super::{bad_default, decode_value, decoder_for, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::map_order::flink_map_order;
use crate::avro::decode::resolve::Read;
use crate::types::FlinkType;

/// A map column; keys are Avro strings.
pub(crate) struct MapDecoder {
    entries_field: FieldRef,
    rows: OffsetsColumn,
    keys: StringDecoder,
    values: Box<dyn Decoder>,
    /// Per row, the item count of its first block (the capacity of Avro's `HashMap`).
    first_blocks: Vec<usize>,
}

impl MapDecoder {
    /// A decoder for MAP<key, value>; a MULTISET passes INT as the value type.
    pub(crate) fn new(key: &FlinkType, value: &FlinkType) -> Self {
        let map_type = FlinkType {
            nullable: true,
            kind: crate::types::FlinkKind::Map(Box::new(key.clone()), Box::new(value.clone())),
        }
        .arrow_type();
        let DataType::Map(entries_field, _) = map_type else {
            unreachable!("a Flink MAP always maps to an Arrow Map")
        };
        MapDecoder {
            entries_field,
            rows: OffsetsColumn::default(),
            keys: StringDecoder::default(),
            values: decoder_for(value),
            first_blocks: Vec::new(),
        }
    }

    fn close_row(&mut self, first_block: usize) -> ReadResult<()> {
        self.rows.push(self.keys.len(), true, "a map")?;
        self.first_blocks.push(first_block);
        Ok(())
    }
}

impl Decoder for MapDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let Read::Map(value) = read else {
            return Err(unexpected(read, "a map column"));
        };
        let mut total = 0;
        let mut first_block = None;
        loop {
            let count = cur.read_block_count()?;
            first_block.get_or_insert(count);
            if count == 0 {
                break;
            }
            // Every entry has at least a one-byte key length.
            total = check_block_count(
                count,
                total,
                &super::super::resolve::ValueRead::Direct(Read::Boolean),
                cur,
            )?;
            for _ in 0..count {
                let key = cur.read_len_prefixed()?;
                self.keys.push_lossy(key)?;
                decode_value(self.values.as_mut(), value, cur)?;
            }
        }
        let first_block = usize::try_from(first_block.unwrap_or(0))
            .map_err(|_| ReadError::new("map too large"))?;
        self.close_row(first_block)
    }

    fn append_null(&mut self) {
        self.rows.push_null();
        self.first_blocks.push(0);
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let entries = default
            .as_object()
            .ok_or_else(|| bad_default(default, "map"))?;
        for (k, v) in entries {
            self.keys.push_lossy(k.as_bytes())?;
            if v.is_null() {
                self.values.append_null();
            } else {
                self.values.append_default(v)?;
            }
        }
        // Avro copies a default map into a `HashMap` of its size.
        self.close_row(entries.len())
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn truncate(&mut self, len: usize) {
        self.rows.truncate(len);
        self.first_blocks.truncate(len);
        // Also the entries of a row that failed before it was closed, whose key may be
        // in without its value.
        let entries = self.rows.item_end();
        self.keys.truncate(entries);
        self.values.truncate(entries);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let keys = self.keys.finish_strings();
        // Every part is reset before an error is returned.
        let values = self.values.finish();
        let (offsets, nulls) = self.rows.finish();
        let first_blocks = std::mem::take(&mut self.first_blocks);
        let values = values?;
        let (offsets, keys, values) = in_flink_order(&offsets, &keys, &values, &first_blocks)?;
        let DataType::Struct(fields) = self.entries_field.data_type() else {
            return Err(ReadError::new("map entries are not a struct"));
        };
        let fields: Fields = fields.clone();
        let entries = StructArray::try_new(fields, vec![keys, values], None)
            .map_err(|e| ReadError::new(format!("building map entries: {e}")))?;
        let map = MapArray::try_new(self.entries_field.clone(), offsets, entries, nulls, false)
            .map_err(|e| ReadError::new(format!("building a map column: {e}")))?;
        debug_assert_eq!(map.len() + 1, map.offsets().len());
        Ok(Arc::new(map))
    }
}

/// The entries of every row put in the order (and with the dedup of repeated keys) of
/// Flink's decoded map (`map_order`), as the binary-row decoder writes them.
fn in_flink_order(
    offsets: &OffsetBuffer<i32>,
    keys: &StringArray,
    values: &ArrayRef,
    first_blocks: &[usize],
) -> Result<(OffsetBuffer<i32>, ArrayRef, ArrayRef), ReadError> {
    let key_data = keys.to_data();
    let value_data = values.to_data();
    let mut new_keys = MutableArrayData::new(vec![&key_data], false, keys.len());
    let mut new_values = MutableArrayData::new(vec![&value_data], false, values.len());
    let mut new_offsets = Vec::with_capacity(offsets.len());
    new_offsets.push(0i32);
    let mut total = 0usize;
    for (row, bounds) in offsets.windows(2).enumerate() {
        let (start, end) = (bounds[0] as usize, bounds[1] as usize);
        let texts: Vec<&[u8]> = (start..end).map(|i| keys.value(i).as_bytes()).collect();
        let first_block = first_blocks.get(row).copied().unwrap_or(end - start);
        let overflow =
            |e: arrow_schema::ArrowError| ReadError::new(format!("building a map column: {e}"));
        for (k, v) in flink_map_order(&texts, first_block) {
            new_keys
                .try_extend(0, start + k, start + k + 1)
                .map_err(overflow)?;
            new_values
                .try_extend(0, start + v, start + v + 1)
                .map_err(overflow)?;
            total += 1;
        }
        new_offsets
            .push(i32::try_from(total).map_err(|_| ReadError::new("map entries exceed 2^31"))?);
    }
    let keys: ArrayRef = Arc::new(StringArray::from(new_keys.freeze()));
    let values = make_array(new_values.freeze());
    Ok((
        OffsetBuffer::new(ScalarBuffer::from(new_offsets)),
        keys,
        values,
    ))
}
