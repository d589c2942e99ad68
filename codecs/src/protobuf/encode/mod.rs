//! Flink binary rows written as the protobuf bytes flink-protobuf 2.2.0's
//! `PbRowDataSerializationSchema` produces (spec §4.4).
//!
//! flink-protobuf fills the generated class's builder column by column (a NULL column is
//! left unset, NULLs inside arrays and maps become defaults) and serialises the message
//! with protobuf-java (`toByteArray`). This encoder reads the binary image and writes the
//! same bytes directly:
//! - fields in field-number order; proto3 implicit-presence fields are left out at their
//!   default (0, +0.0 by its bits, false, empty string/bytes, enum value 0);
//! - oneofs: the last non-NULL member in column order is written, the others not;
//! - repeated fields packed or not as the field says; map entries (key and value always
//!   written) in the iteration order of the `java.util.HashMap` flink-protobuf builds
//!   ([`java_map`]);
//! - enums by name from text columns and by number from INT/BIGINT columns (BIGINT cast to
//!   a Java int); unknown names and numbers become the first declared value. TINYINT and
//!   SMALLINT enum columns are rejected at creation, as flink-protobuf's code generator
//!   rejects them ("Unsupported data type in schema");
//! - strings are the Java strings of the row's UTF-8 bytes, re-encoded as UTF-8;
//! - proto2 required fields left unset fail the row as protobuf-java's `build()` does.
//!
//! A sub-message's length is written in a one-byte placeholder before its content and the
//! content moved up when the length needs more bytes (only for content of 128 bytes or
//! more), so nothing is allocated per field; the scratch stacks for map ordering are kept
//! between rows.

mod program;
mod required;
mod write;

#[cfg(test)]
mod tests;

use prost_reflect::MessageDescriptor;

use self::program::MessageProgram;
use super::checks::Checks;
use super::plan::{MessagePlan, ProtobufOptions};
use crate::error::CodecError;
use crate::flink_binary::java_detail::ImageForm;
use crate::flink_binary::slots::Slots;
use crate::java::hash_map::JavaHashMap;
use crate::types::FlinkType;

/// Writes Flink rows of one row type as protobuf messages of one message type, byte for
/// byte as flink-protobuf 2.2.0 does.
#[derive(Debug)]
pub struct ProtobufRowEncoder {
    root: MessageProgram,
    /// `write-null-string-literal` as UTF-8.
    null_string: Box<str>,
    scratch: Scratch,
}

/// Buffers reused across rows; nested maps use them as stacks above their parent's part.
#[derive(Debug, Default)]
struct Scratch {
    /// The `HashMap` replay of the map being ordered.
    map: JavaHashMap,
    /// Keys of the maps being written, as Java sees them.
    keys: Vec<program::MapKey>,
    /// Text of the string keys in `keys`.
    key_text: String,
    /// Java text of the string keys in `keys` of a marked image (lone surrogates kept).
    key_java: Vec<u8>,
    /// (key index, value index) of the entries of the maps being written, in wire order.
    order: Vec<(u32, u32)>,
}

impl ProtobufRowEncoder {
    /// Compiles an encoder of rows of `row_type` (a ROW FlinkType) into messages `message`.
    ///
    /// Fails (`CodecError::InvalidType`) when a column has no proto field of its name, when
    /// a column type does not fit its field (flink-protobuf's validation), or when an enum
    /// is read from a TINYINT or SMALLINT column (flink-protobuf's code generator fails
    /// with "Unsupported data type in schema: TINYINT").
    pub fn new(
        message: &MessageDescriptor,
        row_type: &FlinkType,
        options: ProtobufOptions,
    ) -> Result<Self, CodecError> {
        let fields = row_type.row_fields()?;
        let (checks, _) = Checks::build(message);
        let plan = MessagePlan::compile_for_encode(message, fields, &options, &checks)?;
        let root = MessageProgram::compile(plan, message)?;
        Ok(ProtobufRowEncoder {
            root,
            null_string: options.write_null_string_literal.into_boxed_str(),
            scratch: Scratch::default(),
        })
    }

    /// Appends the protobuf bytes of one Flink BinaryRowData image to `out` (an all-NULL
    /// row appends nothing). On error `out` is left as it was.
    pub fn encode_row(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        let result = self.encode_into(image, out);
        if result.is_err() {
            out.truncate(start);
        }
        self.scratch.keys.clear();
        self.scratch.key_text.clear();
        self.scratch.key_java.clear();
        self.scratch.order.clear();
        result
    }

    fn encode_into(&mut self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        let row = Slots::row(image, 0, self.root.arity)?;
        let mut writer = write::Writer {
            scratch: &mut self.scratch,
            null_string: &self.null_string,
            form: ImageForm::of(image),
        };
        if self.root.check {
            writer.check_required(&self.root, &row)?;
        }
        writer.write_message(&self.root, &row, out)
    }
}
