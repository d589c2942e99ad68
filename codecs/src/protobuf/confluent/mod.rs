//! Confluent's Protobuf wire format (`protobuf-confluent-native`, spec §4.5): `0x00`, the
//! schema id as a big-endian 4-byte integer, the message-index array that locates the
//! message inside the registered `.proto` file, then the protobuf bytes of that message.
//!
//! The message-index array is a count followed by that many indexes, every number a
//! zig-zag varint as Kafka's `ByteUtils.writeVarint` writes it; the path `[0]` is written
//! as the single byte `00` (count 0), and `02 00` is read as the same path. The first index
//! is the position of a top-level message in the file, each further one the position of a
//! nested message inside the previous one (declaration order, counting messages only: not
//! enums, and not the entry types of map fields nor the types of groups, which the `.proto`
//! text does not declare as messages).
//!
//! Decode ([`ProtobufConfluentDecoder`]): the writer schema is fetched by id through a
//! [`ProtobufSchemaSource`] (references resolved recursively by subject and version) and
//! compiled with protox, once per id; the message named by the index path gets a
//! [`ProtobufRowDecoder`] for the table's row type, once per (id, path). After that the
//! bytes are read exactly as `protobuf-native` reads them. A value without a valid header
//! (wrong magic byte, shorter than 5 bytes, malformed index array, a path naming no message)
//! fails or, under `ignore-parse-errors`, is skipped; a schema that cannot be obtained or
//! compiled, or that does not fit the row type, always fails, naming the schema id.
//!
//! Encode ([`writer_schema`], [`ProtobufConfluentEncoder`]): the writer schema is the
//! `schema` option or the proto3 schema derived from the row type
//! ([`super::proto_text`]); every value is the header of the registered id, the index path
//! of the chosen message, and the bytes [`ProtobufRowEncoder`] writes.

use std::collections::HashMap;
use std::sync::Arc;

use prost::Message;
use prost_reflect::prost_types::FileDescriptorSet;
use prost_reflect::{DescriptorPool, FileDescriptor, Kind, MessageDescriptor};
use protox::file::{File, FileResolver, GoogleFileResolver};

use super::proto_text::derive_proto_schema;
use super::{ProtobufOptions, ProtobufRowDecoder, ProtobufRowEncoder};
use crate::error::{CodecError, ErrorContext};
use crate::framing::confluent_header;
use crate::json::confluent::split_header;
use crate::types::FlinkType;

/// Why a message-index array cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageIndexError {
    /// The bytes end inside the array.
    #[error("the message-index array ends after {0} bytes, inside a varint")]
    Truncated(usize),
    /// A varint has more than 5 bytes (Kafka's `ByteUtils.readVarint` rejects it).
    #[error("a varint of the message-index array is longer than 5 bytes (at byte {0})")]
    VarintTooLong(usize),
    /// The count is negative.
    #[error("the message-index array has a negative count {0}")]
    NegativeCount(i32),
    /// The count exceeds the bytes left (each index takes at least one byte).
    #[error("the message-index array claims {count} indexes but only {remaining} bytes follow")]
    CountTooLarge {
        /// The count read.
        count: i32,
        /// Bytes left after the count.
        remaining: usize,
    },
}

/// Reads one zig-zag varint of at most 5 bytes at `pos` as Kafka's `ByteUtils.readVarint`
/// does (bits above 32 are dropped); returns the value and the position after it.
fn read_varint(bytes: &[u8], pos: usize) -> Result<(i32, usize), MessageIndexError> {
    let mut value: u32 = 0;
    let mut shift = 0u32;
    let mut at = pos;
    loop {
        let Some(&b) = bytes.get(at) else {
            return Err(MessageIndexError::Truncated(bytes.len()));
        };
        at += 1;
        if b & 0x80 == 0 {
            value |= u32::from(b).wrapping_shl(shift);
            break;
        }
        value |= u32::from(b & 0x7f) << shift;
        shift += 7;
        if shift > 28 {
            return Err(MessageIndexError::VarintTooLong(pos));
        }
    }
    let decoded = ((value >> 1) as i32) ^ -((value & 1) as i32);
    Ok((decoded, at))
}

