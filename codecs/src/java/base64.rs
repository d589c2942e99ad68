//! Jackson's base64 as flink-json 2.2.0 uses it for BINARY/VARBINARY (spec §1.5, §1.8).
//!
//! The variant is Jackson's default, `MIME-NO-LINEFEEDS`: the standard alphabet
//! (`A-Z a-z 0-9 + /`), `=` padding **required** on read, no line feeds on write.
//!
//! Jackson has two decoders and Flink's two JSON decoders each use one of them:
//!
//! * the **parser decoder** (default, `json.decode.json-parser.enabled=true`) calls
//!   `JsonParser.getBinaryValue()`, which decodes straight from the raw JSON string bytes,
//!   escapes included (`UTF8StreamJsonParser._decodeBase64`): [`decode_base64_parser`];
//! * the **tree decoder** calls `JsonNode.binaryValue()` = `Base64Variant.decode` over the
//!   unescaped, `String.trim()`-ed text: [`decode_base64_tree`].
//!
//! Both accept exactly the same texts with two exceptions, both parser-only quirks of
//! escaped padding (`\u003d`, the JSON escape of `=`): at the first position of a
//! 4-character unit it is skipped like white space (`\u003dAA==` decodes to `[0]`), at the
//! second position it corrupts the unit instead of failing (`A\u003d==` decodes to
//! `[0xFF]`). The tree decoder rejects both. Otherwise they agree on
//! accept/reject and on the bytes, and differ only in error messages:
//!
//! | input | parser decoder | tree decoder |
//! |---|---|---|
//! | `""`, only white space | empty | empty |
//! | white space (code ≤ 0x20) before a unit | skipped | skipped (and trimmed at both ends) |
//! | white space inside a unit | error | error |
//! | data after a padded unit (`AA==AA==`) | next unit | next unit |
//! | `A`, `AA=` (string ends inside a unit) | "Illegal character '\"' …" | "Unexpected end of base64-encoded String …" |
//! | `AA`, `AAA` (padding missing) | "Unexpected end …" | "Unexpected end …" |
//! | `AA=x` | "Illegal character 'x' …" | "… 'x' …: expected padding character '='" |
//!
//! Parser-decoder messages are prefixed `Failed to decode VALUE_STRING as base64
//! (MIME-NO-LINEFEEDS): ` when Jackson raises them as `IllegalArgumentException`; Jackson
//! then appends a source location (`\n at [Source: …]`), which is not reproduced. Tree
//! messages carry `TextNode`'s prefix `Cannot access contents of TextNode as binary due to
//! broken Base64 encoding: `.

/// Why a base64 text did not decode; the message is Jackson's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Base64Error(pub(crate) String);

/// The variant's name as Jackson prints it.
const VARIANT: &str = "MIME-NO-LINEFEEDS";
/// `Base64Variant.BASE64_VALUE_INVALID`.
const INVALID: i32 = -1;
/// `Base64Variant.BASE64_VALUE_PADDING`.
const PADDING: i32 = -2;
const QUOTE: i32 = b'"' as i32;
const SPACE: i32 = 0x20;
/// Full 3-byte units between two `\n` escapes Jackson's generator writes for this variant
/// (`Integer.MAX_VALUE >> 2`; only reachable with inputs above 1.6 GB).
const UNITS_PER_LINE: usize = (i32::MAX >> 2) as usize;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `JsonNode.binaryValue()` on a text node: `Base64Variant.decode(text.trim())`. `text` is
/// the unescaped string content (UTF-8). Appends the bytes to `out` (unchanged on error).
pub(crate) fn decode_base64_tree(text: &[u8], out: &mut Vec<u8>) -> Result<(), Base64Error> {
    let start = out.len();
    let result = variant_decode(&java_chars(text), out);
    result.map_err(|message| {
        out.truncate(start);
        Base64Error(format!(
            "Cannot access contents of TextNode as binary due to broken Base64 encoding: {message}"
        ))
    })
}

/// `JsonParser.getBinaryValue()` on a string token the parser has not read yet: decodes
/// `raw`, the bytes **between the quotes exactly as they appear in the JSON message**
/// (escape sequences not yet resolved). Appends the bytes to `out` (unchanged on error).
#[cfg(test)]
pub(crate) fn decode_base64_parser(raw: &[u8], out: &mut Vec<u8>) -> Result<(), Base64Error> {
    decode_base64_parser_at(raw, out).map_err(|(error, _)| error)
}

