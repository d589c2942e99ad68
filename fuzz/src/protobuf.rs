//! Protobuf: the parity tests' `.proto` files compiled into one descriptor set, the row type
//! flink-protobuf derives for a message, and decoders cached per (message, options).

use std::collections::HashMap;
use std::sync::OnceLock;

use karrow_codecs::protobuf::{message_from_descriptor_set, ProtobufOptions};
use karrow_codecs::types::{FlinkField, FlinkKind};
use karrow_codecs::FlinkType;
use prost_reflect::{Kind, MessageDescriptor};
use protox::file::{File, FileResolver, GoogleFileResolver};

/// The `.proto` files of the Java parity tests (`connector-java/src/test/proto`), by name.
pub const PROTOS: &[(&str, &str)] = &[
    (
        "bids.proto",
        include_str!("../../connector-java/src/test/proto/bids.proto"),
    ),
    (
        "crossfile.proto",
        include_str!("../../connector-java/src/test/proto/crossfile.proto"),
    ),
    (
        "enums.proto",
        include_str!("../../connector-java/src/test/proto/enums.proto"),
    ),
    (
        "enums2.proto",
        include_str!("../../connector-java/src/test/proto/enums2.proto"),
    ),
    (
        "groups.proto",
        include_str!("../../connector-java/src/test/proto/groups.proto"),
    ),
    (
        "maps.proto",
        include_str!("../../connector-java/src/test/proto/maps.proto"),
    ),
    (
        "mixed2.proto",
        include_str!("../../connector-java/src/test/proto/mixed2.proto"),
    ),
    (
        "mixed3.proto",
        include_str!("../../connector-java/src/test/proto/mixed3.proto"),
    ),
    (
        "nested.proto",
        include_str!("../../connector-java/src/test/proto/nested.proto"),
    ),
    (
        "nested2.proto",
        include_str!("../../connector-java/src/test/proto/nested2.proto"),
    ),
    (
        "oneofs.proto",
        include_str!("../../connector-java/src/test/proto/oneofs.proto"),
    ),
    (
        "oneofs2.proto",
        include_str!("../../connector-java/src/test/proto/oneofs2.proto"),
    ),
    (
        "repeated2.proto",
        include_str!("../../connector-java/src/test/proto/repeated2.proto"),
    ),
    (
        "repeated3.proto",
        include_str!("../../connector-java/src/test/proto/repeated3.proto"),
    ),
    (
        "scalars2.proto",
        include_str!("../../connector-java/src/test/proto/scalars2.proto"),
    ),
    (
        "scalars3.proto",
        include_str!("../../connector-java/src/test/proto/scalars3.proto"),
    ),
    (
        "utf8check2.proto",
        include_str!("../../connector-java/src/test/proto/utf8check2.proto"),
    ),
    (
        "wellknown.proto",
        include_str!("../../connector-java/src/test/proto/wellknown.proto"),
    ),
    ("recursive.proto", RECURSIVE),
];

/// The descriptor set protoc writes for `connector-java/src/test/proto/editions.proto`
/// (`edition = "2023"`; protox does not compile editions files), from the codec's tests.
pub const EDITIONS_SET: &[u8] = include_bytes!("../../codecs/src/protobuf/testdata/editions.pb");

/// A self-referencing message (nesting depth decided by the data) next to the test files.
const RECURSIVE: &str = r#"syntax = "proto3";
package karrow.fuzz;
message Tree {
  int32 value = 1;
  repeated Tree children = 2;
  Tree left = 3;
  map<string, Tree> named = 4;
  oneof pick { string label = 5; Tree other = 6; }
}
message Holder { Tree tree = 1; repeated bytes raw = 2; }
"#;

struct Sources(HashMap<String, String>, GoogleFileResolver);

impl FileResolver for Sources {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.0.get(name) {
            Some(source) => File::from_source(name, source),
            None => self.1.open_file(name),
        }
    }
}

/// Compiles the files named `open` (with their imports, from [`PROTOS`] or Google's
/// well-known files) into a serialized descriptor set.
pub fn compile(open: &[&str]) -> Result<Vec<u8>, protox::Error> {
    let sources = PROTOS
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect();
    let mut compiler =
        protox::Compiler::with_file_resolver(Sources(sources, GoogleFileResolver::new()));
    compiler.include_imports(true);
    compiler.open_files(open.iter().copied())?;
    Ok(compiler.encode_file_descriptor_set())
}

