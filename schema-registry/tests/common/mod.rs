//! Helpers shared by the integration tests: a dev registry on a free loopback port and a
//! client pointed at it.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test
#![allow(dead_code)]

pub mod http;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use karrow_registry::{
    DevRegistry, DevRegistryHandle, DevRegistryOptions, RegistryClient, RegistryConfig,
};

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

/// Starts a dev registry with explicit options.
pub fn start_with(options: DevRegistryOptions) -> DevRegistryHandle {
    DevRegistry::start_with(options).expect("dev registry starts")
}

/// A writer and a reader schema, `depth` levels of nested unions of aliased records: at each
/// level the reader union offers two records aliased to the writer's (`A{i}`, which fails on
/// its last field, and `B{i}`, which fits). Retrying union branches without remembering
/// decided pairs doubles the work per level.
pub fn nested_aliased_unions(depth: usize) -> (String, String) {
    let record = |name: &str, aliases: &str, fields: &str| {
        format!(r#"{{"type":"record","name":"{name}","aliases":[{aliases}],"fields":[{fields}]}}"#)
    };
    let mut writer = record("W0", "", r#"{"name":"v","type":"int"}"#);
    let mut union = format!(
        r#"["null",{},{}]"#,
        record("A0", r#""W0""#, r#"{"name":"v","type":"string"}"#),
        record("B0", r#""W0""#, r#"{"name":"v","type":"int"}"#)
    );
    for i in 1..depth {
        let alias = format!(r#""W{i}""#);
        writer = record(
            &format!("W{i}"),
            "",
            &format!(r#"{{"name":"f","type":["null",{writer}]}},{{"name":"g","type":"int"}}"#),
        );
        let a = record(
            &format!("A{i}"),
            &alias,
            &format!(r#"{{"name":"f","type":{union}}},{{"name":"g","type":"string"}}"#),
        );
        let b = record(
            &format!("B{i}"),
            &alias,
            &format!(
                r#"{{"name":"f","type":["null","A{p}","B{p}"]}},{{"name":"g","type":"int"}}"#,
                p = i - 1
            ),
        );
        union = format!(r#"["null",{a},{b}]"#);
    }
    let fields = |f: &str| format!(r#"{{"name":"f","type":{f}}},{{"name":"g","type":"int"}}"#);
    let top = format!("W{depth}");
    let writer = record(&top, "", &fields(&format!(r#"["null",{writer}]"#)));
    let reader = record("R", &format!(r#""{top}""#), &fields(&union));
    (writer, reader)
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
