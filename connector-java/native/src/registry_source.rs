//! Writer schemas for the codecs, fetched by id from the Confluent Schema Registry.

use std::sync::Arc;

use karrow_codecs::avro::WriterSchemaSource;
use karrow_registry::{RegistryClient, SchemaType};

/// A [`WriterSchemaSource`] over a shared, cached registry client.
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