/// Every message of the test files (nested ones too, map entries not), read back from the
/// serialized set the way production reads it.
pub fn messages() -> &'static [MessageDescriptor] {
    static MESSAGES: OnceLock<Vec<MessageDescriptor>> = OnceLock::new();
    MESSAGES.get_or_init(|| {
        let names: Vec<&str> = PROTOS.iter().map(|(n, _)| *n).collect();
        let set = compile(&names).expect("the test protos compile");
        let mut out = Vec::new();
        for set in [set.as_slice(), EDITIONS_SET] {
            for name in message_names(set)
                .iter()
                .filter(|n| !n.starts_with("google."))
            {
                out.push(message_from_descriptor_set(set, name).expect("each message resolves"));
            }
        }
        out
    })
}

/// The full names of the messages a serialized descriptor set declares (nested ones too, map
/// entries not), read with prost alone (prost-reflect is what the targets exercise); empty
/// when the bytes are not a descriptor set.
pub fn message_names(set: &[u8]) -> Vec<String> {
    use prost::Message;
    use prost_reflect::prost_types::{DescriptorProto, FileDescriptorSet};
    fn walk(prefix: &str, messages: &[DescriptorProto], out: &mut Vec<String>) {
        for m in messages {
            if m.options.as_ref().is_some_and(|o| o.map_entry()) {
                continue;
            }
            let name = if prefix.is_empty() {
                m.name().to_string()
            } else {
                format!("{prefix}.{}", m.name())
            };
            walk(&name, &m.nested_type, out);
            out.push(name);
        }
    }
    let Ok(set) = FileDescriptorSet::decode(set) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for file in &set.file {
        walk(file.package(), &file.message_type, &mut out);
    }
    out
}

/// The row type flink-protobuf derives for `message`; fields that recurse past `depth`
/// levels are left out (a table cannot be infinitely deep).
pub fn row_type(message: &MessageDescriptor, depth: usize) -> FlinkType {
    let mut fields = Vec::new();
    for field in message.fields() {
        let ty = if field.is_map() {
            let Kind::Message(entry) = field.kind() else {
                continue;
            };
            let (Some(key), Some(value)) = (
                kind_type(&entry.map_entry_key_field().kind(), depth),
                kind_type(&entry.map_entry_value_field().kind(), depth),
            ) else {
                continue;
            };
            FlinkKind::Map(Box::new(key), Box::new(value))
        } else {
            let Some(element) = kind_type(&field.kind(), depth) else {
                continue;
            };
            if field.is_list() {
                FlinkKind::Array(Box::new(element))
            } else {
                element.kind
            }
        };
        fields.push(FlinkField {
            name: field.name().to_string(),
            ty: FlinkType {
                nullable: true,
                kind: ty,
            },
        });
    }
    FlinkType {
        nullable: true,
        kind: FlinkKind::Row(fields),
    }
}

fn kind_type(kind: &Kind, depth: usize) -> Option<FlinkType> {
    let kind = match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Uint32 | Kind::Fixed32 => {
            FlinkKind::Int
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64 => {
            FlinkKind::BigInt
        }
        Kind::Float => FlinkKind::Float,
        Kind::Double => FlinkKind::Double,
        Kind::Bool => FlinkKind::Boolean,
        Kind::String | Kind::Enum(_) => FlinkKind::VarChar(i32::MAX as u32),
        Kind::Bytes => FlinkKind::VarBinary(i32::MAX as u32),
        Kind::Message(m) => {
            if depth == 0 {
                return None;
            }
            return Some(row_type(m, depth - 1));
        }
    };
    Some(FlinkType {
        nullable: true,
        kind,
    })
}

/// The option set an input byte selects.
pub fn options(bits: u8) -> ProtobufOptions {
    ProtobufOptions {
        ignore_parse_errors: bits & 1 != 0,
        read_default_values: bits & 2 != 0,
        ..ProtobufOptions::default()
    }
}

/// A message of `descriptor` with every field set (`variant` varies the values; sub-messages
/// to `depth` levels), encoded.
pub fn sample(descriptor: &MessageDescriptor, variant: usize, depth: usize) -> Vec<u8> {
    use prost::Message;
    sample_message(descriptor, variant, depth).encode_to_vec()
}

