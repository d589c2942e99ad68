//! Where the schema comes from (`--schema FILE.avsc`, `--registry URL --subject S`,
//! `--columns "..."`) and what follows from it: the table's row type, the writer schema
//! of the messages, and the reader schema (the format's `schema` option) if any.

use std::path::Path;

use karrow_codecs::avro::derive::derive_schema_json;
use karrow_codecs::types::FlinkType;
use karrow_registry::{RegistryClient, RegistryConfig, SchemaType};

use super::avro_types::row_type_of_avro;
use super::ddl::parse_columns;
use super::error::BenchError;

/// The schema side of a run.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The table's row type (what rows are decoded into).
    pub row_type: FlinkType,
    /// The Avro schema the messages are written with (empty for `json`).
    pub writer_schema: String,
    /// The row type of the writer schema, for generating values.
    pub writer_row_type: FlinkType,
    /// `Some` when the table uses an explicit reader schema (`avro-confluent.schema`).
    pub reader_schema: Option<String>,
    /// The writer schema's id in the user's registry (`--subject`).
    pub registry_id: Option<i32>,
    /// Human description.
    pub origin: String,
}

/// A registry client for `url`, with errors as [`BenchError::Registry`].
pub fn client(url: &str) -> Result<RegistryClient, BenchError> {
    RegistryClient::new(RegistryConfig::from_url(url))
        .map_err(|e| BenchError::Registry(e.to_string()))
}

/// Resolves the schema of a format without registry schemas (`json`): the row type is
/// `--columns`, and the messages are plain values of it (no writer schema).
pub fn resolve_columns(columns: Option<&str>, format: &str) -> Result<Resolved, BenchError> {
    let columns = columns.ok_or_else(|| {
        BenchError::Usage(format!(
            "no schema: --format {format} takes the table's columns from --columns \"name TYPE, ...\""
        ))
    })?;
    let row_type = parse_columns(columns)?;
    Ok(Resolved {
        writer_row_type: row_type.clone(),
        row_type,
        writer_schema: String::new(),
        reader_schema: None,
        registry_id: None,
        origin: if format == "json-confluent" {
            "--columns; Confluent-framed JSON values of that row type, with the id of the JSON Schema derived from it".into()
        } else {
            format!("--columns; plain {format} values of that row type")
        },
    })
}

/// Resolves the schema of a Protobuf format: the row type is `--columns` when given, else
/// flink-protobuf's for the message; the writer schema is the message's `.proto` text.
/// `protobuf-confluent` registers that file, so it may import only Google's files.
pub fn resolve_protobuf(
    columns: Option<&str>,
    proto: &super::protobuf::ProtoSchema,
    kind: super::format::FormatKind,
) -> Result<Resolved, BenchError> {
    let name = proto.message.full_name();
    if kind == super::format::FormatKind::ProtobufConfluent && !proto.self_contained {
        return Err(BenchError::Schema(format!(
            "--format protobuf-confluent registers the file of '{name}' as the writer schema; it imports files other than Google's (schema references are not supported here)"
        )));
    }
    let (row_type, from) = match columns {
        Some(text) => (parse_columns(text)?, "--columns"),
        None => (
            super::protobuf::row_type_of(&proto.message)?,
            "flink-protobuf's row type of the message",
        ),
    };
    Ok(Resolved {
        writer_row_type: row_type.clone(),
        row_type,
        writer_schema: proto.text.clone(),
        reader_schema: None,
        registry_id: None,
        origin: if kind == super::format::FormatKind::ProtobufConfluent {
            format!("message {name} ({from}); Confluent-framed values with the id of its file, registered")
        } else {
            format!("message {name} ({from}); plain protobuf values")
        },
    })
}

/// Resolves the schema options.
///
/// The row type is `--columns` when given, else Flink's conversion of the Avro schema. The
/// writer schema is the `.avsc` file, the subject's latest version, or (columns only) the
/// schema Flink derives from the row type. With a schema but no columns, that schema is also
/// the reader schema (the `schema` option), the only way Flink reads enums and fixed.
pub fn resolve(
    avsc: Option<&Path>,
    registry: Option<&str>,
    subject: Option<&str>,
    columns: Option<&str>,
) -> Result<Resolved, BenchError> {
    let table = columns.map(parse_columns).transpose()?;
    let (writer, registry_id, origin) = match (avsc, subject) {
        (Some(_), Some(_)) => {
            return Err(BenchError::Usage(
                "give --schema or --subject, not both".into(),
            ))
        }
        (Some(path), None) => {
            let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
            (
                Some(text),
                None,
                format!("Avro schema file {}", path.display()),
            )
        }
        (None, Some(subject)) => {
            let url =
                registry.ok_or_else(|| BenchError::Usage("--subject needs --registry".into()))?;
            let latest = client(url)?
                .latest(subject)
                .map_err(|e| BenchError::Registry(e.to_string()))?;
            if latest.definition.schema_type != SchemaType::Avro {
                return Err(BenchError::Schema(format!(
                    "subject '{subject}' holds a {} schema; --format avro-confluent needs Avro",
                    latest.definition.schema_type
                )));
            }
            (
                Some(latest.definition.schema),
                Some(latest.id),
                format!(
                    "subject '{subject}' version {} (id {}) at {url}",
                    latest.version, latest.id
                ),
            )
        }
        (None, None) => (None, None, String::new()),
    };
    match (writer, table) {
        (None, None) => Err(BenchError::Usage(
            "no schema: give --schema FILE.avsc, --registry URL --subject S, or --columns \"name TYPE, ...\"".into(),
        )),
        (None, Some(row_type)) => {
            let writer_schema = derive_schema_json(&row_type).map_err(|e| BenchError::Schema(e.to_string()))?;
            Ok(Resolved {
                origin: "--columns; messages written with the Avro schema Flink derives from them".into(),
                writer_row_type: row_type.clone(),
                row_type,
                writer_schema,
                reader_schema: None,
                registry_id,
            })
        }
        (Some(writer_schema), table) => {
            let writer_row_type = row_type_of_avro(&writer_schema)?;
            let (row_type, reader_schema, origin) = match table {
                Some(t) => (t, None, format!("{origin}; table from --columns, reader schema derived")),
                None => (
                    writer_row_type.clone(),
                    Some(writer_schema.clone()),
                    format!("{origin}; table converted from it, reader schema = writer schema"),
                ),
            };
            Ok(Resolved {
                row_type,
                writer_schema,
                writer_row_type,
                reader_schema,
                registry_id,
                origin,
            })
        }
    }
}
