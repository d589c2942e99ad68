//! Stock Flink in the same run: the JVM harness `io.karrow.bench.StockSerdeHarness`
//! (benches/jvm) decodes and encodes the same message file with Flink's own format, writes
//! its rows for verification and prints its timings as one JSON object.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::progress::Progress;

/// The harness class.
pub const HARNESS_CLASS: &str = "io.karrow.bench.StockSerdeHarness";

/// Where the JVM harness is, when it is.
#[derive(Debug, Clone)]
pub struct Jvm {
    /// The `java` executable.
    pub java: PathBuf,
    /// The classpath.
    pub classpath: String,
}

/// Why stock Flink was not run.
pub type NotRun = String;

/// Finds `java` and the classpath of the JVM harness (which holds `class`, e.g.
/// [`HARNESS_CLASS`]): `--jvm-classpath`, else `benches/jvm/target/classes` +
/// `benches/jvm/target/classpath.txt` in the current directory, one of its parents, or the
/// repository the binary was built in.
pub fn locate(java: Option<&Path>, classpath: Option<&str>, class: &str) -> Result<Jvm, NotRun> {
    let java = match java {
        Some(j) => j.to_path_buf(),
        None => match std::env::var_os("JAVA_HOME").map(|h| PathBuf::from(h).join("bin/java")) {
            Some(j) if j.is_file() => j,
            _ => find_on_path("java").ok_or("no `java` on PATH (set JAVA_HOME or pass --java)")?,
        },
    };
    if let Some(cp) = classpath {
        return Ok(Jvm {
            java,
            classpath: cp.to_string(),
        });
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(cwd.ancestors().map(Path::to_path_buf));
    }
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    for root in roots {
        let list = root.join("benches/jvm/target/classpath.txt");
        let classes = root.join("benches/jvm/target/classes");
        let class_file = classes.join(format!("{}.class", class.replace('.', "/")));
        if list.is_file() && class_file.is_file() {
            let deps =
                std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
            return Ok(Jvm {
                java,
                classpath: format!("{}:{}", classes.display(), deps.trim()),
            });
        }
    }
    Err(format!("the JVM harness ({class}) is not built (run `mvn -q -f pom.xml -DskipTests package` in the repository, or pass --jvm-classpath)"))
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The feature release of the JVM `java` runs (`17` for Java 17.0.15), from its
/// `java.specification.version` property; `None` when it cannot be read.
pub fn java_feature(java: &Path) -> Option<u32> {
    let out = Command::new(java)
        .args(["-XshowSettings:properties", "-version"])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let value = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("java.specification.version = "))?;
    // "1.8" before Java 9, the feature number since.
    let value = value.trim().strip_prefix("1.").unwrap_or(value.trim());
    value.parse().ok()
}

/// What the harness is asked to do.
#[derive(Debug)]
pub struct Request<'a> {
    /// The stock format (`avro-confluent`, `json`, `protobuf`, ...).
    pub format: &'a str,
    /// Length-prefixed message file.
    pub messages: &'a Path,
    /// Flink serializable row type string.
    pub row_type: &'a str,
    /// Registry holding the messages' writer schemas (Avro only).
    pub registry: Option<&'a str>,
    /// Explicit reader schema file (the format's `schema` option), if any.
    pub reader_schema_file: Option<&'a Path>,
    /// Schema id for encode (the derived schema, registered).
    pub encode_schema_id: i32,
    /// Threads, trials, warm-up, minimum trial time, sample size.
    pub threads: usize,
    /// Timed trials.
    pub trials: usize,
    /// Warm-up time (the JIT needs it).
    pub warmup_ms: u64,
    /// Minimum trial time.
    pub min_trial_ms: u64,
    /// Messages whose rows are written for verification.
    pub sample: usize,
    /// Where the sample rows go.
    pub sample_out: &'a Path,
    /// Where the re-encoded sample goes.
    pub encoded_out: &'a Path,
    /// JVM heap.
    pub heap: &'a str,
    /// Protobuf: the message's full name, and the directory of its generated classes (put
    /// first on the classpath).
    pub proto: Option<(&'a str, &'a Path)>,
}

/// Runs the harness; `Ok(json)` is its result object (which may say `"ok": false`).
pub fn run(jvm: &Jvm, req: &Request<'_>, progress: &Progress) -> Result<Value, String> {
    let classpath = match req.proto {
        Some((_, classes)) => format!("{}:{}", classes.display(), jvm.classpath),
        None => jvm.classpath.clone(),
    };
    let mut cmd = Command::new(&jvm.java);
    cmd.arg(format!("-Xmx{}", req.heap))
        .arg("--add-opens=java.base/java.util=ALL-UNNAMED")
        .arg("--add-opens=java.base/java.lang=ALL-UNNAMED")
        .arg("-cp")
        .arg(&classpath)
        .arg(HARNESS_CLASS)
        .arg("--messages")
        .arg(req.messages)
        .args(["--format", req.format, "--row-type", req.row_type])
        .args(["--encode-schema-id", &req.encode_schema_id.to_string()])
        .args(["--threads", &req.threads.to_string()])
        .args(["--trials", &req.trials.to_string()])
        .args(["--warmup-ms", &req.warmup_ms.to_string()])
        .args(["--min-trial-ms", &req.min_trial_ms.to_string()])
        .args(["--sample", &req.sample.to_string()])
        .arg("--sample-out")
        .arg(req.sample_out)
        .arg("--encoded-out")
        .arg(req.encoded_out);
    if let Some(url) = req.registry {
        cmd.arg("--registry").arg(url);
    }
    if let Some(f) = req.reader_schema_file {
        cmd.arg("--reader-schema-file").arg(f);
    }
    if let Some((message, classes)) = req.proto {
        cmd.args(["--proto-message", message])
            .arg("--proto-classes")
            .arg(classes);
    }
    run_json(cmd, &jvm.java, "the JVM harness", progress)
}

/// Runs a JVM class that prints one JSON object as its last stdout line, showing its
/// `progress: ` stderr lines; `Err` when it fails to start, exits non-zero or prints no JSON.
pub fn run_json(
    mut cmd: Command,
    java: &Path,
    what: &str,
    progress: &Progress,
) -> Result<Value, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", java.display()))?;
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut s) = stdout {
            let _ = std::io::Read::read_to_string(&mut s, &mut text);
        }
        text
    });
    // Progress lines are shown; the rest is kept for an error message.
    let mut tail: Vec<String> = Vec::new();
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            match line.strip_prefix("progress: ") {
                Some(p) => progress.update(p),
                None => {
                    tail.push(line);
                    if tail.len() > 20 {
                        tail.remove(0);
                    }
                }
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for the JVM: {e}"))?;
    let stdout = reader.join().unwrap_or_default();
    let last = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'));
    match (status.success(), last) {
        (true, Some(line)) => {
            serde_json::from_str(line).map_err(|e| format!("{what} printed bad JSON ({e}): {line}"))
        }
        _ => {
            let why = tail
                .iter()
                .rev()
                .find(|l| l.contains("Exception") || l.contains("Error"))
                .or(tail.last())
                .cloned()
                .unwrap_or_else(|| "no output".into());
            Err(format!("{what} failed ({status}): {why}"))
        }
    }
}
