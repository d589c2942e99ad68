//! The dev registry's state: schemas by global id, subjects with their versions, and
//! compatibility settings; validation, identical-schema detection and compatibility checks
//! on registration; optional persistence after each change.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use apache_avro::Schema;
use serde::{Deserialize, Serialize};

use super::api_error::ApiError;
use super::compat::{self, AvroSchema};
use super::persist;
use crate::error::RegistryError;
use crate::model::{
    CompatibilityLevel, SchemaDefinition, SchemaReference, SchemaType, SubjectVersion,
};

/// A schema as stored under its global id.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredSchema {
    #[serde(rename = "schemaType", default)]
    schema_type: SchemaType,
    schema: String,
    #[serde(default)]
    references: Vec<SchemaReference>,
}

impl StoredSchema {
    fn definition(&self) -> SchemaDefinition {
        SchemaDefinition {
            schema_type: self.schema_type,
            schema: self.schema.clone(),
            references: self.references.clone(),
        }
    }
}

/// One subject: its versions (number -> global id, ascending) and its own compatibility level.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SubjectState {
    #[serde(default)]
    versions: BTreeMap<i32, i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compatibility: Option<CompatibilityLevel>,
}

/// Everything that is persisted.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct State {
    #[serde(default)]
    compatibility: CompatibilityLevel,
    #[serde(default)]
    schemas: BTreeMap<i32, StoredSchema>,
    #[serde(default)]
    subjects: BTreeMap<String, SubjectState>,
}

/// A validated schema: its identity key and, for AVRO, the parsed form for compatibility.
struct Prepared {
    identity: String,
    avro: Option<AvroSchema>,
}

/// The registry state plus derived indexes; not thread-safe by itself (the server wraps it
/// in a mutex).
pub(crate) struct Store {
    state: State,
    /// Identity key -> global id, for identical-schema detection across subjects.
    ids_by_identity: HashMap<String, i32>,
    /// Global id -> identity key.
    identities: HashMap<i32, String>,
    persist: Option<PathBuf>,
}

impl Store {
    /// An empty store, or the one saved in `persist` when that file exists.
    pub(crate) fn open(persist: Option<PathBuf>) -> Result<Self, RegistryError> {
        let state = match &persist {
            Some(path) => persist::load(path)?.unwrap_or_default(),
            None => State::default(),
        };
        let mut store = Store {
            state,
            ids_by_identity: HashMap::new(),
            identities: HashMap::new(),
            persist,
        };
        let ids: Vec<i32> = store.state.schemas.keys().copied().collect();
        for id in ids {
            if let Some(stored) = store.state.schemas.get(&id) {
                let def = stored.definition();
                let identity = match store.prepare(&def) {
                    Ok(p) => p.identity,
                    Err(_) => exact_identity(&def),
                };
                store.ids_by_identity.entry(identity.clone()).or_insert(id);
                store.identities.insert(id, identity);
            }
        }
        Ok(store)
    }

    /// The schema with global id `id`.
    pub(crate) fn schema_by_id(&self, id: i32) -> Result<SchemaDefinition, ApiError> {
        self.state
            .schemas
            .get(&id)
            .map(StoredSchema::definition)
            .ok_or_else(ApiError::schema_not_found)
    }

    /// The (subject, version) pairs that use global id `id`.
    pub(crate) fn versions_of_id(&self, id: i32) -> Result<Vec<(String, i32)>, ApiError> {
        if !self.state.schemas.contains_key(&id) {
            return Err(ApiError::schema_not_found());
        }
        Ok(self
            .state
            .subjects
            .iter()
            .flat_map(|(s, st)| {
                st.versions
                    .iter()
                    .filter(|(_, v_id)| **v_id == id)
                    .map(move |(v, _)| (s.clone(), *v))
            })
            .collect())
    }

    /// All subjects with at least one version.
    pub(crate) fn subjects(&self) -> Vec<String> {
        self.state
            .subjects
            .iter()
            .filter(|(_, st)| !st.versions.is_empty())
            .map(|(s, _)| s.clone())
            .collect()
    }

    fn subject(&self, subject: &str) -> Result<&SubjectState, ApiError> {
        self.state
            .subjects
            .get(subject)
            .filter(|st| !st.versions.is_empty())
            .ok_or_else(|| ApiError::subject_not_found(subject))
    }