/// Appends `value` as a zig-zag varint (Kafka's `ByteUtils.writeVarint`).
fn write_varint(value: i32, out: &mut Vec<u8>) {
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads the message-index array at the start of `payload` (the bytes after the schema id)
/// into `path` (cleared first) and returns its length in bytes. Count 0 is the path `[0]`.
pub fn read_message_indexes(
    payload: &[u8],
    path: &mut Vec<i32>,
) -> Result<usize, MessageIndexError> {
    path.clear();
    let (count, mut pos) = read_varint(payload, 0)?;
    if count < 0 {
        return Err(MessageIndexError::NegativeCount(count));
    }
    if count == 0 {
        path.push(0);
        return Ok(pos);
    }
    let remaining = payload.len() - pos;
    if count as usize > remaining {
        return Err(MessageIndexError::CountTooLarge { count, remaining });
    }
    for _ in 0..count {
        let (index, next) = read_varint(payload, pos)?;
        path.push(index);
        pos = next;
    }
    Ok(pos)
}

/// Appends the message-index array of `path` as Confluent's serializer writes it: `00` for
/// `[0]`, else the count and the indexes.
pub fn write_message_indexes(path: &[i32], out: &mut Vec<u8>) {
    if path == [0] {
        out.push(0);
        return;
    }
    write_varint(path.len() as i32, out);
    for &index in path {
        write_varint(index, out);
    }
}

/// A Protobuf schema as registered: its `.proto` text and the schemas it imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoSchema {
    /// The `.proto` source.
    pub text: String,
    /// The registered schemas it imports, by import name.
    pub references: Vec<ProtoReference>,
}

/// A reference of a registered schema: the file imported as `name` is version `version`
/// of subject `subject`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoReference {
    /// The import path the referencing schema uses (`import "<name>";`).
    pub name: String,
    /// The subject the imported schema is registered under.
    pub subject: String,
    /// Its version within the subject.
    pub version: i32,
}

/// Where writer schemas come from (the native library implements it on top of the schema
/// registry client; tests use an in-memory map).
pub trait ProtobufSchemaSource: Send + Sync {
    /// The Protobuf schema with this id, or a message naming the id, e.g. "Could not find
    /// schema with id 7 in registry" (also when the id names a schema of another type).
    fn schema_by_id(&self, id: i32) -> Result<ProtoSchema, String>;
    /// Version `version` of `subject` (a referenced schema), or a message naming them.
    fn schema_by_version(&self, subject: &str, version: i32) -> Result<ProtoSchema, String>;
}

/// How deep references may nest (a guard against registries answering with endless chains).
const MAX_REFERENCE_DEPTH: usize = 64;

/// A `.proto` file compiled with its imports.
#[derive(Debug, Clone)]
pub struct CompiledSchema {
    root: FileDescriptor,
}

/// Files by name for protox: the schema, its references, then Google's well-known files.
struct InMemoryFiles {
    files: HashMap<String, String>,
    google: GoogleFileResolver,
}

impl FileResolver for InMemoryFiles {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.files.get(name) {
            Some(source) => File::from_source(name, source),
            None => self.google.open_file(name),
        }
    }
}

impl CompiledSchema {
    /// Compiles `text` (named `name`) whose imports are the files in `imports` (import name
    /// -> source) or Google's well-known files (`google/protobuf/*.proto`). Files written with
    /// `edition = ...` are refused.
    pub fn compile(
        name: &str,
        text: &str,
        imports: &HashMap<String, String>,
    ) -> Result<Self, String> {
        let mut files = imports.clone();
        files.insert(name.to_string(), text.to_string());
        let resolver = InMemoryFiles {
            files,
            google: GoogleFileResolver::new(),
        };
        let mut compiler = protox::Compiler::with_file_resolver(resolver);
        compiler.include_imports(true);
        compiler
            .open_file(name)
            .map_err(|e| format!("the Protobuf schema does not compile: {e}"))?;
        let set = FileDescriptorSet::decode(compiler.encode_file_descriptor_set().as_slice())
            .map_err(|e| format!("the compiled Protobuf schema does not decode: {e}"))?;
        for file in &set.file {
            match file.syntax.as_deref() {
                None | Some("") | Some("proto2") | Some("proto3") => {}
                Some(other) => {
                    return Err(format!(
                        "only proto2 and proto3 files are supported; '{}' uses syntax '{other}'",
                        file.name()
                    ))
                }
            }
        }
        // Through the serialized set: protox's own pool does not report `[packed = ...]`.
        let pool = DescriptorPool::from_file_descriptor_set(set)
            .map_err(|e| format!("the compiled Protobuf schema is invalid: {e}"))?;
        let root = pool
            .get_file_by_name(name)
            .ok_or_else(|| format!("the compiled Protobuf schema has no file '{name}'"))?;
        Ok(CompiledSchema { root })
    }

