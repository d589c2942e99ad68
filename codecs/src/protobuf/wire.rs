//! The protobuf wire format: tags, varints, fixed-width values and length-delimited
//! spans, read from a byte slice with the limits protobuf-java enforces, and written
//! the way protobuf-java's `CodedOutputStream` writes them.

use std::fmt;

/// The six wire types of a protobuf tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WireType {
    /// 0: a base-128 varint.
    Varint,
    /// 1: 8 little-endian bytes.
    Fixed64,
    /// 2: a varint length, then that many bytes.
    Len,
    /// 3: start of a proto2 group.
    StartGroup,
    /// 4: end of a proto2 group.
    EndGroup,
    /// 5: 4 little-endian bytes.
    Fixed32,
}

impl WireType {
    /// The wire type of the low three bits of a tag, if valid.
    #[inline]
    pub(crate) fn from_bits(bits: u32) -> Option<Self> {
        Some(match bits {
            0 => WireType::Varint,
            1 => WireType::Fixed64,
            2 => WireType::Len,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::Fixed32,
            _ => return None,
        })
    }

    /// The three tag bits of this wire type.
    #[inline]
    pub(crate) fn bits(self) -> u32 {
        match self {
            WireType::Varint => 0,
            WireType::Fixed64 => 1,
            WireType::Len => 2,
            WireType::StartGroup => 3,
            WireType::EndGroup => 4,
            WireType::Fixed32 => 5,
        }
    }
}

/// Why bytes are not a protobuf message; the texts follow protobuf-java's
/// `InvalidProtocolBufferException` messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WireError {
    /// The input ends inside a value.
    Truncated,
    /// A varint longer than 10 bytes.
    MalformedVarint,
    /// A tag whose field number is 0 or whose wire type is 6 or 7.
    InvalidTag,
    /// An end-group tag that does not close the open group.
    InvalidEndTag,
    /// A length-delimited value with a negative length.
    NegativeSize,
    /// Groups or sub-messages nested deeper than protobuf-java's limit of 100.
    TooDeep,
    /// A string field of a proto3 message holds invalid UTF-8.
    InvalidUtf8,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WireError::Truncated => {
                "While parsing a protocol message, the input ended unexpectedly in the middle \
                 of a field.  This could mean either that the input has been truncated or that \
                 an embedded message misreported its own length."
            }
            WireError::MalformedVarint => "CodedInputStream encountered a malformed varint.",
            WireError::InvalidTag => "Protocol message contained an invalid tag (zero).",
            WireError::InvalidEndTag => {
                "Protocol message end-group tag did not match expected tag."
            }
            WireError::NegativeSize => {
                "CodedInputStream encountered an embedded string or message which claimed to \
                 have negative size."
            }
            WireError::TooDeep => {
                "Protocol message had too many levels of nesting.  May be malicious.  Use \
                 CodedInputStream.setRecursionLimit() to increase the depth limit."
            }
            WireError::InvalidUtf8 => "Protocol message had invalid UTF-8.",
        })
    }
}

/// protobuf-java's default recursion limit for groups and sub-messages.
pub(crate) const RECURSION_LIMIT: usize = 100;

