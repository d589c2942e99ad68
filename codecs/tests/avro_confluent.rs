//! Decoding Confluent Avro messages built byte by byte into Arrow, checking Flink's
//! conversions, schema evolution and error outcomes.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float64Type, Int32Type, Int64Type, Int8Type, TimestampMillisecondType,
};
use arrow_array::Array;
use karrow_codecs::avro::AvroConfluentDecoder;
use karrow_codecs::schema_source::{InMemorySchemas, SchemaType};
use karrow_codecs::{CodecError, FlinkType};

mod support;
use support::avro::{framed, string, zigzag};

fn schemas(entries: &[(i32, &str)]) -> Arc<InMemorySchemas> {
    let schemas = entries
        .iter()
        .fold(InMemorySchemas::default(), |s, &(id, text)| {
            s.with(id, SchemaType::Avro, text)
        });
    Arc::new(schemas)
}

const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[
  {"name":"id","type":{"type":"BIGINT","nullable":false}},
  {"name":"small","type":{"type":"TINYINT","nullable":true}},
  {"name":"name","type":{"type":"VARCHAR","nullable":true,"length":2147483647}},
  {"name":"price","type":{"type":"DECIMAL","nullable":true,"precision":5,"scale":2}},
  {"name":"ts","type":{"type":"TIMESTAMP","nullable":true,"precision":3}},
  {"name":"score","type":{"type":"DOUBLE","nullable":true}},
  {"name":"tags","type":{"type":"ARRAY","nullable":true,"element":{"type":"INT","nullable":true}}},
  {"name":"added","type":{"type":"INT","nullable":true}}]}"#;

/// The producer's schema: named, namespaced, different field order, an extra field,
/// `added` missing, `score` written as int (promoted), `small` as plain int.
const WRITER: &str = r#"{"type":"record","name":"Bid","namespace":"com.acme","fields":[
  {"name":"name","type":["null","string"]},
  {"name":"extra","type":{"type":"map","values":"long"}},
  {"name":"id","type":"long"},
  {"name":"small","type":"int"},
  {"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}]},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"score","type":["null","int","string"]},
  {"name":"tags","type":{"type":"array","items":"int"}}]}"#;

fn decoder() -> AvroConfluentDecoder {
    let row = FlinkType::from_json_str(ROW).unwrap();
    AvroConfluentDecoder::new(&row, None, schemas(&[(7, WRITER)])).unwrap()
}

fn record(
    name: Option<&[u8]>,
    id: i64,
    small: i64,
    price: Option<&[u8]>,
    score_branch: i64,
) -> Vec<u8> {
    let mut b = Vec::new();
    match name {
        None => zigzag(0, &mut b),
        Some(n) => {
            zigzag(1, &mut b);
            string(n, &mut b);
        }
    }
    // extra: one block of one entry, then the end marker
    zigzag(1, &mut b);
    string(b"k", &mut b);
    zigzag(99, &mut b);
    zigzag(0, &mut b);
    zigzag(id, &mut b);
    zigzag(small, &mut b);
    match price {
        None => zigzag(0, &mut b),
        Some(p) => {
            zigzag(1, &mut b);
            string(p, &mut b);
        }
    }
    zigzag(1_600_000_000_123, &mut b);
    zigzag(score_branch, &mut b);
    match score_branch {
        1 => zigzag(-3, &mut b),
        2 => string(b"x", &mut b),
        _ => {}
    }
    // tags: a negative-count block (count 2 + byte size) then a positive one
    zigzag(-2, &mut b);
    zigzag(2, &mut b); // byte size of the block
    zigzag(1, &mut b);
    zigzag(-1, &mut b);
    zigzag(1, &mut b);
    zigzag(-2, &mut b);
    zigzag(0, &mut b);
    b
}

