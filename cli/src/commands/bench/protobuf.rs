//! The `protobuf` and `protobuf-confluent` formats under benchmark: `ProtobufRowDecoder` and
//! `ProtobufRowEncoder` (what `protobuf-native` runs), or the Confluent-framed
//! `ProtobufConfluentDecoder` (writer schemas by id from the registry) and
//! `ProtobufConfluentEncoder` (what `protobuf-confluent-native` runs with its `schema`
//! option set to the message's `.proto`), with the formats' default options.
//!
//! The schema is a `.proto` file (compiled with protox, imports resolved next to it) or a
//! serialized `FileDescriptorSet` (`protoc --include_imports --descriptor_set_out`), plus
//! the message's full name. Without `--columns` the row type is flink-protobuf's for the
//! message (`PbToRowTypeUtil`: every field nullable, enums as STRING).

use std::path::Path;
use std::sync::Arc;

use karrow_codecs::protobuf::confluent::{
    writer_schema, ProtobufConfluentDecoder, ProtobufConfluentEncoder, WriterSchema,
};
use karrow_codecs::protobuf::{
    message_from_descriptor_set, printer::print_file, ProtobufOptions, ProtobufRowDecoder,
    ProtobufRowEncoder,
};
use karrow_codecs::types::{FlinkField, FlinkKind, FlinkType};
use karrow_codecs::CodecError;
use karrow_registry::RegistryClient;
use prost::Message;
use prost_reflect::prost_types::FileDescriptorSet;
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use super::error::BenchError;
use super::format::{checked, Format, FormatKind, Session};
use super::image_session::{ImageSession, PlainOrConfluent};

/// The largest schema file read (a `.proto` or a descriptor set).
const MAX_SCHEMA_FILE: u64 = 64 << 20;

/// Files Google's protobuf-java already holds compiled (never generated again).
pub fn is_well_known(file: &str) -> bool {
    file.starts_with("google/protobuf/")
}

/// A message type and where it came from.
#[derive(Debug, Clone)]
pub struct ProtoSchema {
    /// The serialized `FileDescriptorSet`: the message's file and every file it imports.
    pub set: Vec<u8>,
    /// The message.
    pub message: MessageDescriptor,
    /// The `.proto` text of the message's file (the registered schema of
    /// `protobuf-confluent`, and the report's writer schema).
    pub text: String,
    /// Whether the message's file imports only Google's well-known files (a registry schema
    /// without references).
    pub self_contained: bool,
}

/// Reads `path` (`.proto` text, else a serialized descriptor set) and finds `message`.
pub fn load(path: &Path, message: &str) -> Result<ProtoSchema, BenchError> {
    let io = |e| BenchError::io(path, e);
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_SCHEMA_FILE {
        return Err(BenchError::Schema(format!(
            "{}: {size} bytes; a schema file may take at most {MAX_SCHEMA_FILE}",
            path.display()
        )));
    }
    let schema = |e: String| BenchError::Schema(format!("{}: {e}", path.display()));
    let set = if path.extension().is_some_and(|e| e == "proto") {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path.file_name().unwrap_or_default();
        let mut compiler = protox::Compiler::new([dir]).map_err(|e| schema(e.to_string()))?;
        compiler.include_imports(true);
        compiler
            .open_file(name)
            .map_err(|e| schema(format!("does not compile: {e}")))?;
        compiler.encode_file_descriptor_set()
    } else {
        std::fs::read(path).map_err(io)?
    };
    let message = message_from_descriptor_set(&set, message).map_err(|e| schema(e.to_string()))?;
    let files = FileDescriptorSet::decode(set.as_slice())
        .map_err(|e| schema(format!("not a descriptor set: {e}")))?
        .file;
    let own = message.parent_file();
    let own_proto = own.file_descriptor_proto();
    let text = print_file(own_proto, &files).map_err(|e| schema(e.to_string()))?;
    let self_contained = own_proto.dependency.iter().all(|d| is_well_known(d));
    Ok(ProtoSchema {
        set,
        message,
        text,
        self_contained,
    })
}

/// The names of the files of `set` to generate Java classes for (all but Google's).
pub fn generated_files(set: &[u8]) -> Result<Vec<String>, BenchError> {
    Ok(FileDescriptorSet::decode(set)
        .map_err(|e| BenchError::Schema(format!("not a descriptor set: {e}")))?
        .file
        .into_iter()
        .map(|f| f.name().to_string())
        .filter(|n| !is_well_known(n))
        .collect())
}

/// The row type flink-protobuf gives `message` (`PbToRowTypeUtil.generateRowType`): one
/// nullable column per field in declaration order; int32/uint32/sint32/fixed32/sfixed32 INT,
/// the 64-bit kinds BIGINT, enums and strings STRING, bytes BYTES, messages ROW, repeated
/// ARRAY, maps MAP. A message that contains itself is refused (flink-protobuf recurses forever).
pub fn row_type_of(message: &MessageDescriptor) -> Result<FlinkType, BenchError> {
    let mut row = row_of(message, &mut Vec::new())?;
    // The table's row, as `--columns` gives it.
    row.nullable = false;
    Ok(row)
}