    /// The version numbers of `subject`, ascending.
    pub(crate) fn versions(&self, subject: &str) -> Result<Vec<i32>, ApiError> {
        Ok(self.subject(subject)?.versions.keys().copied().collect())
    }

    /// Version `version` (a number or `latest`) of `subject`.
    pub(crate) fn version(&self, subject: &str, version: &str) -> Result<SubjectVersion, ApiError> {
        let st = self.subject(subject)?;
        let number = parse_version(version)?;
        let (number, id) = match number {
            None => st.versions.last_key_value(),
            Some(n) => st.versions.get_key_value(&n),
        }
        .ok_or_else(|| ApiError::version_not_found(version))?;
        self.subject_version(subject, *number, *id)
    }

    fn subject_version(
        &self,
        subject: &str,
        version: i32,
        id: i32,
    ) -> Result<SubjectVersion, ApiError> {
        let stored = self.state.schemas.get(&id).ok_or_else(|| {
            ApiError::internal(format!(
                "version {version} of '{subject}' points at missing schema {id}"
            ))
        })?;
        Ok(SubjectVersion {
            subject: subject.to_string(),
            version,
            id,
            definition: stored.definition(),
        })
    }

    /// Finds `def` among the versions of `subject`.
    pub(crate) fn lookup(
        &self,
        subject: &str,
        def: &SchemaDefinition,
    ) -> Result<SubjectVersion, ApiError> {
        let st = self.subject(subject)?;
        let prepared = self.prepare(def)?;
        let found = st
            .versions
            .iter()
            .find(|(_, id)| self.identities.get(id) == Some(&prepared.identity));
        match found {
            Some((version, id)) => self.subject_version(subject, *version, *id),
            None => Err(ApiError::schema_not_found()),
        }
    }

    /// Registers `def` under `subject` and returns its global id: the existing id when the
    /// subject already holds an identical schema, the id of an identical schema under another
    /// subject, or a new one. Checks validity and the subject's compatibility level.
    pub(crate) fn register(
        &mut self,
        subject: &str,
        def: &SchemaDefinition,
    ) -> Result<i32, ApiError> {
        let prepared = self.prepare(def)?;
        let existing = self.state.subjects.get(subject);
        if let Some(st) = existing {
            for id in st.versions.values() {
                if self.identities.get(id) == Some(&prepared.identity) {
                    return Ok(*id);
                }
            }
        }
        let level = self.compatibility(Some(subject));
        if let Some(st) = existing {
            self.check_compatible(subject, st, level, def.schema_type, &prepared)?;
        }
        let mut next = self.state.clone();
        let (id, new_identity) = match self.ids_by_identity.get(&prepared.identity) {
            Some(id) => (*id, None),
            None => {
                let id = next.schemas.keys().next_back().map_or(1, |max| max + 1);
                next.schemas.insert(
                    id,
                    StoredSchema {
                        schema_type: def.schema_type,
                        schema: def.schema.clone(),
                        references: def.references.clone(),
                    },
                );
                (id, Some(prepared.identity))
            }
        };
        let st = next.subjects.entry(subject.to_string()).or_default();
        let version = st.versions.keys().next_back().map_or(1, |max| max + 1);
        st.versions.insert(version, id);
        self.commit(next)?;
        if let Some(identity) = new_identity {
            self.ids_by_identity.insert(identity.clone(), id);
            self.identities.insert(id, identity);
        }
        Ok(id)
    }

    fn check_compatible(
        &self,
        subject: &str,
        st: &SubjectState,
        level: CompatibilityLevel,
        schema_type: SchemaType,
        prepared: &Prepared,
    ) -> Result<(), ApiError> {
        if level == CompatibilityLevel::None || st.versions.is_empty() {
            return Ok(());
        }
        let mut olds = Vec::new();
        for (version, id) in &st.versions {
            let old = self.schema_by_id(*id)?;
            if old.schema_type != schema_type {
                return Err(ApiError::incompatible(
                    subject,
                    &[format!(
                        "schema type changes from {} (version {version}) to {schema_type}",
                        old.schema_type
                    )],
                ));
            }
            if let Some(avro) = self.prepare(&old)?.avro {
                olds.push((*version, avro));
            }
        }
        // JSON Schema and Protobuf compatibility is not checked: every change is accepted.
        let Some(new) = &prepared.avro else {
            return Ok(());
        };
        compat::check(level, new, &olds)
            .map_err(|details| ApiError::incompatible(subject, &details))
    }

