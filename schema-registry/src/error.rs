//! The typed error of every registry operation, client and dev server alike.

use std::fmt;

/// What the registry answered to a failed request: method, URL, HTTP status and Confluent
/// error code. Its `Display` reads `GET http://host/schemas/ids/7: 404 40403 Schema not found`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    /// HTTP method of the request.
    pub method: String,
    /// Full request URL.
    pub url: String,
    /// HTTP status code of the answer.
    pub status: u16,
    /// Confluent `error_code` (the HTTP status when the body carried none).
    pub error_code: i32,
    /// Confluent `message`, or the start of the body when it was not a Confluent error.
    pub message: String,
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} {} {}",
            self.method, self.url, self.status, self.error_code, self.message
        )
    }
}

/// Everything that can go wrong talking to (or running) a schema registry. Each message names
/// the schema id or subject and the URL involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// No schema has this global id (Confluent 40403 on `/schemas/ids/{id}`).
    #[error("Could not find schema with id {id} in registry ({context})")]
    SchemaNotFound {
        /// The schema id asked for.
        id: i32,
        /// The failed request.
        context: Box<HttpFailure>,
    },
    /// The subject does not exist (Confluent 40401).
    #[error("Subject '{subject}' not found in registry ({context})")]
    SubjectNotFound {
        /// The subject asked for.
        subject: String,
        /// The failed request.
        context: Box<HttpFailure>,
    },
    /// The subject exists but has no such version (Confluent 40402).
    #[error("Version {version} of subject '{subject}' not found in registry ({context})")]
    VersionNotFound {
        /// The subject asked for.
        subject: String,
        /// The version asked for (a number or `latest`).
        version: String,
        /// The failed request.
        context: Box<HttpFailure>,
    },
    /// The subject exists but does not hold this schema (Confluent 40403 on a look-up).
    #[error("Schema is not registered under subject '{subject}' ({context})")]
    SchemaNotRegistered {
        /// The subject looked in.
        subject: String,
        /// The failed request.
        context: Box<HttpFailure>,
    },
    /// The schema breaks the subject's compatibility rule (HTTP 409).
    #[error("Schema being registered is incompatible with an earlier schema for subject '{subject}' ({context})")]
    Incompatible {
        /// The subject registered under.
        subject: String,
        /// The failed request.
        context: Box<HttpFailure>,
    },
    /// The registry rejected the schema text or its references (Confluent 42201).
    #[error("Invalid schema for subject '{subject}' ({context})")]
    InvalidSchema {
        /// The subject registered under or looked in.
        subject: String,
        /// The failed request.
        context: Box<HttpFailure>,
    },
    /// Any other error answer of the registry.
    #[error("Schema registry request {method} {url} failed: {status} {error_code} {message}")]
    Http {
        /// HTTP method of the request.
        method: String,
        /// Full request URL.
        url: String,
        /// HTTP status code.
        status: u16,
        /// Confluent error code (the HTTP status when the body carried none).
        error_code: i32,
        /// Confluent message or the start of the body.
        message: String,
    },
    /// No registry answered at this URL, after all retries.
    #[error("Schema registry unreachable: {url} after {attempts} attempt(s): {reason}")]
    Unreachable {
        /// The last URL tried (the full request URL, naming the id or subject).
        url: String,
        /// Attempts made, retries included.
        attempts: u32,
        /// The last transport error.
        reason: String,
    },
    /// TLS setup or handshake failed (bad CA PEM, untrusted certificate, ...).
    #[error("Schema registry TLS error for {url}: {reason}")]
    Tls {
        /// The URL (or configured URLs) concerned.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The registry answered 2xx with a body that is not the expected JSON.
    #[error("Schema registry sent an unexpected response to {method} {url}: {reason}")]
    InvalidResponse {
        /// HTTP method of the request.
        method: String,
        /// Full request URL.
        url: String,
        /// What was wrong with the body.
        reason: String,
    },
    /// The client configuration is unusable.
    #[error("Invalid schema registry configuration: {reason}")]
    InvalidConfig {
        /// What is wrong, naming the offending URL or option.
        reason: String,
    },
    /// The dev registry could not bind, persist or load its state.
    #[error("Dev schema registry error: {reason}")]
    Dev {
        /// What failed, naming the address or file.
        reason: String,
    },
}

impl RegistryError {
    /// The failed request behind this error when the registry answered, if any.
    pub fn http_failure(&self) -> Option<&HttpFailure> {
        match self {
            RegistryError::SchemaNotFound { context, .. }
            | RegistryError::SubjectNotFound { context, .. }
            | RegistryError::VersionNotFound { context, .. }
            | RegistryError::SchemaNotRegistered { context, .. }
            | RegistryError::Incompatible { context, .. }
            | RegistryError::InvalidSchema { context, .. } => Some(context.as_ref()),
            _ => None,
        }
    }

    /// The Confluent error code of a registry answer (40403, 409, 42201, ...), if any.
    pub fn error_code(&self) -> Option<i32> {
        match self {
            RegistryError::Http { error_code, .. } => Some(*error_code),
            other => other.http_failure().map(|c| c.error_code),
        }
    }
}
