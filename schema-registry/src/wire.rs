//! JSON bodies of the Confluent Schema Registry REST API as the client reads and writes them.

use serde::{Deserialize, Serialize};

use crate::model::{
    SchemaDefinition, SchemaReference, SchemaType, SubjectVersion, UnknownSchemaType,
};

/// `{"schema", "schemaType"?, "references"?}`: register/lookup requests and `GET /schemas/ids/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SchemaPayload {
    pub schema: String,
    #[serde(
        rename = "schemaType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub schema_type: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<SchemaReference>,
}

impl SchemaPayload {
    /// The payload for a definition; `schemaType` is omitted for AVRO like Confluent does.
    pub fn from_definition(def: &SchemaDefinition) -> Self {
        SchemaPayload {
            schema: def.schema.clone(),
            schema_type: wire_type(def.schema_type),
            references: def.references.clone(),
        }
    }

    /// The definition this payload describes.
    pub fn into_definition(self) -> Result<SchemaDefinition, UnknownSchemaType> {
        Ok(SchemaDefinition {
            schema_type: SchemaType::from_wire(self.schema_type.as_deref())?,
            schema: self.schema,
            references: self.references,
        })
    }
}

/// `{"subject","version","id","schema","schemaType"?,"references"?}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SubjectVersionPayload {
    pub subject: String,
    pub version: i32,
    pub id: i32,
    pub schema: String,
    #[serde(
        rename = "schemaType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub schema_type: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<SchemaReference>,
}

impl SubjectVersionPayload {
    /// The subject version this payload describes.
    pub fn into_version(self) -> Result<SubjectVersion, UnknownSchemaType> {
        Ok(SubjectVersion {
            definition: SchemaDefinition {
                schema_type: SchemaType::from_wire(self.schema_type.as_deref())?,
                schema: self.schema,
                references: self.references,
            },
            subject: self.subject,
            version: self.version,
            id: self.id,
        })
    }
}

/// `{"id": N}`, the answer to a registration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct IdPayload {
    pub id: i32,
}

/// Confluent's error body `{"error_code": 40401, "message": "..."}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ErrorPayload {
    pub error_code: i32,
    pub message: String,
}

/// Compatibility config: PUT takes `compatibility`; Confluent's GET answers
/// `compatibilityLevel`, so the dev server writes both and accepts either.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ConfigPayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    #[serde(
        rename = "compatibilityLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub compatibility_level: Option<String>,
}

fn wire_type(t: SchemaType) -> Option<String> {
    match t {
        SchemaType::Avro => None,
        other => Some(other.as_str().to_string()),
    }
}
