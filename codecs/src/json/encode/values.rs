//! Scalar values read from a binary row slot and written as flink-json 2.2.0 writes them
//! (spec §1.8): the spelling is that of the Jackson node `RowDataToJsonConverters` builds
//! for the type (`IntNode`, `ShortNode`, `LongNode`, `FloatNode`, `DoubleNode`,
//! `DecimalNode`, `TextNode`, `BinaryNode`).

use super::escape::write_image_string;
use crate::error::CodecError;
use crate::flink_binary::java_detail::ImageForm;
use crate::flink_binary::slots::{bad, Slots};
use crate::java::numbers::JavaFloatText;
use crate::java::{base64, numbers, temporal};
use crate::json::options::JsonEncodeOptions;

/// A type whose value is written as one JSON scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// `true` / `false` (`BooleanNode`).
    Boolean,
    /// TINYINT (`IntNode` of the byte).
    TinyInt,
    /// SMALLINT (`ShortNode`).
    SmallInt,
    /// INT and INTERVAL YEAR TO MONTH (`IntNode`).
    Int,
    /// BIGINT and INTERVAL DAY TO SECOND (`LongNode`).
    BigInt,
    /// FLOAT (`FloatNode`: `Float.toString`, non-finite values quoted).
    Float,
    /// DOUBLE (`DoubleNode`: `Double.toString`, non-finite values quoted).
    Double,
    /// CHAR / VARCHAR (`TextNode`).
    Text,
    /// BINARY / VARBINARY (`BinaryNode`: base64 string).
    Binary,
    /// DECIMAL (`DecimalNode` of `DecimalData.toBigDecimal()`, declared scale).
    Decimal {
        /// Precision <= 18: the unscaled value sits in the slot.
        compact: bool,
        /// The declared scale.
        scale: i8,
    },
    /// DATE (`yyyy-MM-dd` string).
    Date,
    /// TIME (`HH:mm:ss` string).
    Time,
    /// TIMESTAMP (string in the configured standard).
    Timestamp {
        /// Precision <= 3: the epoch millis sit in the slot (not in a Java-detail image).
        compact: bool,
    },
    /// TIMESTAMP_LTZ (UTC string in the configured standard, with `Z`).
    TimestampLtz {
        /// Precision <= 3: the epoch millis sit in the slot (not in a Java-detail image).
        compact: bool,
    },
}

/// Writes element `i` (slots of `size` bytes) of `slots`, known not to be NULL, of an
/// image in `form`.
pub(crate) fn write_scalar(
    slots: &Slots<'_>,
    i: usize,
    size: usize,
    scalar: Scalar,
    options: &JsonEncodeOptions,
    form: ImageForm,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    match scalar {
        Scalar::Boolean => {
            let value = slots.fixed::<1>(i, size)[0] != 0;
            out.extend_from_slice(if value { b"true" } else { b"false" });
        }
        Scalar::TinyInt => write_integer(i64::from(i8::from_le_bytes(slots.fixed(i, size))), out),
        Scalar::SmallInt => write_integer(i64::from(i16::from_le_bytes(slots.fixed(i, size))), out),
        Scalar::Int => write_integer(i64::from(i32::from_le_bytes(slots.fixed(i, size))), out),
        Scalar::BigInt => write_integer(i64::from_le_bytes(slots.fixed(i, size)), out),
        Scalar::Float => write_float(
            options.float_text,
            f32::from_le_bytes(slots.fixed(i, size)),
            out,
        ),
        Scalar::Double => write_double(
            options.float_text,
            f64::from_le_bytes(slots.fixed(i, size)),
            out,
        ),
        Scalar::Text => write_image_string(slots.var(i, size)?, form, out),
        Scalar::Binary => {
            out.push(b'"');
            base64::encode_base64(slots.var(i, size)?, out);
            out.push(b'"');
        }
        Scalar::Decimal { compact, scale } => {
            let unscaled = read_decimal(slots, i, size, compact)?;
            numbers::write_java_decimal(unscaled, scale, options.decimal_as_plain_number, out);
        }
        Scalar::Date => {
            out.push(b'"');
            temporal::write_date(out, i32::from_le_bytes(slots.fixed(i, size)));
            out.push(b'"');
        }
        Scalar::Time => {
            out.push(b'"');
            temporal::write_time(out, i32::from_le_bytes(slots.fixed(i, size)));
            out.push(b'"');
        }
        Scalar::Timestamp { compact } => {
            let (millis, nanos) = read_timestamp(slots, i, size, form.compact_timestamp(compact))?;
            out.push(b'"');
            temporal::write_timestamp(out, millis, nanos, options.timestamp_standard);
            out.push(b'"');
        }
        Scalar::TimestampLtz { compact } => {
            let (millis, nanos) = read_timestamp(slots, i, size, form.compact_timestamp(compact))?;
            out.push(b'"');
            temporal::write_timestamp_ltz(out, millis, nanos, options.timestamp_standard);
            out.push(b'"');
        }
    }
    Ok(())
}

