//! Every fuzz target's harness, as a plain function of the fuzzer's bytes, and the table
//! of targets ([`TARGETS`]): the libFuzzer binaries (`fuzz_targets/*.rs`) call these, and
//! the replay test (`tests/replay.rs`, in the default test run) feeds them every seed and
//! every kept input (`fuzz/regressions/<target>/`) without an instrumented build.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use karrow_codecs::avro::model::AvroNode;
use karrow_codecs::avro::{AvroConfluentEncoder, EncodedBatch};
use karrow_codecs::json::{JsonConfluentDecoder, JsonRowDecoder};
use karrow_codecs::protobuf::confluent::{schema_text, CompiledSchema, ProtobufConfluentDecoder};
use karrow_codecs::protobuf::{message_from_descriptor_set, ProtobufOptions, ProtobufRowDecoder};
use karrow_codecs::schema_source::{SchemaReference, SchemaSource, SchemaType, SourcedSchema};
use karrow_kafka::fetch::response::{parse_fetch_response, AbortedTransaction};
use karrow_kafka::RecordBatches;

use crate::{avro, json, kafka, producer, protobuf, registry, sql_types, Input};

/// A fuzz target: its name (the binary's), its harness and its seeds.
pub struct Target {
    /// The binary's name, as `run.sh` lists it.
    pub name: &'static str,
    /// Runs one input; a panic is a finding.
    pub run: fn(&[u8]),
    /// The seeds it starts from.
    pub seeds: fn() -> Vec<Vec<u8>>,
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "avro_decode",
        run: avro_decode,
        seeds: avro::decode_seeds,
    },
    Target {
        name: "avro_writer_schema",
        run: avro_writer_schema,
        seeds: avro::writer_schema_seeds,
    },
    Target {
        name: "avro_schema",
        run: avro_schema,
        seeds: avro::schema_seeds,
    },
    Target {
        name: "avro_roundtrip",
        run: avro_roundtrip,
        seeds: avro::roundtrip_seeds,
    },
    Target {
        name: "json_decode",
        run: json_decode,
        seeds: json_seeds,
    },
    Target {
        name: "json_confluent_decode",
        run: json_confluent_decode,
        seeds: json_confluent_seeds,
    },
    Target {
        name: "protobuf_decode",
        run: protobuf_decode,
        seeds: protobuf::decode_seeds,
    },
    Target {
        name: "protobuf_confluent_decode",
        run: protobuf_confluent_decode,
        seeds: protobuf_confluent_seeds,
    },
    Target {
        name: "protobuf_descriptor_set",
        run: protobuf_descriptor_set,
        seeds: protobuf::descriptor_set_seeds,
    },
    Target {
        name: "proto_text",
        run: proto_text,
        seeds: protobuf::text_seeds,
    },
    Target {
        name: "protobuf_registry_schema",
        run: protobuf_registry_schema,
        seeds: protobuf::registry_schema_seeds,
    },
    Target {
        name: "kafka_fetch_response",
        run: kafka_fetch_response,
        seeds: kafka::fetch_response_seeds,
    },
    Target {
        name: "kafka_record_batches",
        run: kafka_record_batches,
        seeds: kafka::record_batch_seeds,
    },
    Target {
        name: "kafka_decompress",
        run: kafka_decompress,
        seeds: kafka::decompress_seeds,
    },
    Target {
        name: "kafka_response_frame",
        run: kafka_response_frame,
        seeds: kafka::response_frame_seeds,
    },
    Target {
        name: "kafka_producer_responses",
        run: producer::responses,
        seeds: producer::response_seeds,
    },
    Target {
        name: "kafka_sasl",
        run: crate::sasl::messages,
        seeds: crate::sasl::message_seeds,
    },
    Target {
        name: "registry_request",
        run: registry::request,
        seeds: registry::request_seeds,
    },
];

/// The target named `name`.
pub fn target(name: &str) -> &'static Target {
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no fuzz target {name}"))
}

