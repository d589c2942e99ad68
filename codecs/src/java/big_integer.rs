//! `java.math.BigInteger`'s two's-complement byte arrays, as Avro decimals and Flink's
//! binary rows (non-compact decimals) hold unscaled values: [`to_byte_array`] is
//! `BigInteger.toByteArray()`, [`from_byte_array`] is `new BigInteger(byte[])`.

/// The minimal big-endian two's-complement bytes of `v`, as `BigInteger.toByteArray()`
/// writes them (zero is `[0]`, -1 is `[0xff]`, 128 is `[0, 0x80]`).
pub fn to_byte_array(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut skip = 0;
    while skip < 15 {
        let (b, next) = (bytes[skip], bytes[skip + 1]);
        let redundant = (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        skip += 1;
    }
    bytes[skip..].to_vec()
}

/// The value of big-endian two's-complement `bytes`, as `new BigInteger(bytes)` reads it;
/// `None` when it does not fit in `i128` (then it has more than 38 digits, so it overflows
/// every DECIMAL). Empty bytes fail with Java's message.
pub fn from_byte_array(bytes: &[u8]) -> Result<Option<i128>, &'static str> {
    let Some(&first) = bytes.first() else {
        return Err("Zero length BigInteger (empty decimal bytes)");
    };
    let negative = first & 0x80 != 0;
    let fill = if negative { 0xff } else { 0x00 };
    let significant = if bytes.len() > 16 {
        let (head, tail) = bytes.split_at(bytes.len() - 16);
        let tail_negative = tail[0] & 0x80 != 0;
        if head.iter().any(|&b| b != fill) || tail_negative != negative {
            return Ok(None);
        }
        tail
    } else {
        bytes
    };
    let mut buf = [fill; 16];
    buf[16 - significant.len()..].copy_from_slice(significant);
    Ok(Some(i128::from_be_bytes(buf)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_byte_array_is_minimal() {
        let cases: &[(i128, &[u8])] = &[
            (0, &[0x00]),
            (-1, &[0xff]),
            (127, &[0x7f]),
            (128, &[0x00, 0x80]),
            (-128, &[0x80]),
            (-129, &[0xff, 0x7f]),
        ];
        for (value, bytes) in cases {
            assert_eq!(to_byte_array(*value), *bytes, "{value}");
            assert_eq!(from_byte_array(bytes), Ok(Some(*value)), "{bytes:02x?}");
        }
    }

    #[test]
    fn from_byte_array_reads_wide_values_and_refuses_empty_ones() {
        let mut wide = vec![0xff; 20];
        wide[19] = 0xfe;
        assert_eq!(from_byte_array(&wide), Ok(Some(-2)));
        let mut huge = vec![0x00; 20];
        huge[1] = 1;
        assert_eq!(from_byte_array(&huge), Ok(None));
        assert!(from_byte_array(&[]).is_err());
    }
}
