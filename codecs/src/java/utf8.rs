//! Java's view of UTF-8 bytes: `BinaryStringData.toString()` decodes valid UTF-8 with a
//! strict decoder and falls back to `new String(bytes, UTF_8)` for anything malformed, so
//! malformed bytes become U+FFFD with the JDK's own rules for how many bytes one U+FFFD
//! replaces. Those rules differ from Rust's `String::from_utf8_lossy` (e.g. `ED A0 80`, an
//! encoded surrogate, is one U+FFFD in Java and three in Rust). Checked against JDK 17 and
//! JDK 25. Every format that turns a Flink string into Java text (JSON's writer, Protobuf's
//! strings) goes through [`java_utf8_lossy`].

use std::borrow::Cow;

const REPLACEMENT: char = '\u{FFFD}';

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The text Java gets from UTF-8 bytes, as `BinaryStringData.toString()` produces it:
/// valid UTF-8 as is (borrowed); otherwise the JDK's `new String(bytes, UTF_8)`, where each
/// malformed piece becomes one U+FFFD. The JDK decides the extent of a malformed piece by
/// its own rules (a lead byte followed by bytes that are merely continuation bytes is one
/// piece even where Unicode's "maximal subpart" practice would see several, a truncated
/// sequence at the very end is one piece, an encoded surrogate is one piece).
pub(crate) fn java_utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(decode_with_replacement(bytes)),
    }
}

fn decode_with_replacement(bytes: &[u8]) -> String {
    let n = bytes.len();
    let mut text = String::with_capacity(n + 8);
    let mut i = 0;
    while i < n {
        let b1 = bytes[i];
        i += 1;
        if b1 < 0x80 {
            text.push(char::from(b1));
        } else if (0xC2..=0xDF).contains(&b1) {
            // Two bytes.
            if i >= n {
                text.push(REPLACEMENT);
                break;
            }
            let b2 = bytes[i];
            if is_continuation(b2) {
                i += 1;
                push_code_point(
                    (u32::from(b1 & 0x1F) << 6) | u32::from(b2 & 0x3F),
                    &mut text,
                );
            } else {
                // Only the lead byte is consumed.
                text.push(REPLACEMENT);
            }
        } else if (0xE0..=0xEF).contains(&b1) {
            // Three bytes.
            if i + 1 < n {
                let (b2, b3) = (bytes[i], bytes[i + 1]);
                let overlong = b1 == 0xE0 && b2 & 0xE0 == 0x80;
                if overlong || !is_continuation(b2) || !is_continuation(b3) {
                    text.push(REPLACEMENT);
                    // One byte when the second one cannot continue the lead, else two.
                    if !overlong && is_continuation(b2) {
                        i += 1;
                    }
                } else {
                    i += 2;
                    let c = (u32::from(b1 & 0x0F) << 12)
                        | (u32::from(b2 & 0x3F) << 6)
                        | u32::from(b3 & 0x3F);
                    // An encoded surrogate is one malformed piece of three bytes.
                    push_code_point(c, &mut text);
                }
                continue;
            }
            // Truncated at the end of the input.
            text.push(REPLACEMENT);
            if i < n {
                let b2 = bytes[i];
                let second_malformed = (b1 == 0xE0 && b2 & 0xE0 == 0x80) || !is_continuation(b2);
                if second_malformed {
                    // Go on with the second byte.
                    continue;
                }
            }
            break;
        } else if (0xF0..=0xF7).contains(&b1) {
            // Four bytes (0xF5..=0xF7 lead only to malformed pieces).
            if i + 2 < n {
                let (b2, b3, b4) = (bytes[i], bytes[i + 1], bytes[i + 2]);
                let cp = (u32::from(b1 & 0x07) << 18)
                    | (u32::from(b2 & 0x3F) << 12)
                    | (u32::from(b3 & 0x3F) << 6)
                    | u32::from(b4 & 0x3F);
                let well_formed = is_continuation(b2)
                    && is_continuation(b3)
                    && is_continuation(b4)
                    && (0x1_0000..=0x10_FFFF).contains(&cp);
                if well_formed {
                    i += 3;
                    push_code_point(cp, &mut text);
                } else {
                    text.push(REPLACEMENT);
                    i += malformed4_extra(b1, b2, b3);
                }
                continue;
            }
            // Truncated at the end of the input.
            text.push(REPLACEMENT);
            if b1 > 0xF4 || (i < n && bad_second_of_four(b1, bytes[i])) {
                continue;
            }
            i += 1;
            if i < n && !is_continuation(bytes[i]) {
                continue;
            }
            break;
        } else {
            // A continuation byte without a lead, 0xC0, 0xC1 or 0xF8..=0xFF.
            text.push(REPLACEMENT);
        }
    }
    text
}

