//! The dev registry's state and every operation on it.
//!
//! Concurrency: reads take a read lock for as long as they copy out what they answer.
//! Writes are serialized by one writer lock; a write decides its changes (journal events)
//! under a read lock, appends them to the journal with no state lock held, then applies them
//! under a short write lock, so readers never wait for a disk sync. Registration parses the
//! schema and runs the compatibility check with no lock at all, against a snapshot of the
//! subject, and commits only if the subject still looks the same (else it starts over).

pub(crate) mod contract;
pub(crate) mod guid;
pub(crate) mod journal;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde::{Deserialize, Serialize};

use super::api::error::ApiError;
use super::compat;
use super::schema::{self, Parsed, Referenced};
use crate::error::RegistryError;
use crate::model::{CompatibilityLevel, SchemaDefinition, SchemaReference, SchemaType};
pub(crate) use contract::Contract;
use journal::{Event, Journal};

/// How deep references may chain.
const MAX_REFERENCE_DEPTH: usize = 64;
/// Registration attempts when concurrent changes to the subject keep invalidating the check.
const MAX_REGISTER_ATTEMPTS: usize = 16;

/// A subject's (or the registry's) mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum Mode {
    /// Registration and deletion allowed (the default).
    Readwrite,
    /// No registration or deletion.
    Readonly,
    /// Like READONLY.
    ReadonlyOverride,
    /// Registration with given ids and versions (migrations).
    Import,
}

impl Mode {
    /// The wire name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Readwrite => "READWRITE",
            Mode::Readonly => "READONLY",
            Mode::ReadonlyOverride => "READONLY_OVERRIDE",
            Mode::Import => "IMPORT",
        }
    }

    /// Parses a wire name (case-insensitive).
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_uppercase().as_str() {
            "READWRITE" => Mode::Readwrite,
            "READONLY" => Mode::Readonly,
            "READONLY_OVERRIDE" => Mode::ReadonlyOverride,
            "IMPORT" => Mode::Import,
            _ => return None,
        })
    }
}

/// A schema under its global id.
#[derive(Debug)]
pub(crate) struct StoredSchema {
    /// The global id.
    pub id: i32,
    /// Type, stored text and references.
    pub def: SchemaDefinition,
    /// The parsed form (`None` for a stored schema that no longer parses).
    pub parsed: Option<Parsed>,
    /// The identity key (equal keys are the same schema): the schema's own plus its contract.
    pub identity: String,
    /// The identity of the schema alone (text, type, references), without its contract.
    pub schema_identity: String,
    /// Its `metadata` and `ruleSet`.
    pub contract: Contract,
    /// Its GUID ([`guid::guid_of`] of `identity`).
    pub guid: String,
}

/// One version of a subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VersionEntry {
    /// The schema id it holds.
    pub id: i32,
    /// Soft-deleted.
    pub deleted: bool,
}

#[derive(Debug, Default)]
struct SubjectState {
    versions: BTreeMap<i32, VersionEntry>,
    compatibility: Option<CompatibilityLevel>,
    mode: Option<Mode>,
}

impl SubjectState {
    fn live(&self) -> impl DoubleEndedIterator<Item = (i32, i32)> + '_ {
        self.versions
            .iter()
            .filter(|(_, e)| !e.deleted)
            .map(|(v, e)| (*v, e.id))
    }

    fn is_empty(&self) -> bool {
        self.versions.is_empty() && self.compatibility.is_none() && self.mode.is_none()
    }
}

/// Everything the registry holds.
#[derive(Debug, Default)]
struct State {
    compatibility: Option<CompatibilityLevel>,
    mode: Option<Mode>,
    schemas: BTreeMap<i32, Arc<StoredSchema>>,
    subjects: BTreeMap<String, SubjectState>,
    by_identity: HashMap<String, i32>,
    /// GUID -> schema id.
    by_guid: HashMap<String, i32>,
    max_id: i32,
}

/// One version as answered.
#[derive(Debug, Clone)]
pub(crate) struct VersionView {
    /// The subject.
    pub subject: String,
    /// The version number.
    pub version: i32,
    /// Soft-deleted.
    pub deleted: bool,
    /// The schema.
    pub schema: Arc<StoredSchema>,
}

/// Which versions a read sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Deleted {
    /// Live versions only.
    #[default]
    Exclude,
    /// Live and soft-deleted ones.
    Include,
    /// Soft-deleted ones only.
    Only,
}

impl Deleted {
    fn admits(self, entry: &VersionEntry) -> bool {
        match self {
            Deleted::Exclude => !entry.deleted,
            Deleted::Include => true,
            Deleted::Only => entry.deleted,
        }
    }
}

/// The registry's store.
pub(crate) struct Store {
    state: RwLock<State>,
    writer: Mutex<()>,
    journal: Option<Journal>,
}