fn nullable(kind: FlinkKind) -> FlinkType {
    FlinkType {
        nullable: true,
        kind,
    }
}

fn row_of(message: &MessageDescriptor, path: &mut Vec<String>) -> Result<FlinkType, BenchError> {
    if path.iter().any(|p| p == message.full_name()) || path.len() > 64 {
        return Err(BenchError::Schema(format!(
            "message '{}' contains itself; flink-protobuf has no row type for recursive messages",
            message.full_name()
        )));
    }
    path.push(message.full_name().to_string());
    let mut fields = Vec::new();
    for field in message.fields() {
        fields.push(FlinkField {
            name: field.name().to_string(),
            ty: field_type(&field, path)?,
        });
    }
    path.pop();
    Ok(nullable(FlinkKind::Row(fields)))
}

fn field_type(field: &FieldDescriptor, path: &mut Vec<String>) -> Result<FlinkType, BenchError> {
    if field.is_map() {
        let Kind::Message(entry) = field.kind() else {
            return Err(BenchError::Schema(format!(
                "map field '{}' has no entry",
                field.name()
            )));
        };
        let key = value_type(&entry.map_entry_key_field(), path)?;
        let value = value_type(&entry.map_entry_value_field(), path)?;
        return Ok(nullable(FlinkKind::Map(Box::new(key), Box::new(value))));
    }
    let element = value_type(field, path)?;
    Ok(if field.is_list() {
        nullable(FlinkKind::Array(Box::new(element)))
    } else {
        element
    })
}

fn value_type(field: &FieldDescriptor, path: &mut Vec<String>) -> Result<FlinkType, BenchError> {
    Ok(nullable(match field.kind() {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Uint32 | Kind::Fixed32 => {
            FlinkKind::Int
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64 => {
            FlinkKind::BigInt
        }
        Kind::Bool => FlinkKind::Boolean,
        Kind::Float => FlinkKind::Float,
        Kind::Double => FlinkKind::Double,
        Kind::String | Kind::Enum(_) => FlinkKind::VarChar(i32::MAX as u32),
        Kind::Bytes => FlinkKind::VarBinary(i32::MAX as u32),
        Kind::Message(m) => return row_of(&m, path),
    }))
}

/// `protobuf-confluent`: the registry the decoder reads writer schemas from, and the writer
/// schema and id of the encoder.
pub struct Confluent {
    /// The registry holding the messages' schema ids.
    pub source: Arc<RegistryClient>,
    /// The message's `.proto`, compiled as the encoder's `schema` option is.
    pub writer: WriterSchema,
    /// The id encoded values carry.
    pub encode_id: i32,
}

/// `protobuf` (or `protobuf-confluent`) for one message and row type.
pub struct Protobuf {
    row_type: FlinkType,
    message: MessageDescriptor,
    confluent: Option<Confluent>,
}

impl Protobuf {
    /// Decodes `message` into and encodes it from `row_type`; with `confluent`, values are
    /// Confluent-framed.
    pub fn new(
        row_type: FlinkType,
        message: MessageDescriptor,
        confluent: Option<Confluent>,
    ) -> Result<Self, BenchError> {
        // A column the message does not have fails here.
        checked(Protobuf {
            row_type,
            message,
            confluent,
        })
    }

    /// The Confluent writer schema of `protobuf-confluent` for `row_type`: `text` (the
    /// message's file) with the message `name`.
    pub fn writer_schema(
        row_type: &FlinkType,
        text: &str,
        name: &str,
    ) -> Result<WriterSchema, BenchError> {
        writer_schema(row_type, Some(text), name).map_err(|e| BenchError::Schema(e.to_string()))
    }
}

impl Format for Protobuf {
    fn kind(&self) -> FormatKind {
        FormatKind::Protobuf.confluent_framed_if(self.confluent.is_some())
    }

    fn row_type(&self) -> &FlinkType {
        &self.row_type
    }

    fn session(&self) -> Result<Box<dyn Session>, BenchError> {
        let schema = |e: CodecError| BenchError::Schema(e.to_string());
        let options = ProtobufOptions::default();
        let (decoder, encoder) = match &self.confluent {
            None => (
                PlainOrConfluent::Plain(
                    ProtobufRowDecoder::new(&self.message, &self.row_type, options.clone())
                        .map_err(schema)?,
                ),
                PlainOrConfluent::Plain(
                    ProtobufRowEncoder::new(&self.message, &self.row_type, options)
                        .map_err(schema)?,
                ),
            ),
            Some(c) => (
                PlainOrConfluent::Confluent(
                    ProtobufConfluentDecoder::new(
                        &self.row_type,
                        options.clone(),
                        c.source.clone(),
                    )
                    .map_err(schema)?,
                ),
                PlainOrConfluent::Confluent(ProtobufConfluentEncoder::new(
                    ProtobufRowEncoder::new(&c.writer.message, &self.row_type, options)
                        .map_err(schema)?,
                    c.encode_id,
                    &c.writer.path,
                )),
            ),
        };
        Ok(Box::new(ImageSession::new(
            decoder,
            encoder,
            self.row_type.clone(),
        )))
    }
}