/// A piece of a string stored as Java text in a Java-detail image
/// (`crate::flink_binary::java_detail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JavaTextPiece<'a> {
    /// Bytes without an encoded surrogate (valid UTF-8 when the Java side wrote them).
    Text(&'a [u8]),
    /// A UTF-16 surrogate that is not half of a pair (`0xD800..=0xDFFF`).
    LoneSurrogate(u16),
}

/// Splits the bytes of a string of a Java-detail image into text and lone surrogates:
/// a 3-byte sequence `ED A0..BF 80..BF` (the UTF-8 form of a surrogate code unit, which
/// valid UTF-8 never holds) is one lone surrogate; everything between is text.
pub(crate) fn java_text_pieces(bytes: &[u8]) -> impl Iterator<Item = JavaTextPiece<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = bytes.get(at..).filter(|r| !r.is_empty())?;
        let surrogate = |i: usize| {
            rest.get(i..i + 3).and_then(|s| match *s {
                [0xED, b2 @ 0xA0..=0xBF, b3 @ 0x80..=0xBF] => {
                    Some(0xD000 | (u16::from(b2 & 0x3F) << 6) | u16::from(b3 & 0x3F))
                }
                _ => None,
            })
        };
        if let Some(unit) = surrogate(0) {
            at += 3;
            return Some(JavaTextPiece::LoneSurrogate(unit));
        }
        let end = (1..rest.len())
            .find(|&i| rest[i] == 0xED && surrogate(i).is_some())
            .unwrap_or(rest.len());
        at += end;
        Some(JavaTextPiece::Text(&rest[..end]))
    })
}

/// The bytes the JDK's UTF-8 encoder (`String.getBytes(UTF_8)`, which protobuf-java and
/// Avro fall back to) writes for a string of a Java-detail image: its text as it is, each
/// lone surrogate as `?`.
pub(crate) fn java_detail_utf8(bytes: &[u8]) -> Cow<'_, str> {
    let mut pieces = java_text_pieces(bytes);
    match (pieces.next(), pieces.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(JavaTextPiece::Text(text)), None) => java_utf8_lossy(text),
        (first, second) => {
            let mut out = String::with_capacity(bytes.len());
            for piece in first.into_iter().chain(second).chain(pieces) {
                match piece {
                    JavaTextPiece::Text(text) => out.push_str(&java_utf8_lossy(text)),
                    JavaTextPiece::LoneSurrogate(_) => out.push('?'),
                }
            }
            Cow::Owned(out)
        }
    }
}

/// The UTF-16 code units of the Java string a string of a Java-detail image holds (its
/// lone surrogates included), as `String.hashCode` and `String.compareTo` read them.
pub(crate) fn java_detail_units(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    java_text_pieces(bytes).flat_map(|piece| {
        let (text, unit) = match piece {
            JavaTextPiece::Text(text) => (Some(java_utf8_lossy(text)), None),
            JavaTextPiece::LoneSurrogate(unit) => (None, Some(unit)),
        };
        let units: Vec<u16> = match text {
            Some(text) => text.encode_utf16().collect(),
            None => Vec::new(),
        };
        units.into_iter().chain(unit)
    })
}

/// Whether `b2` cannot be the second byte of a 4-byte sequence led by `b1`.
fn bad_second_of_four(b1: u8, b2: u8) -> bool {
    (b1 == 0xF0 && !(0x90..=0xBF).contains(&b2))
        || (b1 == 0xF4 && b2 & 0xF0 != 0x80)
        || !is_continuation(b2)
}

/// How many bytes after the lead a malformed 4-byte piece spans besides the lead.
fn malformed4_extra(b1: u8, b2: u8, b3: u8) -> usize {
    if b1 > 0xF4 || bad_second_of_four(b1, b2) {
        0
    } else if !is_continuation(b3) {
        1
    } else {
        2
    }
}