/// [`decode_base64_parser`], also telling on error how far Jackson's input pointer got,
/// in bytes from the start of `raw`; `raw.len() + 1` means the closing quote was consumed.
/// Jackson leaves the token unfinished on error, so a caller that goes on parsing (as
/// Flink does with `ignore-parse-errors`) resumes skipping the string from there.
pub(crate) fn decode_base64_parser_at(
    raw: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), (Base64Error, usize)> {
    let start = out.len();
    let mut input = RawInput { raw, pos: 0 };
    let result = parser_decode(&mut input, out);
    result.map_err(|failure| {
        out.truncate(start);
        let message = match failure {
            Failure::Argument(message) => {
                format!("Failed to decode VALUE_STRING as base64 ({VARIANT}): {message}")
            }
            Failure::Parse(message) => message,
        };
        (Base64Error(message), input.pos)
    })
}

/// Appends the base64 text of `bytes` (no quotes) as Jackson's `writeBinary` writes it with
/// the default variant: padded, no line breaks (except the escaped `\n` Jackson inserts
/// after every 536,870,911 full units, i.e. never below 1.6 GB of input).
pub(crate) fn encode_base64(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len().div_ceil(3) * 4);
    let mut chunks = bytes.chunks_exact(3);
    let mut units_before_lf = UNITS_PER_LINE;
    for chunk in chunks.by_ref() {
        let b24 = u32::from(chunk[0]) << 16 | u32::from(chunk[1]) << 8 | u32::from(chunk[2]);
        push_sextets(out, b24, 4);
        units_before_lf -= 1;
        if units_before_lf == 0 {
            out.extend_from_slice(b"\\n");
            units_before_lf = UNITS_PER_LINE;
        }
    }
    match *chunks.remainder() {
        [a] => {
            push_sextets(out, u32::from(a) << 16, 2);
            out.extend_from_slice(b"==");
        }
        [a, b] => {
            push_sextets(out, u32::from(a) << 16 | u32::from(b) << 8, 3);
            out.push(b'=');
        }
        _ => {}
    }
}

/// Pushes the first `count` 6-bit groups of a 24-bit value.
fn push_sextets(out: &mut Vec<u8>, b24: u32, count: usize) {
    for shift in [18, 12, 6, 0].into_iter().take(count) {
        out.push(ALPHABET[((b24 >> shift) & 0x3F) as usize]);
    }
}

/// `Base64Variant.decodeBase64Char`: 0..=63, [`PADDING`] for `=`, else [`INVALID`].
fn decode_char(ch: i32) -> i32 {
    match u8::try_from(ch) {
        Ok(b @ b'A'..=b'Z') => i32::from(b - b'A'),
        Ok(b @ b'a'..=b'z') => i32::from(b - b'a') + 26,
        Ok(b @ b'0'..=b'9') => i32::from(b - b'0') + 52,
        Ok(b'+') => 62,
        Ok(b'/') => 63,
        Ok(b'=') => PADDING,
        _ => INVALID,
    }
}

// ---------------------------------------------------------------------------------------
// Tree decoder: `Base64Variant.decode(String, ByteArrayBuilder)`.

/// The UTF-16 units of the text after Java's `String.trim()` (drops units <= U+0020 at
/// both ends).
fn java_chars(text: &[u8]) -> Vec<u16> {
    let units: Vec<u16> = String::from_utf8_lossy(text).encode_utf16().collect();
    let first = units.iter().position(|&u| u > 0x20);
    let last = units.iter().rposition(|&u| u > 0x20);
    match (first, last) {
        (Some(first), Some(last)) => units[first..=last].to_vec(),
        _ => Vec::new(),
    }
}