thread_local! {
    static AVRO: RefCell<Vec<Option<(karrow_codecs::avro::AvroConfluentDecoder, karrow_codecs::FlinkType)>>> =
        RefCell::new((0..avro::CASES.len()).map(|_| None).collect());
    static JSON: RefCell<HashMap<(usize, u8), JsonRowDecoder>> = RefCell::new(HashMap::new());
    static JSON_CONFLUENT: RefCell<HashMap<(usize, u8), JsonConfluentDecoder>> = RefCell::new(HashMap::new());
    static PROTOBUF: RefCell<HashMap<(usize, u8), Option<ProtobufRowDecoder>>> = RefCell::new(HashMap::new());
    static PROTOBUF_CONFLUENT: RefCell<HashMap<(usize, usize, u8), ProtobufConfluentDecoder>> =
        RefCell::new(HashMap::new());
}

/// Confluent Avro values of the (table, writer schema) pairs, decoded by both paths (binary
/// rows and Arrow), which must agree. The decoders live across inputs (as in a task), so
/// a value that leaves state behind shows in a later one.
pub fn avro_decode(data: &[u8]) {
    let mut input = Input::new(data);
    let case = input.byte() as usize % avro::CASES.len();
    let message = input.rest();
    AVRO.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let (decoder, row) = decoders[case].get_or_insert_with(|| avro::case_decoder(case as u8));
        avro::decode_both(decoder, row, message);
    });
}

/// A writer schema from the input, resolved against a table, and a value decoded with it.
pub fn avro_writer_schema(data: &[u8]) {
    let mut input = Input::new(data);
    let case = &avro::CASES[input.byte() as usize % avro::CASES.len()];
    let Ok(writer) = std::str::from_utf8(input.part()) else {
        return;
    };
    let message = input.rest();
    let row = sql_types::parse(case.row);
    if let Some(mut decoder) = avro::decoder(&row, None, writer) {
        avro::decode_both(&mut decoder, &row, message);
    }
}

/// Avro schema JSON: parsed, resolved against itself, used as the `schema` option.
pub fn avro_schema(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(node) = AvroNode::parse(text) else {
        return;
    };
    let _ = node.describe();
    let _ = karrow_codecs::avro::decode::resolve::resolve(&node, &node);
    for case in avro::CASES {
        let row = sql_types::parse(case.row);
        let _ = avro::decoder(&row, Some(text), text);
    }
}

/// Decode with Flink's derived schema, encode, decode, encode: stable.
pub fn avro_roundtrip(data: &[u8]) {
    let mut input = Input::new(data);
    let case = &avro::CASES[input.byte() as usize % avro::CASES.len()];
    let message = input.rest();
    let row = sql_types::parse(case.row);
    let Ok(derived) = AvroConfluentEncoder::derived_schema(&row) else {
        return;
    };
    let Some(mut decoder) = avro::decoder(&row, None, &derived) else {
        return;
    };
    let mut image = Vec::new();
    if decoder.decode_one_binary(message, &mut image).is_err() {
        return;
    }
    let encoder = AvroConfluentEncoder::new(row.clone(), 1).expect("an encoder of the table");
    let mut encoded = EncodedBatch::default();
    encoder
        .encode_binary_rows([image.as_slice()], &mut encoded)
        .expect("a decoded row encodes");
    let mut again = Vec::new();
    decoder
        .decode_one_binary(&encoded.bytes, &mut again)
        .expect("an encoded row decodes");
    let mut encoded_again = EncodedBatch::default();
    encoder
        .encode_binary_rows([again.as_slice()], &mut encoded_again)
        .expect("a decoded row encodes");
    assert_eq!(
        encoded.bytes, encoded_again.bytes,
        "encode(decode(encode(row))) differs"
    );
    let mut third = Vec::new();
    decoder
        .decode_one_binary(&encoded_again.bytes, &mut third)
        .expect("an encoded row decodes");
    assert_eq!(again, third, "decode(encode(row)) differs from row");
}

fn json_seeds() -> Vec<Vec<u8>> {
    json::seeds(false)
}

fn json_confluent_seeds() -> Vec<Vec<u8>> {
    json::seeds(true)
}

