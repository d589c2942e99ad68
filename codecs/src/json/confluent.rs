//! Confluent's JSON Schema wire format (`json-confluent-native`): `0x00`, the schema id as a
//! big-endian 4-byte integer, then the JSON document (no message index). After the header
//! the JSON is read and written exactly as by `json-native` ([`JsonRowDecoder`],
//! [`JsonRowEncoder`]).
//!
//! Decode: a value shorter than the header or whose first byte is not `0` fails ("Unknown
//! data format. Magic number does not match"), or is skipped under `ignore-parse-errors`
//! (whose purpose is skipping unreadable values). The schema id is ignored unless a
//! [`SchemaSource`] is given (`validate-schema-id`): then each id must name a JSON
//! schema in the registry, checked once per id; a failed check is never skipped.

use crate::id_cache::IdCache;
use std::sync::Arc;

use crate::error::{CodecError, ErrorContext};
use crate::framing::{confluent_header, split_header, CONFLUENT_HEADER_LEN};
use crate::json::decode::JsonRowDecoder;
use crate::json::encode::JsonRowEncoder;
use crate::json::options::JsonDecodeOptions;
use crate::schema_source::{by_id, SchemaSource, SchemaType};
use crate::types::FlinkType;

/// Decodes Confluent-framed JSON values of one row type. Not thread-safe: each parallel
/// reader owns one.
pub struct JsonConfluentDecoder {
    decoder: JsonRowDecoder,
    ignore_parse_errors: bool,
    ids: Option<IdCheck>,
}

/// `validate-schema-id`: the source and the ids it has confirmed.
struct IdCheck {
    source: Arc<dyn SchemaSource>,
    /// Bounded (`crate::id_cache`'s policy): an evicted id is checked again.
    confirmed: IdCache<()>,
}

impl std::fmt::Debug for JsonConfluentDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonConfluentDecoder")
            .field("ignore_parse_errors", &self.ignore_parse_errors)
            .field(
                "confirmed_ids",
                &self.ids.as_ref().map(|c| c.confirmed.len()),
            )
            .finish_non_exhaustive()
    }
}

impl JsonConfluentDecoder {
    /// A decoder with the options of `json-native`; `schema_ids` set means
    /// `validate-schema-id` = true.
    pub fn new(
        row_type: &FlinkType,
        options: JsonDecodeOptions,
        schema_ids: Option<Arc<dyn SchemaSource>>,
    ) -> Result<Self, CodecError> {
        Ok(JsonConfluentDecoder {
            decoder: JsonRowDecoder::new(row_type, options)?,
            ignore_parse_errors: options.ignore_parse_errors,
            ids: schema_ids.map(|source| IdCheck {
                source,
                confirmed: IdCache::default(),
            }),
        })
    }

    /// Decodes one Kafka value as [`JsonRowDecoder::decode_message`] does after checking and
    /// removing the header: its rows (0..n) are appended to `out`, their end offsets to
    /// `row_ends`. On error nothing is appended; errors carry the schema id once it is read.
    pub fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        let (id, payload) = match split_header(message) {
            Ok(parts) => parts,
            Err(_) if self.ignore_parse_errors => return Ok(()),
            Err(e) => return Err(e),
        };
        if let Some(check) = &mut self.ids {
            check.require(id)?;
        }
        self.decoder
            .decode_message(payload, out, row_ends)
            .map_err(|e| e.with_schema_id(Some(id)))
    }
}

impl IdCheck {
    fn require(&mut self, id: i32) -> Result<(), CodecError> {
        if self.confirmed.get(id).is_some() {
            return Ok(());
        }
        self.source
            .schema_by_id(id)
            .and_then(|schema| schema.expect(SchemaType::Json, by_id(id)))
            .map_err(|message| CodecError::WriterSchema {
                message,
                context: ErrorContext {
                    schema_id: Some(id),
                    ..ErrorContext::default()
                },
            })?;
        self.confirmed.insert(id, ());
        Ok(())
    }
}

/// Writes rows as Confluent-framed JSON: the header of one registered schema id, then
/// exactly the bytes `json-native` writes for the row.
#[derive(Debug, Clone)]
pub struct JsonConfluentEncoder {
    encoder: JsonRowEncoder,
    header: [u8; CONFLUENT_HEADER_LEN],
    schema_id: i32,
}

impl JsonConfluentEncoder {
    /// Frames the output of `encoder` with `schema_id`.
    pub fn new(encoder: JsonRowEncoder, schema_id: i32) -> Self {
        JsonConfluentEncoder {
            encoder,
            header: confluent_header(schema_id),
            schema_id,
        }
    }

