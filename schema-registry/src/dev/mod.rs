//! A small Confluent-API-compatible schema registry for the embedded default, the
//! `karrow registry serve` command and tests: in memory, optionally persisted to a journal
//! file (behind the `dev` feature).
//!
//! - [`http`]: the HTTP/1.1 server (bounded connections, workers, sizes and waits).
//! - [`api`](Registry): the REST API as one function from request to answer.
//! - `store`: subjects, versions, ids, config and mode; the journal.
//! - `schema`: every schema type parsed on registration, and its canonical form.
//! - `compat`: Avro compatibility, decided once per pair of records.
//!
//! Compatibility: NONE, BACKWARD, FORWARD, FULL and their `_TRANSITIVE` forms are enforced
//! for AVRO with Avro schema-resolution rules; for JSON Schema and Protobuf only a change of
//! schema type is refused. Deletes are Confluent's: soft first, then `permanent=true`.

mod api;
mod compat;
pub mod http;
mod schema;
mod store;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

pub use api::Registry;
pub use http::{serve_bytes, Handler, HttpLimits, Request, Response};

use crate::error::RegistryError;
use http::HttpServer;

/// How to run a dev registry.
#[derive(Debug, Clone)]
pub struct DevRegistryOptions {
    /// Address to bind (port 0 picks a free port).
    pub addr: SocketAddr,
    /// Journal file to load from and append to (`None`: in memory only).
    pub persist: Option<PathBuf>,
    /// Bounds of the HTTP server.
    pub limits: HttpLimits,
}

impl DevRegistryOptions {
    /// Options for `addr`, in memory, with the default limits.
    pub fn new(addr: SocketAddr) -> Self {
        DevRegistryOptions {
            addr,
            persist: None,
            limits: HttpLimits::default(),
        }
    }
}

/// Entry point of the dev registry server.
#[derive(Debug, Clone, Copy)]
pub struct DevRegistry;

impl DevRegistry {
    /// Binds `addr` (port 0 picks a free port), loads `persist` when it exists, and serves the
    /// Confluent REST API on background threads until the handle is stopped or dropped.
    pub fn start(
        addr: SocketAddr,
        persist: Option<PathBuf>,
    ) -> Result<DevRegistryHandle, RegistryError> {
        let mut options = DevRegistryOptions::new(addr);
        options.persist = persist;
        Self::start_with(options)
    }

    /// Starts a dev registry with explicit options.
    pub fn start_with(options: DevRegistryOptions) -> Result<DevRegistryHandle, RegistryError> {
        let registry = Arc::new(Registry::open(options.persist)?);
        let handler: Arc<dyn Handler> = Arc::clone(&registry) as Arc<dyn Handler>;
        let addr = options.addr;
        let server =
            HttpServer::start(addr, handler, options.limits).map_err(|e| RegistryError::Dev {
                reason: format!("could not listen on {addr}: {e}"),
            })?;
        Ok(DevRegistryHandle { registry, server })
    }
}

/// A running dev registry. Stops (and frees its port) on [`DevRegistryHandle::stop`] or drop.
pub struct DevRegistryHandle {
    registry: Arc<Registry>,
    server: HttpServer,
}

impl std::fmt::Debug for DevRegistryHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevRegistryHandle")
            .field("addr", &self.addr())
            .finish_non_exhaustive()
    }
}

impl DevRegistryHandle {
    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The bound port (the chosen one when started with port 0).
    pub fn port(&self) -> u16 {
        self.addr().port()
    }

    /// Base URL for clients, e.g. `http://127.0.0.1:8081` (a wildcard address becomes loopback).
    pub fn url(&self) -> String {
        let addr = self.addr();
        let ip = match addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}", SocketAddr::new(ip, addr.port()))
    }

    /// Number of HTTP requests handled so far (for tests of client caching).
    pub fn request_count(&self) -> u64 {
        self.registry.request_count()
    }

    /// The `Authorization` header of the most recent request, `None` if it had none (for tests
    /// of client authentication).
    pub fn last_authorization(&self) -> Option<String> {
        self.registry.last_authorization()
    }

    /// Connections open right now (for tests of the server's bounds).
    pub fn connection_count(&self) -> usize {
        self.server.connection_count()
    }

    /// Blocks the calling thread while the server runs.
    pub fn join(mut self) {
        self.server.join();
    }

    /// Stops serving, closes every connection and frees the port.
    pub fn stop(mut self) {
        self.server.stop();
    }
}
