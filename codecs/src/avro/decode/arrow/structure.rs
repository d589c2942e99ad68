//! ROW columns (and the top-level row) from Avro records, following the resolved plan:
//! writer fields are read into reader positions or skipped, reader-only fields take
//! their default.

use std::sync::Arc;

use arrow_array::{ArrayRef, StructArray};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::Fields;
use serde_json::Value;

use super::{bad_default, decode_value, decoder_for, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::{Read, RecordRead, Step};
use crate::types::{row_arrow_fields, FlinkField};

/// A struct column (or the top-level row).
pub struct StructDecoder {
    fields: Fields,
    names: Vec<String>,
    children: Vec<Box<dyn Decoder>>,
    nulls: NullBufferBuilder,
    nullable: bool,
}

impl StructDecoder {
    /// A decoder for ROW<fields>.
    pub(crate) fn new(fields: &[FlinkField], nullable: bool) -> Self {
        StructDecoder {
            fields: row_arrow_fields(fields),
            names: fields.iter().map(|f| f.name.clone()).collect(),
            children: fields.iter().map(|f| decoder_for(&f.ty)).collect(),
            nulls: NullBufferBuilder::new(0),
            nullable,
        }
    }

    /// Reads one record as a row of this struct; on error every child (and the row
    /// count) is left as it was before the record.
    pub(crate) fn decode_row(&mut self, rec: &RecordRead, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let len = self.len();
        match self.decode_record(rec, cur) {
            Ok(()) => {
                self.nulls.append_non_null();
                Ok(())
            }
            Err(e) => {
                self.truncate(len);
                Err(e)
            }
        }
    }

    /// The number of rows appended.
    pub(crate) fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Drops the rows after the first `len`, in every child.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.nulls.truncate(len);
        for child in &mut self.children {
            child.truncate(len);
        }
    }

    /// Reads one record into the children, naming the field on error (and leaving
    /// the children it reached one value longer: the caller truncates).
    fn decode_record(&mut self, rec: &RecordRead, cur: &mut Cursor<'_>) -> ReadResult<()> {
        if rec.reader_len != self.children.len() {
            return Err(ReadError::new(format!(
                "reader record has {} fields but the row type has {}",
                rec.reader_len,
                self.children.len()
            )));
        }
        for step in &rec.steps {
            match step {
                Step::Field { index, read } => {
                    let child = self.children[*index].as_mut();
                    decode_value(child, read, cur).map_err(|e| self.in_field(*index, e))?;
                }
                Step::Skip(skip) => skip.skip(cur)?,
            }
        }
        for (index, default) in &rec.defaults {
            let child = self.children[*index].as_mut();
            if default.is_null() {
                child.append_null();
            } else {
                child
                    .append_default(default)
                    .map_err(|e| self.in_field(*index, e))?;
            }
        }
        Ok(())
    }

    fn in_field(&self, index: usize, e: ReadError) -> ReadError {
        let name = &self.names[index];
        if e.message().starts_with("field '") {
            ReadError::new(format!("field '{name}.{}", &e.message()["field '".len()..]))
        } else {
            ReadError::new(format!("field '{name}': {}", e.message()))
        }
    }

    /// Builds the struct array of everything appended and resets.
    pub fn finish_struct(&mut self) -> Result<StructArray, ReadError> {
        // Every child is reset before an error is returned.
        let children: Vec<_> = self.children.iter_mut().map(|c| c.finish()).collect();
        let len = self.nulls.len();
        let nulls = if self.nullable {
            self.nulls.finish()
        } else {
            None
        };
        self.nulls = NullBufferBuilder::new(0);
        let children = children.into_iter().collect::<Result<Vec<_>, _>>()?;
        // The length is the row count even for a ROW without fields (no child to take
        // it from); every child must match it.
        StructArray::try_new_with_length(self.fields.clone(), children, nulls, len)
            .map_err(|e| ReadError::new(format!("building a row: {e}")))
    }
}

impl Decoder for StructDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let Read::Record(rec) = read else {
            return Err(unexpected(read, "a row"));
        };
        self.decode_record(rec, cur)?;
        self.nulls.append_non_null();
        Ok(())
    }

    fn len(&self) -> usize {
        StructDecoder::len(self)
    }

    fn truncate(&mut self, len: usize) {
        StructDecoder::truncate(self, len);
    }

    fn append_null(&mut self) {
        for child in &mut self.children {
            child.append_null();
        }
        self.nulls.append_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let obj = default
            .as_object()
            .ok_or_else(|| bad_default(default, "record"))?;
        for (i, name) in self.names.iter().enumerate() {
            match obj.get(name) {
                None | Some(Value::Null) => self.children[i].append_null(),
                Some(v) => self.children[i].append_default(v)?,
            }
        }
        self.nulls.append_non_null();
        Ok(())
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        Ok(Arc::new(self.finish_struct()?))
    }
}
