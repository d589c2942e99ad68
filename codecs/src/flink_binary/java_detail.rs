//! karrow's one extension of Flink's binary row image: the Java-detail mark.
//!
//! A `BinaryRowData` image cannot hold two details a Java row (`GenericRowData`) can carry:
//! - the nano-of-millisecond of a compact TIMESTAMP / TIMESTAMP_LTZ (p <= 3): the slot
//!   keeps the epoch millis only. Flink's JSON decoder does not cut a parsed fraction to
//!   the declared precision, so a stock source hands such values on;
//! - a lone UTF-16 surrogate in a string: Flink's `StringUtf8Utils.encodeUTF8`, like the
//!   JDK's UTF-8 encoder, stores it as `?`. Jackson reads `"\uD83D"` into such a string;
//! - a NaN other than the canonical one as a FLOAT / DOUBLE element of an array or a key
//!   or value of a map: `BinaryArrayWriter` stores every NaN as `Float.NaN` / `Double.NaN`
//!   (a row field keeps its bits). Avro's and Protobuf's decoders hand on the bits read.
//!
//! flink-json's writer reads both from the Java values (`TimestampData` as it is,
//! `StringData.toString()`), so it writes every fraction digit and the escape `\uD83D`.
//! The Java image writer (`io.karrow.flink.rows.JavaDetailImages`) therefore writes a row
//! that carries either detail as a *marked* image:
//! - bit [`JAVA_DETAIL_MARK`] of the top-level header byte is set (that byte is Flink's
//!   RowKind, whose values are 0 to 3, and the encoders do not read it);
//! - every TIMESTAMP / TIMESTAMP_LTZ, at any depth, is laid out as a non-compact one
//!   (p > 3: epoch millis in the variable part, nano-of-millisecond in the slot);
//! - every string holds its Java string's UTF-16 text as UTF-8, except that a surrogate
//!   which is not half of a pair is the 3-byte sequence of its code unit (`ED A0..BF
//!   80..BF`, as in WTF-8), read back by [`crate::java::utf8::java_text_pieces`];
//! - every FLOAT / DOUBLE array element, map key and map value holds the Java value's raw
//!   bits (same slots as Flink's layout, so the encoders read them unchanged).
//!
//! Only the JSON, Protobuf and Avro encoders take marked images (flink-protobuf and
//! flink-avro hash and compare a map key's Java string, write every lone surrogate as `?`
//! and a float's raw bits; flink-avro writes a timestamp's epoch millis): the Java side
//! marks images only for the formats whose stock writer reads these details, and only rows
//! that carry one, so an image from Flink's runtime or a native decoder is never marked.

/// The bit of the top-level header byte that marks a Java-detail image.
pub(crate) const JAVA_DETAIL_MARK: u8 = 0x80;

/// How an image stores the values where a Java row and Flink's layout differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImageForm {
    /// Flink's own layout: compact timestamps, strings as Flink stores them.
    Flink,
    /// Marked by the Java image writer (see the module documentation).
    JavaDetail,
}

impl ImageForm {
    /// The form of a top-level row image, read from its header byte.
    pub(crate) fn of(image: &[u8]) -> Self {
        match image.first() {
            Some(header) if header & JAVA_DETAIL_MARK != 0 => ImageForm::JavaDetail,
            _ => ImageForm::Flink,
        }
    }

    /// Whether a timestamp of a compact type sits in its slot in this form.
    pub(crate) fn compact_timestamp(self, compact: bool) -> bool {
        compact && self == ImageForm::Flink
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_mark_bit_makes_a_java_detail_image() {
        for kind in 0..4u8 {
            assert_eq!(ImageForm::of(&[kind, 0, 0]), ImageForm::Flink);
            assert_eq!(
                ImageForm::of(&[kind | JAVA_DETAIL_MARK]),
                ImageForm::JavaDetail
            );
        }
        assert_eq!(ImageForm::of(&[]), ImageForm::Flink);
        assert!(ImageForm::Flink.compact_timestamp(true));
        assert!(!ImageForm::JavaDetail.compact_timestamp(true));
        assert!(!ImageForm::Flink.compact_timestamp(false));
    }
}
