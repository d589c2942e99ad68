//! Percent-encoding of URL path segments (subjects may hold `/`, `:` or spaces).

/// Encodes one path segment, keeping only RFC 3986 unreserved characters literal.
pub(crate) fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes in one path segment; `None` if the result is not UTF-8 or an escape
/// is malformed (the dev registry's side of [`encode_segment`]).
#[cfg_attr(not(feature = "dev"), allow(dead_code))]
pub(crate) fn decode_segment(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_awkward_subjects() {
        for s in ["plain-value", "a/b c:d%e", "ünï", ""] {
            assert_eq!(decode_segment(&encode_segment(s)).as_deref(), Some(s));
        }
        assert_eq!(encode_segment("a/b"), "a%2Fb");
        assert_eq!(decode_segment("%zz"), None);
        assert_eq!(decode_segment("%4"), None);
    }
}