/// A read position inside one message's bytes.
pub(crate) struct WireReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> WireReader<'a> {
    /// A reader over all of `buf`.
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        WireReader { buf, pos: 0 }
    }

    /// Whether every byte has been read.
    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The current offset from the start of the buffer.
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Reads a tag: its field number and wire type.
    #[inline]
    pub(crate) fn read_tag(&mut self) -> Result<(u32, WireType), WireError> {
        let raw = self.read_varint32()?;
        let wire = WireType::from_bits(raw & 7).ok_or(WireError::InvalidTag)?;
        let number = raw >> 3;
        if number == 0 {
            return Err(WireError::InvalidTag);
        }
        Ok((number, wire))
    }

    /// Reads a varint as protobuf-java's `readRawVarint64` does (at most 10 bytes). Its
    /// fast path, which every 10-byte varint takes, keeps the continuation bit of the ninth
    /// byte as bit 63 and ignores the tenth byte's bits: a 10-byte varint always reads as
    /// negative (`80 80 80 80 80 80 80 80 c0 00` is `0xc000000000000000`).
    #[inline(always)]
    pub(crate) fn read_varint(&mut self) -> Result<u64, WireError> {
        match self.read_one_byte_varint() {
            Some(value) => Ok(value),
            None => self.read_varint_long(),
        }
    }

    /// A varint of one byte (most tags, small numbers and lengths), read inline; `None`
    /// (nothing read) for a longer one or at the end of the input.
    #[inline(always)]
    fn read_one_byte_varint(&mut self) -> Option<u64> {
        let byte = *self.buf.get(self.pos)?;
        if byte >= 0x80 {
            return None;
        }
        self.pos += 1;
        Some(u64::from(byte))
    }

    /// [`Self::read_varint`] inlined and without a branch on the varint's length (up to 8
    /// bytes are read from one word): for the values of direct columns, whose lengths vary
    /// from message to message (prices of 1 to 4 bytes next to 6-byte timestamps), so that
    /// a branch on them is mispredicted often.
    #[inline(always)]
    pub(crate) fn read_varint_inline(&mut self) -> Result<u64, WireError> {
        let (value, pos) = varint_word(self.buf, self.pos)?;
        self.pos = pos;
        Ok(value)
    }

    /// [`Self::read_varint`] for varints of two or more bytes (or at the end of input).
    #[inline(always)]
    fn read_varint_long(&mut self) -> Result<u64, WireError> {
        let (value, pos) = varint_long(self.buf, self.pos)?;
        self.pos = pos;
        Ok(value)
    }

    /// Reads a varint and keeps its low 32 bits (`readRawVarint32`: up to 10 bytes).
    #[inline]
    pub(crate) fn read_varint32(&mut self) -> Result<u32, WireError> {
        Ok(self.read_varint()? as u32)
    }

    /// Reads 4 little-endian bytes.
    #[inline]
    pub(crate) fn read_fixed32(&mut self) -> Result<u32, WireError> {
        let bytes = self
            .buf
            .get(self.pos..self.pos + 4)
            .ok_or(WireError::Truncated)?;
        self.pos += 4;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Reads 8 little-endian bytes.
    #[inline]
    pub(crate) fn read_fixed64(&mut self) -> Result<u64, WireError> {
        let bytes = self
            .buf
            .get(self.pos..self.pos + 8)
            .ok_or(WireError::Truncated)?;
        self.pos += 8;
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    /// Reads a length prefix and returns the `(start, end)` offsets of the bytes it covers.
    #[inline]
    pub(crate) fn read_len_span(&mut self) -> Result<(usize, usize), WireError> {
        let len = self.read_varint32()? as i32;
        if len < 0 {
            return Err(WireError::NegativeSize);
        }
        let start = self.pos;
        let end = start
            .checked_add(len as usize)
            .filter(|&end| end <= self.buf.len())
            .ok_or(WireError::Truncated)?;
        self.pos = end;
        Ok((start, end))
    }

    /// Skips the value of a field with the given wire type; a group is skipped up to its
    /// matching end tag (checked), `depth` being the current nesting.
    pub(crate) fn skip(
        &mut self,
        number: u32,
        wire: WireType,
        depth: usize,
    ) -> Result<(), WireError> {
        match wire {
            WireType::Varint => self.read_varint().map(drop),
            WireType::Fixed64 => self.read_fixed64().map(drop),
            WireType::Fixed32 => self.read_fixed32().map(drop),
            WireType::Len => self.read_len_span().map(drop),
            WireType::StartGroup => self.skip_group(number, depth + 1),
            // An end-group tag where no group is open ends the message in protobuf-java,
            // which then reports the mismatch.
            WireType::EndGroup => Err(WireError::InvalidEndTag),
        }
    }

    /// Skips a group's fields up to its end tag for field `number`, returning the span of
    /// the group's content (without the end tag).
    pub(crate) fn skip_group(&mut self, number: u32, depth: usize) -> Result<(), WireError> {
        self.group_span(number, depth).map(drop)
    }

    /// Reads to the end tag of the group for field `number` and returns the `(start, end)`
    /// offsets of the group's content (without the end tag).
    pub(crate) fn group_span(
        &mut self,
        number: u32,
        depth: usize,
    ) -> Result<(usize, usize), WireError> {
        if depth > RECURSION_LIMIT {
            return Err(WireError::TooDeep);
        }
        let start = self.pos;
        loop {
            if self.at_end() {
                return Err(WireError::Truncated);
            }
            let end = self.pos;
            let (inner, wire) = self.read_tag()?;
            if wire == WireType::EndGroup {
                if inner != number {
                    return Err(WireError::InvalidEndTag);
                }
                return Ok((start, end));
            }
            self.skip(inner, wire, depth)?;
        }
    }
}

/// The varint of two or more bytes (or at the end of input) at `pos` in `buf`, and the
/// position after it. Out of line, and taking the position by value so that a reader
/// calling it keeps its position in a register.
#[inline(never)]
fn varint_long(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
    varint_word(buf, pos)
}

/// [`varint_long`] inlined: a varint of up to 8 bytes read from one word whatever its
/// length, longer ones (and those near the end of the input) byte by byte.
#[inline(always)]
fn varint_word(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
    if let Some(window) = buf.get(pos..pos + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(window);
        let word = u64::from_le_bytes(word);
        if let Some((value, len)) = varint_in_word(word) {
            return Ok((value, pos + len));
        }
    }
    varint_bytes(buf, pos)
}

/// [`varint_long`] byte by byte: varints of 9 or 10 bytes, and those near the end of the
/// input.
#[inline(never)]
fn varint_bytes(buf: &[u8], pos: usize) -> Result<(u64, usize), WireError> {
    if let Some(window) = buf.get(pos..pos + 10) {
        // Ten bytes are there: no bounds check per byte.
        let mut value = 0u64;
        for (i, &byte) in window.iter().enumerate().take(9) {
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok((value, pos + i + 1));
            }
        }
        if window[9] & 0x80 != 0 {
            return Err(WireError::MalformedVarint);
        }
        return Ok((value | (1 << 63), pos + 10));
    }
    let mut value = 0u64;
    let mut at = pos;
    for i in 0..10 {
        let byte = *buf.get(at).ok_or(WireError::Truncated)?;
        at += 1;
        if i == 9 {
            if byte & 0x80 != 0 {
                break;
            }
            return Ok((value | (1 << 63), at));
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, at));
        }
    }
    Err(WireError::MalformedVarint)
}

