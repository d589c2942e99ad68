//! Schema registry domain types shared by the client and the dev server.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The kind of a registered schema; Confluent's `schemaType`, `AVRO` when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum SchemaType {
    /// Apache Avro (the default when `schemaType` is absent).
    #[default]
    Avro,
    /// JSON Schema.
    Json,
    /// Protocol Buffers (`.proto` text).
    Protobuf,
}

impl SchemaType {
    /// The wire name used in `schemaType`: `AVRO`, `JSON` or `PROTOBUF`.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaType::Avro => "AVRO",
            SchemaType::Json => "JSON",
            SchemaType::Protobuf => "PROTOBUF",
        }
    }

    /// Parses an optional wire `schemaType`, defaulting to AVRO when absent.
    pub fn from_wire(value: Option<&str>) -> Result<Self, UnknownSchemaType> {
        value.map_or(Ok(SchemaType::Avro), str::parse)
    }
}

impl fmt::Display for SchemaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for a `schemaType` that is none of `AVRO`, `JSON`, `PROTOBUF`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown schema type '{0}' (expected AVRO, JSON or PROTOBUF)")]
pub struct UnknownSchemaType(pub String);

impl FromStr for SchemaType {
    type Err = UnknownSchemaType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_uppercase().as_str() {
            "AVRO" => Ok(SchemaType::Avro),
            "JSON" => Ok(SchemaType::Json),
            "PROTOBUF" => Ok(SchemaType::Protobuf),
            _ => Err(UnknownSchemaType(s.to_string())),
        }
    }
}

/// A reference from one schema to another registered schema (`subject`, `version`) under an
/// import `name` (the Avro full name, the proto import path or the JSON `$ref` URL).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SchemaReference {
    /// Name under which the referencing schema refers to it.
    pub name: String,
    /// Subject the referenced schema is registered under.
    pub subject: String,
    /// Version of the referenced schema within its subject.
    pub version: i32,
}

/// A schema as submitted to or returned by the registry: its type, text and references.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaDefinition {
    /// The schema language.
    pub schema_type: SchemaType,
    /// The schema text (Avro JSON, JSON Schema, or `.proto` source).
    pub schema: String,
    /// Schemas this one refers to, resolved by the registry.
    pub references: Vec<SchemaReference>,
}

impl SchemaDefinition {
    /// A definition of the given type and text without references.
    pub fn new(schema_type: SchemaType, schema: impl Into<String>) -> Self {
        SchemaDefinition {
            schema_type,
            schema: schema.into(),
            references: Vec::new(),
        }
    }

    /// An Avro definition without references.
    pub fn avro(schema: impl Into<String>) -> Self {
        Self::new(SchemaType::Avro, schema)
    }

    /// A JSON Schema definition without references.
    pub fn json(schema: impl Into<String>) -> Self {
        Self::new(SchemaType::Json, schema)
    }

    /// A Protobuf definition without references.
    pub fn protobuf(schema: impl Into<String>) -> Self {
        Self::new(SchemaType::Protobuf, schema)
    }

    /// Returns the definition with `references` replaced.
    pub fn with_references(mut self, references: Vec<SchemaReference>) -> Self {
        self.references = references;
        self
    }
}

/// A schema fetched by its global id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredSchema {
    /// The registry-wide schema id (the 4 bytes after the Confluent magic byte).
    pub id: i32,
    /// The schema itself.
    pub definition: SchemaDefinition,
}

/// One version of a subject: the subject, its version number, the global id and the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectVersion {
    /// The subject name.
    pub subject: String,
    /// The version within the subject, starting at 1.
    pub version: i32,
    /// The registry-wide schema id.
    pub id: i32,
    /// The schema itself.
    pub definition: SchemaDefinition,
}

/// A subject's (or the registry's global) compatibility rule for new schema versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompatibilityLevel {
    /// Any schema is accepted.
    None,
    /// The new schema can read data written with the latest schema (Confluent's default).
    #[default]
    Backward,
    /// The new schema can read data written with every earlier schema.
    BackwardTransitive,
    /// The latest schema can read data written with the new one.
    Forward,
    /// Every earlier schema can read data written with the new one.
    ForwardTransitive,
    /// Both backward and forward against the latest schema.
    Full,
    /// Both backward and forward against every earlier schema.
    FullTransitive,
}

impl CompatibilityLevel {
    /// The wire name, e.g. `BACKWARD_TRANSITIVE`.
    pub fn as_str(self) -> &'static str {
        match self {
            CompatibilityLevel::None => "NONE",
            CompatibilityLevel::Backward => "BACKWARD",
            CompatibilityLevel::BackwardTransitive => "BACKWARD_TRANSITIVE",
            CompatibilityLevel::Forward => "FORWARD",
            CompatibilityLevel::ForwardTransitive => "FORWARD_TRANSITIVE",
            CompatibilityLevel::Full => "FULL",
            CompatibilityLevel::FullTransitive => "FULL_TRANSITIVE",
        }
    }
}

impl fmt::Display for CompatibilityLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for a compatibility level name the registry does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown compatibility level '{0}'")]
pub struct UnknownCompatibilityLevel(pub String);

impl FromStr for CompatibilityLevel {
    type Err = UnknownCompatibilityLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.to_ascii_uppercase().as_str() {
            "NONE" => CompatibilityLevel::None,
            "BACKWARD" => CompatibilityLevel::Backward,
            "BACKWARD_TRANSITIVE" => CompatibilityLevel::BackwardTransitive,
            "FORWARD" => CompatibilityLevel::Forward,
            "FORWARD_TRANSITIVE" => CompatibilityLevel::ForwardTransitive,
            "FULL" => CompatibilityLevel::Full,
            "FULL_TRANSITIVE" => CompatibilityLevel::FullTransitive,
            _ => return Err(UnknownCompatibilityLevel(s.to_string())),
        })
    }
}

impl Serialize for SchemaType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SchemaType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for CompatibilityLevel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CompatibilityLevel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