/// Pushes a decoded code point; a surrogate (only reachable from a 3-byte sequence)
/// becomes U+FFFD as in the JDK.
fn push_code_point(cp: u32, text: &mut String) {
    text.push(char::from_u32(cp).unwrap_or(REPLACEMENT));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(bytes: &[u8]) -> String {
        java_utf8_lossy(bytes)
            .encode_utf16()
            .map(|u| format!("{u:04x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn java_detail_strings_write_question_marks_and_hash_their_units() {
        // "a" U+D83D "b" U+DE00 (two lone surrogates) and a pair.
        let marked = [
            b'a', 0xED, 0xA0, 0xBD, b'b', 0xED, 0xB8, 0x80, 0xF0, 0x9F, 0x98, 0x80,
        ];
        assert_eq!(java_detail_utf8(&marked), "a?b?\u{1F600}");
        assert_eq!(
            java_detail_units(&marked).collect::<Vec<_>>(),
            vec![0x61, 0xD83D, 0x62, 0xDE00, 0xD83D, 0xDE00]
        );
        assert_eq!(java_detail_utf8(b""), "");
        assert_eq!(java_detail_utf8("plain \u{e9}".as_bytes()), "plain \u{e9}");
        assert!(matches!(java_detail_utf8(b"abc"), Cow::Borrowed(_)));
        assert_eq!(java_detail_utf8(&[0xED, 0xA0, 0x80]), "?");
    }

    #[test]
    fn java_text_splits_at_encoded_lone_surrogates() {
        use JavaTextPiece::{LoneSurrogate, Text};
        fn pieces(b: &[u8]) -> Vec<JavaTextPiece<'_>> {
            java_text_pieces(b).collect()
        }
        assert_eq!(pieces(b""), vec![]);
        assert_eq!(pieces("a😀é".as_bytes()), vec![Text("a😀é".as_bytes())]);
        // U+D83D, U+DFFF, U+D800 as their 3-byte sequences.
        assert_eq!(
            pieces(&[b'a', 0xED, 0xA0, 0xBD, 0xED, 0xBF, 0xBF, b'b', 0xED, 0xA0, 0x80]),
            vec![
                Text(b"a"),
                LoneSurrogate(0xD83D),
                LoneSurrogate(0xDFFF),
                Text(b"b"),
                LoneSurrogate(0xD800)
            ]
        );
        // U+D7FF (ED 9F BF) is an ordinary character; a cut sequence is text.
        assert_eq!(
            pieces(&[0xED, 0x9F, 0xBF, 0xED, 0xA0]),
            vec![Text(&[0xED, 0x9F, 0xBF, 0xED, 0xA0])]
        );
    }

    #[test]
    fn valid_utf8_is_borrowed() {
        assert!(matches!(
            java_utf8_lossy("héllo😀".as_bytes()),
            Cow::Borrowed(_)
        ));
    }

    // Expected UTF-16 units from `BinaryStringData.fromBytes(b).toString()` on JDK 17.
    #[test]
    fn invalid_utf8_decodes_like_the_jdk() {
        let cases: &[(&[u8], &str)] = &[
            (&[0x80], "fffd"),
            (&[0x41, 0xff, 0x42], "0041 fffd 0042"),
            (&[0xc0, 0x80], "fffd fffd"),
            (&[0xc3], "fffd"),
            (&[0xc3, 0x41], "fffd 0041"),
            // An encoded surrogate: one U+FFFD for all three bytes (Rust: three).
            (&[0xed, 0xa0, 0x80], "fffd"),
            (&[0x80, 0xbf, 0xed, 0xa0], "fffd fffd fffd"),
            (&[0xee, 0xed, 0xbf, 0xec], "fffd fffd fffd"),
            (&[0xe0, 0x80, 0x80], "fffd fffd fffd"),
            (&[0xe2, 0x82], "fffd"),
            (&[0xe2, 0x82, 0x41], "fffd 0041"),
            (&[0xe0, 0x9f], "fffd fffd"),
            (&[0xf0, 0x9f, 0x98], "fffd"),
            (&[0xf0, 0x9f, 0x98, 0x41], "fffd 0041"),
            (&[0xf0, 0x80, 0x80, 0x80], "fffd fffd fffd fffd"),
            (&[0xf4, 0x90, 0x80, 0x80], "fffd fffd fffd fffd"),
            (&[0xf5, 0x80, 0x80, 0x80], "fffd fffd fffd fffd"),
            (&[0xf0, 0x9f, 0x41, 0x80], "fffd 0041 fffd"),
            (&[0xf0, 0x90], "fffd"),
            (&[0xf0, 0x41], "fffd 0041"),
            (&[0xf8, 0x88, 0x80, 0x80, 0x80], "fffd fffd fffd fffd fffd"),
            (
                &[0xc3, 0xa9, 0xff, 0xf0, 0x9f, 0x98, 0x80],
                "00e9 fffd d83d de00",
            ),
        ];
        for (bytes, expected) in cases {
            assert_eq!(&units(bytes), expected, "bytes {bytes:02x?}");
        }
    }
}