/// `Base64Variant.decode` for `MIME-NO-LINEFEEDS`; the error is the
/// `IllegalArgumentException` message.
fn variant_decode(chars: &[u16], out: &mut Vec<u8>) -> Result<(), String> {
    let mut ptr = 0;
    let len = chars.len();
    let next = |ptr: &mut usize| {
        let ch = i32::from(chars[*ptr]);
        *ptr += 1;
        ch
    };
    loop {
        // White space only between units.
        let mut ch;
        loop {
            if ptr >= len {
                return Ok(());
            }
            ch = next(&mut ptr);
            if ch > SPACE {
                break;
            }
        }
        let mut bits = decode_char(ch);
        if bits < 0 {
            return Err(invalid_char_message(ch, 0, None));
        }
        let mut data = bits;
        if ptr >= len {
            return Err(missing_padding_message());
        }
        ch = next(&mut ptr);
        bits = decode_char(ch);
        if bits < 0 {
            return Err(invalid_char_message(ch, 1, None));
        }
        data = (data << 6) | bits;
        if ptr >= len {
            return Err(missing_padding_message());
        }
        ch = next(&mut ptr);
        bits = decode_char(ch);
        if bits < 0 {
            if bits != PADDING {
                return Err(invalid_char_message(ch, 2, None));
            }
            if ptr >= len {
                return Err(missing_padding_message());
            }
            ch = next(&mut ptr);
            if ch != i32::from(b'=') {
                return Err(invalid_char_message(
                    ch,
                    3,
                    Some("expected padding character '='"),
                ));
            }
            out.push((data >> 4) as u8);
            continue;
        }
        data = (data << 6) | bits;
        if ptr >= len {
            return Err(missing_padding_message());
        }
        ch = next(&mut ptr);
        bits = decode_char(ch);
        if bits < 0 {
            if bits != PADDING {
                return Err(invalid_char_message(ch, 3, None));
            }
            push_two(out, data >> 2);
        } else {
            push_three(out, (data << 6) | bits);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Parser decoder: `UTF8StreamJsonParser._decodeBase64` over the raw string bytes.

/// How the parser decoder failed: Jackson raises `IllegalArgumentException`s (wrapped by
/// `getBinaryValue` with a prefix) and `JsonParseException`s (passed through).
enum Failure {
    Argument(String),
    Parse(String),
}

/// The raw string bytes followed by the closing quote.
struct RawInput<'a> {
    raw: &'a [u8],
    pos: usize,
}

impl RawInput<'_> {
    /// The next input byte (0..=255); the closing quote after the content.
    fn next(&mut self) -> Result<i32, Failure> {
        let byte = match self.raw.get(self.pos) {
            Some(&b) => i32::from(b),
            None if self.pos == self.raw.len() => QUOTE,
            // Only reachable when `raw` ends inside an escape, which a JSON string cannot.
            None => {
                return Err(Failure::Parse(
                    "Unexpected end-of-input in character escape sequence".to_string(),
                ))
            }
        };
        self.pos += 1;
        Ok(byte)
    }

    /// `UTF8StreamJsonParser._decodeEscaped`, after the backslash: the escaped UTF-16 unit.
    fn escaped(&mut self) -> Result<i32, Failure> {
        let c = self.next()?;
        let unit = match u8::try_from(c).unwrap_or(0) {
            b'b' => 0x08,
            b't' => 0x09,
            b'n' => 0x0A,
            b'f' => 0x0C,
            b'r' => 0x0D,
            b'"' | b'/' | b'\\' => c,
            b'u' => {
                let mut value = 0;
                for _ in 0..4 {
                    let ch = self.next()?;
                    let digit = u8::try_from(ch)
                        .ok()
                        .and_then(|b| char::from(b).to_digit(16));
                    match digit {
                        Some(digit) => value = (value << 4) | digit as i32,
                        None => {
                            return Err(Failure::Parse(format!(
                                "Unexpected character ({}): expected a hex-digit for character escape sequence",
                                char_desc(ch)
                            )))
                        }
                    }
                }
                value
            }
            _ => {
                let ch = self.char_for_error(c)?;
                return Err(Failure::Parse(format!(
                    "Unrecognized character escape {}",
                    char_desc(ch)
                )));
            }
        };
        Ok(unit)
    }

    /// `_decodeCharForError`: the code point of a UTF-8 sequence starting with `first`,
    /// narrowed to a Java `char` as Jackson does.
    fn char_for_error(&mut self, first: i32) -> Result<i32, Failure> {
        let mut c = first;
        if c > 0x7F {
            let needed = if c & 0xE0 == 0xC0 {
                c &= 0x1F;
                1
            } else if c & 0xF0 == 0xE0 {
                c &= 0x0F;
                2
            } else if c & 0xF8 == 0xF0 {
                c &= 0x07;
                3
            } else {
                return Err(Failure::Parse(format!("Invalid UTF-8 start byte 0x{c:x}")));
            };
            for _ in 0..needed {
                let d = self.next()?;
                if d & 0xC0 != 0x80 {
                    return Err(Failure::Parse(format!("Invalid UTF-8 middle byte 0x{d:x}")));
                }
                c = (c << 6) | (d & 0x3F);
            }
        }
        Ok(c & 0xFFFF)
    }

    /// `ParserBase._decodeBase64Escape` (the `int` overload the UTF-8 parser calls).
    fn base64_escape(&mut self, ch: i32, index: usize) -> Result<i32, Failure> {
        if ch != i32::from(b'\\') {
            return Err(Failure::Argument(invalid_char_message(ch, index, None)));
        }
        let unescaped = self.escaped()?;
        if unescaped <= SPACE && index == 0 {
            return Ok(-1);
        }
        let bits = decode_char(unescaped);
        if bits == INVALID {
            return Err(Failure::Argument(invalid_char_message(
                unescaped, index, None,
            )));
        }
        // `PADDING` is returned even at index 0 or 1: Jackson's quirk.
        Ok(bits)
    }
}

/// `UTF8StreamJsonParser._decodeBase64` with Jackson's `int` arithmetic (which matters
/// for the escaped-padding quirk).
fn parser_decode(input: &mut RawInput<'_>, out: &mut Vec<u8>) -> Result<(), Failure> {
    let missing_padding = |input: &mut RawInput<'_>| {
        // Jackson steps back onto the quote before reporting.
        input.pos -= 1;
        Failure::Parse(missing_padding_message())
    };
    loop {
        let mut ch;
        loop {
            ch = input.next()?;
            if ch > SPACE {
                break;
            }
        }
        let mut bits = decode_char(ch);
        if bits < 0 {
            if ch == QUOTE {
                return Ok(());
            }
            bits = input.base64_escape(ch, 0)?;
            if bits < 0 {
                // escaped white space (or escaped padding) between units
                continue;
            }
        }
        let mut data = bits;

        ch = input.next()?;
        bits = decode_char(ch);
        if bits < 0 {
            bits = input.base64_escape(ch, 1)?;
        }
        data = (data << 6) | bits;

        ch = input.next()?;
        bits = decode_char(ch);
        if bits < 0 {
            if bits != PADDING {
                if ch == QUOTE {
                    out.push((data >> 4) as u8);
                    return Err(missing_padding(input));
                }
                bits = input.base64_escape(ch, 2)?;
            }
            if bits == PADDING {
                ch = input.next()?;
                if ch != i32::from(b'=') && input.base64_escape(ch, 3)? != PADDING {
                    return Err(Failure::Argument(invalid_char_message(
                        ch,
                        3,
                        Some("expected padding character '='"),
                    )));
                }
                out.push((data >> 4) as u8);
                continue;
            }
        }
        data = (data << 6) | bits;

        ch = input.next()?;
        bits = decode_char(ch);
        if bits < 0 {
            if bits != PADDING {
                if ch == QUOTE {
                    push_two(out, data >> 2);
                    return Err(missing_padding(input));
                }
                bits = input.base64_escape(ch, 3)?;
            }
            if bits == PADDING {
                push_two(out, data >> 2);
                continue;
            }
        }
        push_three(out, (data << 6) | bits);
    }
}