/// `json` values under every option set.
pub fn json_decode(data: &[u8]) {
    let mut input = Input::new(data);
    let row = input.byte() as usize % json::ROWS.len();
    let bits = input.byte() & 0x0f;
    let message = input.rest();
    JSON.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((row, bits)).or_insert_with(|| {
            JsonRowDecoder::new(&sql_types::parse(json::ROWS[row]), json::options(bits))
                .expect("the harness's tables make decoders")
        });
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let result = decoder.decode_message(message, &mut out, &mut ends);
        if json::options(bits).ignore_parse_errors {
            assert!(
                result.is_ok(),
                "ignore-parse-errors never fails a value: {result:?}"
            );
        }
        assert!(
            ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e == out.len())
        );
    });
}

/// A registry of JSON schemas: every id but 404 is registered.
struct JsonIds;

impl SchemaSource for JsonIds {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        if id == 404 {
            return Err(format!("Could not find schema with id {id} in registry"));
        }
        Ok(SourcedSchema {
            schema_type: SchemaType::Json,
            text: "{}".to_string(),
            references: Vec::new(),
        })
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        Err(format!("Subject '{subject}' version {version} not found"))
    }
}

/// `json-confluent-native` values, with and without `validate-schema-id`.
pub fn json_confluent_decode(data: &[u8]) {
    let mut input = Input::new(data);
    let row = input.byte() as usize % json::ROWS.len();
    let bits = input.byte() & 0x1f;
    let message = input.rest();
    JSON_CONFLUENT.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((row, bits)).or_insert_with(|| {
            let ids: Option<Arc<dyn SchemaSource>> =
                (bits & 0x10 != 0).then(|| Arc::new(JsonIds) as _);
            JsonConfluentDecoder::new(&sql_types::parse(json::ROWS[row]), json::options(bits), ids)
                .expect("the harness's tables make decoders")
        });
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let _ = decoder.decode_message(message, &mut out, &mut ends);
        assert!(ends.last().is_none_or(|&e| e == out.len()));
    });
}

/// `protobuf` values of every message of the parity tests' `.proto` files.
pub fn protobuf_decode(data: &[u8]) {
    let messages = protobuf::messages();
    let mut input = Input::new(data);
    let index = input.byte() as usize % messages.len();
    let bits = input.byte() & 3;
    let payload = input.rest();
    PROTOBUF.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((index, bits)).or_insert_with(|| {
            let message = &messages[index];
            ProtobufRowDecoder::new(
                message,
                &protobuf::row_type(message, 3),
                protobuf::options(bits),
            )
            .ok()
        });
        let Some(decoder) = decoder else {
            return;
        };
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let result = decoder.decode_message(payload, &mut out, &mut ends);
        if bits & 1 != 0 {
            assert!(
                result.is_ok(),
                "ignore-parse-errors never fails a value: {result:?}"
            );
        }
        assert!(ends.len() <= 1 && ends.last().is_none_or(|&e| e == out.len()));
    });
}

/// Serves file `index` for every id, its imports as references (subject = file name).
struct ProtoFiles(usize);

fn proto_schema(text: &str) -> SourcedSchema {
    let references = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("import \"")?.strip_suffix("\";"))
        .filter(|name| !name.starts_with("google/"))
        .map(|name| SchemaReference {
            name: name.to_string(),
            subject: name.to_string(),
            version: 1,
        })
        .collect();
    SourcedSchema {
        schema_type: SchemaType::Protobuf,
        text: text.to_string(),
        references,
    }
}

impl SchemaSource for ProtoFiles {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        if id == 404 {
            return Err(format!("Could not find schema with id {id} in registry"));
        }
        Ok(proto_schema(protobuf::PROTOS[self.0].1))
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        protobuf::PROTOS
            .iter()
            .find(|(name, _)| *name == subject)
            .map(|(_, text)| proto_schema(text))
            .ok_or_else(|| format!("Subject '{subject}' version {version} not found"))
    }
}

/// Tables for the files' messages: flink-protobuf's columns of a few common shapes.
const PROTO_ROWS: &[&str] = &[
    "ROW<id BIGINT, name STRING, price DOUBLE, tags ARRAY<STRING>>",
    "ROW<a INT, b STRING, inner ROW<x INT, y STRING>, m MAP<STRING, INT>>",
];

