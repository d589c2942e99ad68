//! HTTP transport of the client: one `ureq` agent, auth header, URL fail-over, retries with
//! bounded backoff, and mapping of Confluent error bodies to [`RegistryError`].

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine as _;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

use crate::error::{HttpFailure, RegistryError};
use crate::wire::ErrorPayload;
use crate::CONTENT_TYPE;

use super::config::RegistryConfig;

/// Error bodies longer than this are cut in messages.
const MAX_MESSAGE_CHARS: usize = 300;

/// HTTP method of a registry request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// What a request is about, so that an error answer becomes the matching typed error.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// Not about one schema or subject.
    Registry,
    /// A schema by global id.
    Id(i32),
    /// A subject, optionally one version of it.
    Subject {
        subject: &'a str,
        version: Option<&'a str>,
    },
}

/// A successful (2xx) answer.
pub(crate) struct Answer {
    /// The full URL that answered.
    pub(crate) url: String,
    /// The body text.
    pub(crate) body: String,
}

/// Blocking HTTP transport shared by all threads of one client.
pub(crate) struct Transport {
    agent: ureq::Agent,
    urls: Vec<String>,
    authorization: Option<String>,
    max_retries: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
    /// Index of the URL that answered last; tried first next time.
    preferred: AtomicUsize,
}

/// One attempt's failure below HTTP.
enum SendError {
    /// Connect error, timeout or broken connection: worth retrying.
    Transient(String),
    /// TLS failure: retrying will not help.
    Tls(String),
    /// Anything else (malformed request, ...): retrying will not help.
    Fatal(String),
}

impl Transport {
    /// Builds the agent (timeouts, TLS roots) and the auth header from a validated config.
    pub(crate) fn new(cfg: &RegistryConfig) -> Result<Self, RegistryError> {
        let mut tls = TlsConfig::builder();
        if let Some(pem) = &cfg.ssl_ca_pem {
            tls = tls.root_certs(parse_ca_pem(pem, &cfg.urls.join(","))?);
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(cfg.timeout))
            .http_status_as_error(false)
            .tls_config(tls.build())
            .user_agent(concat!("karrow-registry/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let authorization = match (&cfg.basic_auth_user_info, &cfg.bearer_token) {
            (Some(user_info), _) => Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(user_info)
            )),
            (None, Some(token)) => Some(format!("Bearer {token}")),
            (None, None) => None,
        };
        Ok(Transport {
            agent,
            urls: cfg.urls.clone(),
            authorization,
            max_retries: cfg.max_retries,
            initial_backoff: cfg.initial_backoff,
            max_backoff: cfg.max_backoff,
            preferred: AtomicUsize::new(0),
        })
    }

    /// Sends `method path` (with an optional JSON body) to the registry, failing over between
    /// URLs and retrying connect errors and 5xx answers; error answers become typed errors.
    pub(crate) fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&str>,
        target: Target<'_>,
    ) -> Result<Answer, RegistryError> {
        let attempts = self.max_retries.saturating_add(1);
        let first = self.preferred.load(Ordering::Relaxed);
        let mut last_error = None;
        for attempt in 0..attempts {
            if attempt > 0 {
                std::thread::sleep(backoff(attempt - 1, self.initial_backoff, self.max_backoff));
            }
            let index = (first + attempt as usize) % self.urls.len();
            let url = format!("{}{}", self.urls[index], path);
            match self.send_once(method, &url, body) {
                Ok((status, text)) if (200..300).contains(&status) => {
                    self.preferred.store(index, Ordering::Relaxed);
                    return Ok(Answer { url, body: text });
                }
                Ok((status, text)) => {
                    let failure = failure(method, &url, status, &text);
                    let error = typed_error(failure, target);
                    if status < 500 {
                        return Err(error);
                    }
                    last_error = Some(error);
                }
                Err(SendError::Transient(reason)) => {
                    last_error = Some(RegistryError::Unreachable {
                        url,
                        attempts: attempt + 1,
                        reason,
                    });
                }
                Err(SendError::Tls(reason)) => return Err(RegistryError::Tls { url, reason }),
                Err(SendError::Fatal(reason)) => {
                    return Err(RegistryError::Unreachable {
                        url,
                        attempts: attempt + 1,
                        reason,
                    })
                }
            }
        }
        Err(last_error.unwrap_or_else(|| RegistryError::InvalidConfig {
            reason: "no schema registry URL to send to".into(),
        }))
    }

    fn send_once(
        &self,
        method: Method,
        url: &str,
        body: Option<&str>,
    ) -> Result<(u16, String), SendError> {
        let result = match method {
            Method::Get => self.headers(self.agent.get(url)).call(),
            Method::Delete => self.headers(self.agent.delete(url)).call(),
            Method::Post => self
                .headers(self.agent.post(url))
                .header("Content-Type", CONTENT_TYPE)
                .send(body.unwrap_or("")),
            Method::Put => self
                .headers(self.agent.put(url))
                .header("Content-Type", CONTENT_TYPE)
                .send(body.unwrap_or("")),
        };
        let mut response = result.map_err(|e| classify(e, url))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| classify(e, url))?;
        Ok((status, text))
    }

    fn headers<B>(&self, rb: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        let rb = rb.header("Accept", CONTENT_TYPE);
        match &self.authorization {
            Some(auth) => rb.header("Authorization", auth),
            None => rb,
        }
    }
}

