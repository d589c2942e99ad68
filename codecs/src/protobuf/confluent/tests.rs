//! Schemas with references, index paths and values of `protobuf-confluent-native`.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::*;
use crate::error::CodecError;
use crate::framing::confluent_header;
use crate::protobuf::test_support::{render, row, ty};
use crate::protobuf::{ProtobufOptions, ProtobufRowDecoder, ProtobufRowEncoder};
use crate::schema_source::{InMemorySchemas, SchemaReference, SchemaType, SourcedSchema};
use crate::types::FlinkType;

const OUTER: &str = r#"
    syntax = "proto3";
    package shop;
    import "common.proto";
    enum Kind { KIND_A = 0; }
    message First { int32 a = 1; }
    message Order {
      map<string, int32> counts = 1;
      message Line { string sku = 1; int64 qty = 2; }
      enum State { S = 0; }
      message Note { string text = 1; common.Money money = 2; }
      repeated Line lines = 2;
      Note note = 3;
    }
"#;
const COMMON: &str = r#"
    syntax = "proto3";
    package common;
    import "google/protobuf/timestamp.proto";
    message Money { int64 cents = 1; google.protobuf.Timestamp at = 2; }
"#;

fn compiled() -> CompiledSchema {
    let imports = HashMap::from([("common.proto".to_string(), COMMON.to_string())]);
    CompiledSchema::compile("outer.proto", OUTER, &imports).unwrap()
}

#[test]
fn messages_by_index_path_skip_enums_and_map_entries() {
    let schema = compiled();
    assert_eq!(schema.message_at(&[0]).unwrap().full_name(), "shop.First");
    assert_eq!(schema.message_at(&[1]).unwrap().full_name(), "shop.Order");
    // Order's nested types are CountsEntry (synthetic), Line, Note: Line is 0.
    assert_eq!(
        schema.message_at(&[1, 0]).unwrap().full_name(),
        "shop.Order.Line"
    );
    assert_eq!(
        schema.message_at(&[1, 1]).unwrap().full_name(),
        "shop.Order.Note"
    );
    let err = schema.message_at(&[2]).unwrap_err();
    assert!(err.contains("index 2 is out of range"), "{err}");
    assert!(err.contains("2 top-level messages"), "{err}");
    let err = schema.message_at(&[1, 2]).unwrap_err();
    assert!(
        err.contains("'shop.Order' declares 2 nested messages"),
        "{err}"
    );
    assert!(schema.message_at(&[-1]).is_err());
    assert!(schema.message_at(&[0, 0]).is_err());
    for path in [vec![0], vec![1], vec![1, 0], vec![1, 1]] {
        let message = schema.message_at(&path).unwrap();
        assert_eq!(schema.index_path(&message).unwrap(), path);
    }
}

#[test]
fn groups_are_not_counted_as_nested_messages() {
    let text = r#"
        syntax = "proto2";
        message G {
          optional group Header = 1 { optional int32 x = 2; }
          message After { optional int32 y = 1; }
        }
    "#;
    let schema = CompiledSchema::compile("g.proto", text, &HashMap::new()).unwrap();
    assert_eq!(schema.message_at(&[0, 0]).unwrap().full_name(), "G.After");
}

#[test]
fn messages_by_name() {
    let schema = compiled();
    assert_eq!(schema.find_message("").unwrap().full_name(), "shop.First");
    assert_eq!(
        schema.find_message("Order.Line").unwrap().full_name(),
        "shop.Order.Line"
    );
    assert_eq!(
        schema.find_message("shop.Order").unwrap().full_name(),
        "shop.Order"
    );
    let err = schema.find_message("common.Money").unwrap_err();
    assert!(err.contains("imported file 'common.proto'"), "{err}");
    let err = schema.find_message("Nope").unwrap_err();
    assert!(err.contains("no message 'Nope'"), "{err}");
}

#[test]
fn schemas_that_do_not_compile_say_why() {
    let err = CompiledSchema::compile("a.proto", "syntax = \"proto3\"; message {", &HashMap::new())
        .unwrap_err();
    assert!(
        err.starts_with("the Protobuf schema does not compile"),
        "{err}"
    );
    let err = CompiledSchema::compile(
        "a.proto",
        "syntax = \"proto3\"; import \"missing.proto\"; message A {}",
        &HashMap::new(),
    )
    .unwrap_err();
    assert!(err.contains("missing.proto"), "{err}");
}

