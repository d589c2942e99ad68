//! Protobuf sessions behind Java handles: one decoder or encoder per parallel Flink reader
//! or writer. For `protobuf-native` the message's descriptors arrive once, as the serialized
//! `FileDescriptorSet` the Java side takes from the generated class; for
//! `protobuf-confluent-native` (a `confluent` configuration section) schemas come from the
//! schema registry instead (its client is the codecs' schema source).

mod decode;
mod encode;

pub use decode::{ProtobufDecodeSession, ProtobufValueDecoder};
pub use encode::ProtobufEncodeSession;

use karrow_codecs::protobuf::message_from_descriptor_set;
use karrow_codecs::FlinkType;
use prost_reflect::MessageDescriptor;

use crate::config::ProtobufConfig;
use crate::error::NativeError;

/// The row type and message descriptor of a `protobuf-native` session.
fn plain_parts(
    config: ProtobufConfig,
    descriptor_set: &[u8],
) -> Result<(ProtobufConfig, FlinkType, MessageDescriptor), NativeError> {
    let row_type = FlinkType::from_json(&config.row_type)?;
    let message = message_from_descriptor_set(descriptor_set, &config.message)?;
    Ok((config, row_type, message))
}

#[cfg(test)]
mod tests;
