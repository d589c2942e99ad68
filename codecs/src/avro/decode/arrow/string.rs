//! CHAR / VARCHAR / STRING columns: Avro strings, bytes (promotion) or enum symbols.

use std::sync::Arc;

use arrow_array::{ArrayRef, StringArray};
use serde_json::Value;

use super::column::BytesColumn;
use super::{bad_default, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;

/// A string column. Invalid UTF-8 becomes U+FFFD, as Java's `new String(bytes, UTF_8)`
/// does when Flink converts Avro's `Utf8` to text.
#[derive(Default)]
pub(crate) struct StringDecoder {
    /// Only ever given valid UTF-8 (`push_text`).
    column: BytesColumn,
}

impl StringDecoder {
    /// Appends `bytes` as text, invalid UTF-8 replaced by U+FFFD.
    pub(crate) fn push_lossy(&mut self, bytes: &[u8]) -> ReadResult<()> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.push_text(text),
            Err(_) => self.push_text(&String::from_utf8_lossy(bytes)),
        }
    }

    fn push_text(&mut self, text: &str) -> ReadResult<()> {
        self.column.push(text.as_bytes())
    }

    /// Builds the string array appended so far (without the null buffer of an outer
    /// column: entries of a map key column are never null).
    pub(crate) fn finish_strings(&mut self) -> StringArray {
        let (offsets, data, nulls) = self.column.finish();
        // SAFETY: every value was appended by `push_text` from a `&str`, so the data is
        // valid UTF-8 and each offset (the data length after a whole value) falls on a
        // character boundary; `BytesColumn` keeps the offsets non-decreasing from 0 and
        // within the data, and the null buffer as long as the offsets minus one.
        unsafe { StringArray::new_unchecked(offsets, data, nulls) }
    }
}

impl Decoder for StringDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        match read {
            Read::String | Read::Bytes => {
                let bytes = cur.read_len_prefixed()?;
                self.push_lossy(bytes)
            }
            Read::Enum(map) => {
                let index = cur.read_int()?;
                let symbol = usize::try_from(index)
                    .ok()
                    .and_then(|i| map.symbols.get(i))
                    .ok_or_else(|| ReadError::new(format!("enum index {index} out of range")))?;
                match symbol {
                    Ok(text) => self.push_text(text),
                    Err(message) => Err(ReadError::new(message.to_string())),
                }
            }
            other => Err(unexpected(other, "a string column")),
        }
    }

    fn append_null(&mut self) {
        self.column.push_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let text = default
            .as_str()
            .ok_or_else(|| bad_default(default, "string"))?;
        self.push_text(text)
    }

    fn len(&self) -> usize {
        self.column.len()
    }

    fn truncate(&mut self, len: usize) {
        self.column.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        Ok(Arc::new(self.finish_strings()))
    }
}