fn schema(text: &str, references: &[(&str, &str, i32)]) -> SourcedSchema {
    SourcedSchema {
        schema_type: SchemaType::Protobuf,
        text: text.to_string(),
        references: references
            .iter()
            .map(|(n, s, v)| SchemaReference {
                name: n.to_string(),
                subject: s.to_string(),
                version: *v,
            })
            .collect(),
    }
}

/// Id 7: OUTER, referencing common.proto (subject "common", version 2), which itself
/// references nothing but google's timestamp.
fn registry() -> Arc<InMemorySchemas> {
    let mut registry = InMemorySchemas::default();
    registry
        .ids
        .insert(7, schema(OUTER, &[("common.proto", "common", 2)]));
    registry
        .ids
        .insert(8, schema(OUTER, &[("common.proto", "common", 3)]));
    registry
        .versions
        .insert(("common".into(), 2), schema(COMMON, &[]));
    Arc::new(registry)
}

#[test]
fn references_resolve_recursively_and_failures_name_them() {
    let leaf = "syntax = \"proto3\"; package leaf; message L { int32 v = 1; }";
    let mid = "syntax = \"proto3\"; package mid; import \"leaf.proto\"; \
               message M { leaf.L l = 1; }";
    let top = "syntax = \"proto3\"; import \"mid.proto\"; message T { mid.M m = 1; }";
    let mut chain = InMemorySchemas::default();
    chain
        .ids
        .insert(1, schema(top, &[("mid.proto", "mid-value", 1)]));
    chain.versions.insert(
        ("mid-value".into(), 1),
        schema(mid, &[("leaf.proto", "leaf-value", 4)]),
    );
    chain
        .versions
        .insert(("leaf-value".into(), 4), schema(leaf, &[]));
    let compiled = resolve_schema(&chain, 1).unwrap();
    let t = compiled.message_at(&[0]).unwrap();
    assert_eq!(t.full_name(), "T");

    let broken = registry();
    let err = resolve_schema(broken.as_ref(), 8).unwrap_err();
    assert!(
        err.contains(
            "could not resolve the reference 'common.proto' (subject 'common', version 3)"
        ),
        "{err}"
    );
    let err = resolve_schema(broken.as_ref(), 9).unwrap_err();
    assert_eq!(err, "Could not find schema with id 9 in registry");
}

#[test]
fn schemas_in_descriptor_form_compile_as_their_text_does() {
    use base64::Engine as _;
    let leaf = "syntax = \"proto3\"; package leaf; message L { int32 v = 1; }";
    let top = "syntax = \"proto3\"; package top; import \"leaf.proto\"; \
               message T { message In { leaf.L l = 1; } In i = 1; map<string, leaf.L> m = 2; }";
    let imports: HashMap<String, String> = [("leaf.proto".to_string(), leaf.to_string())].into();
    let base64 = |name: &str, text: &str| {
        let compiled = CompiledSchema::compile(name, text, &imports).unwrap();
        base64::engine::general_purpose::STANDARD.encode(compiled.file().encode_to_vec())
    };
    // Both the schema and its reference in descriptor form, as a registry that stores what
    // Confluent's serializers send verbatim answers them.
    let mut verbatim = InMemorySchemas::default();
    verbatim.ids.insert(
        1,
        schema(&base64("top.proto", top), &[("leaf.proto", "leaf", 1)]),
    );
    verbatim
        .ids
        .insert(2, schema(top, &[("leaf.proto", "leaf", 1)]));
    verbatim
        .versions
        .insert(("leaf".into(), 1), schema(&base64("leaf.proto", leaf), &[]));
    let from_descriptor = resolve_schema(&verbatim, 1).unwrap();
    let from_text = resolve_schema(&verbatim, 2).unwrap();
    for path in [&[0][..], &[0, 0]] {
        let a = from_descriptor.message_at(path).unwrap();
        let b = from_text.message_at(path).unwrap();
        assert_eq!(a.full_name(), b.full_name());
        assert_eq!(a.descriptor_proto(), b.descriptor_proto());
    }

    // Base64 that is no descriptor, and base64 that is not base64 at all.
    assert!(schema_text("AAAA").unwrap_err().contains("not usable"));
    assert!(schema_text("A")
        .unwrap_err()
        .contains("neither .proto text nor base64"));
    // Text is never taken for base64.
    assert_eq!(schema_text(leaf).unwrap(), leaf);
}

