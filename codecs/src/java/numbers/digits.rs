//! Java's decimal digits (`Character.digit` for radix 10) and the pieces every grammar splits a text into.

/// Code points of the `0` of every BMP run of ten decimal digits (Unicode category Nd)
/// that Java's `Character.digit(char, 10)` accepts; identical in Java 17 and Java 25.
/// Supplementary digits are surrogate pairs in Java's UTF-16 strings, so never digits.
const BMP_DIGIT_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// Java `Character.digit(c, 10)`: the value of an ASCII or other BMP decimal digit.
pub(super) fn java_digit(c: char) -> Option<u8> {
    if c.is_ascii_digit() {
        return Some(c as u8 - b'0');
    }
    let code = u32::from(c);
    let run = BMP_DIGIT_ZEROS.partition_point(|&zero| zero <= code);
    let zero = BMP_DIGIT_ZEROS[run.checked_sub(1)?];
    u8::try_from(code - zero).ok().filter(|&value| value < 10)
}

/// Splits an optional leading `-` or `+`; returns (negative, rest).
pub(super) fn split_sign(text: &str) -> (bool, &str) {
    if let Some(rest) = text.strip_prefix('-') {
        (true, rest)
    } else {
        (false, text.strip_prefix('+').unwrap_or(text))
    }
}

/// Splits `text` after its longest prefix of bytes matching `keep`.
pub(super) fn split_while(text: &str, keep: impl Fn(u8) -> bool) -> (&str, &str) {
    let end = text.bytes().position(|b| !keep(b)).unwrap_or(text.len());
    text.split_at(end)
}

/// Parses ASCII decimal digits into an i64, saturating at ±2^40 (far beyond any
/// exponent that still matters); `None` when `digits` is empty or not all digits.
pub(super) fn saturating_exponent(negative: bool, digits: &str) -> Option<i64> {
    const CAP: i64 = 1 << 40;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits
        .bytes()
        .fold(0i64, |acc, b| (acc * 10 + i64::from(b - b'0')).min(CAP));
    Some(if negative { -magnitude } else { magnitude })
}
