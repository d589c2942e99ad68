//! Avro: the (table, writer schema) pairs the decoder targets pick from, and the check that
//! the two decode paths (binary rows written while reading, and the Arrow decoders) agree.

use std::sync::Arc;

use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::flink_binary::{write_batch_rows, RowImages};
use karrow_codecs::schema_source::{SchemaSource, SchemaType, SourcedSchema};
use karrow_codecs::FlinkType;

use crate::sql_types;

/// A table and the writer schema its values were written with.
pub struct Case {
    /// The table's row type, in SQL.
    pub row: &'static str,
    /// The writer schema registered for every id.
    pub writer: &'static str,
}

/// The pairs, chosen by the first input byte. They cover every Avro type, unions, the
/// permitted promotions, enums and fixed, reader fields the writer lacks, writer fields the
/// reader skips (of every shape), and arrays/maps of items that take no bytes.
pub const CASES: &[Case] = &[
    Case {
        row: "ROW<id BIGINT NOT NULL, name STRING, price DECIMAL(5, 2), ts TIMESTAMP(3), \
              score DOUBLE, tags ARRAY<INT>, added INT>",
        writer: r#"{"type":"record","name":"Bid","namespace":"com.acme","fields":[
          {"name":"name","type":["null","string"]},
          {"name":"extra","type":{"type":"map","values":"long"}},
          {"name":"id","type":"long"},
          {"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}]},
          {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
          {"name":"score","type":["null","int","string"]},
          {"name":"tags","type":{"type":"array","items":"int"}}]}"#,
    },
    Case {
        row: "ROW<b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, \
              str STRING, bin BYTES, fx BINARY(4), dt DATE, tm TIME(3), ts6 TIMESTAMP(3), \
              ltz TIMESTAMP(3), big DECIMAL(38, 10), e STRING, ms MULTISET<STRING>>",
        writer: r#"{"type":"record","name":"All","fields":[
          {"name":"b","type":["null","boolean"]},
          {"name":"t","type":["null","int"]},
          {"name":"s","type":["null","int"]},
          {"name":"i","type":["null","int"]},
          {"name":"l","type":["null","int","long"]},
          {"name":"f","type":["null","float","int","long"]},
          {"name":"d","type":["null","double","float"]},
          {"name":"str","type":["null","string","bytes"]},
          {"name":"bin","type":["null","bytes","string"]},
          {"name":"fx","type":["null",{"type":"fixed","name":"F4","size":4}]},
          {"name":"dt","type":["null",{"type":"int","logicalType":"date"}]},
          {"name":"tm","type":["null",{"type":"int","logicalType":"time-millis"}]},
          {"name":"ts6","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},
          {"name":"ltz","type":["null",{"type":"long","logicalType":"local-timestamp-millis"}]},
          {"name":"big","type":["null",{"type":"fixed","name":"D16","size":16,"logicalType":"decimal","precision":38,"scale":10}]},
          {"name":"e","type":["null",{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}]},
          {"name":"ms","type":["null",{"type":"map","values":"int"}]}]}"#,
    },
    Case {
        row: "ROW<items ARRAY<ROW<k STRING, v ARRAY<BIGINT>>>, m MAP<STRING, ROW<x INT, y \
              MAP<STRING, STRING>>>, nested ROW<inner ROW<deep ARRAY<ARRAY<DOUBLE>>>>>",
        writer: r#"{"type":"record","name":"Nest","fields":[
          {"name":"items","type":["null",{"type":"array","items":{"type":"record","name":"Item","fields":[
            {"name":"k","type":["null","string"]},
            {"name":"v","type":{"type":"array","items":"long"}}]}}]},
          {"name":"m","type":{"type":"map","values":{"type":"record","name":"Val","fields":[
            {"name":"x","type":"int"},
            {"name":"y","type":["null",{"type":"map","values":"string"}]}]}}},
          {"name":"nested","type":{"type":"record","name":"N1","fields":[
            {"name":"inner","type":["null",{"type":"record","name":"N2","fields":[
              {"name":"deep","type":{"type":"array","items":{"type":"array","items":["null","double"]}}}]}]}]}}]}"#,
    },
    Case {
        // Items that take no bytes on the wire, read and skipped.
        row: "ROW<nulls ARRAY<NULL>, empties ARRAY<ROW<>>, zero ARRAY<BINARY(1)>, \
              defaults ARRAY<ROW<a INT, b STRING>>, m MAP<STRING, ROW<>>, after INT>",
        writer: r#"{"type":"record","name":"Z","fields":[
          {"name":"skipped_nulls","type":{"type":"array","items":"null"}},
          {"name":"nulls","type":{"type":"array","items":"null"}},
          {"name":"skipped_empties","type":{"type":"array","items":{"type":"record","name":"E0","fields":[]}}},
          {"name":"empties","type":{"type":"array","items":{"type":"record","name":"E1","fields":[]}}},
          {"name":"zero","type":{"type":"array","items":{"type":"fixed","name":"F0","size":0}}},
          {"name":"skipped_zero","type":{"type":"array","items":"F0"}},
          {"name":"defaults","type":{"type":"array","items":{"type":"record","name":"D","fields":[
            {"name":"gone","type":"null"}]}}},
          {"name":"m","type":{"type":"map","values":"E1"}},
          {"name":"skipped_map","type":{"type":"map","values":{"type":"array","items":"null"}}},
          {"name":"after","type":"int"}]}"#,
    },
    Case {
        // Resolution: a missing reader field without default, an enum symbol the reader
        // lacks, a union branch the reader cannot take.
        row: "ROW<a INT, e STRING, u BIGINT, r ROW<x INT>>",
        writer: r#"{"type":"record","name":"R","fields":[
          {"name":"a","type":["null","int","string","boolean"]},
          {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C","D"]}},
          {"name":"u","type":["long","null",{"type":"array","items":"int"}]},
          {"name":"r","type":["null",{"type":"record","name":"X","fields":[
            {"name":"y","type":"int"}]}]}]}"#,
    },
];

