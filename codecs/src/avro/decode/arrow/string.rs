//! CHAR / VARCHAR / STRING columns: Avro strings, bytes (promotion) or enum symbols.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::ArrayRef;
use serde_json::Value;

use super::{bad_default, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;

/// A string column. Invalid UTF-8 becomes U+FFFD, as Java's `new String(bytes, UTF_8)`
/// does when Flink converts Avro's `Utf8` to text.
#[derive(Default)]
pub(crate) struct StringDecoder {
    builder: StringBuilder,
}

impl Decoder for StringDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        match read {
            Read::String | Read::Bytes => {
                let bytes = cur.read_len_prefixed()?;
                match std::str::from_utf8(bytes) {
                    Ok(text) => self.builder.append_value(text),
                    Err(_) => self.builder.append_value(String::from_utf8_lossy(bytes)),
                }
                Ok(())
            }
            Read::Enum(map) => {
                let index = cur.read_int()?;
                let symbol = usize::try_from(index)
                    .ok()
                    .and_then(|i| map.symbols.get(i))
                    .ok_or_else(|| ReadError::new(format!("enum index {index} out of range")))?;
                match symbol {
                    Ok(text) => {
                        self.builder.append_value(text);
                        Ok(())
                    }
                    Err(message) => Err(ReadError::new(message.to_string())),
                }
            }
            other => Err(unexpected(other, "a string column")),
        }
    }

    fn append_null(&mut self) {
        self.builder.append_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let text = default
            .as_str()
            .ok_or_else(|| bad_default(default, "string"))?;
        self.builder.append_value(text);
        Ok(())
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        Ok(Arc::new(self.builder.finish()))
    }
}