    /// The schema id written in every header.
    pub fn schema_id(&self) -> i32 {
        self.schema_id
    }

    /// Appends the value of the row whose binary image is `image` to `out`; on error `out`
    /// is left as it was.
    pub fn encode_row(&self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        out.extend_from_slice(&self.header);
        let result = self.encoder.encode_row(image, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::options::JsonEncodeOptions;
    use crate::schema_source::InMemorySchemas;
    use std::sync::atomic::Ordering;

    fn registry(entries: &[(i32, SchemaType)]) -> Arc<InMemorySchemas> {
        let schemas = entries
            .iter()
            .fold(InMemorySchemas::default(), |s, &(id, t)| {
                s.with(id, t, "{}")
            });
        Arc::new(schemas)
    }

    fn row_type() -> FlinkType {
        FlinkType::from_json_str(
            r#"{"type":"ROW","nullable":false,"fields":[
                {"name":"a","type":{"type":"BIGINT","nullable":true}},
                {"name":"s","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#,
        )
        .unwrap()
    }

    fn framed(id: i32, json: &str) -> Vec<u8> {
        let mut v = confluent_header(id).to_vec();
        v.extend_from_slice(json.as_bytes());
        v
    }

    /// Decodes with both decoders; returns the row images of the framed one after checking
    /// that they equal the plain decoder's for the payload.
    fn rows_of(decoder: &mut JsonConfluentDecoder, id: i32, json: &str) -> Vec<Vec<u8>> {
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        decoder
            .decode_message(&framed(id, json), &mut out, &mut ends)
            .unwrap();
        let mut plain = JsonRowDecoder::new(&row_type(), JsonDecodeOptions::default()).unwrap();
        let (mut expected, mut expected_ends) = (Vec::new(), Vec::new());
        plain
            .decode_message(json.as_bytes(), &mut expected, &mut expected_ends)
            .unwrap();
        assert_eq!((&out, &ends), (&expected, &expected_ends), "{json}");
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let row = out[start..end].to_vec();
                start = end;
                row
            })
            .collect()
    }

    #[test]
    fn payload_after_the_header_follows_json_native() {
        let mut decoder =
            JsonConfluentDecoder::new(&row_type(), JsonDecodeOptions::default(), None).unwrap();
        assert_eq!(rows_of(&mut decoder, 1, r#"{"a":1,"s":"x"}"#).len(), 1);
        assert_eq!(rows_of(&mut decoder, 7, r#"[{"a":1},{"a":2}]"#).len(), 2);
        assert_eq!(rows_of(&mut decoder, -5, "[]").len(), 0);
        // A header with nothing after it is an empty JSON value: no row.
        assert_eq!(rows_of(&mut decoder, 3, "").len(), 0);
    }

    #[test]
    fn wrong_magic_and_short_values_fail_with_the_magic_message() {
        let mut decoder =
            JsonConfluentDecoder::new(&row_type(), JsonDecodeOptions::default(), None).unwrap();
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let cases: [&[u8]; 5] = [
            br#"{"a":1}"#,
            &[1, 0, 0, 0, 1, b'{', b'}'],
            &[],
            &[0, 0, 1],
            &[0, 0, 0, 0],
        ];
        for value in cases {
            let err = decoder
                .decode_message(value, &mut out, &mut ends)
                .unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("Unknown data format. Magic number does not match"),
                "{value:?}: {err}"
            );
            let expected_short = value.first() == Some(&0) || value.is_empty();
            assert_eq!(
                matches!(err, CodecError::ShortHeader { .. }),
                expected_short,
                "{value:?}: {err}"
            );
        }
        assert!(out.is_empty() && ends.is_empty());
        let short = split_header(&[0, 0, 1]).unwrap_err().to_string();
        assert!(short.contains("this one has 3 bytes"), "{short}");
        // The batch index lands in the context ("naming the record").
        let err = split_header(b"x").unwrap_err().at(4, None);
        assert!(err.to_string().contains("record 4 of the batch"), "{err}");
    }

    #[test]
    fn ignore_parse_errors_skips_unframed_values() {
        let options = JsonDecodeOptions {
            ignore_parse_errors: true,
            ..JsonDecodeOptions::default()
        };
        let mut decoder = JsonConfluentDecoder::new(&row_type(), options, None).unwrap();
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        for value in [&br#"{"a":1}"#[..], &[0, 0], &[], &[9, 0, 0, 0, 1]] {
            decoder.decode_message(value, &mut out, &mut ends).unwrap();
        }
        assert!(ends.is_empty());
        decoder
            .decode_message(&framed(1, r#"{"a":2}"#), &mut out, &mut ends)
            .unwrap();
        assert_eq!(ends.len(), 1);
    }

    #[test]
    fn json_errors_carry_the_schema_id() {
        let mut decoder =
            JsonConfluentDecoder::new(&row_type(), JsonDecodeOptions::default(), None).unwrap();
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let err = decoder
            .decode_message(&framed(42, r#"{"a":"x"}"#), &mut out, &mut ends)
            .unwrap_err();
        assert_eq!(err.context().and_then(|c| c.schema_id), Some(42), "{err}");
        let text = err.to_string();
        assert!(
            text.starts_with("Failed to deserialize JSON: '{\"a\":\"x\"}'"),
            "{text}"
        );
        assert!(text.contains("schema id 42"), "{text}");
    }

    #[test]
    fn schema_ids_are_ignored_by_default() {
        let mut decoder =
            JsonConfluentDecoder::new(&row_type(), JsonDecodeOptions::default(), None).unwrap();
        for id in [99, 0, -1, i32::MAX] {
            assert_eq!(rows_of(&mut decoder, id, r#"{"a":1}"#).len(), 1, "{id}");
        }
    }

    #[test]
    fn validated_ids_are_looked_up_once_and_unknown_ids_fail_even_when_ignoring() {
        let registry = registry(&[
            (1, SchemaType::Json),
            (2, SchemaType::Json),
            (3, SchemaType::Avro),
        ]);
        let source: Arc<dyn SchemaSource> = registry.clone();
        for ignore in [false, true] {
            let options = JsonDecodeOptions {
                ignore_parse_errors: ignore,
                ..JsonDecodeOptions::default()
            };
            registry.lookups.store(0, Ordering::SeqCst);
            let mut decoder =
                JsonConfluentDecoder::new(&row_type(), options, Some(source.clone())).unwrap();
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            for id in [1, 2, 1, 1, 2] {
                decoder
                    .decode_message(&framed(id, r#"{"a":1}"#), &mut out, &mut ends)
                    .unwrap();
            }
            assert_eq!(ends.len(), 5);
            assert_eq!(registry.lookups.load(Ordering::SeqCst), 2, "once per id");

            let before = (out.len(), ends.len());
            let err = decoder
                .decode_message(&framed(77, r#"{"a":1}"#), &mut out, &mut ends)
                .unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("Could not find schema with id 77 in registry"),
                "{err}"
            );
            assert_eq!(err.context().and_then(|c| c.schema_id), Some(77));
            assert_eq!((out.len(), ends.len()), before, "nothing appended");
            let err = decoder
                .decode_message(&framed(3, r#"{"a":1}"#), &mut out, &mut ends)
                .unwrap_err();
            assert!(
                err.to_string()
                    .contains("Schema with id 3 in registry is a AVRO schema, not a JSON schema"),
                "{err}"
            );
            // Failures are not cached: the id is asked again next time.
            let lookups = registry.lookups.load(Ordering::SeqCst);
            assert!(decoder
                .decode_message(&framed(77, "{}"), &mut out, &mut ends)
                .is_err());
            assert_eq!(registry.lookups.load(Ordering::SeqCst), lookups + 1);
        }
    }

    #[test]
    fn encoder_frames_exactly_what_json_native_writes() {
        let plain = JsonRowEncoder::new(&row_type(), JsonEncodeOptions::default()).unwrap();
        let framed_encoder = JsonConfluentEncoder::new(plain.clone(), 0x0001_0203);
        assert_eq!(framed_encoder.schema_id(), 0x0001_0203);
        let mut decoder =
            JsonConfluentDecoder::new(&row_type(), JsonDecodeOptions::default(), None).unwrap();
        let image = rows_of(&mut decoder, 1, r#"{"a":5,"s":"é"}"#).remove(0);

        let mut expected = Vec::new();
        plain.encode_row(&image, &mut expected).unwrap();
        let mut out = b"prefix".to_vec();
        framed_encoder.encode_row(&image, &mut out).unwrap();
        assert_eq!(&out[..6], b"prefix");
        assert_eq!(&out[6..11], &[0, 0, 1, 2, 3]);
        assert_eq!(&out[11..], expected.as_slice());
        assert_eq!(&out[11..], r#"{"a":5,"s":"é"}"#.as_bytes());

        // A failing row leaves the buffer as it was (no dangling header).
        let before = out.clone();
        assert!(framed_encoder.encode_row(&image[..3], &mut out).is_err());
        assert_eq!(out, before);
    }
}
