//! Confluent-framed Protobuf values decoded with their writer schemas: the header and the
//! message-index array read by [`crate::framing`], the schema compiled once per id, a
//! [`ProtobufRowDecoder`] per (id, index path), then exactly `protobuf-native`'s rules.

use crate::id_cache::IdCache;
use std::sync::Arc;

use prost_reflect::MessageDescriptor;

use super::schema::{resolve_schema, CompiledSchema};
use crate::error::{CodecError, ErrorContext};
use crate::framing::{read_message_indexes, split_header};
use crate::protobuf::{ProtobufOptions, ProtobufRowDecoder};
use crate::schema_source::SchemaSource;
use crate::types::FlinkType;

/// Decodes Confluent-framed Protobuf values into rows of one row type, reading each value
/// with its writer schema. Not thread-safe: each parallel reader owns one.
pub struct ProtobufConfluentDecoder {
    row_type: FlinkType,
    options: ProtobufOptions,
    source: Arc<dyn SchemaSource>,
    /// Writer schemas by id, bounded (`crate::id_cache`'s policy).
    schemas: IdCache<SchemaEntry>,
    /// The index path of the value being decoded (reused).
    path: Vec<i32>,
}

/// A compiled writer schema and the row decoders of its messages met so far.
struct SchemaEntry {
    schema: CompiledSchema,
    decoders: Vec<(Box<[i32]>, ProtobufRowDecoder)>,
}

impl std::fmt::Debug for ProtobufConfluentDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtobufConfluentDecoder")
            .field("options", &self.options)
            .field("schemas", &self.schemas.len())
            .finish_non_exhaustive()
    }
}

impl ProtobufConfluentDecoder {
    /// A decoder of rows of `row_type` (a ROW type) with `protobuf-native`'s options, fetching
    /// writer schemas from `source`.
    pub fn new(
        row_type: &FlinkType,
        options: ProtobufOptions,
        source: Arc<dyn SchemaSource>,
    ) -> Result<Self, CodecError> {
        row_type.row_fields()?;
        // No Flink format to match here: absent fields that track presence read as NULL, so
        // that NULLs written through the derived schema (`optional` fields) round-trip.
        let options = ProtobufOptions {
            presence_nulls: true,
            ..options
        };
        Ok(ProtobufConfluentDecoder {
            row_type: row_type.clone(),
            options,
            source,
            schemas: IdCache::default(),
            path: Vec::new(),
        })
    }

    /// The options this decoder was built with.
    pub fn options(&self) -> &ProtobufOptions {
        &self.options
    }

    /// Decodes one Kafka value: its row is appended to `out` and its end to `row_ends`, or
    /// nothing when the value is skipped under `ignore-parse-errors`. Errors carry the schema
    /// id once it is read.
    pub fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        let ignore = self.options.ignore_parse_errors;
        let (id, payload) = match split_header(message) {
            Ok(parts) => parts,
            Err(_) if ignore => return Ok(()),
            Err(e) => return Err(e),
        };
        let consumed = match read_message_indexes(payload, &mut self.path) {
            Ok(n) => n,
            Err(_) if ignore => return Ok(()),
            Err(e) => {
                return Err(protobuf_error(
                    format!("invalid Confluent message-index array: {e}"),
                    id,
                ))
            }
        };
        let source = &self.source;
        let entry = self.schemas.get_or_try_insert_with(id, || {
            resolve_schema(source.as_ref(), id)
                .map(|schema| SchemaEntry {
                    schema,
                    decoders: Vec::new(),
                })
                .map_err(|message| schema_error(message, id))
        })?;
        let path = self.path.as_slice();
        let position = match entry.decoders.iter().position(|(p, _)| **p == *path) {
            Some(position) => position,
            None => {
                let message = match entry.schema.message_at(path) {
                    Ok(m) => m,
                    Err(_) if ignore => return Ok(()),
                    Err(reason) => return Err(protobuf_error(reason, id)),
                };
                let options = self.options.clone();
                let decoder = ProtobufRowDecoder::new(&message, &self.row_type, options)
                    .map_err(|e| schema_error(misfit(&message, id, &e), id))?;
                entry.decoders.push((path.into(), decoder));
                entry.decoders.len() - 1
            }
        };
        let (_, decoder) = &mut entry.decoders[position];
        decoder
            .decode_message(&payload[consumed..], out, row_ends)
            .map_err(|e| e.with_schema_id(Some(id)))
    }
}

/// Why the table's row type does not fit the writer message.
fn misfit(message: &MessageDescriptor, id: i32, error: &CodecError) -> String {
    format!(
        "the table's row type does not fit message '{}' of schema id {id}: {error}",
        message.full_name()
    )
}

/// A malformed-value error naming the schema id.
fn protobuf_error(message: String, id: i32) -> CodecError {
    CodecError::Protobuf {
        message,
        context: ErrorContext {
            schema_id: Some(id),
            ..ErrorContext::default()
        },
    }
}

/// A writer-schema error (never skipped) naming the schema id.
fn schema_error(message: String, id: i32) -> CodecError {
    CodecError::WriterSchema {
        message,
        context: ErrorContext {
            schema_id: Some(id),
            ..ErrorContext::default()
        },
    }
}
