//! The blocking, cached, thread-safe Confluent Schema Registry client.

mod cache;
mod config;
mod http;
mod source;

use std::sync::Arc;

use serde::de::DeserializeOwned;

pub use config::{
    RegistryConfig, DEFAULT_CACHE_CAPACITY, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF,
    DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT,
};

use crate::error::RegistryError;
use crate::model::{CompatibilityLevel, RegisteredSchema, SchemaDefinition, SubjectVersion};
use crate::pct::encode_segment;
use crate::wire::{ConfigPayload, IdPayload, SchemaPayload, SubjectVersionPayload};
use cache::LruCache;
use http::{Method, Target, Transport};

/// A Confluent Schema Registry client. Methods take `&self` and the client is `Send + Sync`,
/// so one instance (e.g. in an `Arc`) serves all decode threads; schemas by id and ids of
/// registered schemas are cached in bounded LRU caches.
pub struct RegistryClient {
    transport: Transport,
    by_id: LruCache<i32, Arc<RegisteredSchema>>,
    registered: LruCache<(String, SchemaDefinition), i32>,
    urls: Vec<String>,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient")
            .field("urls", &self.urls)
            .field("cached_schemas", &self.by_id.len())
            .finish_non_exhaustive()
    }
}

impl RegistryClient {
    /// Validates the configuration and builds the client; no request is made yet.
    pub fn new(cfg: RegistryConfig) -> Result<Self, RegistryError> {
        cfg.validate()?;
        Ok(RegistryClient {
            transport: Transport::new(&cfg)?,
            by_id: LruCache::new(cfg.cache_capacity),
            registered: LruCache::new(cfg.cache_capacity),
            urls: cfg.urls,
        })
    }

    /// The schema with this global id (`GET /schemas/ids/{id}`), from the cache when seen before.
    pub fn schema_by_id(&self, id: i32) -> Result<Arc<RegisteredSchema>, RegistryError> {
        if let Some(hit) = self.by_id.get(&id) {
            return Ok(hit);
        }
        let path = format!("/schemas/ids/{id}");
        let (payload, url): (SchemaPayload, _) =
            self.call(Method::Get, &path, None, Target::Id(id))?;
        let definition = payload
            .into_definition()
            .map_err(|e| invalid_response(Method::Get, &url, e))?;
        let schema = Arc::new(RegisteredSchema { id, definition });
        self.by_id.insert(id, Arc::clone(&schema));
        Ok(schema)
    }

    /// Registers `schema` under `subject` (`POST /subjects/{s}/versions`) and returns its global
    /// id; the answer is cached per (subject, schema).
    pub fn register(&self, subject: &str, schema: &SchemaDefinition) -> Result<i32, RegistryError> {
        let key = (subject.to_string(), schema.clone());
        if let Some(id) = self.registered.get(&key) {
            return Ok(id);
        }
        let path = format!("/subjects/{}/versions", encode_segment(subject));
        let body = self.to_json(&SchemaPayload::from_definition(schema), &path)?;
        let (answer, _): (IdPayload, _) = self.call(
            Method::Post,
            &path,
            Some(&body),
            subject_target(subject, None),
        )?;
        self.registered.insert(key, answer.id);
        Ok(answer.id)
    }

    /// Finds `schema` among the versions of `subject` (`POST /subjects/{s}`).
    pub fn lookup(
        &self,
        subject: &str,
        schema: &SchemaDefinition,
    ) -> Result<SubjectVersion, RegistryError> {
        let path = format!("/subjects/{}", encode_segment(subject));
        let body = self.to_json(&SchemaPayload::from_definition(schema), &path)?;
        let (payload, url) = self.call(
            Method::Post,
            &path,
            Some(&body),
            subject_target(subject, None),
        )?;
        version_from(payload, Method::Post, &url)
    }

    /// The latest version of `subject` (`GET /subjects/{s}/versions/latest`); never cached.
    pub fn latest(&self, subject: &str) -> Result<SubjectVersion, RegistryError> {
        self.subject_version(subject, "latest")
    }

    /// Version `version` of `subject` (`GET /subjects/{s}/versions/{v}`).
    pub fn version(&self, subject: &str, version: i32) -> Result<SubjectVersion, RegistryError> {
        self.subject_version(subject, &version.to_string())
    }

