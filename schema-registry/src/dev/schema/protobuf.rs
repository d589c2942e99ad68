//! PROTOBUF schemas on registration: compiled by codecs (protox) with the referenced schemas
//! as its imports, so a schema that does not compile is refused with the compiler's message.

use std::collections::HashMap;

use karrow_codecs::protobuf::confluent::CompiledSchema;

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

/// Compiles `text` with `referenced` (by import name) as its imports.
pub(crate) fn parse(text: &str, referenced: &[Referenced]) -> Result<ProtoParsed, String> {
    if text.trim().is_empty() {
        return Err("empty Protobuf schema".into());
    }
    check_nesting(text)?;
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
    let mut name = ROOT_FILE.to_string();
    while imports.contains_key(&name) {
        name.insert(0, '_');
    }
    CompiledSchema::compile(&name, text, &imports)?;
    Ok(ProtoParsed {
        text: text.to_string(),
        canonical: text.to_string(),
    })
}

/// The base64 `FileDescriptorProto` of stored `.proto` text (`?format=serialized`).
pub(crate) fn serialized(text: &str, referenced: &[Referenced]) -> Result<String, String> {
    use base64::Engine as _;
    let imports: HashMap<String, String> = referenced
        .iter()
        .map(|r| (r.name.clone(), r.text.clone()))
        .collect();
    let compiled = CompiledSchema::compile(ROOT_FILE, text, &imports)?;
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
}
