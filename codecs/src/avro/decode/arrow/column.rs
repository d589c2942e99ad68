//! The growing buffers of the leaf decoders. Unlike Arrow's array builders they can be
//! truncated, so that a value that fails half-way leaves every column exactly as it was
//! before the value ([`super::Decoder::truncate`]).

use arrow_buffer::{
    ArrowNativeType, BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, NullBufferBuilder,
    OffsetBuffer, ScalarBuffer,
};

use crate::avro::decode::cursor::{ReadError, ReadResult};

/// Fixed-width values and their validity.
pub(crate) struct FixedColumn<T: ArrowNativeType> {
    values: Vec<T>,
    nulls: NullBufferBuilder,
}

impl<T: ArrowNativeType> Default for FixedColumn<T> {
    fn default() -> Self {
        FixedColumn {
            values: Vec::new(),
            nulls: NullBufferBuilder::new(0),
        }
    }
}

impl<T: ArrowNativeType> FixedColumn<T> {
    /// Appends a valid value.
    pub(crate) fn push(&mut self, v: T) {
        self.values.push(v);
        self.nulls.append_non_null();
    }

    /// Appends NULL (the slot holds zero).
    pub(crate) fn push_null(&mut self) {
        self.values.push(T::default());
        self.nulls.append_null();
    }

    /// The number of values appended.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Drops the values after the first `len`.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.nulls.truncate(len);
    }

    /// The values and validity appended so far; the column starts empty again.
    pub(crate) fn finish(&mut self) -> (ScalarBuffer<T>, Option<NullBuffer>) {
        let values = ScalarBuffer::from(std::mem::take(&mut self.values));
        (values, self.nulls.finish())
    }
}

/// Booleans and their validity.
pub(crate) struct BooleanColumn {
    values: BooleanBufferBuilder,
    nulls: NullBufferBuilder,
}

impl Default for BooleanColumn {
    fn default() -> Self {
        BooleanColumn {
            values: BooleanBufferBuilder::new(0),
            nulls: NullBufferBuilder::new(0),
        }
    }
}

impl BooleanColumn {
    /// Appends a valid value.
    pub(crate) fn push(&mut self, v: bool) {
        self.values.append(v);
        self.nulls.append_non_null();
    }

    /// Appends NULL.
    pub(crate) fn push_null(&mut self) {
        self.values.append(false);
        self.nulls.append_null();
    }

    /// The number of values appended.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Drops the values after the first `len`.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.nulls.truncate(len);
    }

    /// The values and validity appended so far; the column starts empty again.
    pub(crate) fn finish(&mut self) -> (BooleanBuffer, Option<NullBuffer>) {
        (self.values.finish(), self.nulls.finish())
    }
}

/// Variable-length values (Arrow's 32-bit offsets layout) and their validity.
pub(crate) struct BytesColumn {
    offsets: Vec<i32>,
    data: Vec<u8>,
    nulls: NullBufferBuilder,
}

impl Default for BytesColumn {
    fn default() -> Self {
        BytesColumn {
            offsets: vec![0],
            data: Vec::new(),
            nulls: NullBufferBuilder::new(0),
        }
    }
}

impl BytesColumn {
    fn close(&mut self) -> ReadResult<()> {
        let end = i32::try_from(self.data.len())
            .map_err(|_| ReadError::new("a string or bytes column exceeds 2 GiB"))?;
        self.offsets.push(end);
        Ok(())
    }

    /// Appends a valid value; a column past 2 GiB is an error (and keeps its length).
    pub(crate) fn push(&mut self, bytes: &[u8]) -> ReadResult<()> {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        if let Err(e) = self.close() {
            self.data.truncate(start);
            return Err(e);
        }
        self.nulls.append_non_null();
        Ok(())
    }

    /// Appends NULL (an empty slot).
    pub(crate) fn push_null(&mut self) {
        // The data did not grow, so the last offset is still in range.
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(end);
        self.nulls.append_null();
    }

    /// The number of values appended.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Drops the values after the first `len`.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        self.offsets.truncate(len + 1);
        let end = self.offsets.last().copied().unwrap_or(0);
        self.data.truncate(usize::try_from(end).unwrap_or(0));
        self.nulls.truncate(len);
    }

    /// The offsets, bytes and validity appended so far; the column starts empty again.
    pub(crate) fn finish(&mut self) -> (OffsetBuffer<i32>, Buffer, Option<NullBuffer>) {
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        // The offsets start at 0 and never decrease: `push` and `push_null` only append
        // the current data length.
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        let data = Buffer::from_vec(std::mem::take(&mut self.data));
        (offsets, data, self.nulls.finish())
    }
}

/// The offsets and validity of a list or map column, whose items live in a child decoder.
pub(crate) struct OffsetsColumn {
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
}

impl Default for OffsetsColumn {
    fn default() -> Self {
        OffsetsColumn {
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
        }
    }
}

impl OffsetsColumn {
    /// Closes a row whose items end at `end` (the child's length).
    pub(crate) fn push(&mut self, end: usize, valid: bool, what: &str) -> ReadResult<()> {
        let end = i32::try_from(end)
            .map_err(|_| ReadError::new(format!("{what} column exceeds 2^31 items")))?;
        self.offsets.push(end);
        self.nulls.append(valid);
        Ok(())
    }

    /// Appends NULL (no items).
    pub(crate) fn push_null(&mut self) {
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(end);
        self.nulls.append_null();
    }

    /// The number of rows closed.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Where the items of the closed rows end.
    pub(crate) fn item_end(&self) -> usize {
        self.offsets
            .last()
            .and_then(|&end| usize::try_from(end).ok())
            .unwrap_or(0)
    }

    /// Drops the rows after the first `len`.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.offsets.truncate(len + 1);
            self.nulls.truncate(len);
        }
    }

    /// The offsets and validity so far; the column starts empty again.
    pub(crate) fn finish(&mut self) -> (OffsetBuffer<i32>, Option<NullBuffer>) {
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        // Non-decreasing from 0: every row ends where its child's items end.
        (
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            self.nulls.finish(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_truncate_restores_offsets_data_and_validity() {
        let mut c = BytesColumn::default();
        c.push(b"ab").unwrap();
        c.push_null();
        c.push(b"cde").unwrap();
        c.truncate(1);
        c.push(b"x").unwrap();
        let (offsets, data, nulls) = c.finish();
        assert_eq!(offsets.as_ref(), &[0, 2, 3]);
        assert_eq!(data.as_slice(), b"abx");
        assert_eq!(nulls.map(|n| n.null_count()).unwrap_or(0), 0);
        assert_eq!(c.len(), 0);
    }

    #[test]
    fn fixed_truncate_drops_nulls_too() {
        let mut c = FixedColumn::<i32>::default();
        c.push(1);
        c.push_null();
        c.truncate(1);
        c.push(3);
        let (values, nulls) = c.finish();
        assert_eq!(values.as_ref(), &[1, 3]);
        assert_eq!(nulls.map(|n| n.null_count()).unwrap_or(0), 0);
    }
}
