//! MAP<STRING, V> and MULTISET<STRING> columns from Avro maps.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, MapArray, StructArray};
use arrow_schema::{DataType, FieldRef, Fields};
use serde_json::Value;

use super::column::OffsetsColumn;
use super::list::check_block_count;
use super::string::StringDecoder;
use super::{bad_default, decode_value, decoder_for, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;
use crate::types::FlinkType;

/// A map column; keys are Avro strings.
pub(crate) struct MapDecoder {
    entries_field: FieldRef,
    rows: OffsetsColumn,
    keys: StringDecoder,
    values: Box<dyn Decoder>,
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
        }
    }

    fn close_row(&mut self) -> ReadResult<()> {
        self.rows.push(self.keys.len(), true, "a map")
    }
}

impl Decoder for MapDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let Read::Map(value) = read else {
            return Err(unexpected(read, "a map column"));
        };
        let mut total = 0;
        loop {
            let count = cur.read_block_count()?;
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
        self.close_row()
    }

    fn append_null(&mut self) {
        self.rows.push_null();
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
        self.close_row()
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn truncate(&mut self, len: usize) {
        self.rows.truncate(len);
        // Also the entries of a row that failed before it was closed, whose key may be
        // in without its value.
        let entries = self.rows.item_end();
        self.keys.truncate(entries);
        self.values.truncate(entries);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let keys: ArrayRef = Arc::new(self.keys.finish_strings());
        // Every part is reset before an error is returned.
        let values = self.values.finish();
        let (offsets, nulls) = self.rows.finish();
        let values = values?;
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