    /// The schema's own file (not its imports).
    pub fn file(&self) -> &FileDescriptor {
        &self.root
    }

    /// The message at a message-index path of this file.
    pub fn message_at(&self, path: &[i32]) -> Result<MessageDescriptor, String> {
        let describe = || format!("{path:?}");
        let Some((&first, rest)) = path.split_first() else {
            return Err(format!("the message-index path {} is empty", describe()));
        };
        let top: Vec<MessageDescriptor> = self.root.messages().collect();
        let mut message = pick(&top, first).ok_or_else(|| {
            format!(
                "the message-index path {} names no message: index {first} is out of range \
                 (the file declares {} top-level messages)",
                describe(),
                top.len()
            )
        })?;
        for (depth, &index) in rest.iter().enumerate() {
            let nested = declared_children(&message);
            message = pick(&nested, index).ok_or_else(|| {
                format!(
                    "the message-index path {} names no message: index {index} at depth {} is \
                     out of range ('{}' declares {} nested messages)",
                    describe(),
                    depth + 1,
                    message.full_name(),
                    nested.len()
                )
            })?;
        }
        Ok(message)
    }

    /// The message named `name` (full name, or relative to the file's package), or the first
    /// top-level message when `name` is empty; it must be declared in this file.
    pub fn find_message(&self, name: &str) -> Result<MessageDescriptor, String> {
        if name.is_empty() {
            return self
                .root
                .messages()
                .next()
                .ok_or_else(|| "the Protobuf schema declares no message".to_string());
        }
        let name = name.strip_prefix('.').unwrap_or(name);
        let pool = self.root.parent_pool();
        let package = self.root.package_name();
        let found = if package.is_empty() {
            pool.get_message_by_name(name)
        } else {
            pool.get_message_by_name(&format!("{package}.{name}"))
                .or_else(|| pool.get_message_by_name(name))
        };
        match found {
            Some(m) if m.parent_file().name() == self.root.name() => Ok(m),
            Some(m) => Err(format!(
                "message '{}' is declared in the imported file '{}', not in the schema itself",
                m.full_name(),
                m.parent_file().name()
            )),
            None => Err(format!("the Protobuf schema declares no message '{name}'")),
        }
    }

    /// The message-index path of `message` (a message of this file).
    pub fn index_path(&self, message: &MessageDescriptor) -> Result<Vec<i32>, String> {
        let mut path = Vec::new();
        let mut current = message.clone();
        loop {
            let siblings = match current.parent_message() {
                Some(parent) => declared_children(&parent),
                None => self.root.messages().collect(),
            };
            let position = siblings
                .iter()
                .position(|m| m.full_name() == current.full_name())
                .ok_or_else(|| {
                    format!(
                        "message '{}' is not declared as a message of the schema",
                        message.full_name()
                    )
                })?;
            path.push(position as i32);
            match current.parent_message() {
                Some(parent) => current = parent,
                None => break,
            }
        }
        path.reverse();
        Ok(path)
    }
}

/// The element at a (possibly negative) index.
fn pick(messages: &[MessageDescriptor], index: i32) -> Option<MessageDescriptor> {
    usize::try_from(index)
        .ok()
        .and_then(|i| messages.get(i))
        .cloned()
}

/// The nested messages `parent` declares in its `.proto` text, in order: its nested types
/// without the synthetic entry types of map fields and the types of groups.
fn declared_children(parent: &MessageDescriptor) -> Vec<MessageDescriptor> {
    let groups: Vec<String> = parent
        .fields()
        .filter(|f| f.is_group())
        .filter_map(|f| match f.kind() {
            Kind::Message(m) => Some(m.full_name().to_string()),
            _ => None,
        })
        .collect();
    parent
        .child_messages()
        .filter(|m| !m.is_map_entry() && !groups.iter().any(|g| g == m.full_name()))
        .collect()
}

/// Fetches schema `id` and, recursively, every schema it references, and compiles it.
pub fn resolve_schema(
    source: &dyn ProtobufSchemaSource,
    id: i32,
) -> Result<CompiledSchema, String> {
    let root = source.schema_by_id(id)?;
    let mut imports = HashMap::new();
    collect_references(source, &root.references, &mut imports, 0)?;
    let mut name = format!("registry-schema-{id}.proto");
    while imports.contains_key(&name) {
        name.insert(0, '_');
    }
    CompiledSchema::compile(&name, &root.text, &imports).map_err(|e| format!("schema id {id}: {e}"))
}

