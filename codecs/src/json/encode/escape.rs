//! JSON string literals exactly as flink-json 2.2.0 writes them (spec §1.8, "CHAR/VARCHAR").
//!
//! flink-json turns a `StringData` into a Java `String` (`BinaryStringData.toString`) and
//! hands it to Jackson 2.18's `UTF8JsonGenerator` with its default features. Field names
//! (ROW field names and MAP keys) go through the same escaping. The result:
//! - `"` and `\` are escaped as `\"` and `\\`;
//! - U+0008, U+0009, U+000A, U+000C, U+000D use the short forms `\b \t \n \f \r`;
//! - every other character below U+0020 is written as `\u00XX` with upper-case hex;
//! - U+007F and every other BMP character is written as raw UTF-8 (`/`, `<`, `&`, U+2028
//!   are not escaped);
//! - a supplementary character (outside the BMP) is written as its two UTF-16 surrogates,
//!   each escaped with upper-case hex: U+1F600 becomes `\uD83D\uDE00`, never 4-byte UTF-8.
//!
//! Invalid UTF-8 in a binary row: `BinaryStringData.toString` decodes valid UTF-8 with a
//! strict decoder and falls back to `new String(bytes, UTF_8)` for anything malformed, so
//! malformed bytes become U+FFFD with the JDK's own rules for how many bytes one U+FFFD
//! replaces ([`java_utf8_lossy`]); those rules differ from Rust's
//! `String::from_utf8_lossy` (e.g. `ED A0 80`, an encoded surrogate, is one U+FFFD in Java
//! and three in Rust). Checked against JDK 17 and JDK 25.

use std::borrow::Cow;

/// Upper-case hex digits, as Jackson writes them.
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// What a byte of valid UTF-8 needs when written inside a JSON string.
const PLAIN: u8 = 0;
/// Escaped with a short form (`\"`, `\\`, `\b`, ...) or `\u00XX`.
const ESCAPE: u8 = 1;
/// Lead byte of a 4-byte sequence: written as two escaped surrogates.
const SUPPLEMENTARY: u8 = 2;

static CLASS: [u8; 256] = {
    let mut table = [PLAIN; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = ESCAPE;
        i += 1;
    }
    table[b'"' as usize] = ESCAPE;
    table[b'\\' as usize] = ESCAPE;
    let mut lead = 0xF0;
    while lead < 0x100 {
        table[lead] = SUPPLEMENTARY;
        lead += 1;
    }
    table
};

/// Appends `text` as a quoted JSON string literal with Jackson's escaping.
pub(crate) fn write_json_str(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match CLASS[b as usize] {
            PLAIN => {
                i += 1;
                continue;
            }
            ESCAPE => {
                out.extend_from_slice(&bytes[start..i]);
                write_escape(b, out);
                i += 1;
            }
            _ => {
                out.extend_from_slice(&bytes[start..i]);
                // `text` is valid UTF-8, so a byte >= 0xF0 starts a 4-byte sequence.
                let cp = (u32::from(b & 0x07) << 18)
                    | (u32::from(bytes[i + 1] & 0x3F) << 12)
                    | (u32::from(bytes[i + 2] & 0x3F) << 6)
                    | u32::from(bytes[i + 3] & 0x3F);
                let v = cp - 0x1_0000;
                write_u_escape(0xD800 + (v >> 10), out);
                write_u_escape(0xDC00 + (v & 0x3FF), out);
                i += 4;
            }
        }
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends the UTF-8 bytes of a Flink `StringData` as a quoted JSON string literal, as
/// flink-json writes it: invalid UTF-8 is first decoded the way the JVM does
/// ([`java_utf8_lossy`]).
pub(crate) fn write_flink_string(bytes: &[u8], out: &mut Vec<u8>) {
    write_json_str(&java_utf8_lossy(bytes), out);
}

fn write_escape(b: u8, out: &mut Vec<u8>) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0A => b'n',
        0x0C => b'f',
        0x0D => b'r',
        _ => {
            write_u_escape(u32::from(b), out);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

fn write_u_escape(unit: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[
        b'\\',
        b'u',
        HEX[((unit >> 12) & 0xF) as usize],
        HEX[((unit >> 8) & 0xF) as usize],
        HEX[((unit >> 4) & 0xF) as usize],
        HEX[(unit & 0xF) as usize],
    ]);
}

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

    fn json(text: &str) -> String {
        let mut out = Vec::new();
        write_json_str(text, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn units(bytes: &[u8]) -> String {
        java_utf8_lossy(bytes)
            .encode_utf16()
            .map(|u| format!("{u:04x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn short_escapes_and_quotes() {
        assert_eq!(json("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json("\u{8}\t\n\u{c}\r"), r#""\b\t\n\f\r""#);
        assert_eq!(json(""), r#""""#);
    }

    #[test]
    fn other_controls_are_upper_case_u_escapes() {
        assert_eq!(
            json("\u{0}\u{1}\u{b}\u{1f}"),
            r#""\u0000\u0001\u000B\u001F""#
        );
    }

    #[test]
    fn del_and_bmp_characters_stay_raw_utf8() {
        let mut out = Vec::new();
        write_json_str("\u{7f}\u{80}é\u{2028}\u{fffd}/<>&'", &mut out);
        let mut expected = vec![b'"', 0x7f, 0xc2, 0x80, 0xc3, 0xa9, 0xe2, 0x80, 0xa8];
        expected.extend_from_slice(&[0xef, 0xbf, 0xbd]);
        expected.extend_from_slice(b"/<>&'\"");
        assert_eq!(out, expected);
    }

    #[test]
    fn supplementary_characters_become_escaped_surrogates() {
        assert_eq!(json("x😀y"), r#""x\uD83D\uDE00y""#);
        assert_eq!(json("\u{10000}\u{10FFFF}"), r#""\uD800\uDC00\uDBFF\uDFFF""#);
    }

    #[test]
    fn long_mixed_text() {
        let text: String = (0..2000)
            .map(|i| match i % 5 {
                0 => "😀",
                1 => "x",
                2 => "é",
                3 => "\u{1}",
                _ => "\"",
            })
            .collect();
        let expected: String = (0..2000)
            .map(|i| match i % 5 {
                0 => r"\uD83D\uDE00",
                1 => "x",
                2 => "é",
                3 => r"\u0001",
                _ => "\\\"",
            })
            .collect();
        assert_eq!(json(&text), format!("\"{expected}\""));
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

    #[test]
    fn flink_string_with_invalid_bytes() {
        let mut out = Vec::new();
        write_flink_string(&[b'a', 0xff, b'"'], &mut out);
        assert_eq!(out, b"\"a\xef\xbf\xbd\\\"\"");
    }
}