// ---------------------------------------------------------------------------------------
// Shared pieces.

/// `ByteArrayBuilder.appendTwoBytes`.
fn push_two(out: &mut Vec<u8>, b16: i32) {
    out.push((b16 >> 8) as u8);
    out.push(b16 as u8);
}

/// `ByteArrayBuilder.appendThreeBytes`.
fn push_three(out: &mut Vec<u8>, b24: i32) {
    out.push((b24 >> 16) as u8);
    out.push((b24 >> 8) as u8);
    out.push(b24 as u8);
}

/// `Base64Variant.missingPaddingMessage()`.
fn missing_padding_message() -> String {
    format!(
        "Unexpected end of base64-encoded String: base64 variant '{VARIANT}' expects padding \
         (one or more '=' characters) at the end. This Base64Variant might have been \
         incorrectly configured"
    )
}

/// `_reportInvalidBase64` / `reportInvalidBase64Char` (identical texts); `ch` is a UTF-16
/// unit (or, in the parser decoder, a raw byte read as Latin-1).
fn invalid_char_message(ch: i32, index: usize, suffix: Option<&str>) -> String {
    let position = index + 1;
    let mut message = if ch <= SPACE {
        format!(
            "Illegal white space character (code 0x{ch:x}) as character #{position} of 4-char \
             base64 unit: can only used between units"
        )
    } else if ch == i32::from(b'=') {
        format!(
            "Unexpected padding character ('=') as character #{position} of 4-char base64 \
             unit: padding only legal as 3rd or 4th character"
        )
    } else if !java_is_defined(ch) || java_is_iso_control(ch) {
        format!("Illegal character (code 0x{ch:x}) in base64 content")
    } else {
        format!(
            "Illegal character '{}' (code 0x{ch:x}) in base64 content",
            java_char(ch)
        )
    };
    if let Some(suffix) = suffix {
        message.push_str(": ");
        message.push_str(suffix);
    }
    message
}

