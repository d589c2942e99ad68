//! The input of every batch call: values (Kafka values, or row images) back to back, with
//! one `int32` length per value, `-1` for a null value (`docs/jni-contract.md`).

use crate::error::NativeError;

/// A batch of values, walked in order as it is decoded or encoded (no vector of slices per
/// value).
#[derive(Debug, Clone)]
pub struct ValueBatch<'a> {
    data: &'a [u8],
    lengths: std::slice::Iter<'a, i32>,
    at: usize,
}

impl<'a> ValueBatch<'a> {
    /// The values whose lengths are `lengths`, laid out back to back in `data`, which must
    /// hold exactly the bytes the non-negative lengths add up to.
    pub fn new(data: &'a [u8], lengths: &'a [i32]) -> Result<Self, NativeError> {
        let total = Self::data_len(lengths);
        if total != data.len() {
            return Err(NativeError::InvalidCall(format!(
                "the value lengths add up to {total} bytes, the data has {}",
                data.len()
            )));
        }
        Ok(ValueBatch {
            data,
            lengths: lengths.iter(),
            at: 0,
        })
    }

    /// The bytes the values whose lengths are `lengths` take (null values take none).
    pub fn data_len(lengths: &[i32]) -> usize {
        lengths
            .iter()
            .filter(|l| **l > 0)
            .map(|l| *l as usize)
            .sum()
    }
}

impl<'a> ValueBatch<'a> {
    /// The first `n` values still to walk (all of them when fewer remain).
    pub fn first(self, n: usize) -> ValueBatch<'a> {
        let lengths = self.lengths.as_slice();
        let lengths = &lengths[..n.min(lengths.len())];
        let end = self.at + Self::data_len(lengths);
        ValueBatch {
            // In bounds: `new` checked that the lengths add up to `data.len()`.
            data: self.data.get(..end).unwrap_or(self.data),
            lengths: lengths.iter(),
            at: self.at,
        }
    }
}

impl<'a> Iterator for ValueBatch<'a> {
    type Item = Option<&'a [u8]>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let length = *self.lengths.next()?;
        let Ok(length) = usize::try_from(length) else {
            return Some(None);
        };
        // In bounds: `new` checked that the non-negative lengths add up to `data.len()`.
        let value = &self.data[self.at..self.at + length];
        self.at += length;
        Some(Some(value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.lengths.size_hint()
    }
}

impl ExactSizeIterator for ValueBatch<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_walked_in_order_with_nulls() {
        let data = b"abcde";
        let lengths = [2, -1, 0, 3];
        let values: Vec<_> = ValueBatch::new(data, &lengths).unwrap().collect();
        assert_eq!(
            values,
            [Some(&b"ab"[..]), None, Some(&b""[..]), Some(&b"cde"[..])]
        );
        assert!(ValueBatch::new(b"abcd", &lengths).is_err());
        assert!(ValueBatch::new(b"abcdef", &lengths).is_err());
    }
}
