//! Client configuration: URLs, credentials, TLS trust, timeouts, retries and cache size.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::error::RegistryError;

/// Default per-request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of retries after a connect error or 5xx answer.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// Default delay before the first retry; doubled per retry up to [`DEFAULT_MAX_BACKOFF`].
pub const DEFAULT_INITIAL_BACKOFF: Duration = Duration::from_millis(100);
/// Default upper bound of one delay between retries.
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(2);
/// Default number of entries in each client cache.
pub const DEFAULT_CACHE_CAPACITY: usize = 1000;

/// How to reach and authenticate to a schema registry. Build with [`RegistryConfig::from_url`]
/// and adjust the public fields.
#[derive(Clone, PartialEq, Eq)]
pub struct RegistryConfig {
    /// Base URLs (`http://` or `https://`), tried in turn on connect errors.
    pub urls: Vec<String>,
    /// `user:password` sent as HTTP basic auth.
    pub basic_auth_user_info: Option<String>,
    /// Token sent as `Authorization: Bearer ...`.
    pub bearer_token: Option<String>,
    /// PEM text of the CA certificate(s) to trust for `https://`; the webpki roots otherwise.
    pub ssl_ca_pem: Option<String>,
    /// Timeout of one whole request (connect, send, receive).
    pub timeout: Duration,
    /// Retries after a connect error, a timeout or a 5xx answer, with bounded exponential
    /// backoff.
    pub max_retries: u32,
    /// Delay before the first retry; doubled per retry, at most `max_backoff`.
    pub initial_backoff: Duration,
    /// Upper bound of one delay between retries.
    pub max_backoff: Duration,
    /// Maximum entries in each cache (schemas by id, ids by registered schema).
    pub cache_capacity: usize,
    /// Further client properties, kept for callers (e.g. Flink `properties.*` options).
    pub properties: BTreeMap<String, String>,
}

impl RegistryConfig {
    /// A configuration with defaults for a comma-separated list of registry URLs.
    pub fn from_url(url: &str) -> Self {
        RegistryConfig {
            urls: url
                .split(',')
                .map(|u| u.trim().trim_end_matches('/'))
                .filter(|u| !u.is_empty())
                .map(str::to_string)
                .collect(),
            basic_auth_user_info: None,
            bearer_token: None,
            ssl_ca_pem: None,
            timeout: DEFAULT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            initial_backoff: DEFAULT_INITIAL_BACKOFF,
            max_backoff: DEFAULT_MAX_BACKOFF,
            cache_capacity: DEFAULT_CACHE_CAPACITY,
            properties: BTreeMap::new(),
        }
    }

    /// Checks the configuration before any request is made.
    pub(crate) fn validate(&self) -> Result<(), RegistryError> {
        let invalid = |reason: String| Err(RegistryError::InvalidConfig { reason });
        if self.urls.is_empty() {
            return invalid("no schema registry URL given".into());
        }
        for url in &self.urls {
            let rest = url
                .strip_prefix("http://")
                .or_else(|| url.strip_prefix("https://"));
            match rest {
                Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => {}
                _ => return invalid(format!("'{url}' is not an http:// or https:// URL")),
            }
        }
        if self.basic_auth_user_info.is_some() && self.bearer_token.is_some() {
            return invalid(format!(
                "both basic auth and a bearer token are set for {}; choose one",
                self.urls.join(",")
            ));
        }
        if self.cache_capacity == 0 {
            return invalid("cache_capacity must be at least 1".into());
        }
        if self.timeout.is_zero() {
            return invalid("timeout must be greater than zero".into());
        }
        if self.max_backoff < self.initial_backoff {
            return invalid(format!(
                "max_backoff ({:?}) must not be shorter than initial_backoff ({:?})",
                self.max_backoff, self.initial_backoff
            ));
        }
        Ok(())
    }
}

impl Default for RegistryConfig {
    /// Defaults pointing at `http://localhost:8081`.
    fn default() -> Self {
        Self::from_url("http://localhost:8081")
    }
}

impl fmt::Debug for RegistryConfig {
    /// Like a derived `Debug`, but credentials are redacted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redact = |s: &Option<String>| s.as_ref().map(|_| "<redacted>");
        f.debug_struct("RegistryConfig")
            .field("urls", &self.urls)
            .field("basic_auth_user_info", &redact(&self.basic_auth_user_info))
            .field("bearer_token", &redact(&self.bearer_token))
            .field("ssl_ca_pem", &self.ssl_ca_pem.as_ref().map(|p| p.len()))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("initial_backoff", &self.initial_backoff)
            .field("max_backoff", &self.max_backoff)
            .field("cache_capacity", &self.cache_capacity)
            .field("properties", &self.properties.keys().collect::<Vec<_>>())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_trims_urls() {
        let c = RegistryConfig::from_url(" http://a:8081/ , https://b ,,");
        assert_eq!(c.urls, vec!["http://a:8081", "https://b"]);
        assert!(c.validate().is_ok());
        assert!(RegistryConfig::from_url("").validate().is_err());
        assert!(RegistryConfig::from_url("ftp://x").validate().is_err());
    }

    #[test]
    fn debug_redacts_credentials() {
        let mut c = RegistryConfig::from_url("http://a");
        c.basic_auth_user_info = Some("user:secret".into());
        assert!(!format!("{c:?}").contains("secret"));
    }
}
