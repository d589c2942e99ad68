//! Schemas as the dev registry checks them on registration: every type parsed (AVRO by
//! codecs' Java-Avro-like parser plus Java Avro's registration checks, PROTOBUF compiled by
//! codecs with protox, JSON Schema parsed as JSON), with the canonical form that decides
//! whether two submissions are the same schema.

pub(crate) mod avro;
pub(crate) mod json;
pub(crate) mod protobuf;

use crate::model::{SchemaDefinition, SchemaType};

/// A referenced schema as the referencing one sees it: its import name (Avro full name,
/// proto import path, JSON `$ref` URL) and its stored text.
#[derive(Debug, Clone)]
pub(crate) struct Referenced {
    /// The name the referencing schema uses for it.
    pub name: String,
    /// Its type.
    pub schema_type: SchemaType,
    /// Its stored text.
    pub text: String,
}

/// A checked schema.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// Avro, with what the compatibility check needs.
    Avro(avro::AvroParsed),
    /// JSON Schema.
    Json,
    /// Protobuf (compiled; nothing of it is kept for compatibility checks).
    Protobuf,
}

/// The outcome of checking a submission.
#[derive(Debug)]
pub(crate) struct Checked {
    /// The parsed form.
    pub parsed: Parsed,
    /// The text to store (the submission's, or for a Protobuf descriptor its `.proto` text).
    pub text: String,
    /// Type, canonical form and references: equal identities are the same schema.
    pub identity: String,
}

/// Parses and checks `def`; `referenced` holds every schema reachable through its references,
/// dependencies first. The error is the reason, for a 42201 answer.
pub(crate) fn check(def: &SchemaDefinition, referenced: &[Referenced]) -> Result<Checked, String> {
    let (parsed, canonical, text) = match def.schema_type {
        SchemaType::Avro => {
            let texts: Vec<&str> = referenced
                .iter()
                .filter(|r| r.schema_type == SchemaType::Avro)
                .map(|r| r.text.as_str())
                .collect();
            let parsed = avro::parse(&def.schema, &texts)?;
            let canonical = parsed.canonical.clone();
            (Parsed::Avro(parsed), canonical, def.schema.clone())
        }
        SchemaType::Json => {
            let canonical = json::parse(&def.schema)?;
            (Parsed::Json, canonical, def.schema.clone())
        }
        SchemaType::Protobuf => {
            let parsed = protobuf::parse(&def.schema, referenced)?;
            let canonical = parsed.canonical.clone();
            let text = parsed.text.clone();
            (Parsed::Protobuf, canonical, text)
        }
    };
    let refs = serde_json::to_string(&def.references).unwrap_or_default();
    Ok(Checked {
        parsed,
        text,
        identity: format!("{}\u{0}{canonical}\u{0}{refs}", def.schema_type),
    })
}
