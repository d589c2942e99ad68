//! DECIMAL(p, s) columns: Avro bytes or fixed holding a big-endian two's-complement
//! unscaled value, read with the table's scale; more than `p` digits gives NULL (Flink's
//! `DecimalData.fromUnscaledBytes`), zero bytes is an error.

use std::sync::Arc;

use arrow_array::{ArrayRef, Decimal128Array};
use serde_json::Value;

use super::column::FixedColumn;
use super::{bad_default, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;
use crate::java::big_integer::from_byte_array;

/// A decimal column.
pub(crate) struct DecimalDecoder {
    column: FixedColumn<i128>,
    precision: u8,
    scale: i8,
    /// `10^precision`: an unscaled value must be strictly smaller in magnitude.
    bound: i128,
}

impl DecimalDecoder {
    /// A decoder for DECIMAL(precision, scale).
    pub(crate) fn new(precision: u8, scale: i8) -> Self {
        DecimalDecoder {
            column: FixedColumn::default(),
            precision,
            scale,
            bound: 10i128.pow(precision as u32),
        }
    }

    fn append_unscaled(&mut self, bytes: &[u8]) -> ReadResult<()> {
        match from_byte_array(bytes).map_err(ReadError::new)? {
            Some(v) if v.unsigned_abs() < self.bound.unsigned_abs() => self.column.push(v),
            _ => self.column.push_null(),
        }
        Ok(())
    }
}

impl Decoder for DecimalDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let bytes = match read {
            Read::Bytes => cur.read_len_prefixed()?,
            Read::Fixed(n) => cur.fixed(*n, "a fixed decimal")?,
            other => return Err(unexpected(other, "a decimal column")),
        };
        self.append_unscaled(bytes)
    }

    fn append_null(&mut self) {
        self.column.push_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let text = default
            .as_str()
            .ok_or_else(|| bad_default(default, "decimal"))?;
        let bytes: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
        self.append_unscaled(&bytes)
    }

    fn len(&self) -> usize {
        self.column.len()
    }

    fn truncate(&mut self, len: usize) {
        self.column.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let (values, nulls) = self.column.finish();
        let array = Decimal128Array::try_new(values, nulls)
            .and_then(|a| a.with_precision_and_scale(self.precision, self.scale))
            .map_err(|e| ReadError::new(format!("building a decimal column: {e}")))?;
        Ok(Arc::new(array))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_is_null() {
        let mut d = DecimalDecoder::new(3, 1);
        d.append_unscaled(&[0x03, 0xe7]).unwrap(); // 999 fits DECIMAL(3,1) as 99.9
        d.append_unscaled(&[0x03, 0xe8]).unwrap(); // 1000 does not
        d.append_unscaled(&[0xfc, 0x19]).unwrap(); // -999
        let a = d.finish().unwrap();
        assert_eq!(a.null_count(), 1);
        assert!(a.is_null(1));
    }
}
