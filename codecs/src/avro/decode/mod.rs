//! The Confluent Avro decoder: header, writer schema by id, resolution plan cached per
//! id, and decoding into the Arrow builders of the Flink row type.

pub(crate) mod arrow;
mod binary_rows;
pub mod cursor;
pub mod limits;
mod map_order;
pub mod resolve;
pub mod skip;

use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_schema::{Schema, SchemaRef};

use self::arrow::StructDecoder;
use self::binary_rows::{supports_binary, write_record};
use self::cursor::{Cursor, ReadError, ReadResult};
use self::resolve::{resolve, Read, RecordRead, ValueRead};
use super::derive::derive_reader_schema;
use super::model::AvroNode;
use crate::error::{CodecError, ErrorContext};
use crate::flink_binary::{write_batch_rows, RowImages};
use crate::framing::split_confluent;
use crate::id_cache::IdCache;
use crate::schema_source::{by_id, resolve_references, SchemaSource, SchemaType};
use crate::types::{row_arrow_fields, FlinkField, FlinkKind, FlinkType};

/// The resolved read plan of one writer schema id.
#[derive(Clone)]
struct Plan {
    read: Arc<ValueRead>,
    /// Whether the plan can be decoded straight into Flink binary rows.
    binary: bool,
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
    fields: Vec<FlinkField>,
    root: StructDecoder,
    /// Plans by writer schema id, bounded (`crate::id_cache`'s policy).
    plans: IdCache<Plan>,
    /// The plan of the last value's schema id: consecutive values almost always share
    /// it, and this skips the map lookup per value.
    current: Option<(i32, Plan)>,
    source: Arc<dyn SchemaSource>,
}

impl std::fmt::Debug for AvroConfluentDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvroConfluentDecoder")
            .field("schema", &self.schema)
            .field("cached_plans", &self.plans.len())
            .finish()
    }
}

fn malformed(id: i32, e: ReadError) -> CodecError {
    CodecError::Malformed {
        message: e.into_message(),
        context: ErrorContext {
            schema_id: Some(id),
            ..ErrorContext::default()
        },
    }
}

/// Picks the top-level record read of a value (the union branch named by the leading
/// index when the writer schema is a union, else the schema itself).
fn top_record<'p>(read: &'p ValueRead, cur: &mut Cursor<'_>) -> ReadResult<&'p Arc<RecordRead>> {
    match read.select(cur)? {
        Some(Read::Record(rec)) => Ok(rec),
        None => Err(ReadError::new("the top-level value is null")),
        Some(other) => Err(ReadError::new(format!(
            "the writer's top-level type {other:?} is not a record"
        ))),
    }
}