fn sample_message(
    descriptor: &MessageDescriptor,
    variant: usize,
    depth: usize,
) -> prost_reflect::DynamicMessage {
    use prost_reflect::{DynamicMessage, MapKey, Value};
    let mut message = DynamicMessage::new(descriptor.clone());
    for (i, field) in descriptor.fields().enumerate() {
        let v = variant + i;
        let value = if field.is_map() {
            let Kind::Message(entry) = field.kind() else {
                continue;
            };
            let key = match sample_value(&entry.map_entry_key_field().kind(), v, depth) {
                Some(Value::I32(n)) => MapKey::I32(n),
                Some(Value::I64(n)) => MapKey::I64(n),
                Some(Value::U32(n)) => MapKey::U32(n),
                Some(Value::U64(n)) => MapKey::U64(n),
                Some(Value::Bool(b)) => MapKey::Bool(b),
                Some(Value::String(s)) => MapKey::String(s),
                _ => continue,
            };
            let Some(value) = sample_value(&entry.map_entry_value_field().kind(), v, depth) else {
                continue;
            };
            Value::Map([(key, value)].into_iter().collect())
        } else {
            let Some(one) = sample_value(&field.kind(), v, depth) else {
                continue;
            };
            if field.is_list() {
                Value::List(vec![one.clone(); v % 3 + 1])
            } else {
                one
            }
        };
        if variant % 5 == 4 && i % 2 == 1 {
            continue; // leave some fields absent
        }
        message.set_field(&field, value);
    }
    message
}

fn sample_value(kind: &Kind, v: usize, depth: usize) -> Option<prost_reflect::Value> {
    use prost_reflect::Value;
    Some(match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32([0, 1, -1, 300, i32::MIN][v % 5]),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => {
            Value::I64([0, 7, -7, 1 << 40, i64::MAX][v % 5])
        }
        Kind::Uint32 | Kind::Fixed32 => Value::U32([0, 1, u32::MAX][v % 3]),
        Kind::Uint64 | Kind::Fixed64 => Value::U64([0, 1, u64::MAX][v % 3]),
        Kind::Float => Value::F32([0.0, 1.5, f32::NAN][v % 3]),
        Kind::Double => Value::F64([0.0, -2.25, f64::INFINITY][v % 3]),
        Kind::Bool => Value::Bool(v % 2 == 1),
        Kind::String => Value::String(["", "hi", "h\u{e9}llo"][v % 3].to_string()),
        Kind::Bytes => Value::Bytes(prost::bytes::Bytes::from_static(
            [&b""[..], b"\x01\x02", b"\xff"][v % 3],
        )),
        Kind::Enum(e) => {
            let values: Vec<i32> = e.values().map(|x| x.number()).collect();
            Value::EnumNumber(values.get(v % values.len().max(1)).copied().unwrap_or(0))
        }
        Kind::Message(m) => {
            if depth == 0 {
                return None;
            }
            Value::Message(sample_message(m, v, depth - 1))
        }
    })
}

/// Seeds of the decode target: per message, a few samples under each option set.
pub fn decode_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, message) in messages().iter().enumerate() {
        for variant in 0..4 {
            let mut seed = vec![i as u8, variant as u8 & 3];
            seed.extend(sample(message, variant, 3));
            seeds.push(seed);
        }
    }
    seeds
}

/// Seeds of the descriptor-set target: each file compiled alone (with its imports) and a
/// sample of its first message.
pub fn descriptor_set_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (name, _) in PROTOS {
        let Ok(set) = compile(&[name]) else {
            continue;
        };
        let mut seed = Vec::new();
        crate::put_part(&mut seed, &set);
        if let Some(first) = message_names(&set).last() {
            if let Ok(m) = message_from_descriptor_set(&set, first) {
                seed.extend(sample(&m, 1, 2));
            }
        }
        seeds.push(seed);
    }
    let mut seed = Vec::new();
    crate::put_part(&mut seed, EDITIONS_SET);
    seeds.push(seed);
    seeds
}

/// Seeds of the `.proto` text target: the files themselves (those without imports compile
/// alone; the others exercise the resolver's errors).
pub fn text_seeds() -> Vec<Vec<u8>> {
    PROTOS
        .iter()
        .map(|(_, text)| text.as_bytes().to_vec())
        .collect()
}

/// Seeds of the registry-schema target: the serialized `FileDescriptorProto` of every file
/// that compiles alone (the target tries the bytes as base64 of a descriptor), and the texts.
pub fn registry_schema_seeds() -> Vec<Vec<u8>> {
    let mut seeds = text_seeds();
    for (name, text) in PROTOS {
        if let Ok(schema) =
            karrow_codecs::protobuf::confluent::CompiledSchema::compile(name, text, &HashMap::new())
        {
            seeds.push(schema.file().encode_to_vec());
        }
    }
    seeds
}
