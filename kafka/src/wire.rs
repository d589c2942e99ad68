//! Big-endian numbers and varints as Kafka's protocol and record format write them.

/// A read position in a byte slice; every read checks the bounds.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// A read past the end, or a malformed varint.
#[derive(Debug)]
pub(crate) struct Short;

pub(crate) type WireResult<T> = Result<T, Short>;

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> WireResult<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(Short)?;
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> WireResult<[u8; N]> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    #[inline]
    pub(crate) fn i8(&mut self) -> WireResult<i8> {
        Ok(self.take(1)?[0] as i8)
    }

    #[inline]
    pub(crate) fn i16(&mut self) -> WireResult<i16> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    #[inline]
    pub(crate) fn i32(&mut self) -> WireResult<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    #[inline]
    pub(crate) fn i64(&mut self) -> WireResult<i64> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// An unsigned varint (at most 10 bytes).
    #[inline]
    pub(crate) fn uvarint(&mut self) -> WireResult<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = *self.buf.get(self.pos).ok_or(Short)?;
            self.pos += 1;
            value |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err(Short)
    }

    /// A zig-zag varint.
    #[inline]
    pub(crate) fn varint(&mut self) -> WireResult<i64> {
        let v = self.uvarint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A compact length or count (stored + 1; 0 is null).
    pub(crate) fn compact_len(&mut self) -> WireResult<Option<usize>> {
        match self.uvarint()? {
            0 => Ok(None),
            n => usize::try_from(n - 1).map(Some).map_err(|_| Short),
        }
    }

    /// Skips a tagged-field section.
    pub(crate) fn skip_tagged_fields(&mut self) -> WireResult<()> {
        for _ in 0..self.uvarint()? {
            self.uvarint()?;
            let size = usize::try_from(self.uvarint()?).map_err(|_| Short)?;
            self.take(size)?;
        }
        Ok(())
    }
}

/// Appends an unsigned varint.
pub(crate) fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Kafka's zig-zag mapping of a signed varint.
#[inline]
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The bytes of an unsigned varint.
#[inline]
pub(crate) fn uvarint_len(v: u64) -> usize {
    // 1 + (bits above the lowest 7) / 7, with at least one byte for 0.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// The bytes of a zig-zag varint.
#[inline]
pub(crate) fn varint_len(v: i64) -> usize {
    uvarint_len(zigzag(v))
}

/// Appends a zig-zag varint.
#[cfg(test)]
pub(crate) fn put_varint(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, zigzag(v));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_lengths_match_what_is_written() {
        for v in [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            8191,
            8192,
            i64::MAX,
            i64::MIN,
            1 << 35,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out.len(), varint_len(v), "{v}");
            assert_eq!(Reader::new(&out).varint().unwrap(), v);
        }
    }
}