/// Adds the texts of `references` (and of theirs) to `imports`; a name already present is
/// not fetched again (it also ends reference cycles).
fn collect_references(
    source: &dyn ProtobufSchemaSource,
    references: &[ProtoReference],
    imports: &mut HashMap<String, String>,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_REFERENCE_DEPTH {
        return Err(format!(
            "schema references nest deeper than {MAX_REFERENCE_DEPTH} levels"
        ));
    }
    for reference in references {
        if imports.contains_key(&reference.name) {
            continue;
        }
        let schema = source
            .schema_by_version(&reference.subject, reference.version)
            .map_err(|e| {
                format!(
                    "could not resolve the reference '{}' (subject '{}', version {}): {e}",
                    reference.name, reference.subject, reference.version
                )
            })?;
        imports.insert(reference.name.clone(), schema.text);
        collect_references(source, &schema.references, imports, depth + 1)?;
    }
    Ok(())
}

/// Decodes Confluent-framed Protobuf values into rows of one row type, reading each value
/// with its writer schema. Not thread-safe: each parallel reader owns one.
pub struct ProtobufConfluentDecoder {
    row_type: FlinkType,
    options: ProtobufOptions,
    source: Arc<dyn ProtobufSchemaSource>,
    schemas: HashMap<i32, SchemaEntry>,
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
        source: Arc<dyn ProtobufSchemaSource>,
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
            schemas: HashMap::new(),
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
        let entry = match self.schemas.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let schema = resolve_schema(self.source.as_ref(), id)
                    .map_err(|message| schema_error(message, id))?;
                e.insert(SchemaEntry {
                    schema,
                    decoders: Vec::new(),
                })
            }
        };
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
            .map_err(|e| with_schema_id(e, id))
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

/// `error` with the schema id filled in where its context has none.
fn with_schema_id(mut error: CodecError, id: i32) -> CodecError {
    if let CodecError::Protobuf { context, .. } = &mut error {
        context.schema_id.get_or_insert(id);
    }
    error
}

/// The writer side of `protobuf-confluent-native`: the schema text to register, the message
/// rows are written as, and its message-index path.
#[derive(Debug, Clone)]
pub struct WriterSchema {
    /// The `.proto` text registered under the subject.
    pub text: String,
    /// The message rows are written as.
    pub message: MessageDescriptor,
    /// The message-index path written after the schema id.
    pub path: Vec<i32>,
}

/// The writer schema for rows of `row_type`: `schema` (the `schema` option, `.proto` text
/// whose only imports are Google's well-known files) with the message `message_name` (full or
/// package-relative; empty = the first message), or, when `schema` is `None`, the proto3
/// schema derived from the row type.
pub fn writer_schema(
    row_type: &FlinkType,
    schema: Option<&str>,
    message_name: &str,
) -> Result<WriterSchema, CodecError> {
    let invalid = |e: String| {
        CodecError::InvalidProtobufSchema(format!("protobuf-confluent-native writer schema: {e}"))
    };
    let text = match schema {
        Some(text) => text.to_string(),
        None => derive_proto_schema(row_type)?,
    };
    let compiled =
        CompiledSchema::compile("schema.proto", &text, &HashMap::new()).map_err(invalid)?;
    let message = compiled.find_message(message_name).map_err(invalid)?;
    let path = compiled.index_path(&message).map_err(invalid)?;
    Ok(WriterSchema {
        text,
        message,
        path,
    })
}

/// Writes rows as Confluent-framed Protobuf: the header of one registered schema id and the
/// message-index path, then exactly the bytes `protobuf-native` writes for the row.
#[derive(Debug)]
pub struct ProtobufConfluentEncoder {
    encoder: ProtobufRowEncoder,
    prefix: Vec<u8>,
    schema_id: i32,
}

impl ProtobufConfluentEncoder {
    /// Frames the output of `encoder` with `schema_id` and the index `path` of its message.
    pub fn new(encoder: ProtobufRowEncoder, schema_id: i32, path: &[i32]) -> Self {
        let mut prefix = confluent_header(schema_id).to_vec();
        write_message_indexes(path, &mut prefix);
        ProtobufConfluentEncoder {
            encoder,
            prefix,
            schema_id,
        }
    }

