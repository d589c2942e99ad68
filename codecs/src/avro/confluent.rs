//! The Confluent Avro decoder: header, writer schema by id, resolution plan cached per
//! id, and decoding into the Arrow builders of the Flink row type.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_schema::{Schema, SchemaRef};

use super::cursor::{Cursor, ReadError};
use super::decoders::StructDecoder;
use super::derive::derive_reader_schema;
use super::model::AvroNode;
use super::resolve::{resolve, Read, ValueRead};
use crate::error::{CodecError, ErrorContext};
use crate::framing::split_confluent;
use crate::types::{row_arrow_fields, FlinkType};

/// Where the decoder gets writer schemas by Confluent id (the registry, in production).
pub trait WriterSchemaSource: Send + Sync {
    /// The Avro schema JSON text registered under `id`, or a message naming the id.
    fn writer_schema(&self, id: i32) -> Result<Arc<str>, String>;
}

/// The result of decoding a batch of Kafka values.
#[derive(Debug)]
pub struct DecodedBatch {
    /// One row per non-null value, in input order.
    pub batch: RecordBatch,
    /// For each input value, the row it produced (`None` for a tombstone).
    pub rows: Vec<Option<u32>>,
}

/// Decodes Confluent-framed Avro into Arrow for one Flink row type. Not thread-safe:
/// each parallel reader owns one.
pub struct AvroConfluentDecoder {
    schema: SchemaRef,
    reader: AvroNode,
    root: StructDecoder,
    plans: HashMap<i32, Arc<ValueRead>>,
    source: Arc<dyn WriterSchemaSource>,
}

impl std::fmt::Debug for AvroConfluentDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvroConfluentDecoder")
            .field("schema", &self.schema)
            .field("cached_plans", &self.plans.len())
            .finish()
    }
}

impl AvroConfluentDecoder {
    /// A decoder for `row_type` (a ROW). The reader schema is derived from the row type
    /// as Flink derives it, unless `reader_schema` (the format's `schema` option) is set.
    pub fn new(
        row_type: &FlinkType,
        reader_schema: Option<&str>,
        source: Arc<dyn WriterSchemaSource>,
    ) -> Result<Self, CodecError> {
        let fields = row_type.row_fields()?;
        // Flink derives the schema even when one is given, so underivable types fail.
        let derived = derive_reader_schema(row_type)?;
        let reader = match reader_schema {
            None => derived,
            Some(text) => {
                let explicit = AvroNode::parse(text)?;
                check_reader_shape(&explicit, fields.len())?;
                explicit
            }
        };
        Ok(AvroConfluentDecoder {
            schema: Arc::new(Schema::new(row_arrow_fields(fields))),
            reader,
            root: StructDecoder::new(fields, false),
            plans: HashMap::new(),
            source,
        })
    }

    /// The Arrow schema of the batches this decoder produces.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn plan(&mut self, id: i32) -> Result<Arc<ValueRead>, CodecError> {
        if let Some(plan) = self.plans.get(&id) {
            return Ok(plan.clone());
        }
        let context = ErrorContext {
            schema_id: Some(id),
            ..ErrorContext::default()
        };
        let text = self
            .source
            .writer_schema(id)
            .map_err(|message| CodecError::WriterSchema {
                message,
                context: context.clone(),
            })?;
        let writer = AvroNode::parse(&text).map_err(|e| CodecError::WriterSchema {
            message: format!("writer schema {id} from the registry is not valid Avro: {e}"),
            context,
        })?;
        let plan = Arc::new(resolve(&writer, &self.reader));
        self.plans.insert(id, plan.clone());
        Ok(plan)
    }

    fn decode_into_builders(&mut self, message: &[u8]) -> Result<(), CodecError> {
        let (id, payload) = split_confluent(message)?;
        let plan = self.plan(id)?;
        let mut cur = Cursor::new(payload);
        let malformed = |e: ReadError| CodecError::Malformed {
            message: e.0,
            context: ErrorContext {
                schema_id: Some(id),
                ..ErrorContext::default()
            },
        };
        let read = match plan.as_ref() {
            ValueRead::Direct(read) => read,
            ValueRead::Union(branches) => {
                let index = cur.read_int().map_err(malformed)?;
                usize::try_from(index)
                    .ok()
                    .and_then(|i| branches.get(i))
                    .ok_or_else(|| {
                        malformed(ReadError(format!(
                            "union branch index {index} out of range"
                        )))
                    })?
            }
        };
        match read {
            Read::Record(rec) => self.root.decode_record(rec, &mut cur).map_err(malformed),
            Read::Error(m) => Err(malformed(ReadError(m.to_string()))),
            Read::Null => Err(malformed(ReadError("the top-level value is null".into()))),
            other => Err(malformed(ReadError(format!(
                "the writer's top-level type {other:?} is not a record"
            )))),
        }
        // Bytes after the datum are ignored, as in Flink.
    }

    fn finish(&mut self) -> Result<RecordBatch, CodecError> {
        let rows = self
            .root
            .finish_struct()
            .map_err(|e| CodecError::Malformed {
                message: e.0,
                context: ErrorContext::default(),
            })?;
        let len = rows.len();
        let (_, columns, _) = rows.into_parts();
        RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(len)),
        )
        .map_err(|e| CodecError::Malformed {
            message: format!("building the record batch: {e}"),
            context: ErrorContext::default(),
        })
    }

    /// Drops whatever a failed record left half-appended in the builders.
    fn reset(&mut self) {
        let _ = self.root.finish_struct();
    }

    /// Decodes one non-null Kafka value into a batch of one row.
    pub fn decode_one(&mut self, message: &[u8]) -> Result<RecordBatch, CodecError> {
        if let Err(e) = self.decode_into_builders(message) {
            self.reset();
            return Err(e);
        }
        self.finish()
    }

    /// Decodes a batch of Kafka values (`None` = null value, which yields no row, as in
    /// Flink). The first bad value fails the whole batch with its index in the context.
    pub fn decode_batch<'a, I>(&mut self, messages: I) -> Result<DecodedBatch, CodecError>
    where
        I: IntoIterator<Item = Option<&'a [u8]>>,
    {
        let mut rows = Vec::new();
        let mut next_row: u32 = 0;
        for (index, message) in messages.into_iter().enumerate() {
            match message {
                None => rows.push(None),
                Some(bytes) => {
                    if let Err(e) = self.decode_into_builders(bytes) {
                        self.reset();
                        let id = split_confluent(bytes).ok().map(|(id, _)| id);
                        return Err(e.at(index, id));
                    }
                    rows.push(Some(next_row));
                    next_row += 1;
                }
            }
        }
        Ok(DecodedBatch {
            batch: self.finish()?,
            rows,
        })
    }
}

fn check_reader_shape(reader: &AvroNode, columns: usize) -> Result<(), CodecError> {
    match reader {
        AvroNode::Record(rec) if rec.fields.len() == columns => Ok(()),
        AvroNode::Record(rec) => Err(CodecError::SchemaMismatch(format!(
            "the schema has {} fields, the table {columns} columns",
            rec.fields.len()
        ))),
        other => Err(CodecError::SchemaMismatch(format!(
            "the schema is a {}, not a record",
            other.type_name()
        ))),
    }
}