/// Per file, its first top-level message framed with message index 0, under each table
/// and option set.
fn protobuf_confluent_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (file, (name, _)) in protobuf::PROTOS.iter().enumerate() {
        let first = protobuf::messages()
            .iter()
            .find(|m| m.parent_file().name() == *name && m.parent_message().is_none());
        let Some(first) = first else {
            continue;
        };
        for (variant, bits) in [0u8, 1, 2, 3].into_iter().enumerate() {
            let mut seed = vec![file as u8, variant as u8 % 2, bits];
            seed.extend(crate::confluent_header(if variant == 3 { 404 } else { 5 }));
            karrow_codecs::framing::write_message_indexes(&[0], &mut seed);
            seed.extend(protobuf::sample(first, variant, 2));
            seeds.push(seed);
        }
    }
    seeds
}

/// `protobuf-confluent-native` values: header, message indexes, payload.
pub fn protobuf_confluent_decode(data: &[u8]) {
    let mut input = Input::new(data);
    let file = input.byte() as usize % protobuf::PROTOS.len();
    let row = input.byte() as usize % PROTO_ROWS.len();
    let bits = input.byte() & 3;
    let message = input.rest();
    PROTOBUF_CONFLUENT.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((file, row, bits)).or_insert_with(|| {
            ProtobufConfluentDecoder::new(
                &sql_types::parse(PROTO_ROWS[row]),
                protobuf::options(bits),
                Arc::new(ProtoFiles(file)),
            )
            .expect("the harness's tables make decoders")
        });
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let _ = decoder.decode_message(message, &mut out, &mut ends);
        assert!(ends.len() <= 1 && ends.last().is_none_or(|&e| e == out.len()));
    });
}

/// Serialized `FileDescriptorSet`s: messages resolved, decoders compiled, a value decoded.
pub fn protobuf_descriptor_set(data: &[u8]) {
    let mut input = Input::new(data);
    let set = input.part();
    let payload = input.rest();
    for name in protobuf::message_names(set).iter().take(8) {
        let Ok(message) = message_from_descriptor_set(set, name) else {
            continue;
        };
        let row = protobuf::row_type(&message, 2);
        let Ok(mut decoder) = ProtobufRowDecoder::new(&message, &row, ProtobufOptions::default())
        else {
            continue;
        };
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let _ = decoder.decode_message(payload, &mut out, &mut ends);
    }
}

/// A registered Protobuf schema in either form a registry answers (`schema_text`): the bytes
/// as text when they are UTF-8, and as the base64 of a `FileDescriptorProto`; what it gives is
/// compiled as the decoder compiles it, which must succeed for a printed descriptor that
/// prost-reflect accepts.
pub fn protobuf_registry_schema(data: &[u8]) {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(data);
    let texts = std::str::from_utf8(data)
        .ok()
        .into_iter()
        .chain([encoded.as_str()]);
    for registered in texts {
        if let Ok(text) = schema_text(registered) {
            if let Ok(schema) = CompiledSchema::compile("fuzz.proto", &text, &HashMap::new()) {
                for message in schema.file().messages().take(8) {
                    if let Ok(path) = schema.index_path(&message) {
                        let _ = schema.message_at(&path);
                    }
                }
            }
        }
    }
}

/// `.proto` text compiled as registry schemas are, messages located by index path.
pub fn proto_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(schema) = CompiledSchema::compile("fuzz.proto", text, &HashMap::new()) else {
        return;
    };
    for message in schema.file().messages().take(8) {
        if let Ok(path) = schema.index_path(&message) {
            let _ = schema.message_at(&path);
        }
        let _ = schema.find_message(message.full_name());
        let row = protobuf::row_type(&message, 2);
        if let Ok(mut decoder) = ProtobufRowDecoder::new(&message, &row, ProtobufOptions::default())
        {
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            let _ = decoder.decode_message(&[], &mut out, &mut ends);
        }
    }
}

