//! The Confluent Avro encoder: Arrow rows -> `0x00` + schema id + Avro binary, byte for
//! byte what Flink's registry-aware Avro serialization writes.

pub mod arrow;
mod binary_rows;

use arrow_array::RecordBatch;

use self::arrow::encoder_for;
use self::binary_rows::encode_row;
use super::derive::derive_schema_json;
use crate::error::CodecError;
use crate::flink_binary::java_detail::ImageForm;
use crate::types::FlinkType;

/// Encodes rows of one Flink row type with a registered writer schema id.
#[derive(Debug, Clone)]
pub struct AvroConfluentEncoder {
    row_type: FlinkType,
    schema_id: i32,
}

/// The messages of an encoded batch: message `i` is `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Default)]
pub struct EncodedBatch {
    /// All messages back to back.
    pub bytes: Vec<u8>,
    /// `rows + 1` start offsets.
    pub offsets: Vec<i32>,
}

impl AvroConfluentEncoder {
    /// The writer schema text to register for `row_type` (Flink's derived schema).
    pub fn derived_schema(row_type: &FlinkType) -> Result<String, CodecError> {
        derive_schema_json(row_type)
    }

    /// An encoder writing `schema_id` in every header.
    pub fn new(row_type: FlinkType, schema_id: i32) -> Result<Self, CodecError> {
        row_type.row_fields()?;
        Ok(AvroConfluentEncoder {
            row_type,
            schema_id,
        })
    }

    /// The schema id written in every header.
    pub fn schema_id(&self) -> i32 {
        self.schema_id
    }

    /// Encodes Flink binary row images (each a whole `BinaryRowData` of the row type),
    /// appending the messages to `out`. This is what the JNI paths use.
    pub fn encode_binary_rows<'a>(
        &self,
        images: impl IntoIterator<Item = &'a [u8]>,
        out: &mut EncodedBatch,
    ) -> Result<(), CodecError> {
        let fields = self.row_type.row_fields()?;
        let header = self.schema_id.to_be_bytes();
        if out.offsets.is_empty() {
            out.offsets.push(offset(out.bytes.len())?);
        }
        for (row, image) in images.into_iter().enumerate() {
            out.bytes.push(0);
            out.bytes.extend_from_slice(&header);
            encode_row(image, 0, fields, &mut out.bytes, "", ImageForm::of(image))
                .map_err(|e| e.at(row, Some(self.schema_id)))?;
            out.offsets.push(offset(out.bytes.len())?);
        }
        Ok(())
    }

    /// Encodes every row of `batch` (columns in the row type's order), appending to `out`.
    pub fn encode_batch(
        &self,
        batch: &RecordBatch,
        out: &mut EncodedBatch,
    ) -> Result<(), CodecError> {
        let fields = self.row_type.row_fields()?;
        if batch.num_columns() != fields.len() {
            return Err(CodecError::InvalidType(format!(
                "batch has {} columns, the row type {}",
                batch.num_columns(),
                fields.len()
            )));
        }
        let encoders = batch
            .columns()
            .iter()
            .zip(fields)
            .map(|(c, f)| encoder_for(c, &f.ty, &f.name))
            .collect::<Result<Vec<_>, _>>()?;
        let header = self.schema_id.to_be_bytes();
        let offset = |n: usize| {
            i32::try_from(n)
                .map_err(|_| CodecError::InvalidType("encoded batch exceeds 2 GiB".into()))
        };
        if out.offsets.is_empty() {
            out.offsets.push(offset(out.bytes.len())?);
        }
        for row in 0..batch.num_rows() {
            out.bytes.push(0);
            out.bytes.extend_from_slice(&header);
            for e in &encoders {
                e.encode(row, &mut out.bytes)
                    .map_err(|e| e.at(row, Some(self.schema_id)))?;
            }
            out.offsets.push(offset(out.bytes.len())?);
        }
        Ok(())
    }
}

fn offset(n: usize) -> Result<i32, CodecError> {
    i32::try_from(n).map_err(|_| CodecError::InvalidType("encoded batch exceeds 2 GiB".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flink_binary::java_detail::JAVA_DETAIL_MARK;
    use crate::flink_binary::test_images::{image, s, V};
    use crate::types::{FlinkField, FlinkKind};

    fn not_null(kind: FlinkKind) -> FlinkType {
        FlinkType {
            nullable: false,
            kind,
        }
    }

    fn row_type(timestamp_precision: u8) -> FlinkType {
        let string = || not_null(FlinkKind::VarChar(i32::MAX as u32));
        let field = |name: &str, ty| FlinkField {
            name: name.into(),
            ty,
        };
        not_null(FlinkKind::Row(vec![
            field(
                "m",
                not_null(FlinkKind::Map(
                    Box::new(string()),
                    Box::new(not_null(FlinkKind::Int)),
                )),
            ),
            field("s", string()),
            field("t", not_null(FlinkKind::Timestamp(timestamp_precision))),
        ]))
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn marked_images_key_maps_by_the_java_strings_and_write_question_marks() {
        // A Java-detail image (strings as Java text, a lone surrogate its 3-byte unit, the
        // TIMESTAMP(3) laid out at precision 9). flink-avro's HashMap<String, Object>
        // (expected size 3: 8 buckets) holds "a\uD800" (hash 58303, bucket 7), "a?" (3070,
        // bucket 6) and "a\uDC00" (59327, bucket 7) as three keys; new Utf8(String) writes
        // each lone surrogate as '?'.
        let values = [
            V::Map(vec![
                (V::Bytes(vec![b'a', 0xED, 0xA0, 0x80]), V::I32(1)),
                (s("a?"), V::I32(2)),
                (V::Bytes(vec![b'a', 0xED, 0xB0, 0x80]), V::I32(3)),
            ]),
            V::Bytes(vec![b'x', 0xED, 0xA0, 0xBD]),
            V::Ts(1234, 567_000),
        ];
        let mut marked = image(&row_type(9), &values);
        marked[0] |= JAVA_DETAIL_MARK;
        let encoder = AvroConfluentEncoder::new(row_type(3), 7).unwrap();
        let mut out = EncodedBatch::default();
        encoder
            .encode_binary_rows([marked.as_slice()], &mut out)
            .unwrap();
        assert_eq!(
            hex(&out.bytes),
            "0000000007".to_owned()
                + "06"
                + "04613f04"
                + "04613f02"
                + "04613f06"
                + "00"
                + "04783f"
                + "a413"
        );
    }

    #[test]
    fn unmarked_images_keep_flinks_layout() {
        // The same strings unmarked are Flink's layout, written as they are; the timestamp
        // sits in its compact slot.
        let values = [
            V::Map(vec![(s("b"), V::I32(1))]),
            V::Bytes(vec![b'x', 0xED, 0xA0, 0xBD]),
            V::Ts(1234, 0),
        ];
        let plain = image(&row_type(3), &values);
        let encoder = AvroConfluentEncoder::new(row_type(3), 7).unwrap();
        let mut out = EncodedBatch::default();
        encoder
            .encode_binary_rows([plain.as_slice()], &mut out)
            .unwrap();
        assert_eq!(
            hex(&out.bytes),
            "0000000007".to_owned() + "02" + "026202" + "00" + "0878eda0bd" + "a413"
        );
    }
}
