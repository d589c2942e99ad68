//! `karrow bench --bootstrap ... --topic ...` against a real Kafka broker.
//!
//! The broker is the one `tests/run-java-tests.sh` starts for the Java integration tests
//! (`make test` runs this test there, with `KARROW_TEST_KAFKA_BOOTSTRAP` set). Without that
//! variable the broker tests are skipped with a printed reason; with it, an unreachable
//! broker or an unbuilt JVM harness (benches/jvm) is a failure. By hand:
//!
//! ```text
//! KAFKA_PORT=19492 KAFKA_CONTROLLER_PORT=19493 tests/services/kafka.sh start
//! KARROW_TEST_KAFKA_BOOTSTRAP=127.0.0.1:19492 cargo test --release -p karrow --test bench_topic
//! ```
//!
//! Topics are loaded with `io.karrow.bench.TopicDump --load` (the class the CLI runs to
//! read them), under names unique to the run.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::io::{BufRead, BufReader};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use karrow_registry::{RegistryClient, RegistryConfig, SchemaDefinition};

const KARROW: &str = env!("CARGO_BIN_EXE_karrow");
const BOOTSTRAP_VAR: &str = "KARROW_TEST_KAFKA_BOOTSTRAP";
const COLUMNS: &str = "id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), \
                       tags ARRAY<STRING>, attrs MAP<STRING, INT>, nested ROW<x INT, y BYTES>";
const FAST: &[&str] = &[
    "--trials",
    "1",
    "--warmup",
    "1",
    "--min-trial-ms",
    "1",
    "--quiet",
    "--allow-debug",
];

fn bench(args: &[&str]) -> Output {
    Command::new(KARROW)
        .arg("bench")
        .args(args)
        .args(FAST)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn assert_one_line_error(o: &Output, code: i32, needle: &str) {
    assert_eq!(o.status.code(), Some(code), "stderr: {}", stderr(o));
    let text = stderr(o);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("WARNING: DEBUG BUILD"))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].starts_with("karrow: "), "{text}");
    assert!(lines[0].contains(needle), "expected {needle:?} in {text}");
    assert!(!text.contains("panicked"), "{text}");
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("karrow-bench-topic-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn unique(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("karrow-bench-{tag}-{}-{nanos}", std::process::id())
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The JVM harness classpath (TopicDump is in it), or why it is not there.
fn jvm_classpath() -> Result<String, String> {
    let target = root().join("benches/jvm/target");
    let class = target.join("classes/io/karrow/bench/TopicDump.class");
    let list = target.join("classpath.txt");
    if !class.is_file() || !list.is_file() {
        return Err(format!(
            "the JVM harness is not built ({} missing; run `mvn -q -f pom.xml -DskipTests package`)",
            class.display()
        ));
    }
    let deps = std::fs::read_to_string(list).unwrap();
    Ok(format!(
        "{}:{}",
        target.join("classes").display(),
        deps.trim()
    ))
}

fn java() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/java"))
        .filter(|j| j.is_file())
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// The broker of this run: `None` (skip) when the variable is unset; a panic when it is set
/// but the broker does not accept connections or the JVM harness is missing.
fn broker() -> Option<String> {
    let Ok(bootstrap) = std::env::var(BOOTSTRAP_VAR) else {
        eprintln!(
            "skipped: {BOOTSTRAP_VAR} is not set (make test sets it; see this file's header)"
        );
        return None;
    };
    let reachable = bootstrap
        .to_socket_addrs()
        .ok()
        .into_iter()
        .flatten()
        .any(|a| TcpStream::connect_timeout(&a, Duration::from_secs(5)).is_ok());
    assert!(
        reachable,
        "{BOOTSTRAP_VAR}={bootstrap}, but no broker accepts connections there"
    );
    if let Err(e) = jvm_classpath() {
        panic!("{BOOTSTRAP_VAR} is set, but {e}");
    }
    Some(bootstrap)
}

/// Produces a length-prefixed message file into a new topic of `partitions` partitions.
fn load(bootstrap: &str, topic: &str, file: &Path, partitions: u32) {
    let o = Command::new(java())
        .arg("-cp")
        .arg(jvm_classpath().unwrap())
        .arg("io.karrow.bench.TopicDump")
        .args(["--bootstrap", bootstrap, "--topic", topic, "--load"])
        .arg(file)
        .args(["--partitions", &partitions.to_string()])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("\"ok\":true"),
        "loading {topic}: {out} {}",
        stderr(&o)
    );
}