    /// Deletes `subject` (all versions; its compatibility setting stays) and returns the
    /// versions it had. Schema ids stay resolvable, as in Confluent.
    pub(crate) fn delete_subject(&mut self, subject: &str) -> Result<Vec<i32>, ApiError> {
        let versions = self.versions(subject)?;
        let mut next = self.state.clone();
        if let Some(st) = next.subjects.get_mut(subject) {
            st.versions.clear();
            if st.compatibility.is_none() {
                next.subjects.remove(subject);
            }
        }
        self.commit(next)?;
        Ok(versions)
    }

    /// Deletes one version (a number or `latest`) of `subject` and returns its number.
    pub(crate) fn delete_version(&mut self, subject: &str, version: &str) -> Result<i32, ApiError> {
        let number = self.version(subject, version)?.version;
        let mut next = self.state.clone();
        if let Some(st) = next.subjects.get_mut(subject) {
            st.versions.remove(&number);
        }
        self.commit(next)?;
        Ok(number)
    }

    /// The compatibility level of `subject` (falling back to the global one), or the global one.
    pub(crate) fn compatibility(&self, subject: Option<&str>) -> CompatibilityLevel {
        subject
            .and_then(|s| self.state.subjects.get(s))
            .and_then(|st| st.compatibility)
            .unwrap_or(self.state.compatibility)
    }

    /// Sets the compatibility level of `subject`, or the global one.
    pub(crate) fn set_compatibility(
        &mut self,
        subject: Option<&str>,
        level: CompatibilityLevel,
    ) -> Result<(), ApiError> {
        let mut next = self.state.clone();
        match subject {
            Some(s) => {
                next.subjects
                    .entry(s.to_string())
                    .or_default()
                    .compatibility = Some(level)
            }
            None => next.compatibility = level,
        }
        self.commit(next)
    }

    /// Persists `next` (when persisting) and only then makes it the current state, so a
    /// failed write changes nothing and a retried request sees the same registry.
    fn commit(&mut self, next: State) -> Result<(), ApiError> {
        if let Some(path) = &self.persist {
            persist::save(path, &next).map_err(|e| {
                ApiError::internal(format!("could not write {}: {e}", path.display()))
            })?;
        }
        self.state = next;
        Ok(())
    }

    /// Validates `def` (references must exist; AVRO must parse, JSON must be JSON, PROTOBUF
    /// must be non-empty) and computes its identity key.
    fn prepare(&self, def: &SchemaDefinition) -> Result<Prepared, ApiError> {
        let referenced = self.referenced_texts(&def.references)?;
        let refs = serde_json::to_string(&def.references).map_err(ApiError::internal)?;
        let (normal, avro) = match def.schema_type {
            SchemaType::Avro => {
                let (schema, others) = if referenced.is_empty() {
                    (Schema::parse_str(&def.schema), Vec::new())
                } else {
                    match Schema::parse_str_with_list(&def.schema, &referenced) {
                        Ok((schema, others)) => (Ok(schema), others),
                        Err(e) => (Err(e), Vec::new()),
                    }
                };
                let schema = schema.map_err(ApiError::invalid_schema)?;
                // The full normalized form (whitespace and key order ignored, logical types,
                // defaults and docs kept), like Confluent's canonical string.
                let normal = serde_json::to_string(&schema).map_err(ApiError::internal)?;
                (normal, Some(AvroSchema::new(schema, others)))
            }
            SchemaType::Json => {
                let value: serde_json::Value =
                    serde_json::from_str(&def.schema).map_err(ApiError::invalid_schema)?;
                if !(value.is_object() || value.is_boolean()) {
                    return Err(ApiError::invalid_schema(
                        "a JSON Schema must be a JSON object or boolean",
                    ));
                }
                (def.schema.clone(), None)
            }
            SchemaType::Protobuf => {
                if def.schema.trim().is_empty() {
                    return Err(ApiError::invalid_schema("empty Protobuf schema"));
                }
                (def.schema.clone(), None)
            }
        };
        Ok(Prepared {
            identity: format!("{}\u{0}{normal}\u{0}{refs}", def.schema_type),
            avro,
        })
    }