    /// All subjects (`GET /subjects`).
    pub fn subjects(&self) -> Result<Vec<String>, RegistryError> {
        Ok(self
            .call(Method::Get, "/subjects", None, Target::Registry)?
            .0)
    }

    /// The version numbers of `subject` (`GET /subjects/{s}/versions`).
    pub fn versions(&self, subject: &str) -> Result<Vec<i32>, RegistryError> {
        let path = format!("/subjects/{}/versions", encode_segment(subject));
        Ok(self
            .call(Method::Get, &path, None, subject_target(subject, None))?
            .0)
    }

    /// Deletes `subject` and returns the versions it had (`DELETE /subjects/{s}`).
    pub fn delete_subject(&self, subject: &str) -> Result<Vec<i32>, RegistryError> {
        let path = format!("/subjects/{}", encode_segment(subject));
        Ok(self
            .call(Method::Delete, &path, None, subject_target(subject, None))?
            .0)
    }

    /// The compatibility level of `subject`, or the global one for `None` (`GET /config[/{s}]`).
    pub fn compatibility(
        &self,
        subject: Option<&str>,
    ) -> Result<CompatibilityLevel, RegistryError> {
        let path = config_path(subject);
        let (payload, url): (ConfigPayload, _) =
            self.call(Method::Get, &path, None, config_target(subject))?;
        let level = payload
            .compatibility_level
            .or(payload.compatibility)
            .unwrap_or_default();
        level
            .parse()
            .map_err(|e| invalid_response(Method::Get, &url, e))
    }

    /// Sets the compatibility level of `subject`, or the global one for `None`
    /// (`PUT /config[/{s}]`).
    pub fn set_compatibility(
        &self,
        subject: Option<&str>,
        level: CompatibilityLevel,
    ) -> Result<(), RegistryError> {
        let path = config_path(subject);
        let body = self.to_json(
            &ConfigPayload {
                compatibility: Some(level.as_str().to_string()),
                compatibility_level: None,
            },
            &path,
        )?;
        let _: (ConfigPayload, _) =
            self.call(Method::Put, &path, Some(&body), config_target(subject))?;
        Ok(())
    }

    /// Number of schemas currently in the by-id cache.
    pub fn cached_schema_count(&self) -> usize {
        self.by_id.len()
    }

    fn subject_version(
        &self,
        subject: &str,
        version: &str,
    ) -> Result<SubjectVersion, RegistryError> {
        let path = format!("/subjects/{}/versions/{version}", encode_segment(subject));
        let (payload, url) = self.call(
            Method::Get,
            &path,
            None,
            subject_target(subject, Some(version)),
        )?;
        version_from(payload, Method::Get, &url)
    }

    /// Sends a request and decodes the JSON answer; also returns the URL that answered.
    fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&str>,
        target: Target<'_>,
    ) -> Result<(T, String), RegistryError> {
        let answer = self.transport.request(method, path, body, target)?;
        match serde_json::from_str(&answer.body) {
            Ok(value) => Ok((value, answer.url)),
            Err(e) => Err(invalid_response(method, &answer.url, e)),
        }
    }

    fn to_json<T: serde::Serialize>(&self, value: &T, path: &str) -> Result<String, RegistryError> {
        let url = format!("{}{path}", self.urls.first().map_or("", String::as_str));
        serde_json::to_string(value).map_err(|e| invalid_response(Method::Post, &url, e))
    }
}

fn version_from(
    payload: SubjectVersionPayload,
    method: Method,
    url: &str,
) -> Result<SubjectVersion, RegistryError> {
    payload
        .into_version()
        .map_err(|e| invalid_response(method, url, e))
}

fn invalid_response(method: Method, url: &str, reason: impl std::fmt::Display) -> RegistryError {
    RegistryError::InvalidResponse {
        method: method.as_str().to_string(),
        url: url.to_string(),
        reason: reason.to_string(),
    }
}

fn subject_target<'a>(subject: &'a str, version: Option<&'a str>) -> Target<'a> {
    Target::Subject { subject, version }
}

fn config_target(subject: Option<&str>) -> Target<'_> {
    subject.map_or(Target::Registry, |s| subject_target(s, None))
}

fn config_path(subject: Option<&str>) -> String {
    match subject {
        Some(s) => format!("/config/{}", encode_segment(s)),
        None => "/config".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn client_is_send_and_sync() {
        assert_send_sync::<RegistryClient>();
    }
}
