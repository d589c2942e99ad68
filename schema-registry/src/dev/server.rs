//! HTTP front of the dev registry: worker threads taking requests from `tiny_http`, routing
//! them to the [`Store`], and answering in the Confluent REST format.

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;
use tiny_http::{Header, Method, Request, Response};

use super::api_error::ApiError;
use super::store::Store;
use crate::model::{CompatibilityLevel, SchemaDefinition};
use crate::pct::decode_segment;
use crate::wire::{
    ConfigPayload, IdPayload, SchemaPayload, SubjectVersionPayload, SubjectVersionRef,
};
use crate::CONTENT_TYPE;

/// Largest request body accepted.
const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// State shared by the worker threads and the handle.
pub(crate) struct Shared {
    store: Mutex<Store>,
    requests: AtomicU64,
    last_authorization: Mutex<Option<String>>,
    pub(crate) stop: AtomicBool,
}

impl Shared {
    /// Shared state around a store.
    pub(crate) fn new(store: Store) -> Self {
        Shared {
            store: Mutex::new(store),
            requests: AtomicU64::new(0),
            last_authorization: Mutex::new(None),
            stop: AtomicBool::new(false),
        }
    }

    /// Requests received so far.
    pub(crate) fn request_count(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// The `Authorization` header of the latest request (`None` if it had none).
    pub(crate) fn last_authorization(&self) -> Option<String> {
        lock(&self.last_authorization).clone()
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.store)
    }
}

/// Locks a mutex, taking over a poisoned one: every store operation validates before it
/// mutates, so a panicking request cannot leave half-applied changes behind.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Serves requests until `shared.stop` is set and the server is unblocked.
pub(crate) fn worker(server: &tiny_http::Server, shared: &Shared) {
    loop {
        match server.recv() {
            Ok(request) => handle(shared, request),
            Err(_) if shared.stop.load(Ordering::SeqCst) => return,
            Err(_) => {}
        }
    }
}

/// How many body bytes to read. A request asking for a protocol upgrade (the JDK
/// `HttpClient` sends `Connection: Upgrade, HTTP2-Settings` with `Upgrade: h2c`) hands us
/// the raw socket, so reading to EOF would hang: read exactly its `Content-Length` then
/// (none for a GET), and answer in HTTP/1.1, which declines the upgrade.
fn body_limit(request: &Request) -> u64 {
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_ascii_lowercase())
    };
    let upgrade = header("Connection").is_some_and(|v| v.contains("upgrade"));
    if !upgrade {
        return MAX_BODY_BYTES;
    }
    header("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0)
        .min(MAX_BODY_BYTES)
}

/// A successful answer: status and JSON (or raw schema) body.
type Answer = Result<(u16, String), ApiError>;

fn handle(shared: &Shared, mut request: Request) {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let auth = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Authorization"))
        .map(|h| h.value.as_str().to_string());
    *lock(&shared.last_authorization) = auth;

    let method = request.method().clone();
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("");
    let mut body = String::new();
    let limit = body_limit(&request);
    let read = request.as_reader().take(limit).read_to_string(&mut body);
    let answer = match read {
        Ok(_) => route(shared, &method, path, &body),
        Err(e) => Err(ApiError::bad_request(format!("could not read body: {e}"))),
    };
    let (status, text) = match answer {
        Ok(ok) => ok,
        Err(e) => (
            e.status,
            serde_json::to_string(&e.payload()).unwrap_or_else(|_| e.message.clone()),
        ),
    };
    let mut response = Response::from_string(text).with_status_code(status);
    if let Ok(h) = Header::from_bytes(&b"Content-Type"[..], CONTENT_TYPE.as_bytes()) {
        response = response.with_header(h);
    }
    // The client may have gone away; nothing useful to do about it.
    let _ = request.respond(response);
}

