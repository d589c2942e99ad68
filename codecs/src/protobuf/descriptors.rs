//! Message descriptors from a serialized `FileDescriptorSet` (what the Java side takes
//! from the generated class, or what `.proto` text from the registry compiles to).

use prost::Message;
use prost_reflect::prost_types::FileDescriptorSet;
use prost_reflect::{DescriptorPool, MessageDescriptor};

use crate::error::CodecError;

/// Decodes a serialized `google.protobuf.FileDescriptorSet` (every file the message
/// needs, dependencies included) and returns the message named `full_name`.
///
/// Editions files (2023, 2024) are lowered to proto2 first ([`super::editions`]): prost-reflect
/// 0.16 knows proto2 and proto3 only (and panics on other syntaxes, so what is left is checked
/// before it sees the set). Options are kept, so the features an editions file decided stay
/// readable ([`super::features`]).
pub fn message_from_descriptor_set(
    descriptor_set: &[u8],
    full_name: &str,
) -> Result<MessageDescriptor, CodecError> {
    let lowered = super::editions::lower_editions(descriptor_set)?;
    let bytes = lowered.as_deref().unwrap_or(descriptor_set);
    let set = FileDescriptorSet::decode(bytes)
        .map_err(|e| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}")))?;
    super::descriptor_checks::check_descriptor_set(&set)?;
    for file in &set.file {
        match file.syntax.as_deref() {
            None | Some("") | Some("proto2") | Some("proto3") => {}
            Some(other) => {
                return Err(CodecError::InvalidProtobufSchema(format!(
                    "protobuf-native reads proto2, proto3 and editions files only; '{}' uses \
                     syntax '{other}'",
                    file.name()
                )))
            }
        }
    }
    let pool = DescriptorPool::decode(bytes)
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
    fn unknown_syntaxes_editions_without_an_edition_and_garbage_are_refused() {
        let future = FileDescriptorProto {
            name: Some("f.proto".into()),
            syntax: Some("proto4".into()),
            ..FileDescriptorProto::default()
        };
        let err = message_from_descriptor_set(&set_of(vec![future]), "x.Y").unwrap_err();
        assert!(err.to_string().contains("syntax 'proto4'"), "{err}");
        let editions = FileDescriptorProto {
            name: Some("e.proto".into()),
            syntax: Some("editions".into()),
            ..FileDescriptorProto::default()
        };
        let err = message_from_descriptor_set(&set_of(vec![editions]), "x.Y").unwrap_err();
        assert!(
            err.to_string().contains("'e.proto' uses edition (none)"),
            "{err}"
        );
        let err = message_from_descriptor_set(&[0xff, 0xff], "x.Y").unwrap_err();
        assert!(
            err.to_string()
                .contains("invalid Protobuf schema: bad descriptor set"),
            "{err}"
        );
    }
}
