//! What the real-broker tests of this crate share: the broker the test run names, and
//! `tests/services/kafka.sh` to create topics (and restart the broker) on it.
// Each test crate uses only part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The variable naming the broker (`host:port`) the tests run against.
pub const BOOTSTRAP_VAR: &str = "KARROW_TEST_KAFKA_BOOTSTRAP";

/// The broker `BOOTSTRAP_VAR` names, or `None` (the test is skipped, with the reason printed).
pub fn bootstrap() -> Option<String> {
    match std::env::var(BOOTSTRAP_VAR) {
        Ok(b) => Some(b),
        Err(_) => {
            eprintln!("skipped: {BOOTSTRAP_VAR} is not set (see this file's header)");
            None
        }
    }
}

/// `tests/services/kafka.sh ARGS` for the broker at `bootstrap` (at most 180 s).
pub fn kafka_sh(bootstrap: &str, args: &[&str]) -> Output {
    let port = bootstrap.rsplit(':').next().expect("host:port");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/services/kafka.sh");
    Command::new("timeout")
        .arg("180")
        .arg("bash")
        .arg(script)
        .args(args)
        .env("KAFKA_PORT", port)
        .env("KAFKA_STOP_TIMEOUT", "0")
        .output()
        .expect("kafka.sh runs")
}

/// Creates `topic` with `partitions` partitions (replication factor 1).
pub fn create_topic(bootstrap: &str, topic: &str, partitions: u32) {
    create_topic_with(bootstrap, topic, partitions, &[]);
}

/// Creates `topic` with `partitions` partitions and the topic configs `configs`
/// (`key=value` each).
pub fn create_topic_with(bootstrap: &str, topic: &str, partitions: u32, configs: &[&str]) {
    let partitions = partitions.to_string();
    let mut args = vec![
        "run-class",
        "org.apache.kafka.tools.TopicCommand",
        "--bootstrap-server",
        bootstrap,
        "--create",
        "--topic",
        topic,
        "--partitions",
        &partitions,
        "--replication-factor",
        "1",
    ];
    for c in configs {
        args.extend(["--config", c]);
    }
    let out = kafka_sh(bootstrap, &args);
    assert!(
        out.status.success(),
        "create topic {topic}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