fn read(s: &RwLock<State>) -> RwLockReadGuard<'_, State> {
    s.read().unwrap_or_else(|p| p.into_inner())
}

fn write(s: &RwLock<State>) -> RwLockWriteGuard<'_, State> {
    s.write().unwrap_or_else(|p| p.into_inner())
}

fn lock(m: &Mutex<()>) -> MutexGuard<'_, ()> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a registration saw of its subject: if this changed before the commit, the check ran
/// against a stale subject and must run again.
#[derive(Debug, PartialEq, Eq)]
struct SubjectSnapshot {
    live: Vec<(i32, i32)>,
    level: CompatibilityLevel,
    mode: Mode,
    references: Vec<i32>,
}

impl Store {
    /// An empty store, or the one in the journal at `persist` (compacted on the way).
    pub(crate) fn open(persist: Option<PathBuf>) -> Result<Self, RegistryError> {
        let mut state = State::default();
        let journal = match persist {
            None => None,
            Some(path) => {
                let events = Journal::load(&path)?;
                for event in events {
                    state.apply(event, None);
                }
                Some(Journal::rewrite(&path, &state.compacted())?)
            }
        };
        Ok(Store {
            state: RwLock::new(state),
            writer: Mutex::new(()),
            journal,
        })
    }

    /// Runs a write: `decide` turns the current state into events (and an answer), which are
    /// journaled, then applied. `schemas` are the parsed forms of new `Schema` events.
    fn write<R>(
        &self,
        decide: impl FnOnce(&State) -> Result<(Vec<Event>, Vec<Arc<StoredSchema>>, R), ApiError>,
    ) -> Result<R, ApiError> {
        let _writer = lock(&self.writer);
        let (events, schemas, answer) = decide(&read(&self.state))?;
        if events.is_empty() {
            return Ok(answer);
        }
        if let Some(journal) = &self.journal {
            journal.append(&events).map_err(|e| {
                ApiError::store(format!("could not write {}: {e}", journal.path().display()))
            })?;
        }
        let mut state = write(&self.state);
        for event in events {
            state.apply(event, Some(&schemas));
        }
        Ok(answer)
    }

    // ----- reads -----

    /// The schema with global id `id`.
    pub(crate) fn schema_by_id(&self, id: i32) -> Result<Arc<StoredSchema>, ApiError> {
        read(&self.state)
            .schemas
            .get(&id)
            .cloned()
            .ok_or_else(ApiError::schema_not_found)
    }

    /// The schema whose GUID is `guid` (any case, hyphens optional): 40403 when none is.
    pub(crate) fn schema_by_guid(&self, guid: &str) -> Result<Arc<StoredSchema>, ApiError> {
        let state = read(&self.state);
        guid::normalize(guid)
            .and_then(|g| state.by_guid.get(&g).copied())
            .and_then(|id| state.schemas.get(&id).cloned())
            .ok_or_else(ApiError::schema_not_found)
    }

    /// The highest schema id ever given.
    pub(crate) fn max_id(&self) -> i32 {
        read(&self.state).max_id
    }

    /// The (subject, version) pairs that hold schema `id`.
    pub(crate) fn versions_of_id(
        &self,
        id: i32,
        deleted: Deleted,
    ) -> Result<Vec<(String, i32)>, ApiError> {
        let state = read(&self.state);
        if !state.schemas.contains_key(&id) {
            return Err(ApiError::schema_not_found());
        }
        Ok(state
            .subjects
            .iter()
            .flat_map(|(s, st)| {
                st.versions
                    .iter()
                    .filter(|(_, e)| e.id == id && deleted.admits(e))
                    .map(move |(v, _)| (s.clone(), *v))
            })
            .collect())
    }