/// A registry that answers every id with one schema text.
pub struct OneSchema(pub Arc<str>);

impl SchemaSource for OneSchema {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        if id == 404 {
            return Err(format!("Could not find schema with id {id} in registry"));
        }
        Ok(SourcedSchema {
            schema_type: SchemaType::Avro,
            text: self.0.to_string(),
            references: Vec::new(),
        })
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        Err(format!("no version {version} of subject {subject} here"))
    }
}

/// A decoder of `row` whose registry answers `writer` for every id; `None` when the pair
/// does not make a decoder.
pub fn decoder(
    row: &FlinkType,
    reader: Option<&str>,
    writer: &str,
) -> Option<AvroConfluentDecoder> {
    AvroConfluentDecoder::new(row, reader, Arc::new(OneSchema(Arc::from(writer)))).ok()
}

/// The decoder of case `index` (modulo the number of cases) and its row type.
pub fn case_decoder(index: u8) -> (AvroConfluentDecoder, FlinkType) {
    let case = &CASES[index as usize % CASES.len()];
    let row = sql_types::parse(case.row);
    let decoder =
        AvroConfluentDecoder::new(&row, None, Arc::new(OneSchema(Arc::from(case.writer))))
            .unwrap_or_else(|e| panic!("case {index} makes no decoder: {e}"));
    (decoder, row)
}

/// Decodes `message` through both paths and asserts they agree: the same error-or-success,
/// and on success the same row image.
pub fn decode_both(decoder: &mut AvroConfluentDecoder, row: &FlinkType, message: &[u8]) {
    let mut binary = Vec::new();
    let direct = decoder.decode_one_binary(message, &mut binary);
    let arrow = decoder.decode_one(message).and_then(|batch| {
        let mut images = RowImages::default();
        write_batch_rows(&batch, row, &mut images)?;
        Ok(images.bytes)
    });
    match (direct, arrow) {
        (Ok(()), Ok(image)) => assert_eq!(binary, image, "the two Avro paths wrote different rows"),
        (Err(_), Err(_)) => {}
        (direct, arrow) => panic!(
            "the Avro paths disagree: binary rows {:?}, Arrow {:?}",
            direct.err().map(|e| e.to_string()),
            arrow.err().map(|e| e.to_string())
        ),
    }
}

