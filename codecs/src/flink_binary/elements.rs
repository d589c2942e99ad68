//! Element images of one array (or one side of a map) collected before the array is laid
//! out: decoders learn the element count only at the end of the input array. Each element
//! is an 8-byte slot in a scratch buffer plus its variable part (images are relocatable).

use super::layout::{
    array_header_bytes, element_size, is_fixed_length, pad_from, put, round8, set_bit,
};
use crate::error::CodecError;
use crate::types::{FlinkKind, FlinkType};

/// The elements of one array being decoded; reusable after [`ElementImages::clear`].
#[derive(Default)]
pub(crate) struct ElementImages {
    scratch: Vec<u8>,
    /// Per element, the offset of its slot in `scratch`, or `None` for NULL.
    slots: Vec<Option<usize>>,
}

impl ElementImages {
    /// Forgets every element, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        self.scratch.clear();
        self.slots.clear();
    }

    /// How many elements were pushed.
    pub(crate) fn count(&self) -> usize {
        self.slots.len()
    }

    /// Appends a NULL element.
    pub(crate) fn push_null(&mut self) {
        self.slots.push(None);
    }

    /// Appends an element written by `write` into the scratch buffer at the given slot
    /// (the scratch buffer is the image base); `write` returns `false` for NULL. On error
    /// nothing is appended.
    pub(crate) fn push_with<E>(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>, usize) -> Result<bool, E>,
    ) -> Result<(), E> {
        let slot = self.scratch.len();
        self.scratch.resize(slot + 8, 0);
        match write(&mut self.scratch, slot) {
            Ok(true) => {
                self.slots.push(Some(slot));
                Ok(())
            }
            Ok(false) => {
                self.scratch.truncate(slot);
                self.slots.push(None);
                Ok(())
            }
            Err(e) => {
                self.scratch.truncate(slot);
                Err(e)
            }
        }
    }

    /// The bytes of element `i` of a CHAR/VARCHAR/BINARY/VARBINARY array (`None` for NULL or
    /// an index out of range).
    pub(crate) fn var_bytes(&self, i: usize) -> Option<&[u8]> {
        let src = (*self.slots.get(i)?)?;
        let word = u64::from_le_bytes(self.scratch.get(src..src + 8)?.try_into().ok()?);
        if word & (1 << 63) != 0 {
            // Inline: the bytes at the slot's start, the length in the top byte's low 7 bits.
            let len = ((word >> 56) & 0x7f) as usize;
            return self.scratch.get(src..src + len.min(7));
        }
        let (offset, len) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
        self.scratch.get(offset..offset.checked_add(len)?)
    }

    /// Appends the binary array image of all elements to `out`.
    pub(crate) fn write_array(&self, ty: &FlinkType, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.write_elements(ty, out, self.slots.len(), 0..self.slots.len())
    }

    /// Appends the binary array image of the elements at `order` (indexes of pushed
    /// elements, in the order they are to appear; an index past the end is skipped).
    pub(crate) fn write_ordered(
        &self,
        ty: &FlinkType,
        out: &mut Vec<u8>,
        order: &[u32],
    ) -> Result<(), CodecError> {
        let n = self.slots.len();
        let count = order.iter().filter(|&&i| (i as usize) < n).count();
        let indexes = order.iter().map(|&i| i as usize).filter(|&i| i < n);
        self.write_elements(ty, out, count, indexes)
    }

    /// Appends the array image of the `count` elements `indexes` yields.
    fn write_elements(
        &self,
        ty: &FlinkType,
        out: &mut Vec<u8>,
        count: usize,
        indexes: impl Iterator<Item = usize>,
    ) -> Result<(), CodecError> {
        let size = element_size(ty);
        let header = array_header_bytes(count);
        let base = out.len();
        out.resize(base + round8(header + size * count), 0);
        let n =
            i32::try_from(count).map_err(|_| CodecError::Rows("array longer than 2^31".into()))?;
        put(out, base, &n.to_le_bytes());
        let fixed = is_fixed_length(ty);
        for (position, index) in indexes.enumerate() {
            let dst = base + header + size * position;
            let Some(src) = self.slots[index] else {
                set_bit(out, base + 4, position);
                continue;
            };
            if fixed {
                out[dst..dst + size].copy_from_slice(&self.scratch[src..src + size]);
                continue;
            }
            let mut word_bytes = [0u8; 8];
            word_bytes.copy_from_slice(&self.scratch[src..src + 8]);
            let word = u64::from_le_bytes(word_bytes);
            if word & (1 << 63) != 0 {
                put(out, dst, &word.to_le_bytes());
                continue;
            }
            let (offset, low) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
            let length = match ty.kind {
                // Non-compact timestamp: the low word is nano-of-milli, the data 8 bytes.
                FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => 8,
                // Non-compact decimal: 16 bytes reserved.
                FlinkKind::Decimal { .. } => 16,
                _ => low,
            };
            let start = out.len();
            out.extend_from_slice(&self.scratch[offset..offset + length]);
            // Padded within the array (Flink's writer aligns an array's parts to its own
            // start): an array placed at an unaligned offset, the value array of a map after
            // its 4-byte key size, otherwise got up to 4 bytes more than Flink's.
            pad_from(out, base);
            let moved = (((start - base) as u64) << 32) | low as u64;
            put(out, dst, &moved.to_le_bytes());
        }
        Ok(())
    }
}
