//! MAP<STRING, V> and MULTISET<STRING> columns from Avro maps.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, MapArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, FieldRef, Fields};
use serde_json::Value;

use super::list::check_block_count;
use super::{bad_default, decode_value, decoder_for, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;
use crate::types::FlinkType;

/// A map column; keys are Avro strings.
pub(crate) struct MapDecoder {
    entries_field: FieldRef,
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    keys: StringBuilder,
    values: Box<dyn Decoder>,
    len: usize,
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
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
            keys: StringBuilder::new(),
            values: decoder_for(value),
            len: 0,
        }
    }

    fn close_row(&mut self) -> ReadResult<()> {
        let end = i32::try_from(self.len)
            .map_err(|_| ReadError::new("map column exceeds 2^31 entries"))?;
        self.offsets.push(end);
        self.nulls.append_non_null();
        Ok(())
    }

    fn push_key(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.keys.append_value(text),
            Err(_) => self.keys.append_value(String::from_utf8_lossy(bytes)),
        }
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
                self.push_key(key);
                decode_value(self.values.as_mut(), value, cur)?;
            }
            self.len += count as usize;
        }
        self.close_row()
    }

    fn append_null(&mut self) {
        let end = i32::try_from(self.len).unwrap_or(i32::MAX);
        self.offsets.push(end);
        self.nulls.append_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let entries = default
            .as_object()
            .ok_or_else(|| bad_default(default, "map"))?;
        for (k, v) in entries {
            self.keys.append_value(k);
            if v.is_null() {
                self.values.append_null();
            } else {
                self.values.append_default(v)?;
            }
        }
        self.len += entries.len();
        self.close_row()
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let keys: ArrayRef = Arc::new(self.keys.finish());
        let values = self.values.finish()?;
        let DataType::Struct(fields) = self.entries_field.data_type() else {
            return Err(ReadError::new("map entries are not a struct"));
        };
        let fields: Fields = fields.clone();
        let entries = StructArray::try_new(fields, vec![keys, values], None)
            .map_err(|e| ReadError::new(format!("building map entries: {e}")))?;
        let offsets = OffsetBuffer::new(ScalarBuffer::from(std::mem::replace(
            &mut self.offsets,
            vec![0],
        )));
        self.len = 0;
        let map = MapArray::try_new(
            self.entries_field.clone(),
            offsets,
            entries,
            self.nulls.finish(),
            false,
        )
        .map_err(|e| ReadError::new(format!("building a map column: {e}")))?;
        debug_assert_eq!(map.len() + 1, map.offsets().len());
        Ok(Arc::new(map))
    }
}
