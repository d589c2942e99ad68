//! PROTOBUF schemas on registration, in either form Confluent's registry takes: `.proto`
//! text, or a base64 `FileDescriptorProto` (what Confluent's serializers send). Text is tried
//! first, as Confluent does. Either is compiled by codecs (protox) with the referenced
//! schemas as its imports, so a schema that does not compile is refused with the compiler's
//! message. A descriptor is stored as the `.proto` text codecs' printer writes for it; the
//! canonical form (what decides that two submissions are the same schema) is that printed
//! text of the compiled file for both forms, so text and descriptor of one schema share an id.

use std::collections::HashMap;

use base64::Engine as _;
use karrow_codecs::protobuf::confluent::CompiledSchema;
use karrow_codecs::protobuf::printer::{print_file, print_serialized};

use super::Referenced;
use crate::model::SchemaType;

/// Deepest `{`-nesting accepted in `.proto` text (the compiler recurses per level).
pub(crate) const MAX_NESTING: usize = 64;

/// File name the schema itself is compiled under.
const ROOT_FILE: &str = "registry-schema.proto";

/// A checked Protobuf schema.
#[derive(Debug)]
pub(crate) struct ProtoParsed {
    /// The `.proto` text to store.
    pub text: String,
    /// The canonical form.
    pub canonical: String,
}

/// Import name -> text of every referenced schema.
fn imports(referenced: &[Referenced]) -> Result<HashMap<String, String>, String> {
    let mut imports = HashMap::new();
    for r in referenced {
        if r.schema_type != SchemaType::Protobuf {
            return Err(format!(
                "the reference '{}' is a {} schema, not PROTOBUF",
                r.name, r.schema_type
            ));
        }
        imports.insert(r.name.clone(), r.text.clone());
    }
    Ok(imports)
}

fn root_name(imports: &HashMap<String, String>) -> String {
    let mut name = ROOT_FILE.to_string();
    while imports.contains_key(&name) {
        name.insert(0, '_');
    }
    name
}

/// The printed text of a compiled schema's own file, its imports given for short names.
fn printed(compiled: &CompiledSchema) -> Result<String, String> {
    let root = compiled.file();
    let dependencies: Vec<_> = root
        .parent_pool()
        .files()
        .filter(|f| f.name() != root.name())
        .map(|f| f.file_descriptor_proto().clone())
        .collect();
    print_file(root.file_descriptor_proto(), &dependencies).map_err(|e| e.to_string())
}

/// The bytes of a base64 `FileDescriptorProto`, `None` when `schema` is not one: codecs'
/// `protobuf::confluent::descriptor_bytes`, the one reading of that form.
fn descriptor_bytes(schema: &str) -> Option<Vec<u8>> {
    karrow_codecs::protobuf::confluent::descriptor_bytes(schema)?
        .ok()
        .filter(|bytes| !bytes.is_empty())
}

/// Checks `schema` (text or base64 descriptor) with `referenced` (by import name) as its
/// imports.
pub(crate) fn parse(schema: &str, referenced: &[Referenced]) -> Result<ProtoParsed, String> {
    if schema.trim().is_empty() {
        return Err("empty Protobuf schema".into());
    }
    let imports = imports(referenced)?;
    let name = root_name(&imports);
    let as_text =
        check_nesting(schema).and_then(|()| CompiledSchema::compile(&name, schema, &imports));
    let text_error = match as_text {
        Ok(compiled) => {
            return Ok(ProtoParsed {
                text: schema.to_string(),
                canonical: printed(&compiled)?,
            })
        }
        Err(e) => e,
    };
    let Some(bytes) = descriptor_bytes(schema) else {
        return Err(text_error);
    };
    // The referenced files as descriptors, so the printed text can use short names.
    let mut dependencies = Vec::new();
    for r in referenced {
        if let Ok(compiled) = CompiledSchema::compile(&r.name, &r.text, &imports) {
            dependencies.extend(
                compiled
                    .file()
                    .parent_pool()
                    .files()
                    .map(|f| f.file_descriptor_proto().clone()),
            );
        }
    }
    let text = print_serialized(&bytes, &dependencies).map_err(|e| {
        format!("neither .proto text ({text_error}) nor a usable base64 FileDescriptorProto ({e})")
    })?;
    check_nesting(&text)?;
    let compiled = CompiledSchema::compile(&name, &text, &imports)
        .map_err(|e| format!("the FileDescriptorProto does not compile: {e}"))?;
    let canonical = printed(&compiled)?;
    Ok(ProtoParsed {
        text: canonical.clone(),
        canonical,
    })
}

/// The base64 `FileDescriptorProto` of stored `.proto` text (`?format=serialized`).
pub(crate) fn serialized(text: &str, referenced: &[Referenced]) -> Result<String, String> {
    let imports = imports(referenced)?;
    let compiled = CompiledSchema::compile(&root_name(&imports), text, &imports)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(compiled.file().encode_to_vec()))
}

/// Refuses text nested deeper than [`MAX_NESTING`] braces (strings and comments skipped).
fn check_nesting(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "the Protobuf schema nests deeper than {MAX_NESTING} levels"
                    ));
                }
            }
            b'}' => depth = depth.saturating_sub(1),
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_or_names_the_error() {
        parse("syntax = \"proto3\"; message M { int32 a = 1; }", &[]).unwrap();
        let err = parse("syntax = \"proto3\"; message M { nosuch a = 1; }", &[]).unwrap_err();
        assert!(err.contains("nosuch"), "{err}");
        let err = parse("not a schema", &[]).unwrap_err();
        assert!(err.contains("does not compile"), "{err}");
        let deep = format!(
            "syntax = \"proto3\"; {} {}",
            "message M {".repeat(100),
            "}".repeat(100)
        );
        assert!(parse(&deep, &[]).unwrap_err().contains("nests deeper"));
        // Braces in strings and comments do not count.
        let quoted = format!(
            "syntax = \"proto3\"; // {}\n message M {{ string a = 1 [default = \"{}\"]; }}",
            "{".repeat(100),
            "{".repeat(100)
        );
        assert!(!parse(&quoted, &[]).unwrap_err().contains("nests deeper"));
    }

    #[test]
    fn descriptors_and_text_of_one_schema_share_a_canonical_form() {
        let text = "syntax = \"proto3\";\n\npackage p;\n\nmessage M {\n  int32 a = 1;\n  optional string b = 2;\n  map<string, M> c = 3;\n}\n";
        let from_text = parse(text, &[]).unwrap();
        assert_eq!(from_text.text, text);
        let serialized = serialized(text, &[]).unwrap();
        let from_descriptor = parse(&serialized, &[]).unwrap();
        assert_eq!(from_descriptor.canonical, from_text.canonical);
        // Stored as text, which compiles back to the same descriptor.
        assert_eq!(from_descriptor.text, text);
        assert_eq!(
            self::serialized(&from_descriptor.text, &[]).unwrap(),
            serialized
        );
        // Garbage that is base64 but no descriptor names both failures.
        let err = parse("AAAA", &[]).unwrap_err();
        assert!(err.contains("neither .proto text"), "{err}");
    }
}