/// Fetch v12 responses, each partition's error code classified and its batches walked
/// (read_uncommitted and committed).
pub fn kafka_fetch_response(data: &[u8]) {
    let Ok(response) = parse_fetch_response(data, 7, 64) else {
        return;
    };
    let _ = (response.throttle_time_ms, response.error_code);
    for (i, p) in response.partitions.iter().enumerate() {
        let _ = karrow_kafka::fetch::partition_errors::partition_action(p.error_code);
        if let Some(d) = p.diverging {
            assert!(d.epoch >= 0, "a diverging epoch {d:?} kept though negative");
        }
        let Some(records) = data.get(p.records.clone()) else {
            panic!(
                "partition records {:?} outside a {}-byte response",
                p.records,
                data.len()
            );
        };
        let topic = String::from_utf8_lossy(p.topic(data));
        let mut batches = RecordBatches::new(
            &topic,
            p.partition,
            records,
            0,
            p.high_watermark,
            i % 2 == 1,
            p.aborted.clone(),
        );
        let _ = batches.walk(|record| {
            let _ = (record.key, record.value, record.headers);
            Ok::<(), ()>(())
        });
    }
}

/// Record batches from chosen fetch/stop offsets; offsets handed on strictly increase.
pub fn kafka_record_batches(data: &[u8]) {
    let mut input = Input::new(data);
    let flags = input.byte();
    let from = i64::from(input.byte() as i8);
    let stop = if flags & 2 != 0 {
        i64::MAX
    } else {
        i64::from(input.byte())
    };
    let aborted = if flags & 4 != 0 {
        vec![AbortedTransaction {
            producer_id: i64::from(input.byte()),
            first_offset: i64::from(input.byte()),
        }]
    } else {
        Vec::new()
    };
    let records = input.rest();
    let mut batches = RecordBatches::new("t", 0, records, from, stop, flags & 1 != 0, aborted);
    let mut last = i64::MIN;
    let _ = batches.walk(|record| {
        assert!(record.offset > last, "records out of order");
        last = record.offset;
        Ok::<(), ()>(())
    });
    let _ = batches.next_offset();
}

/// The cap of the decompression target: the 256 MiB of a fetch scaled down, so bombs are
/// cheap to replay; the bounding code is the same.
pub const DECOMPRESS_CAP: u64 = 1024 * 1024;

/// gzip, snappy (raw and Xerial), lz4 frames, zstd, bounded: whatever the input, the
/// output buffer never grows past the cap (bombs included); the unbounded-looking call the
/// fetch makes is run too.
pub fn kafka_decompress(data: &[u8]) {
    let Some((&codec, input)) = data.split_first() else {
        return;
    };
    let codec = i16::from(codec % 5);
    let mut out = Vec::new();
    let _ = karrow_kafka::compression::decompress_bounded(codec, input, &mut out, DECOMPRESS_CAP);
    let cap = DECOMPRESS_CAP as usize;
    assert!(
        out.len() <= cap && out.capacity() <= cap,
        "{} bytes held",
        out.capacity()
    );
    if input.len() < 4096 {
        let _ = karrow_kafka::compression::decompress(codec, input, &mut out);
    }
}

/// A response frame's 4-byte size against a limit (the next 4 bytes): an accepted length
/// is within the limit, and a TLS record's start is always named as one.
pub fn kafka_response_frame(data: &[u8]) {
    let mut input = Input::new(data);
    let size = [input.byte(), input.byte(), input.byte(), input.byte()];
    let limit = u32::from_be_bytes([input.byte(), input.byte(), input.byte(), input.byte()]);
    let limit = limit as usize;
    match karrow_kafka::connection::frame_len(size, limit) {
        Ok(len) => assert!(len <= limit && len == i32::from_be_bytes(size) as usize),
        Err(karrow_kafka::connection::FrameRefused::Tls) => {
            assert!(matches!(size, [0x15 | 0x16, 0x03, _, _]));
        }
        Err(karrow_kafka::connection::FrameRefused::Size(s)) => {
            assert!(s < 0 || s as usize > limit);
        }
    }
}