/// The varint at the start of the 8 little-endian bytes `word`, if it ends within them:
/// its value and length. The 7-bit groups are gathered in three steps (pairs, quads,
/// the two halves) instead of one per byte.
#[inline(always)]
fn varint_in_word(word: u64) -> Option<(u64, usize)> {
    let ends = !word & 0x8080_8080_8080_8080;
    if ends == 0 {
        return None;
    }
    // The high bit of the last byte is bit `bits - 1`.
    let bits = ends.trailing_zeros() + 1;
    let x = word & (u64::MAX >> (64 - bits)) & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    let x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
    Some((x, (bits / 8) as usize))
}

/// The zig-zag decoding of a 32-bit value (`sint32`).
pub(crate) fn zigzag_decode32(n: u32) -> i32 {
    ((n >> 1) as i32) ^ -((n & 1) as i32)
}

/// The zig-zag decoding of a 64-bit value (`sint64`).
pub(crate) fn zigzag_decode64(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// The zig-zag encoding of a 32-bit value (`sint32`).
pub(crate) fn zigzag_encode32(n: i32) -> u32 {
    ((n << 1) ^ (n >> 31)) as u32
}

/// The zig-zag encoding of a 64-bit value (`sint64`).
pub(crate) fn zigzag_encode64(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// Appends `value` as a base-128 varint.
#[inline(always)]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    if value < 0x80 {
        out.push(value as u8);
        return;
    }
    out.reserve(10);
    let spare = &mut out.spare_capacity_mut()[..10];
    let mut len = 0;
    while value >= 0x80 && len < 9 {
        spare[len].write((value as u8) | 0x80);
        value >>= 7;
        len += 1;
    }
    spare[len].write(value as u8);
    let new_len = out.len() + len + 1;
    // SAFETY: `reserve(10)` made room for 10 more bytes, of which the first `len + 1`
    // (at most 10: a u64 has 10 groups of 7 bits) were initialised just above.
    unsafe { out.set_len(new_len) };
}