#[test]
fn decodes_with_flink_conversions_and_evolution() {
    let mut d = decoder();
    let m1 = framed(
        7,
        &record(Some(b"caf\xc3\xa9"), 42, 300, Some(&[0x30, 0x39]), 1),
    );
    // trailing garbage after the datum is ignored, as in Flink
    let mut m2 = framed(7, &record(None, -1, -1, Some(&[0x01, 0x86, 0xa0]), 0));
    m2.extend_from_slice(b"trailing");
    let out = d
        .decode_batch([Some(m1.as_slice()), None, Some(m2.as_slice())])
        .unwrap();
    assert_eq!(out.rows, vec![Some(0), None, Some(1)]);
    let b = &out.batch;
    assert_eq!(b.num_rows(), 2);
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[42, -1]);
    assert_eq!(b.column(1).as_primitive::<Int8Type>().value(0), 44); // 300 wraps like a Java cast
    assert_eq!(b.column(2).as_string::<i32>().value(0), "café");
    assert!(b.column(2).is_null(1));
    let price = b.column(3).as_primitive::<Decimal128Type>();
    assert_eq!(price.value(0), 12345); // 123.45
    assert!(price.is_null(1)); // 100000 needs 6 digits > DECIMAL(5,2): NULL
    assert_eq!(
        b.column(4)
            .as_primitive::<TimestampMillisecondType>()
            .value(0),
        1_600_000_000_123
    );
    let score = b.column(5).as_primitive::<Float64Type>();
    assert_eq!(score.value(0), -3.0);
    assert!(score.is_null(1));
    let tags = b.column(6).as_list::<i32>();
    assert_eq!(
        tags.value(0).as_primitive::<Int32Type>().values(),
        &[1, -1, -2]
    );
    assert!(b.column(7).is_null(0) && b.column(7).is_null(1));
}

#[test]
fn errors_name_the_record_and_schema_id() {
    let mut d = decoder();
    let good = framed(7, &record(Some(b"a"), 1, 1, None, 0));
    let string_branch = framed(7, &record(Some(b"a"), 1, 1, None, 2));
    let err = d
        .decode_batch([Some(good.as_slice()), Some(string_branch.as_slice())])
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("Found string, expecting union"), "{text}");
    assert!(
        text.contains("record 1 of the batch")
            && text.contains("schema id 7")
            && text.contains("score"),
        "{text}"
    );

    let unknown = framed(8, &[]);
    let err = d.decode_one(&unknown).unwrap_err();
    assert!(
        err.to_string()
            .contains("Could not find schema with id 8 in registry"),
        "{err}"
    );

    let magic = [1u8, 0, 0, 0, 7, 0];
    assert!(matches!(
        d.decode_one(&magic),
        Err(CodecError::BadMagic { .. })
    ));

    let truncated = &good[..good.len() - 3];
    let err = d.decode_one(truncated).unwrap_err().to_string();
    assert!(err.contains("end of input"), "{err}");

    let zero_decimal = framed(7, &record(Some(b"a"), 1, 1, Some(&[]), 0));
    let err = d.decode_one(&zero_decimal).unwrap_err().to_string();
    assert!(err.contains("Zero length BigInteger"), "{err}");

    // the decoder is still usable after errors
    assert_eq!(d.decode_one(&good).unwrap().num_rows(), 1);
}

#[test]
fn missing_required_field_fails_when_reached() {
    let row = FlinkType::from_json_str(
        r#"{"type":"ROW","nullable":false,"fields":[{"name":"must","type":{"type":"INT","nullable":false}}]}"#,
    )
    .unwrap();
    let writer = r#"{"type":"record","name":"X","fields":[{"name":"other","type":"int"}]}"#;
    let mut d = AvroConfluentDecoder::new(&row, None, schemas(&[(1, writer)])).unwrap();
    let err = d.decode_one(&framed(1, &[2])).unwrap_err().to_string();
    assert!(err.contains("missing required field must"), "{err}");
}

#[test]
fn binary_rows_match_the_arrow_path_and_errors_match() {
    let mut arrow = decoder();
    let mut direct = decoder();
    let m1 = framed(
        7,
        &record(
            Some(b"caf\xc3\xa9 and a long name"),
            42,
            300,
            Some(&[0x30, 0x39]),
            1,
        ),
    );
    let m2 = framed(7, &record(None, -1, -1, Some(&[0x01, 0x86, 0xa0]), 0));
    let m3 = framed(7, &record(Some(b"bad \xff utf8"), 7, 7, None, 1));
    let values = [
        Some(m1.as_slice()),
        None,
        Some(m2.as_slice()),
        Some(m3.as_slice()),
    ];
    let decoded = arrow.decode_batch(values).unwrap();
    let mut images = karrow_codecs::flink_binary::RowImages::default();
    let row = FlinkType::from_json_str(ROW).unwrap();
    karrow_codecs::flink_binary::write_batch_rows(&decoded.batch, &row, &mut images).unwrap();
    let mut out = Vec::new();
    let starts = direct.decode_batch_binary(values, &mut out).unwrap();
    assert_eq!(out, images.bytes);
    let o = &images.offsets;
    assert_eq!(starts, vec![o[0], o[1], o[1], o[2], o[3]]);

    let bad = framed(7, &record(Some(b"a"), 1, 1, None, 2));
    let err = direct
        .decode_batch_binary([Some(m1.as_slice()), Some(bad.as_slice())], &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Found string, expecting union")
            && err.contains("record 1")
            && err.contains("score"),
        "{err}"
    );
}

