//! BINARY / VARBINARY / BYTES columns: Avro bytes, strings (promotion) or fixed.

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray};
use serde_json::Value;

use super::column::BytesColumn;
use super::{bad_default, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;

/// A binary column.
#[derive(Default)]
pub(crate) struct BinaryDecoder {
    column: BytesColumn,
}

impl Decoder for BinaryDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let bytes = match read {
            Read::Bytes | Read::String => cur.read_len_prefixed()?,
            Read::Fixed(n) => cur.fixed(*n, "a fixed")?,
            other => return Err(unexpected(other, "a binary column")),
        };
        self.column.push(bytes)
    }

    fn append_null(&mut self) {
        self.column.push_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        // Avro JSON defaults for bytes are strings whose code points 0-255 are the bytes.
        let text = default
            .as_str()
            .ok_or_else(|| bad_default(default, "bytes"))?;
        let bytes = text
            .chars()
            .map(|c| u8::try_from(c as u32).map_err(|_| bad_default(default, "bytes")))
            .collect::<Result<Vec<u8>, _>>()?;
        self.column.push(&bytes)
    }

    fn len(&self) -> usize {
        self.column.len()
    }

    fn truncate(&mut self, len: usize) {
        self.column.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let (offsets, data, nulls) = self.column.finish();
        let array = BinaryArray::try_new(offsets, data, nulls)
            .map_err(|e| ReadError::new(format!("building a bytes column: {e}")))?;
        Ok(Arc::new(array))
    }
}
