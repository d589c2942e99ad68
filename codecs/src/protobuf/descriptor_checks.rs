//! Checks of a decoded `FileDescriptorSet` for what protoc always writes and prost-reflect
//! takes for granted: it panics on a map entry whose key or value field is missing (it
//! looks them up by number and `expect`s them), both when the pool is built (options of a
//! map type) and when a map field is used. A set that fails a check is refused with a clear
//! error before prost-reflect sees it.

use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{DescriptorProto, FileDescriptorSet};

use crate::error::CodecError;

/// Checks every message of every file of `set`.
pub(crate) fn check_descriptor_set(set: &FileDescriptorSet) -> Result<(), CodecError> {
    for file in &set.file {
        // Messages nest; walk them from a heap stack (a hostile set may nest deeply).
        let mut pending: Vec<(String, &DescriptorProto)> = file
            .message_type
            .iter()
            .map(|m| (qualified(file.package(), m.name()), m))
            .collect();
        while let Some((name, message)) = pending.pop() {
            if message
                .options
                .as_ref()
                .is_some_and(|o| o.map_entry.unwrap_or(false))
            {
                check_map_entry(file.name(), &name, message)?;
            }
            pending.extend(
                message
                    .nested_type
                    .iter()
                    .map(|n| (qualified(&name, n.name()), n)),
            );
        }
    }
    Ok(())
}

fn qualified(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// A map entry is exactly two optional fields, `key` = 1 of a scalar key type and
/// `value` = 2 (what protoc generates for `map<K, V>`).
fn check_map_entry(file: &str, name: &str, entry: &DescriptorProto) -> Result<(), CodecError> {
    let refuse = |why: String| {
        Err(CodecError::InvalidProtobufSchema(format!(
            "bad descriptor set: map entry '{name}' in '{file}' {why} (protoc writes exactly the \
             fields `key = 1` and `value = 2`)"
        )))
    };
    let field = |number: i32, field_name: &str| {
        entry
            .field
            .iter()
            .find(|f| f.number() == number && f.name() == field_name)
    };
    let (Some(key), Some(_value)) = (field(1, "key"), field(2, "value")) else {
        return refuse("lacks its key or value field".into());
    };
    if entry.field.len() != 2 {
        return refuse(format!("has {} fields", entry.field.len()));
    }
    if entry.field.iter().any(|f| f.label() == Label::Repeated) {
        return refuse("has a repeated field".into());
    }
    if !entry.oneof_decl.is_empty() || !entry.nested_type.is_empty() {
        return refuse("declares oneofs or nested types".into());
    }
    match key.r#type() {
        Type::Float | Type::Double | Type::Bytes | Type::Message | Type::Group | Type::Enum => {
            refuse(format!("has a key of type {:?}", key.r#type()))
        }
        _ => Ok(()),
    }
}