    /// Texts of all schemas reachable through `references`, dependencies first.
    fn referenced_texts(&self, references: &[SchemaReference]) -> Result<Vec<String>, ApiError> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        self.collect_referenced(references, &mut seen, &mut out)?;
        Ok(out)
    }

    fn collect_referenced(
        &self,
        references: &[SchemaReference],
        seen: &mut HashSet<i32>,
        out: &mut Vec<String>,
    ) -> Result<(), ApiError> {
        for r in references {
            let id = self
                .state
                .subjects
                .get(&r.subject)
                .and_then(|st| st.versions.get(&r.version))
                .ok_or_else(|| {
                    ApiError::invalid_schema(format!(
                        "reference '{}' to subject '{}' version {} does not exist",
                        r.name, r.subject, r.version
                    ))
                })?;
            if !seen.insert(*id) {
                continue;
            }
            let stored = self
                .state
                .schemas
                .get(id)
                .ok_or_else(|| ApiError::internal(format!("missing schema {id}")))?;
            self.collect_referenced(&stored.references, seen, out)?;
            out.push(stored.schema.clone());
        }
        Ok(())
    }
}

fn exact_identity(def: &SchemaDefinition) -> String {
    let refs = serde_json::to_string(&def.references).unwrap_or_default();
    format!("{}\u{0}{}\u{0}{refs}", def.schema_type, def.schema)
}

/// `latest` -> `None`; a positive number -> `Some(n)`; anything else is 42202.
fn parse_version(version: &str) -> Result<Option<i32>, ApiError> {
    if version == "latest" || version == "-1" {
        return Ok(None);
    }
    match version.parse::<i32>() {
        Ok(n) if n >= 1 => Ok(Some(n)),
        _ => Err(ApiError::invalid_version(version)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#;
    const V1_SPACED: &str =
        r#"{ "name": "R", "type": "record", "fields": [ {"type": "int", "name": "a"} ] }"#;

    #[test]
    fn identical_schemas_share_ids_and_versions_count_up() {
        let mut s = Store::open(None).unwrap();
        let id = s.register("a", &SchemaDefinition::avro(V1)).unwrap();
        assert_eq!(
            s.register("a", &SchemaDefinition::avro(V1_SPACED)).unwrap(),
            id
        );
        assert_eq!(s.register("b", &SchemaDefinition::avro(V1)).unwrap(), id);
        assert_eq!(s.versions("a").unwrap(), vec![1]);
        let json = s.register("a", &SchemaDefinition::json("{}"));
        assert_eq!(json.unwrap_err().error_code, 409);
        s.set_compatibility(Some("a"), CompatibilityLevel::None)
            .unwrap();
        let id2 = s.register("a", &SchemaDefinition::json("{}")).unwrap();
        assert_ne!(id2, id);
        assert_eq!(s.version("a", "latest").unwrap().version, 2);
        assert_eq!(s.version("a", "0").unwrap_err().error_code, 42202);
    }

    #[test]
    fn logical_type_makes_a_different_schema() {
        let mut s = Store::open(None).unwrap();
        s.set_compatibility(None, CompatibilityLevel::None).unwrap();
        let plain = r#"{"type":"record","name":"R","fields":[{"name":"t","type":"long"}]}"#;
        let ts = r#"{"type":"record","name":"R","fields":[{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#;
        let a = s.register("x", &SchemaDefinition::avro(plain)).unwrap();
        let b = s.register("x", &SchemaDefinition::avro(ts)).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn avro_references_resolve() {
        let mut s = Store::open(None).unwrap();
        let inner = r#"{"type":"record","name":"Inner","namespace":"n","fields":[{"name":"x","type":"int"}]}"#;
        s.register("inner", &SchemaDefinition::avro(inner)).unwrap();
        let outer = SchemaDefinition::avro(
            r#"{"type":"record","name":"Outer","namespace":"n","fields":[{"name":"i","type":"n.Inner"}]}"#,
        );
        let bad = s.register("outer", &outer).unwrap_err();
        assert_eq!(bad.error_code, 42201);
        let outer = outer.with_references(vec![SchemaReference {
            name: "n.Inner".into(),
            subject: "inner".into(),
            version: 1,
        }]);
        assert_eq!(s.register("outer", &outer).unwrap(), 2);
    }
}
