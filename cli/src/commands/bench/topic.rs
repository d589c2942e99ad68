//! `--bootstrap HOST:PORT --topic T`: the messages are the values of a Kafka topic.
//!
//! The CLI has no Kafka client of its own: the JVM class `io.karrow.bench.TopicDump`
//! (benches/jvm, next to the stock Flink harness, kafka-clients on its classpath) reads all
//! partitions from their earliest offset (`read_committed`, no consumer group) up to the end
//! offsets seen at the start, at most `--limit` values, and writes them in the
//! length-prefixed layout of `--input`; the file is then read like `--input`. The same
//! `--java` / `--jvm-classpath` options apply (`--no-stock` does not stop it).

use std::path::Path;
use std::process::Command;

use super::error::BenchError;
use super::messages::{self, MessageFileFormat, Messages};
use super::progress::Progress;
use super::stock;

/// The dump class.
pub const DUMP_CLASS: &str = "io.karrow.bench.TopicDump";

/// What to read.
#[derive(Debug)]
pub struct TopicRequest<'a> {
    /// `host:port[,host:port...]`.
    pub bootstrap: &'a str,
    /// The topic.
    pub topic: &'a str,
    /// At most this many values.
    pub limit: usize,
    /// Bound of the metadata look-ups and of any stretch of polling that returns nothing.
    pub timeout_ms: u64,
    /// `--java`, `--jvm-classpath`.
    pub java: Option<&'a Path>,
    /// See [`TopicRequest::java`].
    pub classpath: Option<&'a str>,
}

/// What was read.
#[derive(Debug)]
pub struct TopicMessages {
    /// The values, in the order the consumer returned them.
    pub messages: Messages,
    /// The topic's partition count.
    pub partitions: u64,
    /// Values between the earliest and the end offsets (more than read when `--limit` cut).
    pub available: u64,
}

/// Reads the topic's values through the JVM, via a length-prefixed file at `file`.
pub fn read(
    req: &TopicRequest<'_>,
    file: &Path,
    progress: &Progress,
) -> Result<TopicMessages, BenchError> {
    let jvm = stock::locate(req.java, req.classpath, DUMP_CLASS)
        .map_err(|e| BenchError::Kafka(format!("reading a topic needs java and {e}")))?;
    let mut cmd = Command::new(&jvm.java);
    cmd.args(["-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"])
        .arg("-cp")
        .arg(&jvm.classpath)
        .arg(DUMP_CLASS)
        .args(["--bootstrap", req.bootstrap, "--topic", req.topic])
        .arg("--out")
        .arg(file)
        .args(["--limit", &req.limit.to_string()])
        .args(["--timeout-ms", &req.timeout_ms.to_string()]);
    progress.update(&format!("Kafka: reading topic {}", req.topic));
    let v = stock::run_json(cmd, &jvm.java, "the Kafka reader (TopicDump)", progress)
        .map_err(BenchError::Kafka)?;
    if v["ok"] != serde_json::Value::Bool(true) {
        return Err(BenchError::Kafka(
            v["error"].as_str().unwrap_or("unknown error").to_string(),
        ));
    }
    let messages = messages::read(file, MessageFileFormat::LengthPrefixed)?;
    Ok(TopicMessages {
        partitions: v["partitions"].as_u64().unwrap_or_default(),
        available: v["available"].as_u64().unwrap_or(messages.len() as u64),
        messages,
    })
}