/// A writer schema whose field types are defined by other subjects (Confluent's schema
/// references): resolved recursively by subject and version, dependencies first, once per
/// schema id; an unresolvable reference names itself and is not cached.
#[test]
fn writer_schemas_with_references_resolve_by_subject_and_version() {
    use karrow_codecs::schema_source::{SchemaReference, SourcedSchema};
    use std::sync::atomic::Ordering;
    let avro = |text: &str, refs: &[(&str, &str, i32)]| SourcedSchema {
        schema_type: SchemaType::Avro,
        text: text.to_string(),
        references: refs
            .iter()
            .map(|(name, subject, version)| SchemaReference {
                name: name.to_string(),
                subject: subject.to_string(),
                version: *version,
            })
            .collect(),
    };
    let currency = r#"{"type":"record","name":"Currency","namespace":"money","fields":[
        {"name":"code","type":"string"}]}"#;
    let amount = r#"{"type":"record","name":"Amount","namespace":"money","fields":[
        {"name":"units","type":"long"},{"name":"currency","type":"Currency"}]}"#;
    let bid = r#"{"type":"record","name":"Bid","namespace":"shop","fields":[
        {"name":"id","type":"long"},{"name":"price","type":"money.Amount"},
        {"name":"name","type":["null","string"]}]}"#;
    let mut source = InMemorySchemas::default();
    source
        .ids
        .insert(3, avro(bid, &[("money.Amount", "amount-value", 2)]));
    source
        .ids
        .insert(4, avro(bid, &[("money.Amount", "amount-value", 9)]));
    source.versions.insert(
        ("amount-value".into(), 2),
        avro(amount, &[("money.Currency", "currency-value", 1)]),
    );
    source
        .versions
        .insert(("currency-value".into(), 1), avro(currency, &[]));
    let source = Arc::new(source);
    let row = FlinkType::from_json_str(
        r#"{"type":"ROW","nullable":false,"fields":[
          {"name":"id","type":{"type":"BIGINT","nullable":false}},
          {"name":"price","type":{"type":"ROW","nullable":false,"fields":[
            {"name":"units","type":{"type":"BIGINT","nullable":false}},
            {"name":"currency","type":{"type":"ROW","nullable":false,"fields":[
              {"name":"code","type":{"type":"VARCHAR","nullable":false,"length":2147483647}}]}}]}},
          {"name":"name","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#,
    )
    .unwrap();
    let mut d = AvroConfluentDecoder::new(&row, None, source.clone()).unwrap();
    let mut body = Vec::new();
    zigzag(7, &mut body); // id
    zigzag(1250, &mut body); // price.units
    string(b"USD", &mut body); // price.currency.code
    zigzag(1, &mut body); // name: the string branch
    string(b"ada", &mut body);
    let m = framed(3, &body);
    let out = d
        .decode_batch([Some(m.as_slice()), Some(m.as_slice())])
        .unwrap();
    let b = &out.batch;
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[7, 7]);
    let price = b.column(1).as_struct();
    assert_eq!(
        price.column(0).as_primitive::<Int64Type>().values(),
        &[1250, 1250]
    );
    let code = price
        .column(1)
        .as_struct()
        .column(0)
        .as_string::<i32>()
        .value(0)
        .to_string();
    assert_eq!(code, "USD");
    assert_eq!(b.column(2).as_string::<i32>().value(1), "ada");
    // Binary rows go through the same plan.
    let mut image = Vec::new();
    d.decode_one_binary(&m, &mut image).unwrap();
    assert!(!image.is_empty());
    assert_eq!(source.lookups.load(Ordering::SeqCst), 1);

    let err = d
        .decode_one_binary(&framed(4, &body), &mut image)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "could not resolve the reference 'money.Amount' (subject 'amount-value', version 9)"
        ),
        "{err}"
    );
}
