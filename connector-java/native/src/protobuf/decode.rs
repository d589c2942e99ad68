//! The Protobuf decode session: each value is one message, decoded into one Flink binary
//! row (none when skipped under `ignore-parse-errors`).

use karrow_codecs::protobuf::ProtobufRowDecoder;
use karrow_codecs::{CodecError, ErrorContext};

use crate::error::NativeError;
use crate::handles::HandleType;
use crate::row_list::{MessageRows, RowListSession};

/// The value decoder of a Protobuf session.
pub struct ProtobufValueDecoder(ProtobufRowDecoder);

impl MessageRows for ProtobufValueDecoder {
    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        self.0.decode_message(message, out, row_ends)
    }

    /// flink-protobuf parses a null value and fails (skipped under ignore-parse-errors).
    fn decode_null(
        &mut self,
        _out: &mut Vec<u8>,
        _row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        if self.0.options().ignore_parse_errors {
            return Ok(());
        }
        Err(CodecError::Protobuf {
            message: "the Kafka value is null".into(),
            context: ErrorContext::default(),
        })
    }
}

/// One Protobuf decoder per parallel Flink reader.
pub type ProtobufDecodeSession = RowListSession<ProtobufValueDecoder>;

impl HandleType for ProtobufDecodeSession {
    const TAG: u64 = 0x6b61_7272_6f77_0005;
}

impl ProtobufDecodeSession {
    /// Builds a session from the configuration JSON and the serialized descriptor set.
    pub fn open(config_json: &str, descriptor_set: &[u8]) -> Result<Self, NativeError> {
        let (config, row_type, message) = super::open_parts(config_json, descriptor_set)?;
        let decoder = ProtobufRowDecoder::new(&message, &row_type, config.options)?;
        Ok(RowListSession::new(ProtobufValueDecoder(decoder)))
    }
}