    /// The schema id written in every header.
    pub fn schema_id(&self) -> i32 {
        self.schema_id
    }

    /// Appends the value of the row whose binary image is `image` to `out`; on error `out` is
    /// left as it was.
    pub fn encode_row(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        out.extend_from_slice(&self.prefix);
        let result = self.encoder.encode_row(image, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::test_support::{render, row, ty};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn indexes(path: &[i32]) -> Vec<u8> {
        let mut out = Vec::new();
        write_message_indexes(path, &mut out);
        out
    }

    fn read(bytes: &[u8]) -> Result<(Vec<i32>, usize), MessageIndexError> {
        let mut path = vec![99];
        let n = read_message_indexes(bytes, &mut path)?;
        Ok((path, n))
    }

    #[test]
    fn index_arrays_of_the_spec() {
        assert_eq!(indexes(&[0]), [0x00]);
        assert_eq!(indexes(&[1]), [0x02, 0x02]);
        assert_eq!(indexes(&[0, 2]), [0x04, 0x00, 0x04]);
        assert_eq!(indexes(&[3]), [0x02, 0x06]);
        assert_eq!(read(&[0x00, 0xaa]).unwrap(), (vec![0], 1));
        assert_eq!(read(&[0x02, 0x00, 0xaa]).unwrap(), (vec![0], 2));
        assert_eq!(read(&[0x02, 0x02]).unwrap(), (vec![1], 2));
        assert_eq!(read(&[0x04, 0x00, 0x04, 0x08]).unwrap(), (vec![0, 2], 3));
        assert_eq!(read(&[0x02, 0x06]).unwrap(), (vec![3], 2));
        // Multi-byte varints: 64 is zig-zag 128 = 80 01.
        assert_eq!(indexes(&[64]), [0x02, 0x80, 0x01]);
        assert_eq!(read(&[0x02, 0x80, 0x01]).unwrap(), (vec![64], 3));
        for path in [vec![0, 0], vec![5, 300, 70000], vec![i32::MAX]] {
            let bytes = indexes(&path);
            assert_eq!(read(&bytes).unwrap(), (path.clone(), bytes.len()));
        }
    }

    #[test]
    fn malformed_index_arrays() {
        assert_eq!(read(&[]), Err(MessageIndexError::Truncated(0)));
        assert_eq!(
            read(&[0x04, 0x00]),
            Err(MessageIndexError::CountTooLarge {
                count: 2,
                remaining: 1
            })
        );
        // 02 = count 1, then a varint that never ends.
        assert_eq!(read(&[0x02, 0x80]), Err(MessageIndexError::Truncated(2)));
        assert_eq!(
            read(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
            Err(MessageIndexError::VarintTooLong(0))
        );
        // 01 = zig-zag -1.
        assert_eq!(read(&[0x01]), Err(MessageIndexError::NegativeCount(-1)));
        // A huge count, as a value whose first byte is not 0 but which has a header.
        assert_eq!(
            read(&[0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02]),
            Err(MessageIndexError::CountTooLarge {
                count: i32::MAX,
                remaining: 1
            })
        );
    }

    const OUTER: &str = r#"
        syntax = "proto3";
        package shop;
        import "common.proto";
        enum Kind { KIND_A = 0; }
        message First { int32 a = 1; }
        message Order {
          map<string, int32> counts = 1;
          message Line { string sku = 1; int64 qty = 2; }
          enum State { S = 0; }
          message Note { string text = 1; common.Money money = 2; }
          repeated Line lines = 2;
          Note note = 3;
        }
    "#;
    const COMMON: &str = r#"
        syntax = "proto3";
        package common;
        import "google/protobuf/timestamp.proto";
        message Money { int64 cents = 1; google.protobuf.Timestamp at = 2; }
    "#;

    fn compiled() -> CompiledSchema {
        let imports = HashMap::from([("common.proto".to_string(), COMMON.to_string())]);
        CompiledSchema::compile("outer.proto", OUTER, &imports).unwrap()
    }

    #[test]
    fn messages_by_index_path_skip_enums_and_map_entries() {
        let schema = compiled();
        assert_eq!(schema.message_at(&[0]).unwrap().full_name(), "shop.First");
        assert_eq!(schema.message_at(&[1]).unwrap().full_name(), "shop.Order");
        // Order's nested types are CountsEntry (synthetic), Line, Note: Line is 0.
        assert_eq!(
            schema.message_at(&[1, 0]).unwrap().full_name(),
            "shop.Order.Line"
        );
        assert_eq!(
            schema.message_at(&[1, 1]).unwrap().full_name(),
            "shop.Order.Note"
        );
        let err = schema.message_at(&[2]).unwrap_err();
        assert!(err.contains("index 2 is out of range"), "{err}");
        assert!(err.contains("2 top-level messages"), "{err}");
        let err = schema.message_at(&[1, 2]).unwrap_err();
        assert!(
            err.contains("'shop.Order' declares 2 nested messages"),
            "{err}"
        );
        assert!(schema.message_at(&[-1]).is_err());
        assert!(schema.message_at(&[0, 0]).is_err());
        for path in [vec![0], vec![1], vec![1, 0], vec![1, 1]] {
            let message = schema.message_at(&path).unwrap();
            assert_eq!(schema.index_path(&message).unwrap(), path);
        }
    }

    #[test]
    fn groups_are_not_counted_as_nested_messages() {
        let text = r#"
            syntax = "proto2";
            message G {
              optional group Header = 1 { optional int32 x = 2; }
              message After { optional int32 y = 1; }
            }
        "#;
        let schema = CompiledSchema::compile("g.proto", text, &HashMap::new()).unwrap();
        assert_eq!(schema.message_at(&[0, 0]).unwrap().full_name(), "G.After");
    }

    #[test]
    fn messages_by_name() {
        let schema = compiled();
        assert_eq!(schema.find_message("").unwrap().full_name(), "shop.First");
        assert_eq!(
            schema.find_message("Order.Line").unwrap().full_name(),
            "shop.Order.Line"
        );
        assert_eq!(
            schema.find_message("shop.Order").unwrap().full_name(),
            "shop.Order"
        );
        let err = schema.find_message("common.Money").unwrap_err();
        assert!(err.contains("imported file 'common.proto'"), "{err}");
        let err = schema.find_message("Nope").unwrap_err();
        assert!(err.contains("no message 'Nope'"), "{err}");
    }

    #[test]
    fn schemas_that_do_not_compile_say_why() {
        let err =
            CompiledSchema::compile("a.proto", "syntax = \"proto3\"; message {", &HashMap::new())
                .unwrap_err();
        assert!(
            err.starts_with("the Protobuf schema does not compile"),
            "{err}"
        );
        let err = CompiledSchema::compile(
            "a.proto",
            "syntax = \"proto3\"; import \"missing.proto\"; message A {}",
            &HashMap::new(),
        )
        .unwrap_err();
        assert!(err.contains("missing.proto"), "{err}");
    }

    /// An in-memory registry: ids and (subject, version) -> schema, counting look-ups.
    #[derive(Default)]
    struct FakeRegistry {
        ids: HashMap<i32, ProtoSchema>,
        versions: HashMap<(String, i32), ProtoSchema>,
        lookups: AtomicUsize,
    }

    impl ProtobufSchemaSource for FakeRegistry {
        fn schema_by_id(&self, id: i32) -> Result<ProtoSchema, String> {
            self.lookups.fetch_add(1, Ordering::SeqCst);
            self.ids
                .get(&id)
                .cloned()
                .ok_or_else(|| format!("Could not find schema with id {id} in registry"))
        }

        fn schema_by_version(&self, subject: &str, version: i32) -> Result<ProtoSchema, String> {
            self.versions
                .get(&(subject.to_string(), version))
                .cloned()
                .ok_or_else(|| format!("Subject '{subject}' version {version} not found"))
        }
    }

    fn schema(text: &str, references: &[(&str, &str, i32)]) -> ProtoSchema {
        ProtoSchema {
            text: text.to_string(),
            references: references
                .iter()
                .map(|(n, s, v)| ProtoReference {
                    name: n.to_string(),
                    subject: s.to_string(),
                    version: *v,
                })
                .collect(),
        }
    }

    /// Id 7: OUTER, referencing common.proto (subject "common", version 2), which itself
    /// references nothing but google's timestamp.
    fn registry() -> Arc<FakeRegistry> {
        let mut registry = FakeRegistry::default();
        registry
            .ids
            .insert(7, schema(OUTER, &[("common.proto", "common", 2)]));
        registry
            .ids
            .insert(8, schema(OUTER, &[("common.proto", "common", 3)]));
        registry
            .versions
            .insert(("common".into(), 2), schema(COMMON, &[]));
        Arc::new(registry)
    }

    #[test]
    fn references_resolve_recursively_and_failures_name_them() {
        let leaf = "syntax = \"proto3\"; package leaf; message L { int32 v = 1; }";
        let mid = "syntax = \"proto3\"; package mid; import \"leaf.proto\"; \
                   message M { leaf.L l = 1; }";
        let top = "syntax = \"proto3\"; import \"mid.proto\"; message T { mid.M m = 1; }";
        let mut chain = FakeRegistry::default();
        chain
            .ids
            .insert(1, schema(top, &[("mid.proto", "mid-value", 1)]));
        chain.versions.insert(
            ("mid-value".into(), 1),
            schema(mid, &[("leaf.proto", "leaf-value", 4)]),
        );
        chain
            .versions
            .insert(("leaf-value".into(), 4), schema(leaf, &[]));
        let compiled = resolve_schema(&chain, 1).unwrap();
        let t = compiled.message_at(&[0]).unwrap();
        assert_eq!(t.full_name(), "T");

        let broken = registry();
        let err = resolve_schema(broken.as_ref(), 8).unwrap_err();
        assert!(
            err.contains(
                "could not resolve the reference 'common.proto' (subject 'common', version 3)"
            ),
            "{err}"
        );
        let err = resolve_schema(broken.as_ref(), 9).unwrap_err();
        assert_eq!(err, "Could not find schema with id 9 in registry");
    }

    fn order_row() -> FlinkType {
        row(&[("sku", ty("STRING")), ("qty", ty("BIGINT"))])
    }

    /// 0x00, id, indexes, payload.
    fn framed(id: i32, path: &[u8], payload: &[u8]) -> Vec<u8> {
        [&confluent_header(id)[..], path, payload].concat()
    }

    fn decode(
        decoder: &mut ProtobufConfluentDecoder,
        value: &[u8],
    ) -> Result<Vec<String>, CodecError> {
        let mut out = Vec::new();
        let mut ends = Vec::new();
        decoder.decode_message(value, &mut out, &mut ends)?;
        let row_type = decoder.row_type.clone();
        let mut start = 0;
        Ok(ends
            .iter()
            .map(|&end| {
                let text = render(&out[start..end], &row_type);
                start = end;
                text
            })
            .collect())
    }

    #[test]
    fn decodes_the_message_of_the_index_path_with_protobuf_native_rules() {
        let registry = registry();
        let mut decoder = ProtobufConfluentDecoder::new(
            &order_row(),
            ProtobufOptions::default(),
            registry.clone(),
        )
        .unwrap();
        // shop.Order.Line {sku: "ab", qty: 3}; path [1, 0] = 04 02 00.
        let line = [0x0a, 0x02, b'a', b'b', 0x10, 0x03];
        let rows = decode(&mut decoder, &framed(7, &[0x04, 0x02, 0x00], &line)).unwrap();
        assert_eq!(rows.len(), 1);
        let plain = {
            let schema = compiled();
            let message = schema.message_at(&[1, 0]).unwrap();
            let mut d = ProtobufRowDecoder::new(&message, &order_row(), ProtobufOptions::default())
                .unwrap();
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            d.decode_message(&line, &mut out, &mut ends).unwrap();
            render(&out, &order_row())
        };
        assert_eq!(rows[0], plain);
        assert!(rows[0].contains("ab"), "{}", rows[0]);
        // proto3: an empty Line reads defaults, as protobuf-native does.
        let empty = decode(&mut decoder, &framed(7, &[0x04, 0x02, 0x00], &[])).unwrap();
        assert_eq!(empty.len(), 1);
        // The schema was fetched once for both values.
        assert_eq!(registry.lookups.load(Ordering::SeqCst), 1);

        // Path [1] (Order) does not have the column 'sku': a schema error naming the id.
        let err = decode(&mut decoder, &framed(7, &[0x02, 0x02], &[])).unwrap_err();
        assert!(matches!(err, CodecError::WriterSchema { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("message 'shop.Order' of schema id 7"),
            "{text}"
        );
        assert!(text.contains("Column sku does not exists"), "{text}");
    }

    #[test]
    fn bad_headers_fail_naming_the_id_or_are_skipped_but_registry_failures_never_are() {
        let registry = registry();
        let options = ProtobufOptions::default();
        let mut strict =
            ProtobufConfluentDecoder::new(&order_row(), options.clone(), registry.clone()).unwrap();
        let skipping = ProtobufOptions {
            ignore_parse_errors: true,
            ..options
        };
        let mut lenient =
            ProtobufConfluentDecoder::new(&order_row(), skipping, registry.clone()).unwrap();

        let bad: [(&[u8], &str); 5] = [
            (&[1, 0, 0, 0, 7, 0], "Magic number does not match"),
            (&[0, 0, 0], "Magic number does not match"),
            (
                &framed(7, &[0x04, 0x02], &[]),
                "invalid Confluent message-index array",
            ),
            (&framed(7, &[0x02, 0x0a], &[]), "index 5 is out of range"),
            // Line with an invalid UTF-8 string.
            (
                &framed(7, &[0x04, 0x02, 0x00], &[0x0a, 0x02, 0xc3, 0x28]),
                "invalid UTF-8",
            ),
        ];
        for (value, reason) in bad {
            let err = decode(&mut strict, value).unwrap_err().to_string();
            assert!(err.contains(reason), "{err}");
            if value.len() >= 5 && value[0] == 0 {
                assert!(err.contains("schema id 7"), "{err}");
            }
            assert_eq!(decode(&mut lenient, value).unwrap(), Vec::<String>::new());
        }

        // Unknown id: never skipped, names the id.
        for decoder in [&mut strict, &mut lenient] {
            let err = decode(decoder, &framed(42, &[0], &[])).unwrap_err();
            assert_eq!(err.context().and_then(|c| c.schema_id), Some(42));
            assert!(
                err.to_string()
                    .starts_with("Could not find schema with id 42 in registry"),
                "{err}"
            );
        }
        // A failed look-up is not cached: each value asks again.
        let before = registry.lookups.load(Ordering::SeqCst);
        let _ = decode(&mut strict, &framed(42, &[0], &[]));
        assert_eq!(registry.lookups.load(Ordering::SeqCst), before + 1);
    }

    #[test]
    fn writer_schema_of_an_option_or_derived_and_framed_values() {
        let explicit = "syntax = \"proto3\"; package p; message A { int32 x = 1; } \
                        message B { message C { string sku = 1; int64 qty = 2; } }";
        let ws = writer_schema(&order_row(), Some(explicit), "B.C").unwrap();
        assert_eq!(ws.path, vec![1, 0]);
        assert_eq!(ws.message.full_name(), "p.B.C");
        assert_eq!(ws.text, explicit);
        let first = writer_schema(&order_row(), Some(explicit), "").unwrap();
        assert_eq!(first.path, vec![0]);
        let err = writer_schema(&order_row(), Some(explicit), "Z").unwrap_err();
        assert!(err.to_string().contains("no message 'Z'"), "{err}");
        let err = writer_schema(&order_row(), Some("message {"), "").unwrap_err();
        assert!(err.to_string().contains("does not compile"), "{err}");

        let derived = writer_schema(&order_row(), None, "").unwrap();
        assert_eq!(derived.message.full_name(), "Row");
        assert_eq!(derived.path, vec![0]);
        assert!(derived.text.contains("optional string sku = 1;"));

        // Encode a row decoded from the same message, framed with [1, 0] = 04 02 00.
        let line = [0x0a, 0x02, b'a', b'b', 0x10, 0x03];
        let mut rd =
            ProtobufRowDecoder::new(&ws.message, &order_row(), ProtobufOptions::default()).unwrap();
        let (mut image, mut ends) = (Vec::new(), Vec::new());
        rd.decode_message(&line, &mut image, &mut ends).unwrap();
        let encoder =
            ProtobufRowEncoder::new(&ws.message, &order_row(), ProtobufOptions::default()).unwrap();
        let mut framed_encoder = ProtobufConfluentEncoder::new(encoder, 258, &ws.path);
        assert_eq!(framed_encoder.schema_id(), 258);
        let mut out = vec![0xee];
        framed_encoder.encode_row(&image, &mut out).unwrap();
        assert_eq!(out[0], 0xee);
        assert_eq!(
            &out[1..],
            framed(258, &[0x04, 0x02, 0x00], &line).as_slice()
        );
        // A truncated image fails and leaves the buffer as it was.
        assert!(framed_encoder.encode_row(&image[..3], &mut out).is_err());
        assert_eq!(
            &out[1..],
            framed(258, &[0x04, 0x02, 0x00], &line).as_slice()
        );
    }
}