/// A datum of `node`: `variant` picks union branches (cycling from the first), array and
/// map sizes (0, 1 or 2 items, the third in a negative-count block with its byte size), so
/// that seeds reach every branch.
pub fn datum(node: &karrow_codecs::avro::model::AvroNode, variant: usize, out: &mut Vec<u8>) {
    use karrow_codecs::avro::model::AvroNode as N;
    match node {
        N::Null | N::Recursive(_) => {}
        N::Boolean => out.push((variant & 1) as u8),
        N::Int | N::Long => zigzag([0, 1, -1, 300, 1_600_000_000_123][variant % 5], out),
        N::Float => out.extend_from_slice(&1.5f32.to_le_bytes()),
        N::Double => out.extend_from_slice(&(-2.25f64).to_le_bytes()),
        N::Bytes | N::String => {
            let texts: [&[u8]; 4] = [b"", b"hi", "h\u{e9}llo".as_bytes(), &[0x01, 0x86, 0xa0]];
            let text = texts[variant % 4];
            zigzag(text.len() as i64, out);
            out.extend_from_slice(text);
        }
        N::Fixed(f) => out.extend((0..f.size).map(|i| i as u8)),
        N::Enum(e) => zigzag((variant % e.symbols.len().max(1)) as i64, out),
        N::Array(items) => blocks(variant, out, |i, out| datum(items, variant + i, out)),
        N::Map(values) => blocks(variant, out, |i, out| {
            zigzag(1, out);
            out.push(b'a' + i as u8);
            datum(values, variant + i, out);
        }),
        N::Union(branches) => {
            let index = variant % branches.len().max(1);
            zigzag(index as i64, out);
            if let Some(branch) = branches.get(index) {
                datum(branch, variant / 2, out);
            }
        }
        N::Record(r) => {
            for (i, field) in r.fields.iter().enumerate() {
                datum(&field.schema, variant + i, out);
            }
        }
    }
}

fn blocks(variant: usize, out: &mut Vec<u8>, mut item: impl FnMut(usize, &mut Vec<u8>)) {
    let n = variant % 3;
    if n > 0 {
        zigzag(n as i64, out);
        for i in 0..n {
            item(i, out);
        }
    }
    if variant % 4 == 3 {
        let mut block = Vec::new();
        item(n, &mut block);
        zigzag(-1, out);
        zigzag(block.len() as i64, out);
        out.extend_from_slice(&block);
    }
    zigzag(0, out);
}

/// Avro's zig-zag varint.
pub fn zigzag(v: i64, out: &mut Vec<u8>) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Seeds of the decode targets: per case, a few framed datums of its writer schema.
pub fn decode_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let writer =
            karrow_codecs::avro::model::AvroNode::parse(case.writer).expect("a valid case");
        for variant in 0..6 {
            let mut seed = vec![i as u8];
            seed.extend(crate::confluent_header(1));
            datum(&writer, variant, &mut seed);
            seeds.push(seed);
        }
    }
    seeds
}

/// Seeds of the round-trip target: datums of each table's derived schema.
pub fn roundtrip_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let row = sql_types::parse(case.row);
        let Ok(text) = karrow_codecs::avro::AvroConfluentEncoder::derived_schema(&row) else {
            continue;
        };
        let writer = karrow_codecs::avro::model::AvroNode::parse(&text).expect("a derived schema");
        for variant in 0..6 {
            let mut seed = vec![i as u8];
            seed.extend(crate::confluent_header(1));
            datum(&writer, variant, &mut seed);
            seeds.push(seed);
        }
    }
    seeds
}

/// Seeds of the writer-schema target: each case's schema and a datum of it.
pub fn writer_schema_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let writer =
            karrow_codecs::avro::model::AvroNode::parse(case.writer).expect("a valid case");
        for variant in 0..3 {
            let mut seed = vec![i as u8];
            crate::put_part(&mut seed, case.writer.as_bytes());
            seed.extend(crate::confluent_header(1));
            datum(&writer, variant, &mut seed);
            seeds.push(seed);
        }
    }
    seeds
}

/// Seeds of the schema target: the cases' writer schemas and the schemas Flink derives for
/// their tables.
pub fn schema_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = CASES.iter().map(|c| c.writer.as_bytes().to_vec()).collect();
    for case in CASES {
        if let Ok(text) =
            karrow_codecs::avro::AvroConfluentEncoder::derived_schema(&sql_types::parse(case.row))
        {
            seeds.push(text.into_bytes());
        }
    }
    seeds.push(
        br#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#.to_vec(),
    );
    seeds
}