/// The delay before retry number `retry` (0-based): `initial` doubling, at most `max`.
fn backoff(retry: u32, initial: Duration, max: Duration) -> Duration {
    initial.saturating_mul(1u32 << retry.min(16)).min(max)
}

/// Parses the trusted CA certificates from PEM text.
fn parse_ca_pem(pem: &str, urls: &str) -> Result<RootCerts, RegistryError> {
    let tls_error = |reason: String| RegistryError::Tls {
        url: urls.to_string(),
        reason,
    };
    let mut certs: Vec<Certificate<'static>> = Vec::new();
    for item in ureq::tls::parse_pem(pem.as_bytes()) {
        match item {
            Ok(PemItem::Certificate(cert)) => certs.push(cert),
            Ok(_) => {}
            Err(e) => return Err(tls_error(format!("invalid CA PEM: {e}"))),
        }
    }
    if certs.is_empty() {
        return Err(tls_error("CA PEM holds no certificate".into()));
    }
    Ok(RootCerts::new_with_certs(&certs))
}

/// Sorts a transport error into retryable, TLS and fatal.
fn classify(error: ureq::Error, url: &str) -> SendError {
    let https = url.starts_with("https://");
    match error {
        ureq::Error::Tls(_) | ureq::Error::Pem(_) | ureq::Error::Rustls(_) => {
            SendError::Tls(error.to_string())
        }
        ureq::Error::Io(e) if https && e.kind() == io::ErrorKind::InvalidData => {
            // rustls reports handshake failures (untrusted certificate, ...) this way.
            SendError::Tls(e.to_string())
        }
        ureq::Error::Io(_)
        | ureq::Error::Timeout(_)
        | ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::Protocol(_) => SendError::Transient(error.to_string()),
        other => SendError::Fatal(other.to_string()),
    }
}

/// The failure record of an error answer, from a Confluent error body when there is one.
fn failure(method: Method, url: &str, status: u16, body: &str) -> HttpFailure {
    let (error_code, message) = match serde_json::from_str::<ErrorPayload>(body) {
        Ok(e) => (e.error_code, e.message),
        Err(_) => (i32::from(status), truncate(body.trim())),
    };
    HttpFailure {
        method: method.as_str().to_string(),
        url: url.to_string(),
        status,
        error_code,
        message,
    }
}

fn truncate(s: &str) -> String {
    match s.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Maps an error answer to the typed error matching what the request was about.
fn typed_error(failure: HttpFailure, target: Target<'_>) -> RegistryError {
    let code = failure.error_code;
    let status = failure.status;
    let context = Box::new(failure);
    match target {
        Target::Id(id) if code == 40403 || status == 404 => {
            RegistryError::SchemaNotFound { id, context }
        }
        Target::Subject { subject, version } => {
            let subject = subject.to_string();
            match code {
                40401 => RegistryError::SubjectNotFound { subject, context },
                40402 => RegistryError::VersionNotFound {
                    subject,
                    version: version.unwrap_or("?").to_string(),
                    context,
                },
                40403 => RegistryError::SchemaNotRegistered { subject, context },
                42201 => RegistryError::InvalidSchema { subject, context },
                _ if status == 409 => RegistryError::Incompatible { subject, context },
                _ => http_error(*context),
            }
        }
        _ => http_error(*context),
    }
}

fn http_error(c: HttpFailure) -> RegistryError {
    RegistryError::Http {
        method: c.method,
        url: c.url,
        status: c.status,
        error_code: c.error_code,
        message: c.message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded() {
        use crate::client::{DEFAULT_INITIAL_BACKOFF as I, DEFAULT_MAX_BACKOFF as M};
        assert_eq!(backoff(0, I, M), Duration::from_millis(100));
        assert_eq!(backoff(1, I, M), Duration::from_millis(200));
        assert_eq!(backoff(40, I, M), M);
        let (i, m) = (Duration::from_millis(7), Duration::from_millis(20));
        assert_eq!(backoff(1, i, m), Duration::from_millis(14));
        assert_eq!(backoff(2, i, m), m);
        assert_eq!(backoff(3, Duration::ZERO, m), Duration::ZERO);
    }

    #[test]
    fn maps_confluent_codes() {
        let f = failure(
            Method::Get,
            "http://h/schemas/ids/7",
            404,
            r#"{"error_code":40403,"message":"Schema not found"}"#,
        );
        let e = typed_error(f, Target::Id(7));
        assert_eq!(
            e.to_string(),
            "Could not find schema with id 7 in registry (GET http://h/schemas/ids/7: 404 40403 Schema not found)"
        );
        let f = failure(Method::Post, "http://h/subjects/s/versions", 409, "{}");
        let e = typed_error(
            f,
            Target::Subject {
                subject: "s",
                version: None,
            },
        );
        assert!(matches!(e, RegistryError::Incompatible { .. }));
    }

    #[test]
    fn rejects_bad_pem() {
        assert!(matches!(
            parse_ca_pem("not a pem", "https://h"),
            Err(RegistryError::Tls { .. })
        ));
    }
}
