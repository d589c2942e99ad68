//! A small Confluent-API-compatible schema registry for the embedded default, the
//! `karrow registry serve` command and tests: in memory, optionally persisted to a JSON file.
//!
//! Compatibility: NONE, BACKWARD, FORWARD, FULL and their `_TRANSITIVE` forms are enforced
//! for AVRO with Avro schema-resolution rules; for JSON Schema and Protobuf every change is
//! accepted (only a change of schema type is refused). Deleting a subject is a hard delete:
//! its version numbers start again at 1, while its schema ids stay resolvable.

mod api_error;
mod compat;
mod persist;
mod server;
mod store;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::error::RegistryError;
use server::Shared;
use store::Store;

/// Number of threads serving requests.
const WORKERS: usize = 4;

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
        let store = Store::open(persist)?;
        let server = tiny_http::Server::http(addr).map_err(|e| RegistryError::Dev {
            reason: format!("could not listen on {addr}: {e}"),
        })?;
        let bound = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| RegistryError::Dev {
                reason: format!("{addr} did not bind to an IP address"),
            })?;
        let server = Arc::new(server);
        let shared = Arc::new(Shared::new(store));
        let mut workers = Vec::with_capacity(WORKERS);
        for i in 0..WORKERS {
            let (srv, state) = (Arc::clone(&server), Arc::clone(&shared));
            let spawned = std::thread::Builder::new()
                .name(format!("karrow-dev-registry-{i}"))
                .spawn(move || server::worker(&srv, &state));
            match spawned {
                Ok(handle) => workers.push(handle),
                Err(e) => {
                    let mut partial = DevRegistryHandle {
                        addr: bound,
                        server,
                        shared,
                        workers,
                    };
                    partial.shutdown();
                    return Err(RegistryError::Dev {
                        reason: format!("could not start a server thread for {bound}: {e}"),
                    });
                }
            }
        }
        Ok(DevRegistryHandle {
            addr: bound,
            server,
            shared,
            workers,
        })
    }
}

/// A running dev registry. Stops (and frees its port) on [`DevRegistryHandle::stop`] or drop.
pub struct DevRegistryHandle {
    addr: SocketAddr,
    server: Arc<tiny_http::Server>,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for DevRegistryHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevRegistryHandle")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl DevRegistryHandle {
    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bound port (the chosen one when started with port 0).
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Base URL for clients, e.g. `http://127.0.0.1:8081` (a wildcard address becomes loopback).
    pub fn url(&self) -> String {
        let ip = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        format!("http://{}", SocketAddr::new(ip, self.addr.port()))
    }

    /// Number of HTTP requests received so far (for tests of client caching).
    pub fn request_count(&self) -> u64 {
        self.shared.request_count()
    }

    /// The `Authorization` header of the most recent request, `None` if it had none (for tests
    /// of client authentication).
    pub fn last_authorization(&self) -> Option<String> {
        self.shared.last_authorization()
    }

    /// Blocks the calling thread while the server runs (until another thread stops it).
    pub fn join(mut self) {
        for worker in self.workers.drain(..) {
            // A worker that panicked has already stopped serving; nothing to propagate.
            let _ = worker.join();
        }
    }

    /// Stops serving, waits for the worker threads and frees the port.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        for _ in 0..self.workers.len() {
            self.server.unblock();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

impl Drop for DevRegistryHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}
