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
//! A lone surrogate (`"\uD83D"` read by Jackson) is escaped the same way, but a binary row
//! stores it as `?`; only an image marked as keeping Java text (`write_image_string`) still
//! holds it.
//!
//! Invalid UTF-8 in a binary row: `BinaryStringData.toString` decodes valid UTF-8 with a
//! strict decoder and falls back to `new String(bytes, UTF_8)` for anything malformed, so
//! malformed bytes become U+FFFD with the JDK's own rules for how many bytes one U+FFFD
//! replaces ([`java_utf8_lossy`], in `crate::java::utf8`).

use crate::flink_binary::java_detail::ImageForm;
use crate::java::utf8::{java_text_pieces, java_utf8_lossy, JavaTextPiece};

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
    out.reserve(text.len() + 2);
    out.push(b'"');
    write_json_body(text, out);
    out.push(b'"');
}

/// Appends `text` with Jackson's escaping, without the quotes.
fn write_json_body(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
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
}

/// Appends the UTF-8 bytes of a Flink `StringData` as a quoted JSON string literal, as
/// flink-json writes it: invalid UTF-8 is first decoded the way the JVM does
/// ([`java_utf8_lossy`]).
pub(crate) fn write_flink_string(bytes: &[u8], out: &mut Vec<u8>) {
    write_json_str(&java_utf8_lossy(bytes), out);
}

/// Appends a string of an image in `form` as a quoted JSON string literal: a Flink string
/// as [`write_flink_string`] does; the Java text of a Java-detail image
/// (`crate::flink_binary::java_detail`) with each lone surrogate escaped as Jackson's
/// `UTF8JsonGenerator` escapes every surrogate (`\uD83D`, upper-case hex).
pub(crate) fn write_image_string(bytes: &[u8], form: ImageForm, out: &mut Vec<u8>) {
    if form == ImageForm::Flink {
        return write_flink_string(bytes, out);
    }
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    for piece in java_text_pieces(bytes) {
        match piece {
            JavaTextPiece::Text(text) => write_json_body(&java_utf8_lossy(text), out),
            JavaTextPiece::LoneSurrogate(unit) => write_u_escape(u32::from(unit), out),
        }
    }
    out.push(b'"');
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

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> String {
        let mut out = Vec::new();
        write_json_str(text, &mut out);
        String::from_utf8(out).unwrap()
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
    fn java_text_escapes_lone_surrogates_as_jackson_does() {
        let mut out = Vec::new();
        let text = [
            b'a', 0xED, 0xA0, 0xBD, b'"', 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xB8, 0x80,
        ];
        write_image_string(&text, ImageForm::JavaDetail, &mut out);
        assert_eq!(out, br#""a\uD83D\"\uD83D\uDE00\uDE00""#);
        // The same bytes in Flink's form are invalid UTF-8, decoded as Java decodes them.
        out.clear();
        write_image_string(&text, ImageForm::Flink, &mut out);
        assert_eq!(out, "\"a\u{fffd}\\\"\\uD83D\\uDE00\u{fffd}\"".as_bytes());
    }

    #[test]
    fn flink_string_with_invalid_bytes() {
        let mut out = Vec::new();
        write_flink_string(&[b'a', 0xff, b'"'], &mut out);
        assert_eq!(out, b"\"a\xef\xbf\xbd\\\"\"");
    }
}
