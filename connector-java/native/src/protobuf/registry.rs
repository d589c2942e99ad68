//! Writer schemas of `protobuf-confluent-native`, fetched from the Confluent Schema Registry
//! by id (and referenced schemas by subject and version) through the shared, cached client.

use std::sync::Arc;

use karrow_codecs::protobuf::confluent::{ProtoReference, ProtoSchema, ProtobufSchemaSource};
use karrow_registry::{RegistryClient, SchemaDefinition, SchemaType};

/// A [`ProtobufSchemaSource`] over a registry client.
pub struct RegistryProtobufSource {
    client: Arc<RegistryClient>,
}

impl RegistryProtobufSource {
    /// Wraps a registry client.
    pub fn new(client: Arc<RegistryClient>) -> Self {
        RegistryProtobufSource { client }
    }
}

/// The codec's view of a registered definition; a schema of another type is refused.
fn proto_schema(definition: &SchemaDefinition, what: &str) -> Result<ProtoSchema, String> {
    if definition.schema_type != SchemaType::Protobuf {
        return Err(format!(
            "{what} in registry is a {} schema, not a PROTOBUF schema",
            definition.schema_type
        ));
    }
    Ok(ProtoSchema {
        text: definition.schema.clone(),
        references: definition
            .references
            .iter()
            .map(|r| ProtoReference {
                name: r.name.clone(),
                subject: r.subject.clone(),
                version: r.version,
            })
            .collect(),
    })
}

impl ProtobufSchemaSource for RegistryProtobufSource {
    fn schema_by_id(&self, id: i32) -> Result<ProtoSchema, String> {
        let schema = self.client.schema_by_id(id).map_err(|e| e.to_string())?;
        proto_schema(&schema.definition, &format!("Schema with id {id}"))
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<ProtoSchema, String> {
        let found = self
            .client
            .version(subject, version)
            .map_err(|e| e.to_string())?;
        proto_schema(
            &found.definition,
            &format!("Subject '{subject}' version {version}"),
        )
    }
}