/// `ParserMinimalBase._getCharDesc`.
fn char_desc(ch: i32) -> String {
    if java_is_iso_control(ch) {
        format!("(CTRL-CHAR, code {ch})")
    } else if ch > 255 {
        format!("'{}' (code {ch} / 0x{ch:x})", java_char(ch))
    } else {
        format!("'{}' (code {ch})", java_char(ch))
    }
}

/// A UTF-16 unit as text; a lone surrogate shows as `?`, as Java's UTF-8 encoder writes it.
fn java_char(unit: i32) -> char {
    u32::try_from(unit)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('?')
}

/// `Character.isISOControl`.
fn java_is_iso_control(unit: i32) -> bool {
    (0..=0x1F).contains(&unit) || (0x7F..=0x9F).contains(&unit)
}

/// `Character.isDefined` for a UTF-16 unit, approximated: the noncharacters are undefined,
/// everything else defined. (Java's answer for unassigned code points depends on the JVM's
/// Unicode version; it only changes the wording of an error message.)
fn java_is_defined(unit: i32) -> bool {
    !((0xFDD0..=0xFDEF).contains(&unit) || unit == 0xFFFE || unit == 0xFFFF)
}

#[cfg(test)]
mod tests {
    //! Expected bytes and messages were produced by flink-shaded-jackson 2.18.2 on JDK 17:
    //! `JsonParser.getBinaryValue()` on `{"b":"<raw>"}` (parser) and
    //! `readTree(...).get("b").binaryValue()` (tree).

    use super::*;

    const MISSING: &str = "Unexpected end of base64-encoded String: base64 variant \
        'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the end. This \
        Base64Variant might have been incorrectly configured";

    fn parser(raw: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        decode_base64_parser(raw.as_bytes(), &mut out).map_err(|e| e.0)?;
        Ok(out)
    }

    fn tree(text: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        decode_base64_tree(text.as_bytes(), &mut out).map_err(|e| e.0)?;
        Ok(out)
    }

    fn parser_arg(message: &str) -> Result<Vec<u8>, String> {
        Err(format!(
            "Failed to decode VALUE_STRING as base64 (MIME-NO-LINEFEEDS): {message}"
        ))
    }

    fn tree_arg(message: &str) -> Result<Vec<u8>, String> {
        Err(format!(
            "Cannot access contents of TextNode as binary due to broken Base64 encoding: {message}"
        ))
    }

