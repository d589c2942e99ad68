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
//! [`crate::schema_source::SchemaSource`] (references resolved recursively by subject and version) and
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

mod decode;
mod encode;
mod schema;

pub use decode::ProtobufConfluentDecoder;
pub use encode::{
    writer_schema, writer_schema_with_imports, ProtobufConfluentEncoder, WriterSchema,
};
pub use schema::{
    descriptor_bytes, referenced_imports, resolve_schema, schema_text, CompiledSchema,
};

#[cfg(test)]
mod tests;
