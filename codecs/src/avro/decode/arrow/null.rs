//! Columns of Flink's NULL type.

use std::sync::Arc;

use arrow_array::{ArrayRef, NullArray};
use serde_json::Value;

use super::{unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;

/// A column that is always NULL.
#[derive(Default)]
pub(crate) struct NullDecoder {
    len: usize,
}

impl Decoder for NullDecoder {
    fn decode(&mut self, read: &Read, _cur: &mut Cursor<'_>) -> ReadResult<()> {
        Err(unexpected(read, "a NULL column"))
    }

    fn append_null(&mut self) {
        self.len += 1;
    }

    fn append_default(&mut self, _default: &Value) -> ReadResult<()> {
        self.len += 1;
        Ok(())
    }

    fn len(&self) -> usize {
        self.len
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let len = std::mem::take(&mut self.len);
        Ok(Arc::new(NullArray::new(len)))
    }
}
