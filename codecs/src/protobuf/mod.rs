//! Protobuf (flink-protobuf semantics) decoded straight from the wire format into Flink
//! binary rows, and rows encoded into the bytes protobuf-java writes, following a plan
//! compiled once from a message descriptor and the row type (no generated code, no
//! dynamic message per record).
//!
//! - [`descriptors`]: message descriptors from a serialized `FileDescriptorSet`;
//!   [`editions`] lowers editions files for it, [`features`] reads what they decide.
//! - [`plan`]: columns <-> field numbers, value kinds, absent-field rules.
//! - [`wire`]: varints, tags, fixed values, spans.
//! - [`decode`]: wire bytes -> binary row images ([`ProtobufRowDecoder`]).
//! - [`encode`]: binary row images -> wire bytes ([`ProtobufRowEncoder`]).
//! - [`confluent`]: Confluent's framing and registry schemas (`protobuf-confluent-native`).
//! - [`proto_text`]: the `.proto` schema derived from a row type.
//! - [`printer`]: `.proto` text of a `FileDescriptorProto` (registry schemas in descriptor
//!   form, and the derived schema).

pub(crate) mod checks;
pub mod confluent;
pub mod decode;
pub(crate) mod descriptor_checks;
pub mod descriptors;
pub(crate) mod editions;
pub mod encode;
pub(crate) mod features;
pub(crate) mod flat_plan;
pub(crate) mod plan;
pub mod printer;
pub mod proto_text;
pub(crate) mod wire;

pub use decode::ProtobufRowDecoder;
pub use descriptors::{find_message, message_from_descriptor_set};
pub use encode::ProtobufRowEncoder;
pub use plan::ProtobufOptions;

#[cfg(test)]
pub(crate) mod test_support;
