//! Protobuf sessions behind Java handles (format `protobuf-native`): one decoder or
//! encoder per parallel Flink reader or writer. The message's descriptors arrive once, as
//! the serialized `FileDescriptorSet` the Java side takes from the generated class.

mod decode;
mod encode;

pub use decode::{ProtobufDecodeSession, ProtobufValueDecoder};
pub use encode::ProtobufEncodeSession;

use karrow_codecs::protobuf::message_from_descriptor_set;
use karrow_codecs::FlinkType;
use prost_reflect::MessageDescriptor;

use crate::config::ProtobufConfig;
use crate::error::NativeError;

/// The parsed configuration, row type and message descriptor of a session.
fn open_parts(
    config_json: &str,
    descriptor_set: &[u8],
) -> Result<(ProtobufConfig, FlinkType, MessageDescriptor), NativeError> {
    let config = ProtobufConfig::from_json(config_json)?;
    let row_type = FlinkType::from_json(&config.row_type)?;
    let message = message_from_descriptor_set(descriptor_set, &config.message)?;
    Ok((config, row_type, message))
}