    fn encoded(bytes: &[u8]) -> String {
        let mut out = Vec::new();
        encode_base64(bytes, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn both_decoders_agree_on_valid_text() {
        // (raw JSON string content, unescaped text, bytes)
        for (raw, text, bytes) in [
            ("", "", &[][..]),
            ("AAEC//s=", "AAEC//s=", &[0, 1, 2, 255, 251][..]),
            ("AAEC/w==", "AAEC/w==", &[0, 1, 2, 255][..]),
            ("AA==", "AA==", &[0][..]),
            ("AB==", "AB==", &[0][..]), // non-zero unused bits are ignored
            ("AAE=", "AAE=", &[0, 1][..]),
            ("AAA=", "AAA=", &[0, 0][..]),
            ("AA==AA==", "AA==AA==", &[0, 0][..]), // data after padding: next unit
            (" AA==", " AA==", &[0][..]),
            ("AA== ", "AA== ", &[0][..]),
            ("  ", "  ", &[][..]),
            ("\\n", "\n", &[][..]),
            ("AAAA\\nAAAA", "AAAA\nAAAA", &[0, 0, 0, 0, 0, 0][..]),
            ("AAAA\tAAAA", "AAAA\tAAAA", &[0, 0, 0, 0, 0, 0][..]),
            ("AAAA\\n", "AAAA\n", &[0, 0, 0][..]),
            ("AAAA\\/AAA", "AAAA/AAA", &[0, 0, 0, 0xFC, 0, 0][..]),
            ("\\/\\/\\/\\/", "////", &[0xFF, 0xFF, 0xFF][..]),
            ("\\u0041A==", "AA==", &[0][..]),
            ("AA\\u003d=", "AA==", &[0][..]),
            ("AA=\\u003d", "AA==", &[0][..]),
            ("AAA\\u003d", "AAA=", &[0, 0][..]),
            (
                "SGVsbG8sIHdvcmxkIQ==",
                "SGVsbG8sIHdvcmxkIQ==",
                &b"Hello, world!"[..],
            ),
        ] {
            assert_eq!(parser(raw), Ok(bytes.to_vec()), "parser {raw:?}");
            assert_eq!(tree(text), Ok(bytes.to_vec()), "tree {text:?}");
        }
    }

    #[test]
    fn escaped_padding_quirks_of_the_parser() {
        // Skipped like white space at the start of a unit; garbage at the second position.
        assert_eq!(parser("\\u003dAA=="), Ok(vec![0]));
        assert_eq!(parser("A\\u003d=="), Ok(vec![0xFF]));
        assert_eq!(
            tree("=AA=="),
            tree_arg(
                "Unexpected padding character ('=') as character #1 of 4-char base64 unit: \
                 padding only legal as 3rd or 4th character"
            )
        );
        assert_eq!(
            tree("A==="),
            tree_arg(
                "Unexpected padding character ('=') as character #2 of 4-char base64 unit: \
                 padding only legal as 3rd or 4th character"
            )
        );
    }

    #[test]
    fn missing_padding() {
        for text in ["AAEC/w", "AA", "AAA"] {
            assert_eq!(parser(text), Err(MISSING.to_string()), "{text}");
            assert_eq!(tree(text), tree_arg(MISSING), "{text}");
        }
        // The string ends where the parser expects a 2nd char / a padding char.
        for text in ["A", "AA="] {
            assert_eq!(
                parser(text),
                parser_arg("Illegal character '\"' (code 0x22) in base64 content"),
                "{text}"
            );
            assert_eq!(tree(text), tree_arg(MISSING), "{text}");
        }
        // Trailing white space: inside the unit for the parser, trimmed by the tree.
        assert_eq!(
            parser("AAE\t"),
            parser_arg(
                "Illegal white space character (code 0x9) as character #4 of 4-char base64 \
                 unit: can only used between units"
            )
        );
        assert_eq!(tree("AAE\t"), tree_arg(MISSING));
    }

    #[test]
    fn illegal_characters() {
        let url_safe = "Illegal character '-' (code 0x2d) in base64 content";
        assert_eq!(parser("-_=="), parser_arg(url_safe));
        assert_eq!(tree("-_=="), tree_arg(url_safe));
        let padding_first = "Unexpected padding character ('=') as character #1 of 4-char \
            base64 unit: padding only legal as 3rd or 4th character";
        assert_eq!(parser("=AAA"), parser_arg(padding_first));
        assert_eq!(tree("=AAA"), tree_arg(padding_first));
        let padding_second = "Unexpected padding character ('=') as character #2 of 4-char \
            base64 unit: padding only legal as 3rd or 4th character";
        assert_eq!(parser("A=AA"), parser_arg(padding_second));
        // After a padding char only another padding char may follow.
        assert_eq!(
            parser("AA=A"),
            parser_arg("Illegal character 'A' (code 0x41) in base64 content")
        );
        assert_eq!(
            tree("AA=x"),
            tree_arg(
                "Illegal character 'x' (code 0x78) in base64 content: expected padding \
                 character '='"
            )
        );
        // The parser sees raw UTF-8 bytes (as Latin-1), the tree UTF-16 units.
        assert_eq!(
            parser("é"),
            parser_arg("Illegal character 'Ã' (code 0xc3) in base64 content")
        );
        assert_eq!(
            tree("é"),
            tree_arg("Illegal character 'é' (code 0xe9) in base64 content")
        );
        assert_eq!(
            parser("\u{85}"),
            parser_arg("Illegal character 'Â' (code 0xc2) in base64 content")
        );
        assert_eq!(
            parser("\u{7f}"),
            parser_arg("Illegal character (code 0x7f) in base64 content")
        );
        assert_eq!(
            tree("AAAA\u{7f}"),
            tree_arg("Illegal character (code 0x7f) in base64 content")
        );
        assert_eq!(
            tree("\u{1F600}"),
            tree_arg("Illegal character '?' (code 0xd83d) in base64 content")
        );
        assert_eq!(
            parser("AA\\\"="),
            parser_arg("Illegal character '\"' (code 0x22) in base64 content")
        );
    }

    #[test]
    fn white_space_inside_a_unit() {
        for (raw, text, code, position) in [
            ("AA AA", "AA AA", "0x20", 3),
            ("AA\\n==", "AA\n==", "0xa", 3),
            ("A\\nA==", "A\nA==", "0xa", 2),
            ("AAA\\u0020", "AAA AAAA", "0x20", 4),
        ] {
            let message = format!(
                "Illegal white space character (code {code}) as character #{position} of \
                 4-char base64 unit: can only used between units"
            );
            assert_eq!(parser(raw), parser_arg(&message), "{raw}");
            assert_eq!(tree(text), tree_arg(&message), "{text}");
        }
    }

    #[test]
    fn bad_escapes_in_the_raw_string() {
        assert_eq!(
            parser("AAAA\\x"),
            Err("Unrecognized character escape 'x' (code 120)".to_string())
        );
        assert_eq!(
            parser("AAAA\\u00zz"),
            Err(
                "Unexpected character ('z' (code 122)): expected a hex-digit for character \
                 escape sequence"
                    .to_string()
            )
        );
        assert_eq!(
            parser("\\\u{1}"),
            Err("Unrecognized character escape (CTRL-CHAR, code 1)".to_string())
        );
        // An escape is only decoded when the decoder reaches it.
        assert_eq!(
            parser("-\\x"),
            parser_arg("Illegal character '-' (code 0x2d) in base64 content")
        );
    }

    #[test]
    fn parser_reports_where_it_stopped() {
        let mut out = Vec::new();
        // Missing padding: the closing quote is left unread.
        let (_, at) = decode_base64_parser_at(b"AA", &mut out).unwrap_err();
        assert_eq!(at, 2);
        // The quote where a 2nd char was expected is consumed.
        let (_, at) = decode_base64_parser_at(b"A", &mut out).unwrap_err();
        assert_eq!(at, 2);
        let (_, at) = decode_base64_parser_at(b"AAAA-AAA", &mut out).unwrap_err();
        assert_eq!(at, 5);
        assert!(out.is_empty());
    }

    #[test]
    fn errors_leave_out_untouched_and_success_appends() {
        let mut out = vec![9];
        assert!(decode_base64_parser(b"AAAAAA", &mut out).is_err());
        assert!(decode_base64_tree(b"AAAAAA", &mut out).is_err());
        assert_eq!(out, [9]);
        decode_base64_parser(b"AQ==", &mut out).unwrap();
        decode_base64_tree(b"Ag==", &mut out).unwrap();
        assert_eq!(out, [9, 1, 2]);
    }

    #[test]
    fn encode() {
        assert_eq!(encoded(&[0, 1, 2, 255, 251]), "AAEC//s=");
        assert_eq!(encoded(&[]), "");
        assert_eq!(encoded(&[0]), "AA==");
        assert_eq!(encoded(&[0, 1]), "AAE=");
        assert_eq!(encoded(&[0xFF, 0xFF, 0xFF]), "////");
        assert_eq!(encoded(b"Hello, world!"), "SGVsbG8sIHdvcmxkIQ==");
        // No line feeds for long inputs.
        let long = encoded(&[0xAB; 300]);
        assert_eq!(long.len(), 400);
        assert!(long.bytes().all(|b| ALPHABET.contains(&b)));
        let mut out = b"x".to_vec();
        encode_base64(&[1], &mut out);
        assert_eq!(out, b"xAQ==");
    }

    #[test]
    fn round_trip() {
        let bytes: Vec<u8> = (0..=255).collect();
        for len in 0..40 {
            let mut text = Vec::new();
            encode_base64(&bytes[..len], &mut text);
            let mut back = Vec::new();
            decode_base64_parser(&text, &mut back).unwrap();
            assert_eq!(back, &bytes[..len]);
            back.clear();
            decode_base64_tree(&text, &mut back).unwrap();
            assert_eq!(back, &bytes[..len]);
        }
    }
}
