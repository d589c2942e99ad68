//! `karrow bench` as a process: argument errors, bad input, deterministic generation, a
//! run with `--json`, the HTML report, and (when the JVM harness is built) the comparison
//! with stock Flink.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KARROW: &str = env!("CARGO_BIN_EXE_karrow");
const COLUMNS: &str = "id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), \
                       tags ARRAY<STRING>, attrs MAP<STRING, INT>, f FLOAT, nested ROW<x INT, y BYTES>";
/// Fast settings: the figures do not matter here.
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

/// The error output is one `karrow: ...` line (after the debug-build warning, if any).
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
    let dir = std::env::temp_dir().join(format!("karrow-bench-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A count far beyond memory is refused before anything is allocated (it aborted the
/// process: the capacity was taken from the argument); so are string and collection
/// lengths beyond their limits (messages that together outgrow the corpus limit: the
/// generator's unit tests).
#[test]
fn generating_beyond_the_corpus_limit_is_a_usage_error_not_an_abort() {
    let huge = usize::MAX.to_string();
    assert_one_line_error(
        &bench(&["--columns", "a BIGINT", "--generate", &huge, "--no-stock"]),
        2,
        "at most",
    );
    let long = (u64::MAX / 4).to_string();
    assert_one_line_error(
        &bench(&[
            "--columns",
            "s STRING NOT NULL",
            "--generate",
            "2",
            "--string-len",
            &long,
            "--no-stock",
        ]),
        2,
        "--string-len",
    );
}

#[test]
fn argument_errors_exit_2_with_one_line() {
    assert_one_line_error(&bench(&["--generate", "10"]), 2, "no schema");
    assert_one_line_error(&bench(&["--columns", "a INT"]), 2, "no messages");
    assert_one_line_error(
        &bench(&[
            "--columns",
            "a INT",
            "--generate",
            "5",
            "--null-rate",
            "1.5",
        ]),
        2,
        "between 0 and 1",
    );
    assert_one_line_error(
        &bench(&[
            "--format",
            "thrift",
            "--columns",
            "a INT",
            "--generate",
            "5",
        ]),
        2,
        "thrift",
    );
    assert_one_line_error(
        &bench(&["--subject", "s", "--generate", "5"]),
        2,
        "--registry",
    );
    assert_one_line_error(
        &bench(&["--columns", "a INT", "--generate", "5", "--threads", "0"]),
        2,
        "threads",
    );
    assert_one_line_error(
        &bench(&["--columns", "a INT", "--generate", "5", "--input", "x"]),
        2,
        "cannot be used with",
    );
}

#[test]
fn bad_input_exits_1_with_one_line() {
    assert_one_line_error(
        &bench(&["--columns", "a FOO", "--generate", "5", "--no-stock"]),
        1,
        "unknown or unsupported type 'FOO'",
    );
    assert_one_line_error(
        &bench(&["--columns", "a INT,", "--generate", "5", "--no-stock"]),
        1,
        "expected a column name",
    );
    assert_one_line_error(
        &bench(&[
            "--schema",
            "/nonexistent/x.avsc",
            "--generate",
            "5",
            "--no-stock",
        ]),
        1,
        "/nonexistent/x.avsc",
    );
    let avsc = temp("union.avsc");
    std::fs::write(
        &avsc,
        r#"{"type":"record","name":"r","fields":[{"name":"u","type":["int","string"]}]}"#,
    )
    .unwrap();
    assert_one_line_error(
        &bench(&[
            "--schema",
            avsc.to_str().unwrap(),
            "--generate",
            "5",
            "--no-stock",
        ]),
        1,
        "RAW",
    );
    std::fs::write(&avsc, "{ not json").unwrap();
    assert_one_line_error(
        &bench(&[
            "--schema",
            avsc.to_str().unwrap(),
            "--generate",
            "5",
            "--no-stock",
        ]),
        1,
        "not JSON",
    );
    assert_one_line_error(
        &bench(&[
            "--registry",
            "http://127.0.0.1:1",
            "--subject",
            "s",
            "--generate",
            "5",
            "--no-stock",
        ]),
        1,
        "schema registry",
    );
    // TIMESTAMP(6) has no Avro schema in Flink's legacy mapping.
    assert_one_line_error(
        &bench(&[
            "--columns",
            "t TIMESTAMP(6)",
            "--generate",
            "5",
            "--no-stock",
        ]),
        1,
        "TIMESTAMP",
    );

    // Messages that do not decode: a truncated header, then a datum cut short.
    let bad = temp("bad.bin");
    let mut bytes = Vec::new();
    for m in [&[0u8, 0, 0, 0, 1, 2][..], &[0u8, 0, 0, 0, 1]] {
        bytes.extend_from_slice(&(m.len() as u32).to_be_bytes());
        bytes.extend_from_slice(m);
    }
    std::fs::write(&bad, &bytes).unwrap();
    assert_one_line_error(
        &bench(&[
            "--columns",
            "a BIGINT NOT NULL",
            "--input",
            bad.to_str().unwrap(),
            "--no-stock",
        ]),
        1,
        "message 1 does not decode",
    );
    // Not a length-prefixed file.
    std::fs::write(&bad, b"hello world").unwrap();
    assert_one_line_error(
        &bench(&[
            "--columns",
            "a BIGINT NOT NULL",
            "--input",
            bad.to_str().unwrap(),
            "--no-stock",
        ]),
        1,
        "length-prefixed",
    );
}

fn generate(seed: &str, out: &Path) {
    let o = bench(&[
        "--columns",
        COLUMNS,
        "--generate",
        "300",
        "--seed",
        seed,
        "--save-messages",
        out.to_str().unwrap(),
        "--no-stock",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn generation_is_deterministic() {
    let (a, b, c) = (temp("a.bin"), temp("b.bin"), temp("c.bin"));
    generate("7", &a);
    generate("7", &b);
    generate("8", &c);
    let (a, b, c) = (
        std::fs::read(a).unwrap(),
        std::fs::read(b).unwrap(),
        std::fs::read(c).unwrap(),
    );
    assert!(a.len() > 300 * 10, "{}", a.len());
    assert_eq!(a, b, "same seed, same bytes");
    assert_ne!(a, c, "another seed, other bytes");
}

/// Runs `karrow bench` with `args` (which must succeed) and parses its `--json` output.
fn bench_json(args: &[&str]) -> serde_json::Value {
    let o = bench(args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

/// The `--json` output of a run over 400 generated messages in batches of 64, configured
/// by `args` and then `extra`.
fn generated_run(args: &[&str], extra: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--generate", "400", "--batch-size", "64", "--json"]);
    all.extend_from_slice(extra);
    bench_json(&all)
}

fn json_run(extra: &[&str]) -> serde_json::Value {
    generated_run(&["--columns", COLUMNS], extra)
}

/// The checks of a run, every one of which found both sides equal.
fn assert_all_checks_equal(v: &serde_json::Value) -> &[serde_json::Value] {
    let checks = v["verification"].as_array().unwrap();
    assert!(checks.iter().all(|c| c["equal"] == true), "{checks:?}");
    checks
}

/// The notes of a run.
fn notes(v: &serde_json::Value) -> Vec<&str> {
    v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect()
}

/// The messages of a `--save-messages` file (each after its 4-byte big-endian length).
fn saved_messages(path: &Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap();
    let (mut at, mut messages) = (0, Vec::new());
    while at < data.len() {
        let len = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        messages.push(data[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    messages
}

/// The schema ids in the Confluent headers of `messages`, each checked to start with the
/// magic byte.
fn confluent_schema_ids(messages: &[Vec<u8>]) -> std::collections::BTreeSet<i32> {
    messages
        .iter()
        .map(|m| {
            assert_eq!(m[0], 0, "magic byte");
            i32::from_be_bytes(m[1..5].try_into().unwrap())
        })
        .collect()
}

/// A run with stock Flink in it: no stock note, the stock lines `stock_names`, figures on
/// every line and a ratio to stock on every native one, and four checks that found both
/// sides equal over all 400 messages (returned).
fn assert_stock_ran_alongside<'a>(
    v: &'a serde_json::Value,
    stock_names: &[&str],
) -> &'a [serde_json::Value] {
    let format = &v["format"];
    assert!(v["stock_note"].is_null(), "{format}: {}", v["stock_note"]);
    let results = v["results"].as_array().unwrap();
    let stock: Vec<&str> = results
        .iter()
        .filter(|r| r["side"] == "stock")
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(stock, stock_names, "{format}");
    for r in results {
        assert!(
            r["figures"]["records_per_s"]["median"].as_f64().unwrap() > 0.0,
            "{r}"
        );
        if r["side"] == "native" {
            assert!(r["ratio_vs_stock"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
    let checks = v["verification"].as_array().unwrap();
    assert_eq!(checks.len(), 4, "{format}");
    for c in checks {
        assert_eq!(c["equal"], true, "{format}: {c}");
        assert_eq!(c["compared"], 400, "{format}: {c}");
    }
    checks
}

#[test]
fn json_run_over_a_generated_corpus() {
    let v = json_run(&["--no-stock", "--threads", "2"]);
    assert_eq!(v["format"], "avro-confluent");
    assert_eq!(v["messages"], 400);
    assert_eq!(v["threads"], 2);
    assert!(v["message_bytes"].as_u64().unwrap() > 400 * 5);
    assert!(v["row_type"]
        .as_str()
        .unwrap()
        .starts_with("ROW<`id` BIGINT NOT NULL"));
    let results = v["results"].as_array().unwrap();
    let ops: Vec<&str> = results.iter().map(|r| r["op"].as_str().unwrap()).collect();
    assert_eq!(
        ops,
        [
            "decode_binary",
            "decode_arrow",
            "encode_binary",
            "encode_arrow"
        ]
    );
    for r in results {
        assert_eq!(r["side"], "native");
        let f = &r["figures"];
        assert!(f["records_per_s"]["median"].as_f64().unwrap() > 0.0, "{r}");
        assert!(f["mb_per_s"]["median"].as_f64().unwrap() > 0.0, "{r}");
        assert!(f["ns_per_record"]["median"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(f["trial_ns"].as_array().unwrap().len(), 1);
        assert!(f["allocs_per_record"].as_f64().is_some(), "{r}");
        assert!(f["peak_rss_kib"].as_u64().unwrap() > 0, "{r}");
    }
    // Without stock Flink the native paths are checked against each other.
    assert_eq!(assert_all_checks_equal(&v).len(), 2);
    assert!(v["stock_note"].as_str().unwrap().contains("--no-stock"));
}

#[test]
fn input_files_in_both_layouts() {
    let lp = temp("in.bin");
    generate("3", &lp);
    let o = bench(&[
        "--columns",
        COLUMNS,
        "--input",
        lp.to_str().unwrap(),
        "--no-stock",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["messages"], 300);

    // The same messages as base64 lines, plus a null value.
    let data = std::fs::read(&lp).unwrap();
    let mut text = String::new();
    let mut at = 0;
    while at < data.len() {
        let len = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        text.push_str(&b64(&data[at + 4..at + 4 + len]));
        text.push('\n');
        at += 4 + len;
    }
    text.push_str("-\n");
    let lines = temp("in.b64");
    std::fs::write(&lines, text).unwrap();
    let o = bench(&[
        "--columns",
        COLUMNS,
        "--input",
        lines.to_str().unwrap(),
        "--input-format",
        "base64-lines",
        "--no-stock",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["messages"], 301);
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Checks that every tag in `text` is closed in order (enough to catch broken markup).
fn assert_balanced(text: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let close = rest.find('>').expect("unclosed '<'");
        let tag = &rest[..close];
        rest = &rest[close + 1..];
        if tag.starts_with('!') || tag.ends_with('/') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name == "meta" {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.as_str()),
                "mismatched </{name}>"
            );
        } else {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed tags {stack:?}");
}

#[test]
fn report_is_written_and_well_formed() {
    let dir = temp("report");
    let o = bench(&[
        "--columns",
        COLUMNS,
        "--generate",
        "200",
        "--no-stock",
        "--report",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("decode to Flink rows") && stdout.contains("report:"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_balanced(&html);
    assert_eq!(
        html.matches("<svg xmlns=\"http://www.w3.org/2000/svg\"")
            .count(),
        3
    );
    assert_eq!(html.matches("</svg>").count(), 3);
    assert!(html.contains("Throughput by operation") && html.contains("Nanoseconds per record"));
    assert!(
        html.matches("<rect ").count() >= 8,
        "native bars in two charts"
    );
    assert!(
        !html.contains("http://") || !html.contains("<script"),
        "no external resources"
    );
    assert!(!html.contains("<script") && !html.contains("<link"));
}

#[cfg(debug_assertions)]
#[test]
fn debug_build_refuses_without_allow_debug() {
    let o = Command::new(KARROW)
        .args([
            "bench",
            "--columns",
            "a INT",
            "--generate",
            "5",
            "--no-stock",
        ])
        .output()
        .unwrap();
    assert_one_line_error(&o, 1, "debug build");
}

/// Whether `java` and the built JVM harness are there (`make test` builds it, so under
/// `CI=true` its absence fails the test instead of skipping it).
fn harness_available() -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let harness = root.join("benches/jvm/target/classes/io/karrow/bench/StockSerdeHarness.class");
    let java = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("java").is_file());
    if !harness.is_file() || !java {
        let msg = format!(
            "no java on PATH or the JVM harness is not built ({})",
            harness.display()
        );
        // `make test` builds the harness before the Rust tests, so CI must run this test.
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "CI=true and {msg}"
        );
        eprintln!("skipped: {msg}");
        return false;
    }
    true
}

/// Stock Flink in the same run, when `java` and the built JVM harness are there.
#[test]
fn against_stock_flink_when_the_harness_is_built() {
    if !harness_available() {
        return;
    }
    let v = json_run(&["--jvm-warmup-ms", "100", "--verify", "0"]);
    assert_stock_ran_alongside(&v, &["decode (flink-avro)", "encode (flink-avro)"]);
}

/// Every type json-native reads from `--columns` (no interval: the DDL parser has none).
const JSON_COLUMNS: &str = "id BIGINT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, \
     f FLOAT, g DOUBLE, price DECIMAL(10, 2), big DECIMAL(38, 9), c CHAR(3), s STRING, \
     y BYTES, d DATE, t TIME(3), ts TIMESTAMP(3), ts9 TIMESTAMP(9), tl TIMESTAMP_LTZ(6), \
     tags ARRAY<STRING>, attrs MAP<STRING, INT>, ms MULTISET<STRING>, \
     nested ROW<x INT, y BYTES, z ARRAY<ROW<w DOUBLE>>>";
/// The same without MAP and MULTISET: encoded messages are then compared byte for byte.
const JSON_COLUMNS_NO_MAPS: &str = "id BIGINT NOT NULL, b BOOLEAN, f FLOAT, g DOUBLE, \
     price DECIMAL(10, 2), s STRING, y BYTES, d DATE, t TIME(0), ts TIMESTAMP(9), \
     tl TIMESTAMP_LTZ(3), tags ARRAY<FLOAT>, nested ROW<x INT, z ARRAY<ROW<w DOUBLE>>>";

fn json_format_run(format: &str, columns: &str, extra: &[&str]) -> serde_json::Value {
    generated_run(&["--format", format, "--columns", columns], extra)
}

/// The native lines of a run of `format` (returned): all four operations measured over the
/// whole corpus of 400 messages, decode reading exactly the corpus's bytes.
fn assert_native_lines_cover_the_corpus<'a>(
    v: &'a serde_json::Value,
    format: &str,
) -> Vec<&'a serde_json::Value> {
    assert_eq!(v["format"], format);
    let native: Vec<&serde_json::Value> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["side"] == "native")
        .collect();
    assert_eq!(native.len(), 4, "{v}");
    for r in &native {
        let f = &r["figures"];
        assert!(r["withheld"].is_null(), "{r}");
        assert_eq!(f["records_per_pass"], 400, "{r}");
        assert!(f["records_per_s"]["median"].as_f64().unwrap() > 0.0, "{r}");
        if r["op"].as_str().unwrap().starts_with("decode") {
            assert_eq!(f["bytes_per_pass"], v["message_bytes"], "{r}");
        } else {
            assert!(f["bytes_per_pass"].as_u64().unwrap() > 400 * 10, "{r}");
        }
    }
    native
}

/// The native lines of a run measured json-native cover the corpus, and the in-process
/// counting allocator saw their work (it only sees native code).
fn assert_native_json_engaged(v: &serde_json::Value) {
    for r in assert_native_lines_cover_the_corpus(v, "json") {
        assert!(
            r["figures"]["alloc_bytes_per_record"].as_f64().is_some(),
            "{r}"
        );
    }
}

/// `--format json` without stock Flink: JSON messages generated for every type, the two
/// native decode paths and the two encode paths checked against each other.
#[test]
fn json_format_over_a_generated_corpus() {
    let saved = temp("json.bin");
    let v = json_format_run("json", JSON_COLUMNS, &no_stock_saving_to(&saved));
    assert_native_json_engaged(&v);
    assert_eq!(v["writer_schema"], "");
    assert!(v["schema"].as_str().unwrap().contains("plain json values"));
    assert_eq!(assert_all_checks_equal(&v).len(), 2);
    assert!(notes(&v).iter().any(|n| n.contains("no Arrow path")));

    // The messages are JSON objects with every column, in declared order.
    let messages = saved_messages(&saved);
    let mut nulls = 0;
    for message in &messages {
        let parsed: serde_json::Value = serde_json::from_slice(message)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(message)));
        let object = parsed.as_object().unwrap();
        assert_eq!(object.len(), 21, "{parsed}");
        assert!(message.starts_with(b"{\"id\":"), "{parsed}");
        assert!(object["id"].is_i64(), "{parsed}");
        nulls += object.values().filter(|x| x.is_null()).count();
    }
    assert_eq!(messages.len(), 400);
    assert!(nulls > 0, "the null rate gives NULL fields");
}

#[test]
fn json_format_argument_and_input_errors() {
    let avsc = temp("json-args.avsc");
    std::fs::write(&avsc, r#"{"type":"record","name":"r","fields":[]}"#).unwrap();
    assert_one_line_error(
        &bench(&[
            "--format",
            "json",
            "--schema",
            avsc.to_str().unwrap(),
            "--generate",
            "5",
        ]),
        2,
        "has no registry schema",
    );
    assert_one_line_error(
        &bench(&["--format", "json-native", "--generate", "5"]),
        2,
        "--columns",
    );
    assert_one_line_error(
        &bench(&[
            "--format",
            "json",
            "--columns",
            "m MAP<INT, STRING>",
            "--generate",
            "5",
            "--no-stock",
        ]),
        1,
        "CHAR or VARCHAR keys",
    );
    // A message that is not JSON, and one that gives two rows, name their index.
    for (second, needle) in [
        (&br#"{"a":"x"#[..], "message 1 does not decode"),
        (br#"[{"a":1},{"a":2}]"#, "gives 2 rows"),
    ] {
        let lines = temp("json-bad.b64");
        std::fs::write(&lines, format!("{}\n{}\n", b64(br#"{"a":1}"#), b64(second))).unwrap();
        assert_one_line_error(
            &bench(&[
                "--format",
                "json",
                "--columns",
                "a INT",
                "--input",
                lines.to_str().unwrap(),
                "--input-format",
                "base64-lines",
                "--no-stock",
            ]),
            1,
            needle,
        );
    }
}

/// A JSON message file (with a null value and an empty message, which give no row) is read
/// and compared like a generated corpus.
#[test]
fn json_format_reads_message_files() {
    let mut text = String::new();
    for m in [
        &br#"{"a":1,"s":"x"}"#[..],
        br#"{"s":"only s"}"#,
        b"",
        br#"  {"a":-7 , "s":"\u00e9\n", "extra":[1,2]}"#,
    ] {
        text.push_str(&b64(m));
        text.push('\n');
    }
    text.push_str("-\n");
    let lines = temp("json-in.b64");
    std::fs::write(&lines, text).unwrap();
    let o = bench(&[
        "--format",
        "json",
        "--columns",
        "a INT, s STRING",
        "--input",
        lines.to_str().unwrap(),
        "--input-format",
        "base64-lines",
        "--no-stock",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["messages"], 5);
    let encode = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["op"] == "encode_binary")
        .unwrap();
    assert_eq!(
        encode["figures"]["records_per_pass"], 3,
        "three rows: {encode}"
    );

    // The terminal table and the HTML report of the same run.
    let dir = temp("json-report");
    let o = bench(&[
        "--format",
        "json",
        "--columns",
        "a INT, s STRING",
        "--input",
        lines.to_str().unwrap(),
        "--input-format",
        "base64-lines",
        "--no-stock",
        "--report",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.starts_with("karrow bench · json · 5 messages")
            && table.contains("encode from Arrow"),
        "{table}"
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("<title>karrow bench: json"), "{html}");
    assert_balanced(&html);
}

/// `--format json` against stock flink-json in the same run, when `java` and the JVM
/// harness are there: rows equal, encoded messages equal (byte for byte without maps),
/// stock figures from flink-json, and FLOAT/DOUBLE spelled as the stock JVM spells them.
#[test]
fn json_format_against_stock_flink_when_the_harness_is_built() {
    if !harness_available() {
        return;
    }
    for (columns, how) in [
        (JSON_COLUMNS, "read back as rows"),
        (JSON_COLUMNS_NO_MAPS, "byte for byte"),
    ] {
        let v = json_format_run(
            "json",
            columns,
            &["--jvm-warmup-ms", "100", "--verify", "0"],
        );
        assert_native_json_engaged(&v);
        let checks =
            assert_stock_ran_alongside(&v, &["decode (flink-json)", "encode (flink-json)"]);
        assert!(
            checks[2]["what"].as_str().unwrap().contains(how),
            "{}",
            checks[2]
        );
        let notes = notes(&v);
        let java = notes
            .iter()
            .find_map(|n| n.strip_prefix("stock Flink ran on Java "))
            .unwrap();
        let feature = java.split(['.', ';', '-', '+']).next().unwrap();
        assert!(
            notes.iter().any(|n| n.contains(&format!(
                "json-native writes FLOAT/DOUBLE as Java {feature}'s"
            ))),
            "{notes:?}"
        );
    }
}

/// `--format json-confluent`: generated values carry Confluent's header with the id of the
/// derived JSON Schema, then the JSON; native decode and encode checked against each other
/// and, when the harness is built, against flink-json after the header (byte for byte
/// without maps).
#[test]
fn json_confluent_format_framed_values_against_stock_flink() {
    let saved = temp("json-confluent.bin");
    let v = json_format_run(
        "json-confluent-native",
        JSON_COLUMNS,
        &no_stock_saving_to(&saved),
    );
    assert_eq!(v["format"], "json-confluent");
    assert!(
        v["writer_schema"].as_str().unwrap().contains("draft-07"),
        "{v}"
    );
    assert_all_checks_equal(&v);
    let messages = saved_messages(&saved);
    let ids = confluent_schema_ids(&messages);
    assert_eq!(ids.len(), 1, "one schema id: {ids:?}");
    for message in &messages {
        let parsed: serde_json::Value = serde_json::from_slice(&message[5..]).unwrap();
        assert_eq!(parsed.as_object().unwrap().len(), 21);
    }

    if !harness_available() {
        return;
    }
    let v = json_format_run(
        "json-confluent",
        JSON_COLUMNS_NO_MAPS,
        &["--jvm-warmup-ms", "100", "--verify", "0"],
    );
    assert_eq!(v["format"], "json-confluent");
    for r in v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["side"] == "native")
    {
        assert_eq!(r["figures"]["records_per_pass"], 400, "{r}");
    }
    let checks = assert_stock_ran_alongside(
        &v,
        &[
            "decode (header + flink-json)",
            "encode (header + flink-json)",
        ],
    );
    assert!(checks[3]["what"]
        .as_str()
        .unwrap()
        .contains("byte for byte"));
}

/// The message of the Protobuf runs: every scalar kind, an enum, a nested message, repeated
/// scalars and messages, maps with string, integer and message values, a oneof and a proto3
/// `optional`; a second top-level message so that `Order` is not the first (index path [1]).
const ORDERS_PROTO: &str = r#"syntax = "proto3";
package shop;
option java_package = "shop.gen";
option java_outer_classname = "Orders";

message Note { string text = 1; }

enum Status { STATUS_UNKNOWN = 0; PLACED = 1; SHIPPED = 7; }

message Order {
  message Line { string sku = 1; int32 qty = 2; repeated string tags = 3; }
  int64 id = 1;
  int32 i32 = 2;
  sint32 s32 = 3;
  uint32 u32 = 4;
  sint64 s64 = 5;
  fixed32 f32 = 6;
  sfixed64 sf64 = 7;
  bool flag = 8;
  float price = 9;
  double total = 10;
  string customer = 11;
  bytes blob = 12;
  Status status = 13;
  Note note = 14;
  repeated Line lines = 15;
  repeated int64 coupons = 16;
  map<string, string> attrs = 17;
  map<int32, Note> notes_by_id = 18;
  oneof pay { string card = 19; int64 account = 20; }
  optional string gift = 21;
}
"#;

fn orders_proto() -> PathBuf {
    let dir = temp("proto");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("orders.proto");
    std::fs::write(&path, ORDERS_PROTO).unwrap();
    path
}

/// The same schema as a serialized descriptor set (what `protoc --include_imports
/// --descriptor_set_out` writes).
fn orders_descriptor_set() -> PathBuf {
    use prost::Message;
    let proto = orders_proto();
    let set = protox::compile([proto.file_name().unwrap()], [proto.parent().unwrap()]).unwrap();
    let path = proto.with_extension("desc");
    std::fs::write(&path, set.encode_to_vec()).unwrap();
    path
}

fn protobuf_run(format: &str, schema: &Path, extra: &[&str]) -> serde_json::Value {
    let schema = schema.to_str().unwrap();
    generated_run(
        &[
            "--format",
            format,
            "--schema",
            schema,
            "--message",
            "shop.Order",
        ],
        extra,
    )
}

/// A run of `format` without stock Flink that saves its messages to `saved`, reported as
/// `reported` (the name without `-native`) with native lines that cover the corpus.
fn protobuf_saving_run(
    format: &str,
    schema: &Path,
    saved: &Path,
    reported: &str,
) -> serde_json::Value {
    let v = protobuf_run(format, schema, &no_stock_saving_to(saved));
    assert_native_lines_cover_the_corpus(&v, reported);
    v
}

/// `--format protobuf` without stock Flink, from a `.proto` and from a descriptor set: the
/// row type is flink-protobuf's for the message, the generated values are that message's wire
/// bytes (the same for the same seed), and the two native paths agree.
#[test]
fn protobuf_format_over_a_generated_corpus() {
    let saved = temp("protobuf.bin");
    let v = protobuf_saving_run("protobuf", &orders_proto(), &saved, "protobuf");
    let row_type = v["row_type"].as_str().unwrap();
    for column in [
        "`id` BIGINT",
        "`u32` INT",
        "`status` VARCHAR(2147483647)",
        "`blob` VARBINARY(2147483647)",
        "`note` ROW<`text` VARCHAR(2147483647)>",
        "`coupons` ARRAY<BIGINT>",
        "`notes_by_id` MAP<INT, ROW<`text` VARCHAR(2147483647)>>",
        "`gift` VARCHAR(2147483647)",
    ] {
        assert!(row_type.contains(column), "{column} in {row_type}");
    }
    assert!(
        v["writer_schema"]
            .as_str()
            .unwrap()
            .contains("message Order"),
        "{v}"
    );
    assert_eq!(assert_all_checks_equal(&v).len(), 2);
    assert!(notes(&v)
        .iter()
        .any(|n| n.contains("Protobuf codec has no Arrow path")));

    // The same messages from the descriptor set, and again for the same seed.
    let again = temp("protobuf-desc.bin");
    let w = protobuf_saving_run(
        "protobuf-native",
        &orders_descriptor_set(),
        &again,
        "protobuf",
    );
    assert_eq!(w["row_type"], v["row_type"]);
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        std::fs::read(&again).unwrap()
    );

    // A subset of the columns (--columns) reads only those fields.
    let sub = bench_json(&[
        "--format",
        "protobuf",
        "--schema",
        orders_proto().to_str().unwrap(),
        "--message",
        "shop.Order",
        "--columns",
        "id BIGINT, customer STRING, lines ARRAY<ROW<sku STRING, qty INT, tags ARRAY<STRING>>>",
        "--input",
        saved.to_str().unwrap(),
        "--no-stock",
        "--json",
    ]);
    assert_all_checks_equal(&sub);
}

/// `karrow bench --format protobuf` of `message` in `schema` without stock Flink, then
/// `extra`.
fn protobuf_no_stock(schema: &str, message: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "--format",
        "protobuf",
        "--schema",
        schema,
        "--message",
        message,
        "--no-stock",
    ];
    args.extend_from_slice(extra);
    bench(&args)
}

/// The arguments of a run without stock Flink that saves its messages to `saved`.
fn no_stock_saving_to(saved: &Path) -> [&str; 3] {
    ["--no-stock", "--save-messages", saved.to_str().unwrap()]
}

#[test]
fn protobuf_format_argument_and_schema_errors() {
    let proto = orders_proto();
    let proto = proto.to_str().unwrap();
    assert_one_line_error(
        &bench(&[
            "--format",
            "protobuf",
            "--schema",
            proto,
            "--generate",
            "5",
            "--no-stock",
        ]),
        2,
        "--message NAME",
    );
    assert_one_line_error(
        &bench(&[
            "--format",
            "protobuf",
            "--message",
            "shop.Order",
            "--generate",
            "5",
            "--no-stock",
        ]),
        2,
        "--schema FILE",
    );
    assert_one_line_error(
        &bench(&[
            "--format",
            "json",
            "--columns",
            "a INT",
            "--message",
            "x.Y",
            "--generate",
            "5",
            "--no-stock",
        ]),
        2,
        "--message names a Protobuf message",
    );
    assert_one_line_error(
        &protobuf_no_stock(proto, "shop.Nope", &["--generate", "5"]),
        1,
        "'shop.Nope' is not in the descriptor set",
    );
    assert_one_line_error(
        &protobuf_no_stock(
            proto,
            "shop.Order",
            &["--columns", "nope INT", "--generate", "5"],
        ),
        1,
        "nope",
    );
    let broken = temp("broken.proto");
    std::fs::write(&broken, "syntax = \"proto3\"; message {").unwrap();
    assert_one_line_error(
        &protobuf_no_stock(broken.to_str().unwrap(), "A", &["--generate", "5"]),
        1,
        "does not compile",
    );
    // Not a descriptor set.
    let junk = temp("junk.desc");
    std::fs::write(&junk, [0xffu8, 0xff, 0xff]).unwrap();
    assert_one_line_error(
        &protobuf_no_stock(junk.to_str().unwrap(), "A", &["--generate", "5"]),
        1,
        "descriptor set",
    );
    // A message value cut short.
    let bad = temp("bad-proto.bin");
    let m = [0x0au8, 0x05, b'a'];
    let mut bytes = (m.len() as u32).to_be_bytes().to_vec();
    bytes.extend_from_slice(&m);
    std::fs::write(&bad, &bytes).unwrap();
    assert_one_line_error(
        &protobuf_no_stock(proto, "shop.Note", &["--input", bad.to_str().unwrap()]),
        1,
        "message 0 does not decode",
    );
}

/// `--format protobuf-confluent`: generated values carry Confluent's header with the id of the
/// registered `.proto` and the message's index path ([1]: Order is the second message).
#[test]
fn protobuf_confluent_format_over_a_generated_corpus() {
    let saved = temp("protobuf-confluent.bin");
    let v = protobuf_saving_run(
        "protobuf-confluent-native",
        &orders_proto(),
        &saved,
        "protobuf-confluent",
    );
    assert_all_checks_equal(&v);
    let messages = saved_messages(&saved);
    let ids = confluent_schema_ids(&messages);
    assert_eq!(ids.len(), 1, "one schema id: {ids:?}");
    for message in &messages {
        // Count 1 and index 1, zig-zag encoded.
        assert_eq!(&message[5..7], &[2, 2], "message indexes");
    }
}

/// Both Protobuf formats against stock flink-protobuf (its message class generated and
/// compiled at bench time): rows equal and encoded messages equal byte for byte, maps included.
#[test]
fn protobuf_formats_against_stock_flink_when_the_harness_is_built() {
    if !harness_available() {
        return;
    }
    // protobuf-confluent-native reads absent presence-tracking fields (the oneof, `optional`)
    // as NULL where flink-protobuf reads defaults (docs/formats/protobuf-confluent-native.md):
    // its comparison leaves them out.
    let without_presence = "id BIGINT, i32 INT, s64 BIGINT, flag BOOLEAN, price FLOAT, \
        total DOUBLE, customer STRING, blob BYTES, status STRING, note ROW<text STRING>, \
        lines ARRAY<ROW<sku STRING, qty INT, tags ARRAY<STRING>>>, coupons ARRAY<BIGINT>, \
        attrs MAP<STRING, STRING>, notes_by_id MAP<INT, ROW<text STRING>>";
    for (format, schema, columns, names) in [
        (
            "protobuf",
            orders_proto(),
            None,
            ["decode (flink-protobuf)", "encode (flink-protobuf)"],
        ),
        (
            "protobuf-confluent",
            orders_descriptor_set(),
            Some(without_presence),
            [
                "decode (header + flink-protobuf)",
                "encode (header + flink-protobuf)",
            ],
        ),
    ] {
        let mut extra = vec!["--jvm-warmup-ms", "100", "--verify", "0"];
        if let Some(c) = columns {
            extra.extend(["--columns", c]);
        }
        let v = protobuf_run(format, &schema, &extra);
        assert_native_lines_cover_the_corpus(&v, format);
        let checks = assert_stock_ran_alongside(&v, &names);
        for c in &checks[2..] {
            assert!(c["what"].as_str().unwrap().contains("byte for byte"), "{c}");
        }
    }
}

/// The browser for [`report_renders_in_headless_chromium`]: `KARROW_CHROMIUM`, else
/// `/usr/bin/chromium`, else `chromium` or `chromium-browser` on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KARROW_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let fixed = PathBuf::from("/usr/bin/chromium");
    if fixed.is_file() {
        return Some(fixed);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// Runs headless Chromium on `url` with `extra` (a headless command such as `--dump-dom`),
/// killed after a minute; returns its stdout.
fn headless(browser: &Path, profile: &Path, extra: &[&str], url: &str) -> String {
    use std::io::Read;
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {}: {e}", browser.display()));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} {extra:?} did not finish within 60 s", browser.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let (stdout, stderr) = (reader.join().unwrap(), err_reader.join().unwrap());
    assert!(
        status.success(),
        "{} {extra:?} failed ({status}): {stderr}",
        browser.display()
    );
    stdout
}

/// The report opens in a real browser: headless Chromium renders index.html, and its DOM
/// holds the three SVG charts and the results table. Without Chromium the test is skipped,
/// except in CI (`CI=true`), where it fails (.ci/run installs Debian's `chromium`).
#[test]
fn report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        let msg = "no Chromium (install Debian's `chromium`: apt-get install -y chromium, or set KARROW_CHROMIUM)";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true and {msg}");
        }
        eprintln!("skipped: {msg}");
        return;
    };
    let dir = temp("chromium-report");
    let o = bench(&[
        "--columns",
        COLUMNS,
        "--generate",
        "200",
        "--no-stock",
        "--report",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = dir.join("index.html").canonicalize().unwrap();
    let url = format!("file://{}", index.display());
    let profile = temp("chromium-profile");

    let dom = headless(&browser, &profile, &["--dump-dom"], &url);
    assert!(
        dom.contains("<title>karrow bench: avro-confluent</title>"),
        "{dom}"
    );
    for id in ["throughput", "versus", "ns-per-record"] {
        let at = dom
            .find(&format!("<figure id=\"{id}\">"))
            .unwrap_or_else(|| panic!("no figure {id} in the DOM: {dom}"));
        let figure = &dom[at..at + dom[at..].find("</figure>").unwrap()];
        assert!(
            figure.contains("<svg") && figure.contains("</svg>"),
            "figure {id} has no chart: {figure}"
        );
        // Without stock Flink the comparison chart says so instead of drawing bars.
        if id != "versus" {
            assert!(
                figure.contains("<rect"),
                "figure {id} has no bars: {figure}"
            );
        }
    }
    assert_eq!(dom.matches("<svg").count(), 3, "{dom}");
    let at = dom.find("<pre id=\"results\">").expect("no results table");
    let table = &dom[at..at + dom[at..].find("</pre>").unwrap()];
    for row in [
        "records/s",
        "decode to Flink rows",
        "decode to Arrow",
        "encode from Flink rows",
        "encode from Arrow",
    ] {
        assert!(
            table.contains(row),
            "no {row:?} in the results table: {table}"
        );
    }

    // And it paints: a PNG screenshot of the page.
    let png = temp("report.png");
    let _ = std::fs::remove_file(&png);
    headless(
        &browser,
        &profile,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,1800",
        ],
        &url,
    );
    let shot = std::fs::read(&png).expect("no screenshot");
    assert!(shot.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(shot.len() > 10_000, "screenshot of {} bytes", shot.len());
}
