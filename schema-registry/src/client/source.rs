//! The client as the codecs' one source of registered schemas
//! ([`karrow_codecs::schema_source::SchemaSource`]): by id through the cached look-up, and
//! referenced schemas by subject and version.

use karrow_codecs::schema_source::{self, SchemaSource, SourcedSchema};

use super::RegistryClient;
use crate::model::{SchemaDefinition, SchemaType};

/// The codecs' view of a registered definition.
fn sourced(definition: &SchemaDefinition) -> SourcedSchema {
    SourcedSchema {
        schema_type: match definition.schema_type {
            SchemaType::Avro => schema_source::SchemaType::Avro,
            SchemaType::Json => schema_source::SchemaType::Json,
            SchemaType::Protobuf => schema_source::SchemaType::Protobuf,
        },
        text: definition.schema.clone(),
        references: definition
            .references
            .iter()
            .map(|r| schema_source::SchemaReference {
                name: r.name.clone(),
                subject: r.subject.clone(),
                version: r.version,
            })
            .collect(),
    }
}

impl SchemaSource for RegistryClient {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        let schema = RegistryClient::schema_by_id(self, id).map_err(|e| e.to_string())?;
        Ok(sourced(&schema.definition))
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        let found = self.version(subject, version).map_err(|e| e.to_string())?;
        Ok(sourced(&found.definition))
    }
}