/// Generates `n` messages into `file` with the schema options `schema`.
fn generate(schema: &[&str], n: usize, file: &Path) {
    let n = n.to_string();
    let mut args = schema.to_vec();
    args.extend([
        "--generate",
        &n,
        "--save-messages",
        file.to_str().unwrap(),
        "--no-stock",
    ]);
    let o = bench(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn topic_arguments_are_checked() {
    assert_one_line_error(
        &bench(&["--columns", "a INT", "--topic", "t"]),
        2,
        "--bootstrap",
    );
    assert_one_line_error(
        &bench(&["--columns", "a INT", "--bootstrap", "127.0.0.1:9092"]),
        2,
        "--topic",
    );
    assert_one_line_error(
        &bench(&[
            "--columns",
            "a INT",
            "--bootstrap",
            "127.0.0.1:9092",
            "--topic",
            "t",
            "--input",
            "x.bin",
        ]),
        2,
        "cannot be used with",
    );
    assert_one_line_error(
        &bench(&[
            "--columns",
            "a INT",
            "--bootstrap",
            "127.0.0.1:9092",
            "--topic",
            "t",
            "--limit",
            "0",
        ]),
        2,
        "--limit",
    );
}

/// Nothing listens on port 1: a one-line error within the timeout, no broker needed.
#[test]
fn unreachable_broker_is_a_one_line_error() {
    if let Err(e) = jvm_classpath() {
        assert!(
            std::env::var_os(BOOTSTRAP_VAR).is_none(),
            "{BOOTSTRAP_VAR} is set, but {e}"
        );
        eprintln!("skipped: {e}");
        return;
    }
    let start = Instant::now();
    let o = bench(&[
        "--columns",
        "a INT",
        "--bootstrap",
        "127.0.0.1:1",
        "--topic",
        "t",
        "--kafka-timeout-ms",
        "2000",
        "--no-stock",
    ]);
    assert_one_line_error(&o, 1, "kafka: no Kafka broker answered at 127.0.0.1:1");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn topic_on_the_real_broker() {
    let Some(bootstrap) = broker() else { return };
    let b = bootstrap.as_str();

    // 300 generated messages and a tombstone, over 3 partitions.
    let file = temp("gen.bin");
    generate(&["--columns", COLUMNS], 300, &file);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(&u32::MAX.to_be_bytes());
    std::fs::write(&file, bytes).unwrap();
    let topic = unique("rows");
    load(b, &topic, &file, 3);

    // All of it, against stock Flink when the harness is there (it is: TopicDump is in it).
    let v = json(&bench(&[
        "--columns",
        COLUMNS,
        "--bootstrap",
        b,
        "--topic",
        &topic,
        "--json",
        "--jvm-warmup-ms",
        "100",
        "--verify",
        "0",
    ]));
    assert_eq!(v["messages"], 301, "{v}");
    let origin = v["message_origin"].as_str().unwrap();
    assert!(
        origin.contains(&topic) && origin.contains("3 partitions"),
        "{origin}"
    );
    assert!(v["stock_note"].is_null(), "{}", v["stock_note"]);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.iter().filter(|r| r["side"] == "stock").count(), 2);
    assert_eq!(results.iter().filter(|r| r["side"] == "native").count(), 4);
    for r in results {
        assert!(
            r["figures"]["records_per_s"]["median"].as_f64().unwrap() > 0.0,
            "{r}"
        );
    }
    let checks = v["verification"].as_array().unwrap();
    assert_eq!(checks.len(), 4, "{checks:?}");
    assert!(checks.iter().all(|c| c["equal"] == true), "{checks:?}");

    // --limit.
    let v = json(&bench(&[
        "--columns",
        COLUMNS,
        "--bootstrap",
        b,
        "--topic",
        &topic,
        "--limit",
        "120",
        "--json",
        "--no-stock",
    ]));
    assert_eq!(v["messages"], 120);
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("holds 301 values") && notes.contains("--limit"),
        "{notes}"
    );

    // No such topic; an empty topic.
    assert_one_line_error(
        &bench(&[
            "--columns",
            COLUMNS,
            "--bootstrap",
            b,
            "--topic",
            &unique("missing"),
            "--no-stock",
        ]),
        1,
        "does not exist",
    );
    let empty = unique("empty");
    let empty_file = temp("empty.bin");
    std::fs::write(&empty_file, b"").unwrap();
    load(b, &empty, &empty_file, 2);
    assert_one_line_error(
        &bench(&[
            "--columns",
            COLUMNS,
            "--bootstrap",
            b,
            "--topic",
            &empty,
            "--no-stock",
        ]),
        1,
        "is empty",
    );
}

/// Schema ids of topic messages: looked up in `--registry`, or (without it) rewritten to
/// the one schema given, as for `--input`.
#[test]
fn topic_schema_ids_with_and_without_registry() {
    let Some(bootstrap) = broker() else { return };
    let b = bootstrap.as_str();

    let mut registry = Killed(
        Command::new(KARROW)
            .args(["registry", "serve", "--host", "127.0.0.1", "--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(registry.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim_end()
        .strip_prefix("karrow dev registry listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    let client = RegistryClient::new(RegistryConfig::from_url(&url)).unwrap();
    // Another schema first, so the bids' id is not the id the in-process registry gives.
    client
        .register("other-value", &SchemaDefinition::avro(r#""string""#))
        .unwrap();
    let avsc = r#"{"type":"record","name":"bid","fields":[{"name":"auction","type":"long"},{"name":"bidder","type":["null","string"],"default":null},{"name":"price","type":"double"}]}"#;
    let id = client
        .register("bids-value", &SchemaDefinition::avro(avsc))
        .unwrap();
    assert!(id > 1, "{id}");

    let file = temp("bids.bin");
    generate(&["--registry", &url, "--subject", "bids-value"], 200, &file);
    let data = std::fs::read(&file).unwrap();
    assert_eq!(&data[4..9], &[&[0u8][..], &id.to_be_bytes()].concat()[..]);
    let topic = unique("bids");
    load(b, &topic, &file, 2);

    let with_registry = json(&bench(&[
        "--registry",
        &url,
        "--subject",
        "bids-value",
        "--bootstrap",
        b,
        "--topic",
        &topic,
        "--json",
        "--no-stock",
    ]));
    assert_eq!(with_registry["messages"], 200);
    assert!(
        !with_registry["notes"].to_string().contains("schema id"),
        "{}",
        with_registry["notes"]
    );

    let schema_file = temp("bid.avsc");
    std::fs::write(&schema_file, avsc).unwrap();
    let without = json(&bench(&[
        "--schema",
        schema_file.to_str().unwrap(),
        "--bootstrap",
        b,
        "--topic",
        &topic,
        "--json",
        "--no-stock",
    ]));
    assert_eq!(without["messages"], 200);
    assert!(
        without["notes"]
            .to_string()
            .contains("200 messages carried another schema id"),
        "{}",
        without["notes"]
    );
}

/// A child process killed when dropped (also when the test panics).
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `--format json` over a topic of plain JSON values (and a tombstone), against stock
/// flink-json: no schema ids to point anywhere, every row and encoded message equal.
#[test]
fn json_topic_on_the_real_broker() {
    let Some(bootstrap) = broker() else { return };
    let columns = "id BIGINT NOT NULL, s STRING, f DOUBLE, tags ARRAY<STRING>, \
                   attrs MAP<STRING, INT>, ts TIMESTAMP(3)";
    let file = temp("gen-json.bin");
    generate(&["--format", "json", "--columns", columns], 200, &file);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(&u32::MAX.to_be_bytes());
    std::fs::write(&file, bytes).unwrap();
    let topic = unique("json-rows");
    load(&bootstrap, &topic, &file, 2);

    let v = json(&bench(&[
        "--format",
        "json",
        "--columns",
        columns,
        "--bootstrap",
        &bootstrap,
        "--topic",
        &topic,
        "--json",
        "--jvm-warmup-ms",
        "100",
        "--verify",
        "0",
    ]));
    assert_eq!(v["format"], "json");
    assert_eq!(v["messages"], 201, "{v}");
    assert!(v["stock_note"].is_null(), "{}", v["stock_note"]);
    let notes = v["notes"].as_array().unwrap();
    assert!(
        !notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("schema id")),
        "JSON values have no ids to rewrite: {notes:?}"
    );
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.iter().filter(|r| r["side"] == "stock").count(), 2);
    for r in results.iter().filter(|r| r["side"] == "native") {
        // Decode counts messages, encode rows (the tombstone gives none).
        let records = if r["op"].as_str().unwrap().starts_with("decode") {
            201
        } else {
            200
        };
        assert_eq!(r["figures"]["records_per_pass"], records, "{r}");
        assert!(r["ratio_vs_stock"].as_f64().unwrap() > 0.0, "{r}");
    }
    let checks = v["verification"].as_array().unwrap();
    assert_eq!(checks.len(), 4, "{checks:?}");
    assert!(checks.iter().all(|c| c["equal"] == true), "{checks:?}");
}
