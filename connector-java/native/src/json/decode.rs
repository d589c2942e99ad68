//! The JSON decode session behind a Java handle: the codec's row decoder and reusable
//! buffers. Values are decoded straight into Flink binary row images, 0..n per value.
//! With a `confluent` section (`json-confluent-native`) values carry Confluent's header,
//! checked and removed by [`JsonConfluentDecoder`] (schema ids validated against the
//! registry when asked).

use std::sync::Arc;

use karrow_codecs::json::{JsonConfluentDecoder, JsonRowDecoder};
use karrow_codecs::schema_source::SchemaSource;
use karrow_codecs::{CodecError, FlinkType};
use karrow_registry::RegistryClient;

use crate::config::JsonDecoderConfig;
use crate::error::NativeError;
use crate::row_list::{MessageRows, RowListSession};
use crate::session::SessionKind;

/// The value decoder of a session: plain JSON (`json-native`) or Confluent-framed JSON
/// (`json-confluent-native`).
pub enum ValueDecoder {
    /// Plain JSON values (`json-native`).
    Plain(JsonRowDecoder),
    /// Confluent-framed JSON values (`json-confluent-native`): header checked and removed first.
    Confluent(JsonConfluentDecoder),
}

impl MessageRows for ValueDecoder {
    const KIND: SessionKind = SessionKind::JsonDecoder;
    const AT_MOST_ONE_ROW: bool = false;

    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        match self {
            ValueDecoder::Plain(d) => d.decode_message(message, out, row_ends),
            ValueDecoder::Confluent(d) => d.decode_message(message, out, row_ends),
        }
    }
}

/// One JSON decoder per parallel Flink reader.
pub type JsonDecodeSession = RowListSession<ValueDecoder>;

impl JsonDecodeSession {
    /// Builds a session from the JSON configuration the format factory passes.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = JsonDecoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.row_type)?;
        let decoder = match &config.confluent {
            None => ValueDecoder::Plain(JsonRowDecoder::new(&row_type, config.decode_options())?),
            Some(confluent) => {
                let ids = if confluent.validate_schema_id {
                    let client = RegistryClient::new(confluent.registry.registry_config())?;
                    let source: Arc<dyn SchemaSource> = Arc::new(client);
                    Some(source)
                } else {
                    None
                };
                ValueDecoder::Confluent(JsonConfluentDecoder::new(
                    &row_type,
                    config.decode_options(),
                    ids,
                )?)
            }
        };
        Ok(RowListSession::new(decoder))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row_list::RowList;