fn route(shared: &Shared, method: &Method, path: &str, body: &str) -> Answer {
    let segments: Option<Vec<String>> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(decode_segment)
        .collect();
    let Some(segments) = segments else {
        return Err(ApiError::bad_request(format!("undecodable path {path}")));
    };
    let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
    let m = method.as_str();
    let not_allowed = || Err(ApiError::method_not_allowed(m, path));
    match seg.as_slice() {
        [] => match method {
            Method::Get => json(&serde_json::json!({})),
            _ => not_allowed(),
        },
        ["schemas", "types"] => match method {
            Method::Get => json(&["AVRO", "JSON", "PROTOBUF"]),
            _ => not_allowed(),
        },
        ["schemas", "ids", id, rest @ ..] => {
            if *method != Method::Get {
                return not_allowed();
            }
            let id: i32 = id.parse().map_err(|_| ApiError::schema_not_found())?;
            let store = shared.store();
            match rest {
                [] => json(&SchemaPayload::from_definition(&store.schema_by_id(id)?)),
                ["schema"] => Ok((200, store.schema_by_id(id)?.schema)),
                ["versions"] => {
                    let refs: Vec<SubjectVersionRef> = store
                        .versions_of_id(id)?
                        .into_iter()
                        .map(|(subject, version)| SubjectVersionRef { subject, version })
                        .collect();
                    json(&refs)
                }
                ["subjects"] => {
                    let mut subjects: Vec<String> = store
                        .versions_of_id(id)?
                        .into_iter()
                        .map(|(s, _)| s)
                        .collect();
                    subjects.dedup();
                    json(&subjects)
                }
                _ => Err(ApiError::no_route(m, path)),
            }
        }
        ["subjects"] => match method {
            Method::Get => json(&shared.store().subjects()),
            _ => not_allowed(),
        },
        ["subjects", subject] => match method {
            Method::Post => {
                let def = definition(body)?;
                let v = shared.store().lookup(subject, &def)?;
                json(&SubjectVersionPayload::from_version(&v))
            }
            Method::Delete => json(&shared.store().delete_subject(subject)?),
            _ => not_allowed(),
        },
        ["subjects", subject, "versions"] => match method {
            Method::Get => json(&shared.store().versions(subject)?),
            Method::Post => {
                let def = definition(body)?;
                let id = shared.store().register(subject, &def)?;
                json(&IdPayload { id })
            }
            _ => not_allowed(),
        },
        ["subjects", subject, "versions", version] => match method {
            Method::Get => {
                let v = shared.store().version(subject, version)?;
                json(&SubjectVersionPayload::from_version(&v))
            }
            Method::Delete => json(&shared.store().delete_version(subject, version)?),
            _ => not_allowed(),
        },
        ["subjects", subject, "versions", version, "schema"] => match method {
            Method::Get => Ok((
                200,
                shared.store().version(subject, version)?.definition.schema,
            )),
            _ => not_allowed(),
        },
        ["config"] => config(shared, method, None, body, path),
        ["config", subject] => config(shared, method, Some(subject), body, path),
        _ => Err(ApiError::no_route(m, path)),
    }
}

fn config(
    shared: &Shared,
    method: &Method,
    subject: Option<&str>,
    body: &str,
    path: &str,
) -> Answer {
    match method {
        Method::Get => {
            let level = shared.store().compatibility(subject).as_str().to_string();
            json(&ConfigPayload {
                compatibility: Some(level.clone()),
                compatibility_level: Some(level),
            })
        }
        Method::Put => {
            let payload: ConfigPayload =
                serde_json::from_str(body).map_err(ApiError::bad_request)?;
            let name = payload
                .compatibility
                .or(payload.compatibility_level)
                .ok_or_else(|| ApiError::invalid_compatibility(""))?;
            let level: CompatibilityLevel = name
                .parse()
                .map_err(|_| ApiError::invalid_compatibility(&name))?;
            shared.store().set_compatibility(subject, level)?;
            json(&ConfigPayload {
                compatibility: Some(level.as_str().to_string()),
                compatibility_level: None,
            })
        }
        _ => Err(ApiError::method_not_allowed(method.as_str(), path)),
    }
}

/// Parses a register / look-up body into a definition.
fn definition(body: &str) -> Result<SchemaDefinition, ApiError> {
    let payload: SchemaPayload = serde_json::from_str(body).map_err(ApiError::bad_request)?;
    payload.into_definition().map_err(ApiError::invalid_schema)
}

fn json<T: Serialize + ?Sized>(value: &T) -> Answer {
    serde_json::to_string(value)
        .map(|text| (200, text))
        .map_err(ApiError::internal)
}
