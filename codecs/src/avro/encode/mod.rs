//! The Confluent Avro encoder: Arrow rows -> `0x00` + schema id + Avro binary, byte for
//! byte what Flink's registry-aware Avro serialization writes.

pub mod arrow;
mod binary_rows;

use arrow_array::RecordBatch;

use self::arrow::encoder_for;
use self::binary_rows::encode_row;
use super::derive::derive_schema_json;
use crate::error::CodecError;
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
            encode_row(image, 0, fields, &mut out.bytes, "")
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