/// Appends the first `len` bytes of `bytes` (all of them when `len > N`) with fixed-size
/// stores instead of a `memcpy` call of a variable length: all `N` bytes go to the
/// spare capacity, and the length grows by `len`.
#[inline(always)]
pub(crate) fn put_prefix<const N: usize>(out: &mut Vec<u8>, bytes: &[u8; N], len: usize) {
    out.reserve(N);
    let spare = &mut out.spare_capacity_mut()[..N];
    for (slot, &byte) in spare.iter_mut().zip(bytes) {
        slot.write(byte);
    }
    let new_len = out.len() + len.min(N);
    // SAFETY: `reserve(N)` made room for N more bytes and the N bytes after the current
    // length were initialised just above; the length grows by at most N.
    unsafe { out.set_len(new_len) };
}

/// The number of bytes [`put_varint`] writes for `value`.
pub(crate) fn varint_len(value: u64) -> usize {
    // 1 byte per started group of 7 bits; 0 needs one byte.
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Appends the tag of field `number` with wire type `wire`.
pub(crate) fn put_tag(out: &mut Vec<u8>, number: u32, wire: WireType) {
    put_varint(out, u64::from((number << 3) | wire.bits()));
}

/// Appends an `int32`/`enum` value as protobuf-java does: negative values sign-extended
/// to a 10-byte varint.
pub(crate) fn put_int32(out: &mut Vec<u8>, value: i32) {
    put_varint(out, value as i64 as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_with_their_lengths() {
        for value in [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(out.len(), varint_len(value), "{value}");
            assert_eq!(WireReader::new(&out).read_varint(), Ok(value));
        }
        let mut out = Vec::new();
        put_int32(&mut out, -1);
        assert_eq!(out.len(), 10);
        assert_eq!(WireReader::new(&out).read_varint32(), Ok(u32::MAX));
    }

    #[test]
    fn ten_byte_varints_read_as_protobuf_java_reads_them() {
        let quirk = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xc0, 0x00];
        assert_eq!(
            WireReader::new(&quirk).read_varint(),
            Ok(0xc000_0000_0000_0000)
        );
        let minus_one = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(WireReader::new(&minus_one).read_varint(), Ok(u64::MAX));
    }

    #[test]
    fn varints_read_the_same_with_and_without_ten_bytes_left() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for value in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX >> 1, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            cases.push(out);
        }
        cases.push(vec![
            0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xc0, 0x00,
        ]);
        cases.push(vec![0x80; 11]);
        for bytes in cases {
            let alone = {
                let mut r = WireReader::new(&bytes);
                (r.read_varint(), r.position())
            };
            let mut padded = bytes.clone();
            padded.extend_from_slice(&[0; 10]);
            let mut r = WireReader::new(&padded);
            let value = r.read_varint();
            assert_eq!(value, alone.0, "{bytes:02x?}");
            if value.is_ok() {
                assert_eq!(r.position(), alone.1, "{bytes:02x?}");
            }
        }
    }

    #[test]
    fn varints_read_a_word_at_a_time_equal_those_read_byte_by_byte() {
        // Every length from 1 to 11 bytes, with payload bits all set, all clear and
        // mixed, followed by enough bytes for the word path to apply.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 1..=11usize {
            for round in 0..200 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let mut bytes: Vec<u8> = (0..len)
                    .map(|i| match round {
                        0 => 0x7f,
                        1 => 0x00,
                        _ => (seed >> (8 * (i % 8))) as u8 & 0x7f,
                    })
                    .collect();
                for b in &mut bytes[..len - 1] {
                    *b |= 0x80;
                }
                bytes.extend_from_slice(&[0xaa, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]);
                let mut fast = WireReader::new(&bytes);
                let expected = super::varint_bytes(&bytes, 0);
                assert_eq!(
                    fast.read_varint(),
                    expected.clone().map(|(v, _)| v),
                    "{bytes:02x?}"
                );
                if let Ok((_, end)) = expected {
                    assert_eq!(fast.position(), end, "{bytes:02x?}");
                    assert_eq!(fast.position(), len.min(10), "{bytes:02x?}");
                }
            }
        }
    }

    #[test]
    fn malformed_and_truncated_varints_are_reported() {
        assert_eq!(
            WireReader::new(&[0x80; 11]).read_varint(),
            Err(WireError::MalformedVarint)
        );
        assert_eq!(
            WireReader::new(&[0x80, 0x80]).read_varint(),
            Err(WireError::Truncated)
        );
    }

    #[test]
    fn tags_reject_field_zero_and_wire_types_six_and_seven() {
        assert_eq!(
            WireReader::new(&[0x08]).read_tag(),
            Ok((1, WireType::Varint))
        );
        assert_eq!(
            WireReader::new(&[0x00]).read_tag(),
            Err(WireError::InvalidTag)
        );
        assert_eq!(
            WireReader::new(&[0x0e]).read_tag(),
            Err(WireError::InvalidTag)
        );
    }

    #[test]
    fn length_spans_are_bounded_by_the_buffer() {
        let mut r = WireReader::new(&[0x02, 0xaa, 0xbb, 0xcc]);
        assert_eq!(r.read_len_span(), Ok((1, 3)));
        assert_eq!(
            WireReader::new(&[0x05, 0x00]).read_len_span(),
            Err(WireError::Truncated)
        );
        let negative = [0xff, 0xff, 0xff, 0xff, 0x0f];
        assert_eq!(
            WireReader::new(&negative).read_len_span(),
            Err(WireError::NegativeSize)
        );
    }

    #[test]
    fn groups_are_skipped_to_their_own_end_tag() {
        // field 2 start-group, inner field 1 varint 5, field 2 end-group, then field 3.
        let bytes = [0x13, 0x08, 0x05, 0x14, 0x18, 0x01];
        let mut r = WireReader::new(&bytes);
        let (number, wire) = r.read_tag().unwrap();
        assert_eq!((number, wire), (2, WireType::StartGroup));
        assert_eq!(r.group_span(2, 1), Ok((1, 3)));
        assert_eq!(r.read_tag(), Ok((3, WireType::Varint)));
        // An end tag of another field does not close the group.
        let wrong = [0x13, 0x08, 0x05, 0x1c];
        let mut r = WireReader::new(&wrong);
        r.read_tag().unwrap();
        assert_eq!(r.group_span(2, 1), Err(WireError::InvalidEndTag));
    }

    #[test]
    fn zigzag_matches_the_protobuf_definition() {
        for (plain, coded) in [(0i64, 0u64), (-1, 1), (1, 2), (-2, 3), (i64::MIN, u64::MAX)] {
            assert_eq!(zigzag_encode64(plain), coded);
            assert_eq!(zigzag_decode64(coded), plain);
        }
        assert_eq!(zigzag_encode32(i32::MIN), u32::MAX);
        assert_eq!(zigzag_decode32(u32::MAX), i32::MIN);
    }
}
