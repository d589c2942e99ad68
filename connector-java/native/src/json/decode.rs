//! The JSON decode session behind a Java handle: the codec's row decoder and reusable
//! buffers. Values are decoded straight into Flink binary row images, 0..n per value.
//! With a `confluent` section (`json-confluent-native`) values carry Confluent's header,
//! checked and removed by [`JsonConfluentDecoder`] (schema ids validated against the
//! registry when asked).

use std::sync::Arc;

use karrow_codecs::json::{JsonConfluentDecoder, JsonRowDecoder, JsonSchemaSource};
use karrow_codecs::{CodecError, FlinkType};
use karrow_registry::RegistryClient;

use crate::config::JsonDecoderConfig;
use crate::error::NativeError;
use crate::handles::HandleType;
use crate::registry_source::RegistrySchemaSource;

/// The value decoder of a session: plain JSON (`json-native`) or Confluent-framed JSON
/// (`json-confluent-native`).
enum ValueDecoder {
    Plain(JsonRowDecoder),
    Confluent(JsonConfluentDecoder),
}

impl ValueDecoder {
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

/// One decoder per parallel Flink reader.
pub struct JsonDecodeSession {
    decoder: ValueDecoder,
    /// Reused buffer of the row images of the last call, back to back.
    images: Vec<u8>,
    /// Reused end offsets (in `images`) of the rows of the last call.
    row_ends: Vec<usize>,
    /// Reused buffer of the row-list header of the last call.
    header: Vec<u8>,
    /// Reused per-value running row counts of the last batch.
    value_row_ends: Vec<i32>,
    /// Reused copy of the message of the per-record path.
    pub message: Vec<u8>,
}

impl HandleType for JsonDecodeSession {
    const TAG: u64 = 0x6b61_7272_6f77_0003;
}

/// Decoded rows in the contract's "row list" layout, as two parts that the caller writes
/// back to back: `header` (`i32` row count, then `count + 1` `i32` absolute offsets, all
/// little-endian) and `images` (the row images, row `i` at `[off[i], off[i+1])` of the
/// whole).
#[derive(Debug, Clone, Copy)]
pub struct RowList<'a> {
    /// Row count and offsets.
    pub header: &'a [u8],
    /// The row images.
    pub images: &'a [u8],
}

impl RowList<'_> {
    /// Total length of the layout in bytes.
    pub fn len(&self) -> usize {
        self.header.len() + self.images.len()
    }

    /// Whether the layout is empty (never: it always holds the row count).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl JsonDecodeSession {
    /// Builds a session from the JSON configuration the format factory passes.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let config = JsonDecoderConfig::from_json(config_json)?;
        let row_type = FlinkType::from_json(&config.row_type)?;
        let decoder = match &config.confluent {
            None => ValueDecoder::Plain(JsonRowDecoder::new(&row_type, config.options)?),
            Some(confluent) => {
                let ids = if confluent.validate_schema_id {
                    let client = RegistryClient::new(confluent.registry.registry_config())?;
                    let source: Arc<dyn JsonSchemaSource> =
                        Arc::new(RegistrySchemaSource::new(Arc::new(client)));
                    Some(source)
                } else {
                    None
                };
                ValueDecoder::Confluent(JsonConfluentDecoder::new(&row_type, config.options, ids)?)
            }
        };
        Ok(JsonDecodeSession {
            decoder,
            images: Vec::new(),
            row_ends: Vec::new(),
            header: Vec::new(),
            value_row_ends: Vec::new(),
            message: Vec::new(),
        })
    }

    /// Decodes the message held in `self.message`; `None` when it yields no row (empty
    /// message, `[]`, or an unreadable message under `ignore-parse-errors`).
    pub fn decode_held_message(&mut self) -> Result<Option<RowList<'_>>, NativeError> {
        self.images.clear();
        self.row_ends.clear();
        self.decoder
            .decode_message(&self.message, &mut self.images, &mut self.row_ends)?;
        if self.row_ends.is_empty() {
            return Ok(None);
        }
        write_header(&self.row_ends, self.images.len(), &mut self.header)?;
        Ok(Some(RowList {
            header: &self.header,
            images: &self.images,
        }))
    }

    /// Decodes a batch of values (`None` = null value, no row) into the rows of all values
    /// in order; returns them with, per value `i`, the number of rows of values `0..=i`.
    /// A failing value fails the batch with its index as the record index.
    pub fn decode_batch<'a>(
        &mut self,
        values: impl IntoIterator<Item = Option<&'a [u8]>>,
    ) -> Result<(RowList<'_>, &[i32]), NativeError> {
        self.images.clear();
        self.row_ends.clear();
        self.value_row_ends.clear();
        for (index, value) in values.into_iter().enumerate() {
            if let Some(message) = value {
                self.decoder
                    .decode_message(message, &mut self.images, &mut self.row_ends)
                    .map_err(|e| NativeError::at_record(e, index))?;
            }
            self.value_row_ends
                .push(to_i32(self.row_ends.len(), "row count")?);
        }
        write_header(&self.row_ends, self.images.len(), &mut self.header)?;
        Ok((
            RowList {
                header: &self.header,
                images: &self.images,
            },
            &self.value_row_ends,
        ))
    }
}

