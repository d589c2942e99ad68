//! Schemas for the codecs, fetched by id from the Confluent Schema Registry: Avro writer
//! schemas for `avro-confluent-native`, JSON schema checks for `json-confluent-native`.

use std::sync::Arc;

use karrow_codecs::avro::WriterSchemaSource;
use karrow_codecs::json::JsonSchemaSource;
use karrow_registry::{RegistryClient, SchemaType};

/// A [`WriterSchemaSource`] and [`JsonSchemaSource`] over a shared, cached registry client.
pub struct RegistrySchemaSource {
    client: Arc<RegistryClient>,
}

impl RegistrySchemaSource {
    /// Wraps a registry client.
    pub fn new(client: Arc<RegistryClient>) -> Self {
        RegistrySchemaSource { client }
    }
}

impl WriterSchemaSource for RegistrySchemaSource {
    fn writer_schema(&self, id: i32) -> Result<Arc<str>, String> {
        let schema = self.client.schema_by_id(id).map_err(|e| e.to_string())?;
        if schema.definition.schema_type != SchemaType::Avro {
            return Err(format!(
                "schema id {id} is a {:?} schema, not Avro",
                schema.definition.schema_type
            ));
        }
        Ok(Arc::from(schema.definition.schema.as_str()))
    }
}

impl JsonSchemaSource for RegistrySchemaSource {
    fn check_json_schema(&self, id: i32) -> Result<(), String> {
        let schema = self.client.schema_by_id(id).map_err(|e| e.to_string())?;
        match schema.definition.schema_type {
            SchemaType::Json => Ok(()),
            other => Err(format!(
                "Schema with id {id} in registry is a {other} schema, not a JSON schema"
            )),
        }
    }
}
