//! Message descriptors from a serialized `FileDescriptorSet` (what the Java side takes
//! from the generated class, or what `.proto` text from the registry compiles to).

use prost::Message;
use prost_reflect::prost_types::FileDescriptorSet;
use prost_reflect::{DescriptorPool, MessageDescriptor};

use crate::error::CodecError;

/// Decodes a serialized `google.protobuf.FileDescriptorSet` (every file the message
/// needs, dependencies included) and returns the message named `full_name`.
///
/// Files written with `edition = "..."` are refused: prost-reflect 0.16 knows proto2 and
/// proto3 only (and panics on other syntaxes, so they are checked first).
pub fn message_from_descriptor_set(
    descriptor_set: &[u8],
    full_name: &str,
) -> Result<MessageDescriptor, CodecError> {
    let set = FileDescriptorSet::decode(descriptor_set)
        .map_err(|e| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}")))?;
    for file in &set.file {
        match file.syntax.as_deref() {
            None | Some("") | Some("proto2") | Some("proto3") => {}
            Some(other) => {
                return Err(CodecError::InvalidProtobufSchema(format!(
                    "protobuf-native reads proto2 and proto3 files only; '{}' uses syntax \
                     '{other}'",
                    file.name()
                )))
            }
        }
    }
    let pool = DescriptorPool::from_file_descriptor_set(set)
        .map_err(|e| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}")))?;
    find_message(&pool, full_name)
}

/// The message named `full_name` (package-qualified, `.`-separated) in `pool`.
pub fn find_message(
    pool: &DescriptorPool,
    full_name: &str,
) -> Result<MessageDescriptor, CodecError> {
    let name = full_name.strip_prefix('.').unwrap_or(full_name);
    pool.get_message_by_name(name).ok_or_else(|| {
        CodecError::InvalidProtobufSchema(format!(
            "protobuf message '{name}' is not in the descriptor set"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost_reflect::prost_types::FileDescriptorProto;

    fn set_of(files: Vec<FileDescriptorProto>) -> Vec<u8> {
        FileDescriptorSet { file: files }.encode_to_vec()
    }

    #[test]
    fn finds_a_message_of_a_compiled_file() {
        let pool = crate::protobuf::test_support::pool(&[(
            "a.proto",
            "syntax = \"proto3\"; package p; message Outer { message Inner { int32 x = 1; } }",
        )]);
        let bytes = pool.encode_to_vec();
        let inner = message_from_descriptor_set(&bytes, "p.Outer.Inner").unwrap();
        assert_eq!(inner.fields().count(), 1);
        let err = message_from_descriptor_set(&bytes, "p.Nope").unwrap_err();
        assert!(err
            .to_string()
            .contains("'p.Nope' is not in the descriptor set"));
    }

    #[test]
    fn editions_and_garbage_are_refused_with_a_message() {
        let editions = FileDescriptorProto {
            name: Some("e.proto".into()),
            syntax: Some("editions".into()),
            ..FileDescriptorProto::default()
        };
        let err = message_from_descriptor_set(&set_of(vec![editions]), "x.Y").unwrap_err();
        assert!(err.to_string().contains("syntax 'editions'"), "{err}");
        let err = message_from_descriptor_set(&[0xff, 0xff], "x.Y").unwrap_err();
        assert!(
            err.to_string()
                .contains("invalid Protobuf schema: bad descriptor set"),
            "{err}"
        );
    }
}
