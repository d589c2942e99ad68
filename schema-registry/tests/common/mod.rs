//! Helpers shared by the integration tests: a dev registry on a free loopback port and a
//! client pointed at it.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use karrow_registry::{DevRegistry, DevRegistryHandle, RegistryClient, RegistryConfig};

/// A record schema with one int field `a`.
pub const V1: &str =
    r#"{"type":"record","name":"User","namespace":"t","fields":[{"name":"a","type":"int"}]}"#;
/// `V1` plus a string field with a default: backward compatible.
pub const V2_COMPATIBLE: &str = r#"{"type":"record","name":"User","namespace":"t","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]}"#;
/// `V1` plus a string field without default: not backward compatible.
pub const V2_INCOMPATIBLE: &str = r#"{"type":"record","name":"User","namespace":"t","fields":[{"name":"a","type":"int"},{"name":"c","type":"string"}]}"#;

/// Starts a dev registry on 127.0.0.1 with a free port.
pub fn start(persist: Option<PathBuf>) -> DevRegistryHandle {
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    DevRegistry::start(addr, persist).expect("dev registry starts")
}

/// A config for `url` with a short timeout and no retries, so failures are fast.
pub fn config(url: &str) -> RegistryConfig {
    let mut cfg = RegistryConfig::from_url(url);
    cfg.timeout = Duration::from_secs(2);
    cfg.max_retries = 0;
    cfg
}

/// A client for a running dev registry.
pub fn client(handle: &DevRegistryHandle) -> RegistryClient {
    RegistryClient::new(config(&handle.url())).expect("client builds")
}

/// A fresh, not yet existing path under the system temp dir.
pub fn temp_path(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "karrow-registry-{name}-{}-{nanos}",
        std::process::id()
    ))
}
