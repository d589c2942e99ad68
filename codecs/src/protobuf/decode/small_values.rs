//! Strings and bytes of at most 64 bytes written into a row image without a branch on
//! their length. Lengths vary from message to message (a random-length `extra`, channel
//! names of 5 to 12 bytes), and in a decoder of small messages the mispredicted branches
//! on them — short or long form, `memcpy`'s size classes, the tail of the ASCII check —
//! cost more than the copying: the value is moved as eight 8-byte words read at clamped
//! positions, whichever form it takes.

use crate::flink_binary::layout::put;

/// The longest value [`put_small_value`] writes.
pub(super) const SMALL_VALUE_MAX: usize = 64;

/// The high bit of every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Writes `buf[start..end]` into `slot` of the row image at `base` exactly as
/// [`super::values::write_bytes`] does (up to 7 bytes inline in the slot with the length in
/// its last byte, longer values appended to `out` and padded with zeros to a multiple of
/// 8, their offset and length in the slot). Returns whether every byte is ASCII, or `None`
/// (nothing written) when the value is longer than [`SMALL_VALUE_MAX`] or ends within the
/// first 8 bytes of `buf`, which the word reads need before it.
#[inline(always)]
pub(super) fn put_small_value(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    buf: &[u8],
    start: usize,
    end: usize,
) -> Option<bool> {
    let len = end.checked_sub(start)?;
    if len > SMALL_VALUE_MAX || end < 8 || end > buf.len() {
        return None;
    }
    // The last 8 bytes up to `end` (they may begin before `start`), shifted down so that
    // only the value's bytes of its last, partial word remain (all of a value of up to 7
    // bytes); two shifts, as one of 64 bits is not defined.
    let last = word_at(buf, end - 8);
    let tail = (last >> 1) >> (8 * (8 - (len & 7)) - 1);
    let long = len > 7;
    let padded = (len + 7) & !7;
    out.reserve(SMALL_VALUE_MAX);
    let at = out.len();
    let spare = &mut out.spare_capacity_mut()[..SMALL_VALUE_MAX];
    let mut seen = 0u64;
    for (k, word_slot) in spare.chunks_exact_mut(8).enumerate() {
        let from = start + 8 * k;
        // A whole word of the value, or (read from a clamped position, then replaced) the
        // partial last word, or, past the value, bytes nobody keeps. Selected with
        // conditional moves: the compiler would otherwise branch.
        let whole = word_at(buf, from.min(end - 8));
        let word = select(from + 8 <= end, whole, tail);
        seen |= select(from < end, word, 0);
        for (byte_slot, byte) in word_slot.iter_mut().zip(word.to_le_bytes()) {
            byte_slot.write(byte);
        }
    }
    let new_len = at + select(long, padded as u64, 0) as usize;
    // SAFETY: `reserve` made room for `SMALL_VALUE_MAX` bytes after `at` and the loop
    // initialised all of them; the length grows by `padded` <= `SMALL_VALUE_MAX` or not at all.
    unsafe { out.set_len(new_len) };
    let slot_word = select(
        long,
        (((at - base) as u64) << 32) | len as u64,
        tail | (u64::from(0x80 | len as u8) << 56),
    );
    put(out, slot, &slot_word.to_le_bytes());
    Some(seen & HIGH_BITS == 0)
}

/// `a` when `condition` holds, else `b`, without a branch (a mask-and-or is turned back
/// into a branch by the compiler; `select_unpredictable` keeps a conditional move).
#[inline(always)]
fn select(condition: bool, a: u64, b: u64) -> u64 {
    std::hint::select_unpredictable(condition, a, b)
}

/// The 8 bytes of `buf` from `at`, little-endian.
#[inline(always)]
fn word_at(buf: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::super::values::write_bytes;
    use super::*;

    /// Every length from 0 to 64 at several positions in a message, ASCII or not, over an
    /// image whose slot and tail hold junk: the same bytes as `write_bytes`, and the right
    /// ASCII answer.
    #[test]
    fn writes_what_write_bytes_writes_for_every_length() {
        for len in 0..=SMALL_VALUE_MAX {
            for start in [0usize, 1, 7, 8, 13] {
                for high in [None, Some(0), Some(len.saturating_sub(1))] {
                    let mut buf: Vec<u8> = (0..start + len + 3)
                        .map(|i| b'a' + (i % 26) as u8)
                        .collect();
                    if let (Some(at), true) = (high, len > 0) {
                        buf[start + at] = 0xc3;
                    }
                    let end = start + len;
                    let image = vec![0x77u8; 24];
                    let mut ours = image.clone();
                    let got = put_small_value(&mut ours, 0, 8, &buf, start, end);
                    if end < 8 {
                        assert_eq!(got, None, "len {len} at {start}");
                        assert_eq!(ours, image);
                        continue;
                    }
                    let mut theirs = image.clone();
                    write_bytes(&mut theirs, 0, 8, &buf[start..end]).expect("write_bytes");
                    assert_eq!(ours, theirs, "len {len} at {start}");
                    assert_eq!(
                        got,
                        Some(buf[start..end].is_ascii()),
                        "len {len} at {start}"
                    );
                }
            }
        }
    }

    #[test]
    fn longer_values_are_left_to_the_caller() {
        let buf = vec![b'x'; 100];
        let mut out = vec![0u8; 16];
        assert_eq!(
            put_small_value(&mut out, 0, 8, &buf, 10, 10 + SMALL_VALUE_MAX + 1),
            None
        );
        assert_eq!(out, vec![0u8; 16]);
    }
}
