//! Rows written as Confluent-framed Protobuf: the writer schema (the `schema` option or the
//! proto3 schema derived from the row type), then per value the header, the message-index
//! path and the bytes [`ProtobufRowEncoder`] writes.

use std::collections::HashMap;

use prost_reflect::MessageDescriptor;

use super::schema::CompiledSchema;
use crate::error::CodecError;
use crate::framing::{confluent_header, write_message_indexes};
use crate::protobuf::proto_text::derive_proto_schema;
use crate::protobuf::ProtobufRowEncoder;
use crate::types::FlinkType;

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
    writer_schema_with_imports(row_type, schema, message_name, &HashMap::new())
}

/// As [`writer_schema`], with `schema` compiled against `imports` (import name -> `.proto`
/// text: the registered schemas its references name, [`super::referenced_imports`]). The
/// message must be declared in `schema` itself.
pub fn writer_schema_with_imports(
    row_type: &FlinkType,
    schema: Option<&str>,
    message_name: &str,
    imports: &HashMap<String, String>,
) -> Result<WriterSchema, CodecError> {
    let invalid = |e: String| {
        CodecError::InvalidProtobufSchema(format!("protobuf-confluent-native writer schema: {e}"))
    };
    let text = match schema {
        Some(text) => text.to_string(),
        None => derive_proto_schema(row_type)?,
    };
    let mut name = "schema.proto".to_string();
    while imports.contains_key(&name) {
        name.insert(0, '_');
    }
    let compiled = CompiledSchema::compile(&name, &text, imports).map_err(invalid)?;
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
