//! Jackson's input encoding detection (`ByteSourceJsonBootstrapper`): a UTF-8 byte-order
//! mark is skipped, UTF-16 and UTF-32 (with or without a mark, recognised by their zero
//! bytes) are transcoded to UTF-8 before tokenising.

use std::borrow::Cow;

/// The message as UTF-8 bytes, borrowed when it already is UTF-8.
pub(crate) fn as_utf8(message: &[u8]) -> Cow<'_, [u8]> {
    if let Some(rest) = message.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return Cow::Borrowed(rest);
    }
    match detect(message) {
        Encoding::Utf8 => Cow::Borrowed(message),
        Encoding::Utf16 { big_endian, bom } => {
            let body = &message[if bom { 2 } else { 0 }..];
            let units = body.chunks(2).map(|c| {
                let pair = [c[0], *c.get(1).unwrap_or(&0)];
                if big_endian {
                    u16::from_be_bytes(pair)
                } else {
                    u16::from_le_bytes(pair)
                }
            });
            let text: String = char::decode_utf16(units)
                .map(|c| c.unwrap_or('?'))
                .collect();
            Cow::Owned(text.into_bytes())
        }
        Encoding::Utf32 { big_endian, bom } => {
            let body = &message[if bom { 4 } else { 0 }..];
            let text: String = body
                .chunks(4)
                .map(|c| {
                    let mut quad = [0u8; 4];
                    quad[..c.len()].copy_from_slice(c);
                    let v = if big_endian {
                        u32::from_be_bytes(quad)
                    } else {
                        u32::from_le_bytes(quad)
                    };
                    char::from_u32(v).unwrap_or('?')
                })
                .collect();
            Cow::Owned(text.into_bytes())
        }
    }
}

enum Encoding {
    Utf8,
    Utf16 { big_endian: bool, bom: bool },
    Utf32 { big_endian: bool, bom: bool },
}

fn detect(m: &[u8]) -> Encoding {
    if m.len() >= 4 {
        let quad = u32::from_be_bytes([m[0], m[1], m[2], m[3]]);
        match quad {
            0x0000_FEFF => {
                return Encoding::Utf32 {
                    big_endian: true,
                    bom: true,
                }
            }
            0xFFFE_0000 => {
                return Encoding::Utf32 {
                    big_endian: false,
                    bom: true,
                }
            }
            _ => {}
        }
        if quad >> 8 == 0 {
            return Encoding::Utf32 {
                big_endian: true,
                bom: false,
            };
        }
        if quad & 0x00FF_FFFF == 0 {
            return Encoding::Utf32 {
                big_endian: false,
                bom: false,
            };
        }
    }
    if m.len() >= 2 {
        let pair = u16::from_be_bytes([m[0], m[1]]);
        match pair {
            0xFEFF => {
                return Encoding::Utf16 {
                    big_endian: true,
                    bom: true,
                }
            }
            0xFFFE => {
                return Encoding::Utf16 {
                    big_endian: false,
                    bom: true,
                }
            }
            _ => {}
        }
        if pair & 0xFF00 == 0 {
            return Encoding::Utf16 {
                big_endian: true,
                bom: false,
            };
        }
        if pair & 0x00FF == 0 {
            return Encoding::Utf16 {
                big_endian: false,
                bom: false,
            };
        }
    }
    Encoding::Utf8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_passes_through_and_bom_is_skipped() {
        assert!(matches!(as_utf8(b"{\"a\":1}"), Cow::Borrowed(b"{\"a\":1}")));
        assert_eq!(&*as_utf8(b"\xEF\xBB\xBF{}"), b"{}");
    }

    #[test]
    fn utf16_and_utf32_are_transcoded() {
        let le: Vec<u8> = "{\"a\":\"é\"}"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(&*as_utf8(&le), "{\"a\":\"é\"}".as_bytes());
        let be: Vec<u8> = "{}".encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        assert_eq!(&*as_utf8(&be), b"{}");
        let be32: Vec<u8> = "{}"
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        assert_eq!(&*as_utf8(&be32), b"{}");
    }
}
