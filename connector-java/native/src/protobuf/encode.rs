//! The Protobuf encode session: Flink binary row images written as the bytes
//! flink-protobuf's serializer produces.

use karrow_codecs::protobuf::ProtobufRowEncoder;

use crate::encoded_values::encode_all;
use crate::error::NativeError;
use crate::handles::HandleType;

/// One encoder per parallel Flink writer.
pub struct ProtobufEncodeSession {
    encoder: ProtobufRowEncoder,
    /// Reused buffer of the messages of the last call, back to back.
    out: Vec<u8>,
    /// Reused message start offsets of the last batch (`count + 1` entries).
    offsets: Vec<i32>,
    /// Reused copy of the row image of the per-record path.
    pub image: Vec<u8>,
}

impl HandleType for ProtobufEncodeSession {
    const TAG: u64 = 0x6b61_7272_6f77_0006;
}

impl ProtobufEncodeSession {
    /// Builds a session from the configuration JSON and the serialized descriptor set.
    pub fn open(config_json: &str, descriptor_set: &[u8]) -> Result<Self, NativeError> {
        let (config, row_type, message) = super::open_parts(config_json, descriptor_set)?;
        let encoder = ProtobufRowEncoder::new(&message, &row_type, config.options)?;
        Ok(ProtobufEncodeSession {
            encoder,
            out: Vec::new(),
            offsets: Vec::new(),
            image: Vec::new(),
        })
    }
}

impl crate::jni::EncodeSession for ProtobufEncodeSession {
    fn held_image(&mut self) -> &mut Vec<u8> {
        &mut self.image
    }

    fn encode_held_image(&mut self) -> Result<&[u8], NativeError> {
        self.out.clear();
        self.encoder.encode_row(&self.image, &mut self.out)?;
        Ok(&self.out)
    }

    fn encode_images(&mut self, images: Vec<&[u8]>) -> Result<(&[u8], &[i32]), NativeError> {
        let encoder = &mut self.encoder;
        encode_all(images, &mut self.out, &mut self.offsets, |image, out| {
            encoder.encode_row(image, out)
        })?;
        Ok((&self.out, &self.offsets))
    }
}