    /// Subjects with a version `deleted` admits.
    pub(crate) fn subjects(&self, deleted: Deleted) -> Vec<String> {
        read(&self.state)
            .subjects
            .iter()
            .filter(|(_, st)| st.versions.values().any(|e| deleted.admits(e)))
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// Every version `deleted` admits, by subject then version.
    pub(crate) fn all_versions(&self, deleted: Deleted) -> Vec<VersionView> {
        let state = read(&self.state);
        let mut out = Vec::new();
        for (subject, st) in &state.subjects {
            for (version, entry) in &st.versions {
                if let (true, Some(schema)) = (deleted.admits(entry), state.schemas.get(&entry.id))
                {
                    out.push(VersionView {
                        subject: subject.clone(),
                        version: *version,
                        deleted: entry.deleted,
                        schema: Arc::clone(schema),
                    });
                }
            }
        }
        out
    }

    /// The version numbers of `subject` that `deleted` admits (40401 when there are none).
    pub(crate) fn versions(&self, subject: &str, deleted: Deleted) -> Result<Vec<i32>, ApiError> {
        let state = read(&self.state);
        let found: Vec<i32> = state
            .subjects
            .get(subject)
            .map(|st| {
                st.versions
                    .iter()
                    .filter(|(_, e)| deleted.admits(e))
                    .map(|(v, _)| *v)
                    .collect()
            })
            .unwrap_or_default();
        if found.is_empty() && deleted != Deleted::Only {
            return Err(ApiError::subject_not_found(subject));
        }
        Ok(found)
    }

    /// Version `version` (a number, `latest` or `-1`) of `subject`; soft-deleted ones too
    /// when `include_deleted`.
    pub(crate) fn version(
        &self,
        subject: &str,
        version: &str,
        include_deleted: bool,
    ) -> Result<VersionView, ApiError> {
        let number = parse_version(version)?;
        let state = read(&self.state);
        let admits = |e: &VersionEntry| include_deleted || !e.deleted;
        let st = state
            .subjects
            .get(subject)
            .filter(|st| st.versions.values().any(admits))
            .ok_or_else(|| ApiError::subject_not_found(subject))?;
        let found = match number {
            None => st.versions.iter().rev().find(|(_, e)| admits(e)),
            Some(n) => st.versions.get_key_value(&n).filter(|(_, e)| admits(e)),
        };
        let (number, entry) = found.ok_or_else(|| ApiError::version_not_found(version))?;
        state.view(subject, *number, entry)
    }

    /// The ids of schemas that refer to version `version` of `subject`.
    pub(crate) fn referenced_by(&self, subject: &str, version: &str) -> Result<Vec<i32>, ApiError> {
        let number = self.version(subject, version, true)?.version;
        Ok(read(&self.state).referenced_by(subject, number))
    }

    /// Every schema reachable through `references`, dependencies first.
    pub(crate) fn referenced_texts(
        &self,
        references: &[SchemaReference],
    ) -> Result<Vec<Referenced>, ApiError> {
        Ok(read(&self.state).referenced(references)?.0)
    }

    /// Finds `def` among the versions of `subject`: with its `contract` when one is given, else
    /// the latest version holding the same schema whatever its contract.
    pub(crate) fn lookup(
        &self,
        subject: &str,
        def: &SchemaDefinition,
        contract: &Contract,
        include_deleted: bool,
    ) -> Result<VersionView, ApiError> {
        let referenced = {
            let state = read(&self.state);
            if !state
                .subjects
                .get(subject)
                .is_some_and(|st| st.versions.values().any(|e| include_deleted || !e.deleted))
            {
                return Err(ApiError::subject_not_found(subject));
            }
            state.referenced(&def.references)?.0
        };
        let checked = schema::check(def, &referenced).map_err(ApiError::invalid_schema)?;
        let state = read(&self.state);
        let st = state
            .subjects
            .get(subject)
            .ok_or_else(|| ApiError::subject_not_found(subject))?;
        let identity = contract.identity(&checked.identity);
        let found = st.versions.iter().rev().find(|(_, e)| {
            (include_deleted || !e.deleted)
                && state.schemas.get(&e.id).is_some_and(|s| {
                    if contract.is_empty() {
                        s.schema_identity == checked.identity
                    } else {
                        s.identity == identity
                    }
                })
        });
        match found {
            Some((version, entry)) => state.view(subject, *version, entry),
            None => Err(ApiError::schema_not_found()),
        }
    }

    /// The latest version of `subject` whose `metadata.properties` hold every pair
    /// (`GET /subjects/{s}/metadata`): 40401 when the subject has no versions (live, or any
    /// with `include_deleted`), 40403 when none matches, as Confluent answers.
    pub(crate) fn latest_with_metadata(
        &self,
        subject: &str,
        pairs: &[(String, String)],
        include_deleted: bool,
    ) -> Result<VersionView, ApiError> {
        let state = read(&self.state);
        let versions: Vec<(&i32, &VersionEntry)> = state
            .subjects
            .get(subject)
            .map(|st| {
                st.versions
                    .iter()
                    .filter(|(_, e)| include_deleted || !e.deleted)
                    .collect()
            })
            .unwrap_or_default();
        if versions.is_empty() {
            return Err(ApiError::subject_not_found(subject));
        }
        let found = versions.into_iter().rev().find(|(_, e)| {
            state
                .schemas
                .get(&e.id)
                .is_some_and(|s| s.contract.has_properties(pairs))
        });
        match found {
            Some((version, entry)) => state.view(subject, *version, entry),
            None => Err(ApiError::schema_not_found()),
        }
    }

    /// The compatibility level of `subject` as configured (`None`: not configured).
    pub(crate) fn own_compatibility(&self, subject: Option<&str>) -> Option<CompatibilityLevel> {
        let state = read(&self.state);
        match subject {
            Some(s) => state.subjects.get(s).and_then(|st| st.compatibility),
            None => state.compatibility,
        }
    }

    /// The level that applies to `subject` (its own, else the global one), or the global one.
    pub(crate) fn compatibility(&self, subject: Option<&str>) -> CompatibilityLevel {
        read(&self.state).level(subject)
    }

    /// The mode of `subject` as configured (`None`: not configured), or the global one.
    pub(crate) fn own_mode(&self, subject: Option<&str>) -> Option<Mode> {
        let state = read(&self.state);
        match subject {
            Some(s) => state.subjects.get(s).and_then(|st| st.mode),
            None => state.mode,
        }
    }

    /// The mode that applies to `subject`, or the global one.
    pub(crate) fn mode(&self, subject: Option<&str>) -> Mode {
        read(&self.state).mode_of(subject)
    }

    // ----- compatibility -----

    /// Checks `def` against version `version` of `subject` (`None`: the versions its level
    /// names); the messages say what is incompatible (empty: compatible).
    pub(crate) fn test_compatibility(
        &self,
        subject: &str,
        version: Option<&str>,
        def: &SchemaDefinition,
    ) -> Result<Vec<String>, ApiError> {
        let (referenced, against, level) = {
            let state = read(&self.state);
            let (referenced, _) = state.referenced(&def.references)?;
            let level = state.level(Some(subject));
            let against: Vec<(i32, Arc<StoredSchema>)> = match version {
                Some(v) => {
                    drop(state);
                    let view = self.version(subject, v, false)?;
                    vec![(view.version, view.schema)]
                }
                None => state.live_schemas(subject),
            };
            (referenced, against, level)
        };
        let checked = schema::check(def, &referenced).map_err(ApiError::invalid_schema)?;
        // A single version is checked in the level's direction, transitive or not.
        let level = match (version.is_some(), level) {
            (true, CompatibilityLevel::BackwardTransitive) => CompatibilityLevel::Backward,
            (true, CompatibilityLevel::ForwardTransitive) => CompatibilityLevel::Forward,
            (true, CompatibilityLevel::FullTransitive) => CompatibilityLevel::Full,
            (_, level) => level,
        };
        compatibility_problems(level, def.schema_type, &checked.parsed, &against)
    }

    // ----- writes -----

    /// Registers `def` under `subject` and returns its global id: the existing id when the
    /// subject already holds the same schema, the id of the same schema under another subject,
    /// or a new one. `import` is the id (and version) an IMPORT-mode registration asks for.
    /// `contract` is the request's; a part it lacks is taken from the subject's latest version.
    pub(crate) fn register(
        &self,
        subject: &str,
        def: &SchemaDefinition,
        contract: &Contract,
        import: Option<(i32, Option<i32>)>,
    ) -> Result<(i32, i32), ApiError> {
        check_subject(subject)?;
        for _ in 0..MAX_REGISTER_ATTEMPTS {
            let (referenced, snapshot, live) = {
                let state = read(&self.state);
                let (referenced, ids) = state.referenced(&def.references)?;
                (
                    referenced,
                    state.snapshot(subject, ids),
                    state.live_schemas(subject),
                )
            };
            match (snapshot.mode, import) {
                (Mode::Readonly | Mode::ReadonlyOverride, _) => {
                    return Err(ApiError::not_permitted(format!(
                        "subject '{subject}' is in read-only mode"
                    )))
                }
                (Mode::Import, _) | (_, None) => {}
                (_, Some(_)) => {
                    return Err(ApiError::not_permitted(
                        "a schema id may be given only in IMPORT mode",
                    ))
                }
            }
            // Parse and check with no lock held.
            let checked = schema::check(def, &referenced).map_err(ApiError::invalid_schema)?;
            let contract = contract.or_inherited(live.last().map(|(_, s)| &s.contract));
            let identity = contract.identity(&checked.identity);
            if let Some((version, s)) = live.iter().find(|(_, s)| s.identity == identity) {
                if import.is_none_or(|(id, _)| id == s.id) {
                    return Ok((s.id, *version));
                }
            }
            if snapshot.mode != Mode::Import {
                let problems = compatibility_problems(
                    snapshot.level,
                    def.schema_type,
                    &checked.parsed,
                    &live,
                )?;
                if !problems.is_empty() {
                    return Err(ApiError::incompatible(subject, &problems));
                }
            }
            let schema_identity = checked.identity.clone();
            let mut parsed = Some(checked.parsed);
            let stored_def = SchemaDefinition {
                schema_type: def.schema_type,
                schema: checked.text.clone(),
                references: def.references.clone(),
            };
            let committed = self.write(|state| {
                let (_, ids) = state.referenced(&def.references)?;
                if state.snapshot(subject, ids) != snapshot {
                    return Ok((Vec::new(), Vec::new(), None));
                }
                let mut events = Vec::new();
                let mut schemas = Vec::new();
                let existing = state.by_identity.get(&identity).copied();
                let id = match (import, existing) {
                    (Some((want, _)), Some(have)) if want != have => {
                        return Err(ApiError::id_does_not_match(format!(
                            "Schema already registered with id {have} instead of input id {want}"
                        )))
                    }
                    (_, Some(have)) => have,
                    (Some((want, _)), None) => {
                        if state.schemas.contains_key(&want) {
                            return Err(ApiError::id_does_not_match(format!(
                                "Overwrite new schema with id {want} is not permitted: it holds another schema"
                            )));
                        }
                        want
                    }
                    (None, None) => state.max_id + 1,
                };
                if existing.is_none() {
                    events.push(Event::Schema {
                        id,
                        schema_type: stored_def.schema_type,
                        schema: stored_def.schema.clone(),
                        references: stored_def.references.clone(),
                        metadata: contract.metadata.clone(),
                        rule_set: contract.rule_set.clone(),
                    });
                    schemas.push(Arc::new(StoredSchema {
                        id,
                        def: stored_def.clone(),
                        parsed: parsed.take(),
                        guid: guid::guid_of(&identity),
                        identity: identity.clone(),
                        schema_identity: schema_identity.clone(),
                        contract: contract.clone(),
                    }));
                }
                let next = state
                    .subjects
                    .get(subject)
                    .and_then(|st| st.versions.keys().next_back())
                    .map_or(1, |max| max + 1);
                let version = match import.and_then(|(_, v)| v) {
                    Some(v) if state
                        .subjects
                        .get(subject)
                        .is_some_and(|st| st.versions.contains_key(&v)) =>
                    {
                        return Err(ApiError::not_permitted(format!(
                            "version {v} of subject '{subject}' exists already"
                        )))
                    }
                    Some(v) if v >= 1 => v,
                    Some(v) => return Err(ApiError::invalid_version(&v.to_string())),
                    None => next,
                };
                events.push(Event::Version {
                    subject: subject.to_string(),
                    version,
                    id,
                });
                Ok((events, schemas, Some((id, version))))
            });
            if let Some(registered) = committed? {
                return Ok(registered);
            }
        }
        Err(ApiError::timeout(format!(
            "subject '{subject}' kept changing during registration"
        )))
    }

    /// Deletes `subject`: soft (its live versions marked deleted) or, once soft-deleted,
    /// permanently (with its own settings). Returns the versions deleted.
    pub(crate) fn delete_subject(
        &self,
        subject: &str,
        permanent: bool,
    ) -> Result<Vec<i32>, ApiError> {
        self.write(|state| {
            state.check_writable(subject)?;
            let st = state
                .subjects
                .get(subject)
                .filter(|st| !st.versions.is_empty())
                .ok_or_else(|| ApiError::subject_not_found(subject))?;
            let live: Vec<i32> = st.live().map(|(v, _)| v).collect();
            let mut events = Vec::new();
            let deleted = if permanent {
                if !live.is_empty() {
                    return Err(ApiError::subject_not_soft_deleted(subject));
                }
                let all: Vec<i32> = st.versions.keys().copied().collect();
                for v in &all {
                    state.check_unreferenced(subject, *v)?;
                    events.push(Event::Delete {
                        subject: subject.to_string(),
                        version: *v,
                        permanent: true,
                    });
                }
                if st.compatibility.is_some() {
                    events.push(Event::Compatibility {
                        subject: Some(subject.to_string()),
                        level: None,
                    });
                }
                if st.mode.is_some() {
                    events.push(Event::Mode {
                        subject: Some(subject.to_string()),
                        mode: None,
                    });
                }
                all
            } else {
                if live.is_empty() {
                    return Err(ApiError::subject_soft_deleted(subject));
                }
                for v in &live {
                    state.check_unreferenced(subject, *v)?;
                    events.push(Event::Delete {
                        subject: subject.to_string(),
                        version: *v,
                        permanent: false,
                    });
                }
                live
            };
            Ok((events, Vec::new(), deleted))
        })
    }

    /// Deletes one version (a number or `latest`) of `subject`: soft, or permanently once
    /// soft-deleted. Returns its number.
    pub(crate) fn delete_version(
        &self,
        subject: &str,
        version: &str,
        permanent: bool,
    ) -> Result<i32, ApiError> {
        let number = parse_version(version)?;
        self.write(|state| {
            state.check_writable(subject)?;
            let st = state
                .subjects
                .get(subject)
                .filter(|st| !st.versions.is_empty())
                .ok_or_else(|| ApiError::subject_not_found(subject))?;
            let found = match number {
                // `latest` is the newest live version, or for a permanent delete the newest.
                None if permanent => st.versions.iter().next_back(),
                None => st.versions.iter().rev().find(|(_, e)| !e.deleted),
                Some(n) => st.versions.get_key_value(&n),
            };
            let (number, entry) = found.ok_or_else(|| ApiError::version_not_found(version))?;
            match (permanent, entry.deleted) {
                (false, true) => return Err(ApiError::version_soft_deleted(subject, *number)),
                (true, false) => return Err(ApiError::version_not_soft_deleted(subject, *number)),
                _ => {}
            }
            state.check_unreferenced(subject, *number)?;
            let event = Event::Delete {
                subject: subject.to_string(),
                version: *number,
                permanent,
            };
            Ok((vec![event], Vec::new(), *number))
        })
    }

    /// Sets (`Some`) or removes (`None`) the compatibility level of `subject` or the global
    /// one; returns the level that was configured before.
    pub(crate) fn set_compatibility(
        &self,
        subject: Option<&str>,
        level: Option<CompatibilityLevel>,
    ) -> Result<Option<CompatibilityLevel>, ApiError> {
        if let Some(s) = subject {
            check_subject(s)?;
        }
        self.write(|state| {
            let before = match subject {
                Some(s) => state.subjects.get(s).and_then(|st| st.compatibility),
                None => state.compatibility,
            };
            let event = Event::Compatibility {
                subject: subject.map(str::to_string),
                level,
            };
            Ok((vec![event], Vec::new(), before))
        })
    }

    /// Sets (`Some`) or removes (`None`) the mode of `subject` or the global one; IMPORT needs
    /// an empty subject (or registry) unless `force`. Returns the mode configured before.
    pub(crate) fn set_mode(
        &self,
        subject: Option<&str>,
        mode: Option<Mode>,
        force: bool,
    ) -> Result<Option<Mode>, ApiError> {
        if let Some(s) = subject {
            check_subject(s)?;
        }
        self.write(|state| {
            if mode == Some(Mode::Import) && !force {
                let has_schemas = match subject {
                    Some(s) => state
                        .subjects
                        .get(s)
                        .is_some_and(|st| !st.versions.is_empty()),
                    None => state.subjects.values().any(|st| !st.versions.is_empty()),
                };
                if has_schemas {
                    return Err(ApiError::not_permitted(
                        "Cannot import since found existing subjects (set force=true to override)",
                    ));
                }
            }
            let before = match subject {
                Some(s) => state.subjects.get(s).and_then(|st| st.mode),
                None => state.mode,
            };
            let event = Event::Mode {
                subject: subject.map(str::to_string),
                mode,
            };
            Ok((vec![event], Vec::new(), before))
        })
    }
}

impl State {
    /// Applies one event; `fresh` holds the parsed forms of schemas registered just now
    /// (others are parsed here, as on load).
    fn apply(&mut self, event: Event, fresh: Option<&[Arc<StoredSchema>]>) {
        match event {
            Event::Schema {
                id,
                schema_type,
                schema,
                references,
                metadata,
                rule_set,
            } => {
                let stored = match fresh.and_then(|f| f.iter().find(|s| s.id == id)) {
                    Some(s) => Arc::clone(s),
                    None => Arc::new(self.parse_stored(
                        id,
                        SchemaDefinition {
                            schema_type,
                            schema,
                            references,
                        },
                        Contract::given(metadata, rule_set),
                    )),
                };
                self.by_identity
                    .entry(stored.identity.clone())
                    .or_insert(id);
                self.by_guid.entry(stored.guid.clone()).or_insert(id);
                self.max_id = self.max_id.max(id);
                self.schemas.insert(id, stored);
            }
            Event::Version {
                subject,
                version,
                id,
            } => {
                self.subjects
                    .entry(subject)
                    .or_default()
                    .versions
                    .insert(version, VersionEntry { id, deleted: false });
            }
            Event::Delete {
                subject,
                version,
                permanent,
            } => {
                let Some(st) = self.subjects.get_mut(&subject) else {
                    return;
                };
                if permanent {
                    let removed = st.versions.remove(&version);
                    if st.is_empty() {
                        self.subjects.remove(&subject);
                    }
                    if let Some(entry) = removed {
                        self.forget_if_unused(entry.id);
                    }
                } else if let Some(entry) = st.versions.get_mut(&version) {
                    entry.deleted = true;
                }
            }
            Event::Compatibility { subject, level } => match subject {
                None => self.compatibility = level,
                Some(s) => {
                    let st = self.subjects.entry(s.clone()).or_default();
                    st.compatibility = level;
                    if st.is_empty() {
                        self.subjects.remove(&s);
                    }
                }
            },
            Event::Mode { subject, mode } => match subject {
                None => self.mode = mode,
                Some(s) => {
                    let st = self.subjects.entry(s.clone()).or_default();
                    st.mode = mode;
                    if st.is_empty() {
                        self.subjects.remove(&s);
                    }
                }
            },
        }
    }

