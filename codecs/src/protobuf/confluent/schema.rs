//! The writer schemas of `protobuf-confluent-native`: registered `.proto` text with its
//! references (fetched recursively by subject and version through a
//! [`SchemaSource`]), compiled with protox, and the messages of a compiled file found
//! by index path or name.

use std::collections::HashMap;

use prost::Message;
use prost_reflect::prost_types::FileDescriptorSet;
use prost_reflect::{DescriptorPool, FileDescriptor, Kind, MessageDescriptor};
use protox::file::{File, FileResolver, GoogleFileResolver};

use crate::protobuf::printer::print_serialized;
use crate::schema_source::{by_id, resolve_references, SchemaSource, SchemaType};

/// A `.proto` file compiled with its imports.
#[derive(Debug, Clone)]
pub struct CompiledSchema {
    root: FileDescriptor,
}

/// Files by name for protox: the schema, its references, then Google's well-known files.
struct InMemoryFiles {
    files: HashMap<String, String>,
    google: GoogleFileResolver,
}

impl FileResolver for InMemoryFiles {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.files.get(name) {
            Some(source) => File::from_source(name, source),
            None => self.google.open_file(name),
        }
    }
}

impl CompiledSchema {
    /// Compiles `text` (named `name`) whose imports are the files in `imports` (import name
    /// -> source) or Google's well-known files (`google/protobuf/*.proto`). Files written with
    /// `edition = ...` are refused.
    pub fn compile(
        name: &str,
        text: &str,
        imports: &HashMap<String, String>,
    ) -> Result<Self, String> {
        let mut files = imports.clone();
        files.insert(name.to_string(), text.to_string());
        let resolver = InMemoryFiles {
            files,
            google: GoogleFileResolver::new(),
        };
        let mut compiler = protox::Compiler::with_file_resolver(resolver);
        compiler.include_imports(true);
        compiler
            .open_file(name)
            .map_err(|e| format!("the Protobuf schema does not compile: {e}"))?;
        let set = FileDescriptorSet::decode(compiler.encode_file_descriptor_set().as_slice())
            .map_err(|e| format!("the compiled Protobuf schema does not decode: {e}"))?;
        for file in &set.file {
            match file.syntax.as_deref() {
                None | Some("") | Some("proto2") | Some("proto3") => {}
                Some(other) => {
                    return Err(format!(
                        "only proto2 and proto3 files are supported; '{}' uses syntax '{other}'",
                        file.name()
                    ))
                }
            }
        }
        // Through the serialized set: protox's own pool does not report `[packed = ...]`.
        let pool = DescriptorPool::from_file_descriptor_set(set)
            .map_err(|e| format!("the compiled Protobuf schema is invalid: {e}"))?;
        let root = pool
            .get_file_by_name(name)
            .ok_or_else(|| format!("the compiled Protobuf schema has no file '{name}'"))?;
        Ok(CompiledSchema { root })
    }

    /// The schema's own file (not its imports).
    pub fn file(&self) -> &FileDescriptor {
        &self.root
    }

    /// The message at a message-index path of this file.
    pub fn message_at(&self, path: &[i32]) -> Result<MessageDescriptor, String> {
        let describe = || format!("{path:?}");
        let Some((&first, rest)) = path.split_first() else {
            return Err(format!("the message-index path {} is empty", describe()));
        };
        let top: Vec<MessageDescriptor> = self.root.messages().collect();
        let mut message = pick(&top, first).ok_or_else(|| {
            format!(
                "the message-index path {} names no message: index {first} is out of range \
                 (the file declares {} top-level messages)",
                describe(),
                top.len()
            )
        })?;
        for (depth, &index) in rest.iter().enumerate() {
            let nested = declared_children(&message);
            message = pick(&nested, index).ok_or_else(|| {
                format!(
                    "the message-index path {} names no message: index {index} at depth {} is \
                     out of range ('{}' declares {} nested messages)",
                    describe(),
                    depth + 1,
                    message.full_name(),
                    nested.len()
                )
            })?;
        }
        Ok(message)
    }

    /// The message named `name` (full name, or relative to the file's package), or the first
    /// top-level message when `name` is empty; it must be declared in this file.
    pub fn find_message(&self, name: &str) -> Result<MessageDescriptor, String> {
        if name.is_empty() {
            return self
                .root
                .messages()
                .next()
                .ok_or_else(|| "the Protobuf schema declares no message".to_string());
        }
        let name = name.strip_prefix('.').unwrap_or(name);
        let pool = self.root.parent_pool();
        let package = self.root.package_name();
        let found = if package.is_empty() {
            pool.get_message_by_name(name)
        } else {
            pool.get_message_by_name(&format!("{package}.{name}"))
                .or_else(|| pool.get_message_by_name(name))
        };
        match found {
            Some(m) if m.parent_file().name() == self.root.name() => Ok(m),
            Some(m) => Err(format!(
                "message '{}' is declared in the imported file '{}', not in the schema itself",
                m.full_name(),
                m.parent_file().name()
            )),
            None => Err(format!("the Protobuf schema declares no message '{name}'")),
        }
    }

