//! The Confluent Schema Registry REST API over the [`Store`]: one plain function from a
//! request to an answer ([`Registry::handle`]), which the HTTP server calls and fuzz targets
//! can call directly. Every failure is Confluent's error JSON with Confluent's codes.

pub(crate) mod error;
mod query;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::http::{Handler, Request, Response};
use super::schema::protobuf;
use super::store::{Contract, Deleted, Mode, Store, StoredSchema, VersionView};
use crate::error::RegistryError;
use crate::model::{CompatibilityLevel, SchemaDefinition, SchemaReference, SchemaType};
use crate::pct::decode_segment;
use error::ApiError;
use query::Query;

/// The dev registry's request handling: store plus counters for tests.
pub struct Registry {
    store: Store,
    requests: AtomicU64,
    last_authorization: Mutex<Option<String>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

type Answer = Result<Response, ApiError>;

/// A register or look-up body. Confluent's data-contract fields (`metadata`, `ruleSet`) are
/// stored with the schema and served back; no rule is run.
#[derive(Debug, Deserialize)]
struct SchemaBody {
    schema: String,
    #[serde(rename = "schemaType", default)]
    schema_type: Option<String>,
    #[serde(default)]
    references: Option<Vec<SchemaReference>>,
    #[serde(default)]
    metadata: Option<serde_json::Value>,
    #[serde(rename = "ruleSet", default)]
    rule_set: Option<serde_json::Value>,
    /// IMPORT mode: the id to register under.
    #[serde(default)]
    id: Option<i32>,
    /// IMPORT mode: the version to register as.
    #[serde(default)]
    version: Option<i32>,
}

/// `{"schema", "schemaType"?, "references"?, ...}` as answered for a schema id or GUID.
#[derive(Debug, Serialize)]
struct SchemaAnswer<'a> {
    schema: &'a str,
    guid: &'a str,
    #[serde(rename = "schemaType", skip_serializing_if = "Option::is_none")]
    schema_type: Option<&'static str>,
    #[serde(skip_serializing_if = "<[SchemaReference]>::is_empty")]
    references: &'a [SchemaReference],
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a serde_json::Value>,
    #[serde(rename = "ruleSet", skip_serializing_if = "Option::is_none")]
    rule_set: Option<&'a serde_json::Value>,
    #[serde(rename = "maxId", skip_serializing_if = "Option::is_none")]
    max_id: Option<i32>,
}

/// One subject version as answered.
#[derive(Debug, Serialize)]
struct VersionAnswer<'a> {
    subject: &'a str,
    version: i32,
    id: i32,
    guid: &'a str,
    #[serde(rename = "schemaType", skip_serializing_if = "Option::is_none")]
    schema_type: Option<&'static str>,
    schema: &'a str,
    #[serde(skip_serializing_if = "<[SchemaReference]>::is_empty")]
    references: &'a [SchemaReference],
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a serde_json::Value>,
    #[serde(rename = "ruleSet", skip_serializing_if = "Option::is_none")]
    rule_set: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    deleted: bool,
}

/// The answer to a registration: the id (first, as older registries answer only it) and the
/// GUID Confluent 8's clients put in record headers.
#[derive(Debug, Serialize)]
struct Registered<'a> {
    id: i32,
    guid: &'a str,
}

#[derive(Debug, Serialize)]
struct SubjectVersionRef<'a> {
    subject: &'a str,
    version: i32,
}

/// A config update: `compatibility` (or `compatibilityLevel`); other fields are ignored.
#[derive(Debug, Deserialize)]
struct ConfigBody {
    #[serde(default)]
    compatibility: Option<String>,
    #[serde(rename = "compatibilityLevel", default)]
    compatibility_level: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ModeBody {
    mode: String,
}

/// `schemaType` on the wire: omitted for AVRO, as Confluent does.
fn wire_type(t: SchemaType) -> Option<&'static str> {
    match t {
        SchemaType::Avro => None,
        other => Some(other.as_str()),
    }
}