    /// A stored schema parsed again (on load); one that no longer parses keeps its exact
    /// text as identity.
    fn parse_stored(&self, id: i32, def: SchemaDefinition, contract: Contract) -> StoredSchema {
        let checked = self
            .referenced(&def.references)
            .ok()
            .and_then(|(referenced, _)| schema::check(&def, &referenced).ok());
        match checked {
            Some(checked) => StoredSchema {
                id,
                guid: guid::guid_of(&contract.identity(&checked.identity)),
                identity: contract.identity(&checked.identity),
                schema_identity: checked.identity,
                parsed: Some(checked.parsed),
                def,
                contract,
            },
            None => {
                let refs = serde_json::to_string(&def.references).unwrap_or_default();
                let schema_identity = format!(
                    "{}\u{0}{}\u{0}{refs}\u{0}unparsed",
                    def.schema_type, def.schema
                );
                StoredSchema {
                    id,
                    guid: guid::guid_of(&contract.identity(&schema_identity)),
                    identity: contract.identity(&schema_identity),
                    schema_identity,
                    parsed: None,
                    def,
                    contract,
                }
            }
        }
    }

    /// Removes schema `id` once no version (live or soft-deleted) holds it.
    fn forget_if_unused(&mut self, id: i32) {
        let used = self
            .subjects
            .values()
            .any(|st| st.versions.values().any(|e| e.id == id));
        if !used {
            if let Some(stored) = self.schemas.remove(&id) {
                if self.by_identity.get(&stored.identity) == Some(&id) {
                    self.by_identity.remove(&stored.identity);
                }
                if self.by_guid.get(&stored.guid) == Some(&id) {
                    self.by_guid.remove(&stored.guid);
                }
            }
        }
    }

