//! Read access to the slots of a Flink binary row or array image (layouts in [`super`]).

use super::layout::{array_header_bytes, row_null_bytes};
use crate::error::CodecError;

pub(crate) fn bad(what: impl Into<String>) -> CodecError {
    CodecError::Rows(format!("malformed binary row: {}", what.into()))
}

/// A view of the slots of one binary row or array inside a buffer.
#[derive(Clone, Copy)]
pub(crate) struct Slots<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) base: usize,
    /// Where the null bits start, and the bit index of element 0.
    pub(crate) null_base: usize,
    pub(crate) null_shift: usize,
    /// Where element 0 starts and the size of one slot (rows: always 8).
    pub(crate) first: usize,
    pub(crate) arity: usize,
}

impl<'a> Slots<'a> {
    pub(crate) fn row(buf: &'a [u8], base: usize, arity: usize) -> Result<Self, CodecError> {
        let null_bytes = row_null_bytes(arity);
        if base + null_bytes + 8 * arity > buf.len() {
            return Err(bad(format!(
                "a row of {arity} fields needs more than {} bytes",
                buf.len() - base
            )));
        }
        Ok(Slots {
            buf,
            base,
            null_base: base,
            null_shift: 8,
            first: base + null_bytes,
            arity,
        })
    }

    pub(crate) fn array(
        buf: &'a [u8],
        base: usize,
        element_size: usize,
    ) -> Result<Self, CodecError> {
        let count = read_i32(buf, base)?;
        let count =
            usize::try_from(count).map_err(|_| bad(format!("negative array length {count}")))?;
        let header = array_header_bytes(count);
        if base + header + element_size * count > buf.len() {
            return Err(bad(format!(
                "an array of {count} elements overruns its buffer"
            )));
        }
        Ok(Slots {
            buf,
            base,
            null_base: base + 4,
            null_shift: 0,
            first: base + header,
            arity: count,
        })
    }

    pub(crate) fn is_null(&self, i: usize) -> bool {
        let bit = i + self.null_shift;
        self.buf[self.null_base + (bit >> 3)] & (1 << (bit & 7)) != 0
    }

    pub(crate) fn fixed<const N: usize>(&self, i: usize, size: usize) -> [u8; N] {
        let at = self.first + i * size;
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf[at..at + N]);
        out
    }

    /// The bytes of a variable-length value (inline for at most 7 bytes).
    #[inline(always)]
    pub(crate) fn var(&self, i: usize, size: usize) -> Result<&'a [u8], CodecError> {
        let at = self.first + i * size;
        let word = u64::from_le_bytes(self.fixed::<8>(i, size));
        if word & (1 << 63) != 0 {
            let len = ((word >> 56) & 0x7f) as usize;
            if len > 7 {
                return Err(bad(format!("inline length {len} > 7")));
            }
            return Ok(&self.buf[at..at + len]);
        }
        let (offset, len) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
        self.buf
            .get(self.base + offset..self.base + offset + len)
            .ok_or_else(|| bad(format!("variable part [{offset}, +{len}) outside the row")))
    }

    /// Offset (from the buffer start) and low word of a variable-part reference.
    pub(crate) fn reference(&self, i: usize, size: usize) -> (usize, u32) {
        let word = u64::from_le_bytes(self.fixed::<8>(i, size));
        (
            self.base + (word >> 32) as usize,
            (word & 0xffff_ffff) as u32,
        )
    }
}

pub(crate) fn read_i32(buf: &[u8], at: usize) -> Result<i32, CodecError> {
    buf.get(at..at + 4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| bad("truncated length word"))
}
