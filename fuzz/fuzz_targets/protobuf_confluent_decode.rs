//! Confluent-framed Protobuf values (`protobuf-confluent-native`): header, message indexes
//! and payload, the writer schema one of the parity tests' `.proto` files (imports served as
//! references), under both option sets.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use karrow_codecs::protobuf::confluent::ProtobufConfluentDecoder;
use karrow_codecs::schema_source::{SchemaReference, SchemaSource, SchemaType, SourcedSchema};
use karrow_fuzz::{protobuf, sql_types, Input};
use libfuzzer_sys::fuzz_target;

/// Serves file `index` for every id, its imports as references (subject = file name).
struct Files(usize);

fn schema(text: &str) -> SourcedSchema {
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

impl SchemaSource for Files {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        if id == 404 {
            return Err(format!("Could not find schema with id {id} in registry"));
        }
        Ok(schema(protobuf::PROTOS[self.0].1))
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        protobuf::PROTOS
            .iter()
            .find(|(name, _)| *name == subject)
            .map(|(_, text)| schema(text))
            .ok_or_else(|| format!("Subject '{subject}' version {version} not found"))
    }
}

/// Tables for the files' messages: flink-protobuf's columns of a few common shapes.
const ROWS: &[&str] = &[
    "ROW<id BIGINT, name STRING, price DOUBLE, tags ARRAY<STRING>>",
    "ROW<a INT, b STRING, inner ROW<x INT, y STRING>, m MAP<STRING, INT>>",
];

/// Per file, its first top-level message framed with message index 0, under each table
/// and option set.
fn seeds() -> Vec<Vec<u8>> {
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
            seed.extend(karrow_fuzz::confluent_header(if variant == 3 {
                404
            } else {
                5
            }));
            karrow_codecs::framing::write_message_indexes(&[0], &mut seed);
            seed.extend(protobuf::sample(first, variant, 2));
            seeds.push(seed);
        }
    }
    seeds
}

thread_local! {
    static DECODERS: RefCell<HashMap<(usize, usize, u8), ProtobufConfluentDecoder>> = RefCell::new(HashMap::new());
}

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(seeds), |data: &[u8]| {
    let mut input = Input::new(data);
    let file = input.byte() as usize % protobuf::PROTOS.len();
    let row = input.byte() as usize % ROWS.len();
    let bits = input.byte() & 3;
    let message = input.rest();
    DECODERS.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((file, row, bits)).or_insert_with(|| {
            ProtobufConfluentDecoder::new(
                &sql_types::parse(ROWS[row]),
                protobuf::options(bits),
                Arc::new(Files(file)),
            )
            .expect("the harness's tables make decoders")
        });
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let _ = decoder.decode_message(message, &mut out, &mut ends);
        assert!(ends.len() <= 1 && ends.last().is_none_or(|&e| e == out.len()));
    });
});