    /// Events that rebuild this state (the compacted journal).
    fn compacted(&self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.compatibility.is_some() {
            events.push(Event::Compatibility {
                subject: None,
                level: self.compatibility,
            });
        }
        if self.mode.is_some() {
            events.push(Event::Mode {
                subject: None,
                mode: self.mode,
            });
        }
        // Schemas in id order: references point at older versions, so at older ids.
        for s in self.schemas.values() {
            events.push(Event::Schema {
                id: s.id,
                schema_type: s.def.schema_type,
                schema: s.def.schema.clone(),
                references: s.def.references.clone(),
                metadata: s.contract.metadata.clone(),
                rule_set: s.contract.rule_set.clone(),
            });
        }
        for (subject, st) in &self.subjects {
            for (version, entry) in &st.versions {
                events.push(Event::Version {
                    subject: subject.clone(),
                    version: *version,
                    id: entry.id,
                });
                if entry.deleted {
                    events.push(Event::Delete {
                        subject: subject.clone(),
                        version: *version,
                        permanent: false,
                    });
                }
            }
            if st.compatibility.is_some() {
                events.push(Event::Compatibility {
                    subject: Some(subject.clone()),
                    level: st.compatibility,
                });
            }
            if st.mode.is_some() {
                events.push(Event::Mode {
                    subject: Some(subject.clone()),
                    mode: st.mode,
                });
            }
        }
        events
    }