fn json<T: Serialize + ?Sized>(value: &T) -> Answer {
    serde_json::to_vec(value)
        .map(|body| Response::json(200, body))
        .map_err(ApiError::store)
}

fn parse_body<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(ApiError::bad_request)
}

impl Registry {
    /// An empty registry, or the one journaled at `persist`.
    pub fn open(persist: Option<PathBuf>) -> Result<Self, RegistryError> {
        Ok(Registry {
            store: Store::open(persist)?,
            requests: AtomicU64::new(0),
            last_authorization: Mutex::new(None),
        })
    }

    /// Requests handled so far.
    pub fn request_count(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// The `Authorization` header of the latest request (`None` if it had none).
    pub fn last_authorization(&self) -> Option<String> {
        self.last_authorization
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The answer to one request: the plain function behind the HTTP server.
    pub fn handle(&self, request: &Request) -> Response {
        self.requests.fetch_add(1, Ordering::SeqCst);
        *self
            .last_authorization
            .lock()
            .unwrap_or_else(|p| p.into_inner()) =
            request.header("Authorization").map(str::to_string);
        match self.route(request) {
            Ok(answer) => answer,
            Err(e) => e.response(),
        }
    }

    fn route(&self, request: &Request) -> Answer {
        let path = request.path();
        let segments: Option<Vec<String>> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(decode_segment)
            .collect();
        let Some(segments) = segments else {
            return Err(ApiError::bad_request(format!("undecodable path {path}")));
        };
        let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
        let q = Query::parse(request.query());
        let method = request.method.to_ascii_uppercase();
        let m = if method == "HEAD" {
            "GET"
        } else {
            method.as_str()
        };
        let body = request.body.as_slice();
        let not_allowed = || Err(ApiError::method_not_allowed(&request.method, path));
        match (m, seg.as_slice()) {
            ("GET", []) => json(&serde_json::json!({})),
            (_, []) => not_allowed(),
            ("GET", ["schemas", "types"]) => json(&["AVRO", "JSON", "PROTOBUF"]),
            ("GET", ["schemas"]) => self.list_schemas(&q),
            ("GET", ["schemas", "ids", id]) => {
                let stored = self.store.schema_by_id(parse_id(id)?)?;
                self.schema_answer(&stored, &q)
            }
            ("GET", ["schemas", "guids", guid]) => {
                let stored = self.store.schema_by_guid(guid)?;
                self.schema_answer(&stored, &q)
            }
            ("GET", ["schemas", "ids", id, "schema"]) => {
                let stored = self.store.schema_by_id(parse_id(id)?)?;
                Ok(Response::json(200, self.formatted(&stored, &q)?))
            }
            ("GET", ["schemas", "ids", id, "versions"]) => {
                let pairs = self.store.versions_of_id(parse_id(id)?, q.deleted())?;
                let pairs = filter_subject(pairs, q.get("subject"));
                let refs: Vec<SubjectVersionRef<'_>> = pairs
                    .iter()
                    .map(|(subject, version)| SubjectVersionRef {
                        subject,
                        version: *version,
                    })
                    .collect();
                json(&q.page(refs))
            }
            ("GET", ["schemas", "ids", id, "subjects"]) => {
                let pairs = self.store.versions_of_id(parse_id(id)?, q.deleted())?;
                let mut subjects: Vec<String> = filter_subject(pairs, q.get("subject"))
                    .into_iter()
                    .map(|(s, _)| s)
                    .collect();
                subjects.dedup();
                json(&q.page(subjects))
            }
            (_, ["schemas", ..]) => not_allowed_or_missing(m, &request.method, path, &seg),
            ("GET", ["subjects"]) => {
                let prefix = q.get("subjectPrefix").unwrap_or("");
                let subjects: Vec<String> = self
                    .store
                    .subjects(q.deleted())
                    .into_iter()
                    .filter(|s| s.starts_with(prefix))
                    .collect();
                json(&q.page(subjects))
            }
            ("POST", ["subjects", subject]) => {
                let (def, contract, _) = definition(body)?;
                let found = self
                    .store
                    .lookup(subject, &def, &contract, q.flag("deleted"))?;
                self.version_answer(&found, &q)
            }
            ("DELETE", ["subjects", subject]) => {
                json(&self.store.delete_subject(subject, q.flag("permanent"))?)
            }
            ("GET", ["subjects", subject, "versions"]) => {
                json(&q.page(self.store.versions(subject, q.deleted())?))
            }
            ("POST", ["subjects", subject, "versions"]) => {
                let (def, contract, import) = definition(body)?;
                let (id, _) = self.store.register(subject, &def, &contract, import)?;
                let stored = self.store.schema_by_id(id)?;
                json(&Registered {
                    id,
                    guid: &stored.guid,
                })
            }
            ("GET", ["subjects", subject, "versions", version]) => {
                let found = self.store.version(subject, version, q.flag("deleted"))?;
                self.version_answer(&found, &q)
            }
            ("DELETE", ["subjects", subject, "versions", version]) => json(
                &self
                    .store
                    .delete_version(subject, version, q.flag("permanent"))?,
            ),
            ("GET", ["subjects", subject, "versions", version, "schema"]) => {
                let found = self.store.version(subject, version, q.flag("deleted"))?;
                Ok(Response::json(200, self.formatted(&found.schema, &q)?))
            }
            ("GET", ["subjects", subject, "versions", version, "referencedby"]) => {
                json(&q.page(self.store.referenced_by(subject, version)?))
            }
            ("GET", ["subjects", subject, "metadata"]) => {
                // Pairs by position, as Confluent pairs `key` and `value` (extra ones unpaired).
                let pairs: Vec<(String, String)> = q
                    .all("key")
                    .into_iter()
                    .zip(q.all("value"))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                let found = self
                    .store
                    .latest_with_metadata(subject, &pairs, q.flag("deleted"))?;
                self.version_answer(&found, &q)
            }
            (_, ["subjects", _, ..]) | (_, ["subjects"]) => {
                not_allowed_or_missing(m, &request.method, path, &seg)
            }
            ("POST", ["compatibility", "subjects", subject, "versions", version]) => {
                self.test_compatibility(subject, Some(version), body, &q)
            }
            ("POST", ["compatibility", "subjects", subject, "versions"]) => {
                self.test_compatibility(subject, None, body, &q)
            }
            (_, ["compatibility", "subjects", _, "versions", ..]) => not_allowed(),
            (_, ["config"]) => self.config(m, None, body, &q, request, path),
            (_, ["config", subject]) => self.config(m, Some(subject), body, &q, request, path),
            (_, ["mode"]) => self.mode(m, None, body, &q, request, path),
            (_, ["mode", subject]) => self.mode(m, Some(subject), body, &q, request, path),
            ("GET", ["contexts"]) => json(&[".".to_string()]),
            (_, ["contexts"]) => not_allowed(),
            _ => Err(ApiError::no_route(&request.method, path)),
        }
    }

    fn schema_answer(&self, stored: &StoredSchema, q: &Query) -> Answer {
        let text = self.formatted_text(stored, q)?;
        let max_id = q.flag("fetchMaxId").then(|| self.store.max_id());
        json(&SchemaAnswer {
            schema: &text,
            guid: &stored.guid,
            schema_type: wire_type(stored.def.schema_type),
            references: &stored.def.references,
            metadata: stored.contract.metadata.as_ref(),
            rule_set: stored.contract.rule_set.as_ref(),
            max_id,
        })
    }

    fn list_schemas(&self, q: &Query) -> Answer {
        let prefix = q.get("subjectPrefix").unwrap_or("");
        let mut views: Vec<VersionView> = self
            .store
            .all_versions(q.deleted())
            .into_iter()
            .filter(|v| v.subject.starts_with(prefix))
            .collect();
        if q.flag("latestOnly") {
            let mut latest: Vec<VersionView> = Vec::new();
            for v in views {
                match latest.last_mut() {
                    Some(last) if last.subject == v.subject => *last = v,
                    _ => latest.push(v),
                }
            }
            views = latest;
        }
        let mut out = Vec::with_capacity(views.len());
        for v in q.page(views) {
            out.push(serde_json::to_value(self.version_payload(&v, q)?).map_err(ApiError::store)?);
        }
        json(&out)
    }

    fn version_payload(&self, v: &VersionView, q: &Query) -> Result<serde_json::Value, ApiError> {
        let text = self.formatted_text(&v.schema, q)?;
        serde_json::to_value(VersionAnswer {
            subject: &v.subject,
            version: v.version,
            id: v.schema.id,
            guid: &v.schema.guid,
            schema_type: wire_type(v.schema.def.schema_type),
            schema: &text,
            references: &v.schema.def.references,
            metadata: v.schema.contract.metadata.as_ref(),
            rule_set: v.schema.contract.rule_set.as_ref(),
            deleted: v.deleted,
        })
        .map_err(ApiError::store)
    }

    fn version_answer(&self, v: &VersionView, q: &Query) -> Answer {
        json(&self.version_payload(v, q)?)
    }

    /// The schema text in the `format` asked for: for PROTOBUF `serialized` is the base64
    /// `FileDescriptorProto`; every other format (and type) answers the stored text.
    fn formatted_text(&self, stored: &StoredSchema, q: &Query) -> Result<String, ApiError> {
        match (stored.def.schema_type, q.get("format")) {
            (SchemaType::Protobuf, Some(f)) if f.eq_ignore_ascii_case("serialized") => {
                let referenced = self.store.referenced_texts(&stored.def.references)?;
                protobuf::serialized(&stored.def.schema, &referenced).map_err(ApiError::store)
            }
            _ => Ok(stored.def.schema.clone()),
        }
    }

    fn formatted(&self, stored: &StoredSchema, q: &Query) -> Result<Vec<u8>, ApiError> {
        self.formatted_text(stored, q).map(String::into_bytes)
    }

    fn test_compatibility(
        &self,
        subject: &str,
        version: Option<&str>,
        body: &[u8],
        q: &Query,
    ) -> Answer {
        let def = definition(body)?.0;
        let messages = match self.store.test_compatibility(subject, version, &def) {
            Ok(messages) => messages,
            // No versions to be incompatible with.
            Err(e) if version.is_none() && e.error_code == 40401 => Vec::new(),
            Err(e) => return Err(e),
        };
        let mut answer = serde_json::json!({ "is_compatible": messages.is_empty() });
        if q.flag("verbose") {
            answer["messages"] = serde_json::json!(messages);
        }
        json(&answer)
    }

    fn config(
        &self,
        method: &str,
        subject: Option<&str>,
        body: &[u8],
        q: &Query,
        request: &Request,
        path: &str,
    ) -> Answer {
        match method {
            "GET" => {
                let level = match (subject, self.store.own_compatibility(subject)) {
                    (_, Some(level)) => level,
                    (None, None) => CompatibilityLevel::default(),
                    (Some(_), None) if q.flag("defaultToGlobal") => self.store.compatibility(None),
                    (Some(s), None) => {
                        return Err(ApiError::subject_compatibility_not_configured(s))
                    }
                };
                json(&serde_json::json!({ "compatibilityLevel": level.as_str() }))
            }
            "PUT" => {
                let payload: ConfigBody = parse_body(body)?;
                let name = payload
                    .compatibility
                    .or(payload.compatibility_level)
                    .ok_or_else(|| ApiError::invalid_compatibility(""))?;
                let level: CompatibilityLevel = name
                    .parse()
                    .map_err(|_| ApiError::invalid_compatibility(&name))?;
                self.store.set_compatibility(subject, Some(level))?;
                json(&serde_json::json!({ "compatibility": level.as_str() }))
            }
            "DELETE" => {
                let before = self.store.set_compatibility(subject, None)?;
                let level = match (subject, before) {
                    (_, Some(level)) => level,
                    (None, None) => CompatibilityLevel::default(),
                    (Some(s), None) => {
                        return Err(ApiError::subject_compatibility_not_configured(s))
                    }
                };
                json(&serde_json::json!({ "compatibilityLevel": level.as_str() }))
            }
            _ => Err(ApiError::method_not_allowed(&request.method, path)),
        }
    }

    fn mode(
        &self,
        method: &str,
        subject: Option<&str>,
        body: &[u8],
        q: &Query,
        request: &Request,
        path: &str,
    ) -> Answer {
        match method {
            "GET" => {
                let mode = match (subject, self.store.own_mode(subject)) {
                    (_, Some(mode)) => mode,
                    (None, None) => Mode::Readwrite,
                    (Some(_), None) if q.flag("defaultToGlobal") => self.store.mode(None),
                    (Some(s), None) => return Err(ApiError::subject_mode_not_configured(s)),
                };
                json(&serde_json::json!({ "mode": mode.as_str() }))
            }
            "PUT" => {
                let payload: ModeBody = parse_body(body)?;
                let mode = Mode::parse(&payload.mode)
                    .ok_or_else(|| ApiError::invalid_mode(&payload.mode))?;
                self.store.set_mode(subject, Some(mode), q.flag("force"))?;
                json(&serde_json::json!({ "mode": mode.as_str() }))
            }
            "DELETE" => {
                let before = self.store.set_mode(subject, None, false)?;
                let mode = match (subject, before) {
                    (_, Some(mode)) => mode,
                    (None, None) => Mode::Readwrite,
                    (Some(s), None) => return Err(ApiError::subject_mode_not_configured(s)),
                };
                json(&serde_json::json!({ "mode": mode.as_str() }))
            }
            _ => Err(ApiError::method_not_allowed(&request.method, path)),
        }
    }
}

impl Handler for Registry {
    fn handle(&self, request: &Request) -> Response {
        Registry::handle(self, request)
    }
}

/// 405 when the path is an endpoint with other methods, else 404.
fn not_allowed_or_missing(method: &str, shown: &str, path: &str, seg: &[&str]) -> Answer {
    let known = matches!(
        seg,
        ["schemas"]
            | ["schemas", "types"]
            | ["schemas", "ids" | "guids", _]
            | ["schemas", "ids", _, "schema" | "versions" | "subjects"]
            | ["subjects"]
            | ["subjects", _]
            | ["subjects", _, "versions" | "metadata"]
            | ["subjects", _, "versions", _]
            | ["subjects", _, "versions", _, "schema" | "referencedby"]
    );
    let _ = method;
    if known {
        Err(ApiError::method_not_allowed(shown, path))
    } else {
        Err(ApiError::no_route(shown, path))
    }
}

fn filter_subject(pairs: Vec<(String, i32)>, subject: Option<&str>) -> Vec<(String, i32)> {
    match subject {
        Some(s) => pairs.into_iter().filter(|(x, _)| x == s).collect(),
        None => pairs,
    }
}

fn parse_id(id: &str) -> Result<i32, ApiError> {
    id.parse().map_err(|_| ApiError::schema_not_found())
}

/// The id (and version) an IMPORT-mode registration asks for.
type Import = (i32, Option<i32>);

/// A register / look-up body as a definition, its data contract, and the id and version an
/// IMPORT gives.
fn definition(body: &[u8]) -> Result<(SchemaDefinition, Contract, Option<Import>), ApiError> {
    let payload: SchemaBody = parse_body(body)?;
    let schema_type =
        SchemaType::from_wire(payload.schema_type.as_deref()).map_err(ApiError::invalid_schema)?;
    let def = SchemaDefinition {
        schema_type,
        schema: payload.schema,
        references: payload.references.unwrap_or_default(),
    };
    let contract = Contract::given(payload.metadata, payload.rule_set);
    Ok((def, contract, payload.id.map(|id| (id, payload.version))))
}

impl Query {
    /// `deleted` / `deleted_only` (also `deletedOnly`) as a [`Deleted`] filter.
    fn deleted(&self) -> Deleted {
        if self.flag("deleted_only") || self.flag("deletedOnly") {
            Deleted::Only
        } else if self.flag("deleted") {
            Deleted::Include
        } else {
            Deleted::Exclude
        }
    }
}