/// Writes an integer in decimal, as Jackson's `writeNumber(int/long/short)` does.
pub(crate) fn write_integer(value: i64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// Writes a quoted `"NaN"`, `"Infinity"` or `"-Infinity"` for a non-finite value, as Jackson
/// does with `QUOTE_NON_NUMERIC_NUMBERS` (on by default); returns whether it wrote one.
fn write_non_finite(is_nan: bool, is_infinite: bool, positive: bool, out: &mut Vec<u8>) -> bool {
    let text: &[u8] = if is_nan {
        b"\"NaN\""
    } else if is_infinite && positive {
        b"\"Infinity\""
    } else if is_infinite {
        b"\"-Infinity\""
    } else {
        return false;
    };
    out.extend_from_slice(text);
    true
}

/// Writes a FLOAT as `FloatNode` does: `Float.toString`, or a quoted `"NaN"`,
/// `"Infinity"`, `"-Infinity"`; the digits of the job's JVM.
pub(crate) fn write_float(digits: JavaFloatText, value: f32, out: &mut Vec<u8>) {
    if !write_non_finite(value.is_nan(), value.is_infinite(), value > 0.0, out) {
        numbers::write_java_float_as(digits, value, out);
    }
}

/// Writes a DOUBLE as `DoubleNode` does: `Double.toString`, or a quoted `"NaN"`,
/// `"Infinity"`, `"-Infinity"`; the digits of the job's JVM.
pub(crate) fn write_double(digits: JavaFloatText, value: f64, out: &mut Vec<u8>) {
    if !write_non_finite(value.is_nan(), value.is_infinite(), value > 0.0, out) {
        numbers::write_java_double_as(digits, value, out);
    }
}

/// The unscaled value of a DECIMAL: in the slot when compact, else the big-endian two's
/// complement bytes of the variable part (`DecimalData.fromUnscaledBytes`).
fn read_decimal(
    slots: &Slots<'_>,
    i: usize,
    size: usize,
    compact: bool,
) -> Result<i128, CodecError> {
    if compact {
        return Ok(i128::from(i64::from_le_bytes(slots.fixed(i, size))));
    }
    let bytes = slots.var(i, size)?;
    let Some(&first) = bytes.first() else {
        // `new BigInteger(new byte[0])` throws.
        return Err(CodecError::JsonEncode("Zero length BigInteger".into()));
    };
    if bytes.len() > 16 {
        return Err(bad(format!(
            "a decimal of {} bytes does not fit DECIMAL(38)",
            bytes.len()
        )));
    }
    let mut buf = if first & 0x80 != 0 {
        [0xFF; 16]
    } else {
        [0; 16]
    };
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(i128::from_be_bytes(buf))
}

/// Epoch millis and nano-of-millisecond of a TIMESTAMP / TIMESTAMP_LTZ: the millis in the
/// slot when compact, else the millis in the variable part and the nanos in the slot's low
/// word.
fn read_timestamp(
    slots: &Slots<'_>,
    i: usize,
    size: usize,
    compact: bool,
) -> Result<(i64, u32), CodecError> {
    if compact {
        return Ok((i64::from_le_bytes(slots.fixed(i, size)), 0));
    }
    let (at, nanos) = slots.reference(i, size);
    let millis = slots
        .buf
        .get(at..at + 8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .ok_or_else(|| bad("timestamp millis outside the row"))?;
    Ok((i64::from_le_bytes(millis), nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn integers() {
        assert_eq!(text(|o| write_integer(0, o)), "0");
        assert_eq!(text(|o| write_integer(-128, o)), "-128");
        assert_eq!(text(|o| write_integer(i64::MIN, o)), "-9223372036854775808");
        assert_eq!(text(|o| write_integer(i64::MAX, o)), "9223372036854775807");
    }

    #[test]
    fn non_finite_floats_are_quoted() {
        assert_eq!(
            text(|o| write_float(JavaFloatText::Shortest, f32::NAN, o)),
            "\"NaN\""
        );
        assert_eq!(
            text(|o| write_float(JavaFloatText::Shortest, f32::INFINITY, o)),
            "\"Infinity\""
        );
        assert_eq!(
            text(|o| write_float(JavaFloatText::Shortest, f32::NEG_INFINITY, o)),
            "\"-Infinity\""
        );
        assert_eq!(
            text(|o| write_double(JavaFloatText::Shortest, f64::NAN, o)),
            "\"NaN\""
        );
        assert_eq!(
            text(|o| write_double(JavaFloatText::Shortest, f64::INFINITY, o)),
            "\"Infinity\""
        );
        assert_eq!(
            text(|o| write_double(JavaFloatText::Shortest, f64::NEG_INFINITY, o)),
            "\"-Infinity\""
        );
    }

    #[test]
    fn finite_floats_use_java_spelling() {
        assert_eq!(
            text(|o| write_float(JavaFloatText::Shortest, 1.0, o)),
            "1.0"
        );
        assert_eq!(
            text(|o| write_float(JavaFloatText::Shortest, f32::MAX, o)),
            "3.4028235E38"
        );
        assert_eq!(
            text(|o| write_double(JavaFloatText::Shortest, -0.0, o)),
            "-0.0"
        );
        assert_eq!(
            text(|o| write_double(JavaFloatText::Shortest, 1e-5, o)),
            "1.0E-5"
        );
    }
}