    fn view(
        &self,
        subject: &str,
        version: i32,
        entry: &VersionEntry,
    ) -> Result<VersionView, ApiError> {
        let schema = self.schemas.get(&entry.id).ok_or_else(|| {
            ApiError::store(format!(
                "version {version} of '{subject}' points at missing schema {}",
                entry.id
            ))
        })?;
        Ok(VersionView {
            subject: subject.to_string(),
            version,
            deleted: entry.deleted,
            schema: Arc::clone(schema),
        })
    }

    fn level(&self, subject: Option<&str>) -> CompatibilityLevel {
        subject
            .and_then(|s| self.subjects.get(s))
            .and_then(|st| st.compatibility)
            .or(self.compatibility)
            .unwrap_or_default()
    }

    fn mode_of(&self, subject: Option<&str>) -> Mode {
        subject
            .and_then(|s| self.subjects.get(s))
            .and_then(|st| st.mode)
            .or(self.mode)
            .unwrap_or(Mode::Readwrite)
    }

    fn check_writable(&self, subject: &str) -> Result<(), ApiError> {
        match self.mode_of(Some(subject)) {
            Mode::Readonly | Mode::ReadonlyOverride => Err(ApiError::not_permitted(format!(
                "subject '{subject}' is in read-only mode"
            ))),
            _ => Ok(()),
        }
    }

