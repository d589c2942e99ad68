//! Where the codecs get registered schemas: by Confluent schema id, and the schemas they
//! reference by subject and version. The codecs do no I/O; `karrow-registry` implements
//! [`SchemaSource`] once on its cached client, and tests use in-memory maps.
//!
//! Each format checks the type of what it gets ([`SourcedSchema::expect`]): an id that names
//! a schema of another type is an error naming the id.

use std::fmt;

/// The language of a registered schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaType {
    /// Apache Avro.
    Avro,
    /// JSON Schema.
    Json,
    /// Protocol Buffers (`.proto` text).
    Protobuf,
}

impl fmt::Display for SchemaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchemaType::Avro => "AVRO",
            SchemaType::Json => "JSON",
            SchemaType::Protobuf => "PROTOBUF",
        })
    }
}

/// A reference of a registered schema: what it imports as `name` is version `version` of
/// subject `subject`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaReference {
    /// The name the referencing schema imports it by (for Protobuf, `import "<name>";`).
    pub name: String,
    /// The subject the referenced schema is registered under.
    pub subject: String,
    /// Its version within the subject.
    pub version: i32,
}

/// A registered schema as the codecs need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedSchema {
    /// Its language.
    pub schema_type: SchemaType,
    /// Its text (Avro JSON, JSON Schema, or `.proto` source).
    pub text: String,
    /// The registered schemas it references.
    pub references: Vec<SchemaReference>,
}

impl SourcedSchema {
    /// This schema if it is of type `expected`; otherwise "`what` in registry is a JSON
    /// schema, not a PROTOBUF schema", `what` naming where it came from (e.g. "Schema with
    /// id 7").
    pub fn expect(
        self,
        expected: SchemaType,
        what: impl FnOnce() -> String,
    ) -> Result<Self, String> {
        if self.schema_type == expected {
            Ok(self)
        } else {
            Err(format!(
                "{} in registry is a {} schema, not a {expected} schema",
                what(),
                self.schema_type
            ))
        }
    }
}

/// Where registered schemas come from (the schema registry, in production).
pub trait SchemaSource: Send + Sync {
    /// The schema registered under `id`, or a message naming the id, e.g. "Could not find
    /// schema with id 7 in registry".
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String>;

    /// Version `version` of `subject` (a referenced schema), or a message naming them.
    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String>;
}

/// Schemas held in memory (tests and tools without a registry), counting look-ups.
#[derive(Debug, Default)]
pub struct InMemorySchemas {
    /// Schemas by id.
    pub ids: std::collections::HashMap<i32, SourcedSchema>,
    /// Schemas by (subject, version).
    pub versions: std::collections::HashMap<(String, i32), SourcedSchema>,
    /// How many times a schema was asked for by id.
    pub lookups: std::sync::atomic::AtomicUsize,
}

impl InMemorySchemas {
    /// Adds the schema `text` of type `schema_type` without references under `id`.
    pub fn with(mut self, id: i32, schema_type: SchemaType, text: &str) -> Self {
        self.ids.insert(
            id,
            SourcedSchema {
                schema_type,
                text: text.to_string(),
                references: Vec::new(),
            },
        );
        self
    }
}

impl SchemaSource for InMemorySchemas {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        self.lookups
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.ids
            .get(&id)
            .cloned()
            .ok_or_else(|| format!("Could not find schema with id {id} in registry"))
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        self.versions
            .get(&(subject.to_string(), version))
            .cloned()
            .ok_or_else(|| format!("Subject '{subject}' version {version} not found"))
    }
}

/// The message of [`SourcedSchema::expect`] for a schema found by id.
pub fn by_id(id: i32) -> impl FnOnce() -> String {
    move || format!("Schema with id {id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_of_another_type_names_where_it_came_from() {
        let json = SourcedSchema {
            schema_type: SchemaType::Json,
            text: "{}".into(),
            references: Vec::new(),
        };
        assert!(json.clone().expect(SchemaType::Json, by_id(7)).is_ok());
        assert_eq!(
            json.expect(SchemaType::Avro, by_id(7)).unwrap_err(),
            "Schema with id 7 in registry is a JSON schema, not a AVRO schema"
        );
    }
}