    /// The message-index path of `message` (a message of this file).
    pub fn index_path(&self, message: &MessageDescriptor) -> Result<Vec<i32>, String> {
        let mut path = Vec::new();
        let mut current = message.clone();
        loop {
            let siblings = match current.parent_message() {
                Some(parent) => declared_children(&parent),
                None => self.root.messages().collect(),
            };
            let position = siblings
                .iter()
                .position(|m| m.full_name() == current.full_name())
                .ok_or_else(|| {
                    format!(
                        "message '{}' is not declared as a message of the schema",
                        message.full_name()
                    )
                })?;
            path.push(position as i32);
            match current.parent_message() {
                Some(parent) => current = parent,
                None => break,
            }
        }
        path.reverse();
        Ok(path)
    }
}

/// The element at a (possibly negative) index.
fn pick(messages: &[MessageDescriptor], index: i32) -> Option<MessageDescriptor> {
    usize::try_from(index)
        .ok()
        .and_then(|i| messages.get(i))
        .cloned()
}

/// The nested messages `parent` declares in its `.proto` text, in order: its nested types
/// without the synthetic entry types of map fields and the types of groups.
fn declared_children(parent: &MessageDescriptor) -> Vec<MessageDescriptor> {
    let groups: Vec<String> = parent
        .fields()
        .filter(|f| f.is_group())
        .filter_map(|f| match f.kind() {
            Kind::Message(m) => Some(m.full_name().to_string()),
            _ => None,
        })
        .collect();
    parent
        .child_messages()
        .filter(|m| !m.is_map_entry() && !groups.iter().any(|g| g == m.full_name()))
        .collect()
}

/// The largest registered schema accepted in descriptor form (base64 text), 16 MiB as the
/// dev registry's request bodies.
const MAX_DESCRIPTOR_TEXT: usize = 16 << 20;

/// The bytes of a registered Protobuf schema in descriptor form (a base64
/// `FileDescriptorProto`, padded or not), or `None` when `schema` is not in that form. Text
/// that consists of base64 characters only cannot be a `.proto` file with a declaration (those
/// need `;`), so the two forms cannot be confused. Bounded: at most 16 MiB of text.
pub fn descriptor_bytes(schema: &str) -> Option<Result<Vec<u8>, String>> {
    use base64::Engine as _;
    let trimmed = schema.trim();
    let base64_only = !trimmed.is_empty()
        && trimmed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if !base64_only {
        return None;
    }
    if trimmed.len() > MAX_DESCRIPTOR_TEXT {
        return Some(Err(format!(
            "the Protobuf schema in descriptor form is longer than {MAX_DESCRIPTOR_TEXT} bytes"
        )));
    }
    Some(
        base64::engine::general_purpose::STANDARD
            .decode(trimmed)
            .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(trimmed))
            .map_err(|e| format!("the Protobuf schema is neither .proto text nor base64: {e}")),
    )
}

/// `.proto` text for a registered Protobuf schema in either form a registry may hold: `.proto`
/// text as is, or a base64 `FileDescriptorProto` ([`descriptor_bytes`]: what Confluent's
/// serializers register, and what a registry that stores it verbatim answers) printed as text
/// by codecs' printer, type names fully qualified.
pub fn schema_text(schema: &str) -> Result<std::borrow::Cow<'_, str>, String> {
    let Some(bytes) = descriptor_bytes(schema) else {
        return Ok(std::borrow::Cow::Borrowed(schema));
    };
    print_serialized(&bytes?, &[])
        .map(std::borrow::Cow::Owned)
        .map_err(|e| format!("the Protobuf schema in descriptor form is not usable: {e}"))
}

/// The files `references` name, recursively (by subject and version, dependencies first), as
/// `.proto` text under their import names: what a schema with those references compiles
/// against. Each may be `.proto` text or a base64 descriptor ([`schema_text`]); the first file
/// under an import name wins, as in a compiler's include path.
pub fn referenced_imports(
    source: &dyn SchemaSource,
    references: &[crate::schema_source::SchemaReference],
) -> Result<HashMap<String, String>, String> {
    let mut imports = HashMap::new();
    for resolved in resolve_references(source, references, SchemaType::Protobuf)? {
        let name = resolved.reference.name;
        if imports.contains_key(&name) {
            continue;
        }
        let text = schema_text(&resolved.schema.text)
            .map_err(|e| format!("the reference '{name}': {e}"))?
            .into_owned();
        imports.insert(name, text);
    }
    Ok(imports)
}

/// Fetches schema `id` and, recursively, every schema it references, and compiles it. Each
/// may be `.proto` text or a base64 descriptor ([`schema_text`]).
pub fn resolve_schema(source: &dyn SchemaSource, id: i32) -> Result<CompiledSchema, String> {
    let root = source
        .schema_by_id(id)?
        .expect(SchemaType::Protobuf, by_id(id))?;
    let imports = referenced_imports(source, &root.references)?;
    let mut name = format!("registry-schema-{id}.proto");
    while imports.contains_key(&name) {
        name.insert(0, '_');
    }
    let text = schema_text(&root.text).map_err(|e| format!("schema id {id}: {e}"))?;
    CompiledSchema::compile(&name, &text, &imports).map_err(|e| format!("schema id {id}: {e}"))
}