    fn live_schemas(&self, subject: &str) -> Vec<(i32, Arc<StoredSchema>)> {
        self.subjects
            .get(subject)
            .map(|st| {
                st.live()
                    .filter_map(|(v, id)| self.schemas.get(&id).map(|s| (v, Arc::clone(s))))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn snapshot(&self, subject: &str, references: Vec<i32>) -> SubjectSnapshot {
        SubjectSnapshot {
            live: self
                .subjects
                .get(subject)
                .map(|st| st.live().collect())
                .unwrap_or_default(),
            level: self.level(Some(subject)),
            mode: self.mode_of(Some(subject)),
            references,
        }
    }

    /// Schema ids whose references name version `version` of `subject`.
    fn referenced_by(&self, subject: &str, version: i32) -> Vec<i32> {
        self.schemas
            .values()
            .filter(|s| {
                s.def
                    .references
                    .iter()
                    .any(|r| r.subject == subject && r.version == version)
            })
            .map(|s| s.id)
            .collect()
    }

    fn check_unreferenced(&self, subject: &str, version: i32) -> Result<(), ApiError> {
        let by = self.referenced_by(subject, version);
        if by.is_empty() {
            Ok(())
        } else {
            Err(ApiError::reference_exists(subject, version, &by))
        }
    }

    /// Every schema reachable through `references` (dependencies first) and the ids they
    /// resolved to; a reference to a version that does not exist is 42201.
    fn referenced(
        &self,
        references: &[SchemaReference],
    ) -> Result<(Vec<Referenced>, Vec<i32>), ApiError> {
        let mut out = Vec::new();
        let mut ids = Vec::new();
        let mut seen = HashSet::new();
        self.collect_referenced(references, &mut seen, &mut out, &mut ids, 0)?;
        Ok((out, ids))
    }

    fn collect_referenced(
        &self,
        references: &[SchemaReference],
        seen: &mut HashSet<i32>,
        out: &mut Vec<Referenced>,
        ids: &mut Vec<i32>,
        depth: usize,
    ) -> Result<(), ApiError> {
        if depth > MAX_REFERENCE_DEPTH {
            return Err(ApiError::invalid_schema(format!(
                "references nest deeper than {MAX_REFERENCE_DEPTH} levels"
            )));
        }
        for r in references {
            let entry = self.subjects.get(&r.subject).and_then(|st| {
                if r.version == -1 {
                    st.versions
                        .iter()
                        .rev()
                        .find(|(_, e)| !e.deleted)
                        .map(|(_, e)| e)
                } else {
                    st.versions.get(&r.version)
                }
            });
            let Some(entry) = entry else {
                return Err(ApiError::invalid_schema(format!(
                    "reference '{}' to subject '{}' version {} does not exist",
                    r.name, r.subject, r.version
                )));
            };
            ids.push(entry.id);
            if !seen.insert(entry.id) {
                continue;
            }
            let stored = self
                .schemas
                .get(&entry.id)
                .ok_or_else(|| ApiError::store(format!("missing schema {}", entry.id)))?;
            self.collect_referenced(&stored.def.references, seen, out, ids, depth + 1)?;
            out.push(Referenced {
                name: r.name.clone(),
                schema_type: stored.def.schema_type,
                text: stored.def.schema.clone(),
            });
        }
        Ok(())
    }
}

/// What is incompatible between a new schema and `against` under `level` (empty: nothing).
/// AVRO is checked by Avro's resolution rules; for JSON Schema and PROTOBUF only a change of
/// schema type is refused.
fn compatibility_problems(
    level: CompatibilityLevel,
    schema_type: SchemaType,
    parsed: &Parsed,
    against: &[(i32, Arc<StoredSchema>)],
) -> Result<Vec<String>, ApiError> {
    if level == CompatibilityLevel::None || against.is_empty() {
        return Ok(Vec::new());
    }
    let transitive = matches!(
        level,
        CompatibilityLevel::BackwardTransitive
            | CompatibilityLevel::ForwardTransitive
            | CompatibilityLevel::FullTransitive
    );
    let considered = if transitive {
        against
    } else {
        &against[against.len() - 1..]
    };
    for (version, old) in considered {
        if old.def.schema_type != schema_type {
            return Ok(vec![format!(
                "schema type changes from {} (version {version}) to {schema_type}",
                old.def.schema_type
            )]);
        }
    }
    let Parsed::Avro(new) = parsed else {
        return Ok(Vec::new());
    };
    let olds: Vec<(i32, &schema::avro::AvroParsed)> = considered
        .iter()
        .filter_map(|(v, s)| match &s.parsed {
            Some(Parsed::Avro(a)) => Some((*v, a)),
            _ => None,
        })
        .collect();
    match compat::check(level, new, &olds) {
        Ok(Ok(())) => Ok(Vec::new()),
        Ok(Err(problems)) => Ok(problems),
        Err(compat::TooComplex) => Err(ApiError::invalid_schema(format!(
            "the compatibility check exceeds {} comparisons; the schemas are too complex to compare",
            compat::MAX_STEPS
        ))),
    }
}

/// Confluent's subject rule: not empty, no control characters.
fn check_subject(subject: &str) -> Result<(), ApiError> {
    if subject.is_empty() || subject.chars().any(char::is_control) {
        Err(ApiError::invalid_subject(subject))
    } else {
        Ok(())
    }
}

/// `latest` or `-1` -> `None`; a positive number -> `Some(n)`; anything else is 42202.
pub(crate) fn parse_version(version: &str) -> Result<Option<i32>, ApiError> {
    if version == "latest" || version == "-1" {
        return Ok(None);
    }
    match version.parse::<i32>() {
        Ok(n) if n >= 1 => Ok(Some(n)),
        _ => Err(ApiError::invalid_version(version)),
    }
}