    fn ints(bytes: &[u8]) -> Vec<i32> {
        bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    const CONFIG: &str = r#"{"row_type":{"type":"ROW","nullable":false,"fields":[
        {"name":"a","type":{"type":"BIGINT","nullable":true}}]},"options":{}}"#;

    /// The rows of a row list, as (count, offsets, images).
    fn parse(rows: RowList<'_>) -> (i32, Vec<i32>, Vec<u8>) {
        let whole = [rows.header, rows.images].concat();
        let head = ints(rows.header);
        assert_eq!(whole.len(), rows.len());
        assert_eq!(*head.last().unwrap() as usize, whole.len());
        (head[0], head[1..].to_vec(), rows.images.to_vec())
    }

    #[test]
    fn one_message_gives_zero_or_more_rows() {
        let mut session = JsonDecodeSession::open(CONFIG).unwrap();
        let (count, offsets, _) = parse(
            session
                .decode_message(br#"[{"a":1},{"a":2}]"#)
                .unwrap()
                .unwrap(),
        );
        assert_eq!(count, 2);
        assert_eq!(offsets[0], 16);
        assert!(offsets[1] > offsets[0] && offsets[2] > offsets[1]);

        for empty in [&b"[]"[..], b""] {
            assert!(session.decode_message(empty).unwrap().is_none());
        }
        assert!(session.decode_message(br#"{"a":"x"}"#).is_err());
    }

    #[test]
    fn batch_reports_rows_per_value_and_the_failing_index() {
        let mut session = JsonDecodeSession::open(CONFIG).unwrap();
        let values: [Option<&[u8]>; 5] = [
            Some(br#"{"a":1}"#),
            None,
            Some(br#"[{"a":2},{"a":3}]"#),
            Some(b"[]"),
            Some(br#"{"a":4}"#),
        ];
        let (rows, ends) = session.decode_batch(values).unwrap();
        assert_eq!(ends, &[1, 1, 3, 3, 4]);
        let (count, offsets, images) = parse(rows);
        assert_eq!(count, 4);
        assert_eq!(offsets.len(), 5);
        // Every row has the same size here (one BIGINT field), so the spans are equal.
        let sizes: Vec<i32> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(sizes.iter().all(|s| *s == sizes[0] && *s > 0), "{sizes:?}");
        assert_eq!(images.len() as i32, sizes.iter().sum::<i32>());

        let failing: [Option<&[u8]>; 3] = [Some(br#"{"a":1}"#), None, Some(br#"{"a":true}"#)];
        let err = match session.decode_batch(failing) {
            Err(e) => e,
            Ok(_) => panic!("a BIGINT from true must fail"),
        };
        assert_eq!(err.record_index(), Some(2), "{err}");

        let (rows, ends) = session.decode_batch(std::iter::empty()).unwrap();
        assert!(ends.is_empty());
        assert_eq!(parse(rows).0, 0);
    }

    const CONFLUENT_CONFIG: &str = r#"{"row_type":{"type":"ROW","nullable":false,"fields":[
        {"name":"a","type":{"type":"BIGINT","nullable":true}}]},"options":{},
        "confluent":{"url":"http://127.0.0.1:9","validate_schema_id":false}}"#;

    #[test]
    fn confluent_values_lose_their_header_and_bad_ones_name_the_record() {
        let mut session = JsonDecodeSession::open(CONFLUENT_CONFIG).unwrap();
        let mut plain = JsonDecodeSession::open(CONFIG).unwrap();
        let framed = parse(
            session
                .decode_message(b"\x00\x00\x00\x00\x07[{\"a\":1},{\"a\":2}]")
                .unwrap()
                .unwrap(),
        );
        let unframed = parse(
            plain
                .decode_message(br#"[{"a":1},{"a":2}]"#)
                .unwrap()
                .unwrap(),
        );
        assert_eq!(framed, unframed);
        assert_eq!(framed.0, 2);

        // A zero-length value is shorter than the header: an error, not "no row".
        let err = session.decode_message(&[]).err().unwrap().to_string();
        assert!(err.contains("Magic number does not match"), "{err}");

        let values: [Option<&[u8]>; 4] = [
            Some(b"\x00\x00\x00\x00\x01{\"a\":1}"),
            None,
            Some(b"\x00\x00\x00\x00\x01"),
            Some(br#"{"a":2}"#),
        ];
        let err = match session.decode_batch(values) {
            Err(e) => e,
            Ok(_) => panic!("an unframed value must fail"),
        };
        assert_eq!(err.record_index(), Some(3), "{err}");
        assert!(err
            .to_string()
            .starts_with("Unknown data format. Magic number does not match"));
    }

    #[test]
    fn validating_schema_ids_reports_an_unreachable_registry_with_the_id() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = CONFLUENT_CONFIG
            .replace("http://127.0.0.1:9", &format!("http://127.0.0.1:{port}"))
            .replace(
                "\"validate_schema_id\":false",
                "\"validate_schema_id\":true",
            );
        let mut session = JsonDecodeSession::open(&config).unwrap();
        let err = session
            .decode_message(b"\x00\x00\x00\x01\x00{}")
            .err()
            .unwrap();
        assert_eq!(err.schema_id(), Some(256), "{err}");
    }
}