/// Writes the row-list header for rows ending at `row_ends` in an image buffer of
/// `images_len` bytes: the count, then every row start and the end, shifted by the
/// header's own length so that they index the whole layout.
fn write_header(
    row_ends: &[usize],
    images_len: usize,
    header: &mut Vec<u8>,
) -> Result<(), NativeError> {
    let count = row_ends.len();
    let header_len = 4 * (count + 2);
    let total = header_len + images_len;
    to_i32(total, "decoded batch size")?;
    header.clear();
    header.reserve(header_len);
    header.extend_from_slice(&to_i32(count, "row count")?.to_le_bytes());
    let mut start = 0usize;
    for &end in row_ends {
        if end < start || end > images_len {
            return Err(NativeError::InvalidCall(format!(
                "the JSON decoder reported a row ending at {end} after {start} in {images_len} bytes"
            )));
        }
        header.extend_from_slice(&to_i32(header_len + start, "row offset")?.to_le_bytes());
        start = end;
    }
    if start != images_len {
        return Err(NativeError::InvalidCall(format!(
            "the JSON decoder wrote {images_len} image bytes but its rows end at {start}"
        )));
    }
    header.extend_from_slice(&to_i32(total, "row offset")?.to_le_bytes());
    Ok(())
}

fn to_i32(value: usize, what: &str) -> Result<i32, NativeError> {
    i32::try_from(value).map_err(|_| {
        NativeError::InvalidCall(format!(
            "{what} {value} does not fit a Java array; decode smaller batches"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(bytes: &[u8]) -> Vec<i32> {
        bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn header_offsets_index_the_whole_layout() {
        let mut header = Vec::new();
        write_header(&[8, 8, 24], 24, &mut header).unwrap();
        // count 3, header of 4 * (3 + 2) = 20 bytes, rows [20,28) [28,28) [28,44).
        assert_eq!(ints(&header), vec![3, 20, 28, 28, 44]);

        write_header(&[], 0, &mut header).unwrap();
        assert_eq!(ints(&header), vec![0, 8]);
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
        session.message = br#"[{"a":1},{"a":2}]"#.to_vec();
        let (count, offsets, _) = parse(session.decode_held_message().unwrap().unwrap());
        assert_eq!(count, 2);
        assert_eq!(offsets[0], 16);
        assert!(offsets[1] > offsets[0] && offsets[2] > offsets[1]);

        for empty in [&b"[]"[..], b""] {
            session.message = empty.to_vec();
            assert!(session.decode_held_message().unwrap().is_none());
        }
        session.message = br#"{"a":"x"}"#.to_vec();
        assert!(session.decode_held_message().is_err());
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
        session.message = b"\x00\x00\x00\x00\x07[{\"a\":1},{\"a\":2}]".to_vec();
        plain.message = br#"[{"a":1},{"a":2}]"#.to_vec();
        let framed = parse(session.decode_held_message().unwrap().unwrap());
        assert_eq!(framed, parse(plain.decode_held_message().unwrap().unwrap()));
        assert_eq!(framed.0, 2);

        // A zero-length value is shorter than the header: an error, not "no row".
        session.message = Vec::new();
        let err = session.decode_held_message().err().unwrap().to_string();
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
        session.message = b"\x00\x00\x00\x01\x00{}".to_vec();
        let err = session.decode_held_message().err().unwrap();
        assert_eq!(err.schema_id(), Some(256), "{err}");
    }

    #[test]
    fn header_rejects_inconsistent_row_ends() {
        let mut header = Vec::new();
        assert!(write_header(&[16, 8], 16, &mut header).is_err());
        assert!(write_header(&[8], 16, &mut header).is_err());
        assert!(write_header(&[32], 16, &mut header).is_err());
    }
}