impl AvroConfluentDecoder {
    /// A decoder for `row_type` (a ROW). The reader schema is derived from the row type
    /// as Flink derives it, unless `reader_schema` (the format's `schema` option) is set.
    pub fn new(
        row_type: &FlinkType,
        reader_schema: Option<&str>,
        source: Arc<dyn SchemaSource>,
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
            fields: fields.to_vec(),
            root: StructDecoder::new(fields, false),
            plans: IdCache::default(),
            current: None,
            source,
        })
    }

    /// The Arrow schema of the batches this decoder produces.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn plan(&mut self, id: i32) -> Result<Plan, CodecError> {
        if let Some(plan) = self.plans.get(id) {
            return Ok(plan.clone());
        }
        let context = ErrorContext {
            schema_id: Some(id),
            ..ErrorContext::default()
        };
        let (text, referenced) = self
            .source
            .schema_by_id(id)
            .and_then(|schema| schema.expect(SchemaType::Avro, by_id(id)))
            .and_then(|schema| {
                let referenced =
                    resolve_references(&*self.source, &schema.references, SchemaType::Avro)?;
                Ok((schema.text, referenced))
            })
            .map_err(|message| CodecError::WriterSchema {
                message,
                context: context.clone(),
            })?;
        let referenced: Vec<&str> = referenced.iter().map(|r| r.schema.text.as_str()).collect();
        let writer = AvroNode::parse_with_references(&text, &referenced).map_err(|e| {
            CodecError::WriterSchema {
                message: format!("writer schema {id} from the registry is not valid Avro: {e}"),
                context,
            }
        })?;
        let read = resolve(&writer, &self.reader);
        let plan = Plan {
            binary: supports_binary(&read),
            read: Arc::new(read),
        };
        self.plans.insert(id, plan.clone());
        Ok(plan)
    }

    /// Reads the header, finds the plan and picks the top-level record read.
    fn top_level<'m>(
        &mut self,
        message: &'m [u8],
    ) -> Result<(i32, Plan, Cursor<'m>, Arc<RecordRead>), CodecError> {
        let (id, payload) = split_confluent(message)?;
        let plan = self.plan(id)?;
        let mut cur = Cursor::new(payload);
        let rec = top_record(&plan.read, &mut cur)
            .map_err(|e| malformed(id, e))?
            .clone();
        Ok((id, plan, cur, rec))
    }

    fn decode_into_builders(&mut self, message: &[u8]) -> Result<(), CodecError> {
        let (id, _, mut cur, rec) = self.top_level(message)?;
        // Bytes after the datum are ignored, as in Flink.
        // On error the builders are left exactly as they were before the value.
        self.root
            .decode_row(&rec, &mut cur)
            .map_err(|e| malformed(id, e))
    }

    /// Decodes one non-null Kafka value into a Flink binary row image (RowKind INSERT)
    /// appended to `out`; on error `out` is left as it was.
    pub fn decode_one_binary(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let (id, payload) = split_confluent(message)?;
        let plan = match &self.current {
            Some((current, plan)) if *current == id => plan,
            _ => {
                let plan = self.plan(id)?;
                &self.current.insert((id, plan)).1
            }
        };
        let start = out.len();
        let outcome = if plan.binary {
            let mut cur = Cursor::new(payload);
            top_record(&plan.read, &mut cur)
                .and_then(|rec| write_record(rec, &self.fields, &mut cur, out))
                .map_err(|e| malformed(id, e))
        } else {
            self.decode_one(message).and_then(|batch| {
                let mut images = RowImages::default();
                write_batch_rows(&batch, &self.row_type(), &mut images)?;
                out.extend_from_slice(&images.bytes);
                Ok(())
            })
        };
        if outcome.is_err() {
            out.truncate(start);
        }
        outcome
    }

    /// Decodes a batch of Kafka values (`None` = null value, no row) into binary row
    /// images appended to `out`; returns, per value, the start offset of its image in
    /// `out` plus a final end offset (an empty span means no row). The first bad value
    /// fails the batch with its index in the context.
    pub fn decode_batch_binary<'a, I>(
        &mut self,
        messages: I,
        out: &mut Vec<u8>,
    ) -> Result<Vec<i32>, CodecError>
    where
        I: IntoIterator<Item = Option<&'a [u8]>>,
    {
        let offset = |n: usize| {
            i32::try_from(n)
                .map_err(|_| CodecError::Rows("row images exceed 2 GiB in one batch".into()))
        };
        let mut starts = Vec::new();
        for (index, message) in messages.into_iter().enumerate() {
            starts.push(offset(out.len())?);
            if let Some(bytes) = message {
                self.decode_one_binary(bytes, out).map_err(|e| {
                    let id = split_confluent(bytes).ok().map(|(id, _)| id);
                    e.at(index, id)
                })?;
            }
        }
        starts.push(offset(out.len())?);
        Ok(starts)
    }

    fn row_type(&self) -> FlinkType {
        FlinkType {
            nullable: false,
            kind: FlinkKind::Row(self.fields.clone()),
        }
    }

    fn finish(&mut self) -> Result<RecordBatch, CodecError> {
        let rows = self
            .root
            .finish_struct()
            .map_err(|e| CodecError::Malformed {
                message: e.into_message(),
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

    /// Drops the rows of a batch that failed (a failed value's own appends are already
    /// gone: see [`Self::decode_into_builders`]).
    fn reset(&mut self) {
        self.root.truncate(0);
    }

    /// Decodes one non-null Kafka value into a batch of one row.
    pub fn decode_one(&mut self, message: &[u8]) -> Result<RecordBatch, CodecError> {
        self.decode_into_builders(message)?;
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

    /// Decodes a batch of Kafka values as `ignore-parse-errors` asks: a value that fails
    /// to decode gives no row (its entry in `rows` is `None`, as for a null value) and the
    /// batch goes on from the builders as they were before it. Returns the batch and the
    /// indexes of the values skipped.
    pub fn decode_batch_skipping_errors<'a, I>(
        &mut self,
        messages: I,
    ) -> Result<(DecodedBatch, Vec<usize>), CodecError>
    where
        I: IntoIterator<Item = Option<&'a [u8]>>,
    {
        let mut rows = Vec::new();
        let mut skipped = Vec::new();
        let mut next_row: u32 = 0;
        for (index, message) in messages.into_iter().enumerate() {
            let decoded = match message {
                None => false,
                Some(bytes) => self.decode_into_builders(bytes).is_ok(),
            };
            if decoded {
                rows.push(Some(next_row));
                next_row += 1;
            } else {
                if message.is_some() {
                    skipped.push(index);
                }
                rows.push(None);
            }
        }
        let batch = DecodedBatch {
            batch: self.finish()?,
            rows,
        };
        Ok((batch, skipped))
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