fn order_row() -> FlinkType {
    row(&[("sku", ty("STRING")), ("qty", ty("BIGINT"))])
}

/// 0x00, id, indexes, payload.
fn framed(id: i32, path: &[u8], payload: &[u8]) -> Vec<u8> {
    [&confluent_header(id)[..], path, payload].concat()
}

fn decode(decoder: &mut ProtobufConfluentDecoder, value: &[u8]) -> Result<Vec<String>, CodecError> {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    decoder.decode_message(value, &mut out, &mut ends)?;
    let row_type = order_row();
    let mut start = 0;
    Ok(ends
        .iter()
        .map(|&end| {
            let text = render(&out[start..end], &row_type);
            start = end;
            text
        })
        .collect())
}

#[test]
fn decodes_the_message_of_the_index_path_with_protobuf_native_rules() {
    let registry = registry();
    let mut decoder =
        ProtobufConfluentDecoder::new(&order_row(), ProtobufOptions::default(), registry.clone())
            .unwrap();
    // shop.Order.Line {sku: "ab", qty: 3}; path [1, 0] = 04 02 00.
    let line = [0x0a, 0x02, b'a', b'b', 0x10, 0x03];
    let rows = decode(&mut decoder, &framed(7, &[0x04, 0x02, 0x00], &line)).unwrap();
    assert_eq!(rows.len(), 1);
    let plain = {
        let schema = compiled();
        let message = schema.message_at(&[1, 0]).unwrap();
        let mut d =
            ProtobufRowDecoder::new(&message, &order_row(), ProtobufOptions::default()).unwrap();
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        d.decode_message(&line, &mut out, &mut ends).unwrap();
        render(&out, &order_row())
    };
    assert_eq!(rows[0], plain);
    assert!(rows[0].contains("ab"), "{}", rows[0]);
    // proto3: an empty Line reads defaults, as protobuf-native does.
    let empty = decode(&mut decoder, &framed(7, &[0x04, 0x02, 0x00], &[])).unwrap();
    assert_eq!(empty.len(), 1);
    // The schema was fetched once for both values.
    assert_eq!(registry.lookups.load(Ordering::SeqCst), 1);

    // Path [1] (Order) does not have the column 'sku': a schema error naming the id.
    let err = decode(&mut decoder, &framed(7, &[0x02, 0x02], &[])).unwrap_err();
    assert!(matches!(err, CodecError::WriterSchema { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("message 'shop.Order' of schema id 7"),
        "{text}"
    );
    assert!(text.contains("Column sku does not exists"), "{text}");
}

#[test]
fn bad_headers_fail_naming_the_id_or_are_skipped_but_registry_failures_never_are() {
    let registry = registry();
    let options = ProtobufOptions::default();
    let mut strict =
        ProtobufConfluentDecoder::new(&order_row(), options.clone(), registry.clone()).unwrap();
    let skipping = ProtobufOptions {
        ignore_parse_errors: true,
        ..options
    };
    let mut lenient =
        ProtobufConfluentDecoder::new(&order_row(), skipping, registry.clone()).unwrap();

    let bad: [(&[u8], &str); 5] = [
        (&[1, 0, 0, 0, 7, 0], "Magic number does not match"),
        (&[0, 0, 0], "Magic number does not match"),
        (
            &framed(7, &[0x04, 0x02], &[]),
            "invalid Confluent message-index array",
        ),
        (&framed(7, &[0x02, 0x0a], &[]), "index 5 is out of range"),
        // Line with an invalid UTF-8 string.
        (
            &framed(7, &[0x04, 0x02, 0x00], &[0x0a, 0x02, 0xc3, 0x28]),
            "invalid UTF-8",
        ),
    ];
    for (value, reason) in bad {
        let err = decode(&mut strict, value).unwrap_err().to_string();
        assert!(err.contains(reason), "{err}");
        if value.len() >= 5 && value[0] == 0 {
            assert!(err.contains("schema id 7"), "{err}");
        }
        assert_eq!(decode(&mut lenient, value).unwrap(), Vec::<String>::new());
    }

    // Unknown id: never skipped, names the id.
    for decoder in [&mut strict, &mut lenient] {
        let err = decode(decoder, &framed(42, &[0], &[])).unwrap_err();
        assert_eq!(err.context().and_then(|c| c.schema_id), Some(42));
        assert!(
            err.to_string()
                .starts_with("Could not find schema with id 42 in registry"),
            "{err}"
        );
    }
    // A failed look-up is not cached: each value asks again.
    let before = registry.lookups.load(Ordering::SeqCst);
    let _ = decode(&mut strict, &framed(42, &[0], &[]));
    assert_eq!(registry.lookups.load(Ordering::SeqCst), before + 1);
}

#[test]
fn writer_schema_compiles_against_its_referenced_imports() {
    let explicit = "syntax = \"proto3\"; package p; import \"common.proto\"; \
                    message Wrapped { common.Money price = 1; }";
    let row_type = row(&[("price", row(&[("cents", ty("BIGINT"))]))]);
    let imports = HashMap::from([("common.proto".to_string(), COMMON.to_string())]);
    let ws = writer_schema_with_imports(&row_type, Some(explicit), "", &imports).unwrap();
    assert_eq!(ws.message.full_name(), "p.Wrapped");
    assert_eq!(ws.path, vec![0]);
    assert_eq!(ws.text, explicit);
    // A message of the import is not the schema's own.
    let err = writer_schema_with_imports(&row_type, Some(explicit), "common.Money", &imports)
        .unwrap_err();
    assert!(err.to_string().contains("imported file"), "{err}");
    // Without the import the schema does not compile.
    let err = writer_schema(&row_type, Some(explicit), "").unwrap_err();
    assert!(err.to_string().contains("does not compile"), "{err}");
}

#[test]
fn writer_schema_of_an_option_or_derived_and_framed_values() {
    let explicit = "syntax = \"proto3\"; package p; message A { int32 x = 1; } \
                    message B { message C { string sku = 1; int64 qty = 2; } }";
    let ws = writer_schema(&order_row(), Some(explicit), "B.C").unwrap();
    assert_eq!(ws.path, vec![1, 0]);
    assert_eq!(ws.message.full_name(), "p.B.C");
    assert_eq!(ws.text, explicit);
    let first = writer_schema(&order_row(), Some(explicit), "").unwrap();
    assert_eq!(first.path, vec![0]);
    let err = writer_schema(&order_row(), Some(explicit), "Z").unwrap_err();
    assert!(err.to_string().contains("no message 'Z'"), "{err}");
    let err = writer_schema(&order_row(), Some("message {"), "").unwrap_err();
    assert!(err.to_string().contains("does not compile"), "{err}");

    let derived = writer_schema(&order_row(), None, "").unwrap();
    assert_eq!(derived.message.full_name(), "Row");
    assert_eq!(derived.path, vec![0]);
    assert!(derived.text.contains("optional string sku = 1;"));

    // Encode a row decoded from the same message, framed with [1, 0] = 04 02 00.
    let line = [0x0a, 0x02, b'a', b'b', 0x10, 0x03];
    let mut rd =
        ProtobufRowDecoder::new(&ws.message, &order_row(), ProtobufOptions::default()).unwrap();
    let (mut image, mut ends) = (Vec::new(), Vec::new());
    rd.decode_message(&line, &mut image, &mut ends).unwrap();
    let encoder =
        ProtobufRowEncoder::new(&ws.message, &order_row(), ProtobufOptions::default()).unwrap();
    let mut framed_encoder = ProtobufConfluentEncoder::new(encoder, 258, &ws.path);
    assert_eq!(framed_encoder.schema_id(), 258);
    let mut out = vec![0xee];
    framed_encoder.encode_row(&image, &mut out).unwrap();
    assert_eq!(out[0], 0xee);
    assert_eq!(
        &out[1..],
        framed(258, &[0x04, 0x02, 0x00], &line).as_slice()
    );
    // A truncated image fails and leaves the buffer as it was.
    assert!(framed_encoder.encode_row(&image[..3], &mut out).is_err());
    assert_eq!(
        &out[1..],
        framed(258, &[0x04, 0x02, 0x00], &line).as_slice()
    );
}
