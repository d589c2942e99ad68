//! Descriptor sets that protoc would never write (a malicious or corrupt schema): rejected
//! with a clear error before prost-reflect, which panics on some of them, sees them.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use karrow_codecs::protobuf::confluent::CompiledSchema;
use karrow_codecs::protobuf::{message_from_descriptor_set, ProtobufOptions, ProtobufRowDecoder};
use karrow_codecs::types::{FlinkField, FlinkKind};
use karrow_codecs::FlinkType;
use prost::Message;
use prost_reflect::prost_types::{DescriptorProto, FileDescriptorSet};

const SOURCE: &str = r#"syntax = "proto3";
package p;
message M {
  map<string, int32> m = 1;
  message Inner { map<int64, string> deep = 1; }
  Inner inner = 2;
}
"#;

fn compiled() -> FileDescriptorSet {
    let schema = CompiledSchema::compile("m.proto", SOURCE, &HashMap::new()).unwrap();
    let set = FileDescriptorSet {
        file: vec![schema.file().file_descriptor_proto().clone()],
    };
    FileDescriptorSet::decode(set.encode_to_vec().as_slice()).unwrap()
}

fn entry<'a>(message: &'a mut DescriptorProto, name: &str) -> &'a mut DescriptorProto {
    message
        .nested_type
        .iter_mut()
        .find(|n| n.name() == name)
        .unwrap()
}

fn string() -> FlinkType {
    FlinkType {
        nullable: true,
        kind: FlinkKind::VarChar(i32::MAX as u32),
    }
}

fn map_row() -> FlinkType {
    let int = FlinkType {
        nullable: true,
        kind: FlinkKind::Int,
    };
    FlinkType {
        nullable: true,
        kind: FlinkKind::Row(vec![FlinkField {
            name: "m".into(),
            ty: FlinkType {
                nullable: true,
                kind: FlinkKind::Map(Box::new(string()), Box::new(int)),
            },
        }]),
    }
}

/// Resolves `p.M` from `set` and compiles a decoder of its map column, catching a panic.
fn open(set: &FileDescriptorSet) -> Result<(), String> {
    let bytes = set.encode_to_vec();
    catch_unwind(AssertUnwindSafe(|| {
        let message = message_from_descriptor_set(&bytes, "p.M").map_err(|e| e.to_string())?;
        ProtobufRowDecoder::new(&message, &map_row(), ProtobufOptions::default())
            .map(drop)
            .map_err(|e| e.to_string())
    }))
    .unwrap_or_else(|panic| {
        let text = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("the descriptor set made the decoder panic: {text}")
    })
}

#[test]
fn the_unmutated_set_opens() {
    assert_eq!(open(&compiled()), Ok(()));
}

/// A map entry whose key field has number 3 (protoc always writes key = 1, value = 2).
#[test]
fn a_map_entry_key_with_the_wrong_number_is_refused() {
    let mut set = compiled();
    let m = &mut set.file[0].message_type[0];
    entry(m, "MEntry").field[0].number = Some(3);
    let error = open(&set).unwrap_err();
    assert!(error.contains("map entry"), "{error}");
}

/// The same for the value field, for an entry nested deeper, for a missing field and for an
/// extra one: every map entry in the set is checked, not only the ones a column reads.
#[test]
fn every_malformed_map_entry_is_refused() {
    let mutations: Vec<fn(&mut FileDescriptorSet)> = vec![
        |set| entry(&mut set.file[0].message_type[0], "MEntry").field[1].number = Some(7),
        |set| {
            let inner = entry(&mut set.file[0].message_type[0], "Inner");
            entry(inner, "DeepEntry").field[0].number = Some(2);
        },
        |set| {
            entry(&mut set.file[0].message_type[0], "MEntry")
                .field
                .pop();
        },
        |set| {
            let e = entry(&mut set.file[0].message_type[0], "MEntry");
            let extra = e.field[1].clone();
            e.field
                .push(prost_reflect::prost_types::FieldDescriptorProto {
                    name: Some("extra".into()),
                    number: Some(3),
                    ..extra
                });
        },
        |set| entry(&mut set.file[0].message_type[0], "MEntry").field[0].name = Some("k".into()),
    ];
    for (i, mutate) in mutations.into_iter().enumerate() {
        let mut set = compiled();
        mutate(&mut set);
        let error = open(&set).unwrap_err();
        assert!(error.contains("map entry"), "mutation {i}: {error}");
    }
}
