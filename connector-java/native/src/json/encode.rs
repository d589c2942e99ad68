//! The JSON encode session behind a Java handle: Flink binary row images are written
//! straight as the compact JSON text Flink's `json` format produces.

use karrow_codecs::json::JsonRowEncoder;
use karrow_codecs::FlinkType;

use crate::config::JsonEncoderConfig;
use crate::error::NativeError;
use crate::handles::HandleType;

/// One encoder per parallel Flink writer.
pub struct JsonEncodeSession {
    encoder: JsonRowEncoder,
    /// Reused buffer of the messages of the last call, back to back.
    out: Vec<u8>,
    /// Reused message start offsets of the last batch (`count + 1` entries).
    offsets: Vec<i32>,
    /// Reused copy of the row image of the per-record path.
    pub image: Vec<u8>,
}

impl HandleType for JsonEncodeSession {
    const TAG: u64 = 0x6b61_7272_6f77_0004;
}

impl JsonEncodeSession {
    /// Builds a session from the JSON configuration the format factory passes.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = JsonEncoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.row_type)?;
        let encoder = JsonRowEncoder::new(&row_type, config.encode_options())?;
        Ok(JsonEncodeSession {
            encoder,
            out: Vec::new(),
            offsets: Vec::new(),
            image: Vec::new(),
        })
    }

    /// Encodes the row image held in `self.image` into one Kafka value.
    pub fn encode_held_image(&mut self) -> Result<&[u8], NativeError> {
        self.out.clear();
        self.encoder.encode_row(&self.image, &mut self.out)?;
        Ok(&self.out)
    }

    /// Encodes row images into Kafka values; returns all values and `count + 1` offsets
    /// (value `i` spans `[offsets[i], offsets[i+1])`). A failing row fails the batch with
    /// its index as the record index.
    pub fn encode_batch<'a>(
        &mut self,
        images: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<(&[u8], &[i32]), NativeError> {
        self.out.clear();
        self.offsets.clear();
        self.offsets.push(0);
        for (index, image) in images.into_iter().enumerate() {
            self.encoder
                .encode_row(image, &mut self.out)
                .map_err(|e| NativeError::at_record(e, index))?;
            let end = i32::try_from(self.out.len()).map_err(|_| {
                NativeError::InvalidCall(format!(
                    "encoded batch exceeds 2 GiB at row {index}; encode smaller batches"
                ))
            })?;
            self.offsets.push(end);
        }
        Ok((&self.out, &self.offsets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::JsonDecodeSession;

    const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[
        {"name":"a","type":{"type":"BIGINT","nullable":true}},
        {"name":"s","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#;

    /// Row images decoded from JSON by the decode session, one per message.
    fn images(messages: &[&str]) -> Vec<Vec<u8>> {
        let mut decoder = JsonDecodeSession::open(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        messages
            .iter()
            .map(|m| {
                decoder.message = m.as_bytes().to_vec();
                decoder
                    .decode_held_message()
                    .unwrap()
                    .unwrap()
                    .images
                    .to_vec()
            })
            .collect()
    }

    #[test]
    fn batch_and_single_encode_agree() {
        let mut session = JsonEncodeSession::open(&format!(r#"{{"row_type":{ROW}}}"#)).unwrap();
        let rows = images(&[r#"{"a":1,"s":"x"}"#, r#"{"s":"y"}"#]);
        let (bytes, offsets) = session
            .encode_batch(rows.iter().map(|r| r.as_slice()))
            .unwrap();
        let (bytes, offsets) = (bytes.to_vec(), offsets.to_vec());
        assert_eq!(offsets.len(), 3);
        assert_eq!(
            &bytes[offsets[0] as usize..offsets[1] as usize],
            br#"{"a":1,"s":"x"}"#
        );
        assert_eq!(
            &bytes[offsets[1] as usize..offsets[2] as usize],
            br#"{"a":null,"s":"y"}"#
        );
        session.image = rows[1].clone();
        assert_eq!(
            session.encode_held_image().unwrap(),
            br#"{"a":null,"s":"y"}"#
        );
    }

    #[test]
    fn options_reach_the_encoder_and_failures_name_the_row() {
        let mut session = JsonEncodeSession::open(&format!(
            r#"{{"row_type":{ROW},"ignore_null_fields":true}}"#
        ))
        .unwrap();
        let rows = images(&[r#"{"s":"y"}"#]);
        session.image = rows[0].clone();
        assert_eq!(session.encode_held_image().unwrap(), br#"{"s":"y"}"#);

        let truncated = &rows[0][..3];
        let err = match session.encode_batch([rows[0].as_slice(), truncated]) {
            Err(e) => e,
            Ok(_) => panic!("a truncated image must fail"),
        };
        assert_eq!(err.record_index(), Some(1), "{err}");
    }
}
