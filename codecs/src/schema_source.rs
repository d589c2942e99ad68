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

/// How deep references may nest below the schema that names them: a registry controls the
/// chain, and a hostile one could make it endless.
pub const MAX_REFERENCE_DEPTH: usize = 32;

/// How many distinct schemas one schema may reference in all (directly and through its
/// references).
pub const MAX_REFERENCED_SCHEMAS: usize = 256;

/// A referenced schema, fetched: the reference that named it and what the source answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedReference {
    /// The reference (its name, subject and version).
    pub reference: SchemaReference,
    /// The schema registered under that subject and version.
    pub schema: SourcedSchema,
}

/// Every schema `references` names, recursively, by subject and version: dependencies before
/// the schemas that refer to them (the order Confluent's clients parse them in), each
/// (subject, version) fetched once. Each must be of type `expected`. At most
/// [`MAX_REFERENCE_DEPTH`] levels and [`MAX_REFERENCED_SCHEMAS`] schemas; a cycle ends where
/// it meets a schema already being resolved. Errors name the reference.
pub fn resolve_references(
    source: &dyn SchemaSource,
    references: &[SchemaReference],
    expected: SchemaType,
) -> Result<Vec<ResolvedReference>, String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    visit(source, references, expected, 0, &mut seen, &mut out)?;
    Ok(out)
}

fn visit(
    source: &dyn SchemaSource,
    references: &[SchemaReference],
    expected: SchemaType,
    depth: usize,
    seen: &mut std::collections::HashSet<(String, i32)>,
    out: &mut Vec<ResolvedReference>,
) -> Result<(), String> {
    if references.is_empty() {
        return Ok(());
    }
    if depth >= MAX_REFERENCE_DEPTH {
        return Err(format!(
            "schema references nest deeper than {MAX_REFERENCE_DEPTH} levels"
        ));
    }
    for reference in references {
        if !seen.insert((reference.subject.clone(), reference.version)) {
            continue;
        }
        if seen.len() > MAX_REFERENCED_SCHEMAS {
            return Err(format!(
                "the schema references more than {MAX_REFERENCED_SCHEMAS} schemas"
            ));
        }
        let named = || {
            format!(
                "Subject '{}' version {}",
                reference.subject, reference.version
            )
        };
        let schema = source
            .schema_by_version(&reference.subject, reference.version)
            .and_then(|schema| schema.expect(expected, named))
            .map_err(|e| {
                format!(
                    "could not resolve the reference '{}' (subject '{}', version {}): {e}",
                    reference.name, reference.subject, reference.version
                )
            })?;
        visit(source, &schema.references, expected, depth + 1, seen, out)?;
        out.push(ResolvedReference {
            reference: reference.clone(),
            schema,
        });
    }
    Ok(())
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

    fn avro(text: &str, references: &[(&str, i32)]) -> SourcedSchema {
        SourcedSchema {
            schema_type: SchemaType::Avro,
            text: text.into(),
            references: references
                .iter()
                .map(|(subject, version)| SchemaReference {
                    name: format!("n.{subject}"),
                    subject: subject.to_string(),
                    version: *version,
                })
                .collect(),
        }
    }

    #[test]
    fn references_resolve_dependencies_first_once_each_and_bounded() {
        let mut source = InMemorySchemas::default();
        source
            .versions
            .insert(("a".into(), 1), avro("A", &[("b", 1), ("c", 1)]));
        source
            .versions
            .insert(("b".into(), 1), avro("B", &[("c", 1)]));
        source
            .versions
            .insert(("c".into(), 1), avro("C", &[("a", 1)]));
        let root = avro("root", &[("a", 1), ("c", 1)]);
        let order: Vec<String> = resolve_references(&source, &root.references, SchemaType::Avro)
            .unwrap()
            .into_iter()
            .map(|r| r.schema.text)
            .collect();
        // The cycle c -> a ends at a (being resolved); c is fetched once.
        assert_eq!(order, ["C", "B", "A"]);

        // Of another type, or missing: the reference is named.
        let err = resolve_references(&source, &root.references, SchemaType::Protobuf).unwrap_err();
        assert!(
            err.contains("reference 'n.a' (subject 'a', version 1)"),
            "{err}"
        );
        assert!(
            err.contains("is a AVRO schema, not a PROTOBUF schema"),
            "{err}"
        );
        let missing = avro("root", &[("nope", 3)]);
        let err = resolve_references(&source, &missing.references, SchemaType::Avro).unwrap_err();
        assert!(err.contains("Subject 'nope' version 3 not found"), "{err}");

        // An endless chain, and a schema with too many references.
        let mut chain = InMemorySchemas::default();
        for i in 0..100 {
            chain.versions.insert(
                (format!("s{i}"), 1),
                avro("x", &[(&format!("s{}", i + 1), 1)]),
            );
        }
        chain.versions.insert(("s100".into(), 1), avro("x", &[]));
        let err = resolve_references(
            &chain,
            &avro("r", &[("s0", 1)]).references,
            SchemaType::Avro,
        )
        .unwrap_err();
        assert!(err.contains("nest deeper than 32 levels"), "{err}");
        let many: Vec<(String, i32)> = (0..300).map(|v| ("s100".to_string(), v)).collect();
        let mut wide = InMemorySchemas::default();
        for (s, v) in &many {
            wide.versions.insert((s.clone(), *v), avro("x", &[]));
        }
        let refs: Vec<(&str, i32)> = many.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        let err =
            resolve_references(&wide, &avro("r", &refs).references, SchemaType::Avro).unwrap_err();
        assert!(err.contains("more than 256 schemas"), "{err}");
    }

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
