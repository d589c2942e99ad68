//! `karrow bench`: serde benchmarking on your own schema and data, the native format
//! against stock Flink in one run, with verification that both give the same rows.
//!
//! One file per concern: `schema` (inputs -> row type and schemas, with `ddl` and
//! `avro_types`), `messages` and `generate` (the corpus), `format` (the [`format::Format`]
//! trait; `avro_confluent` implements it), `measure` (+ `alloc`, `memory`, `progress`),
//! `render` and `verify` (row comparison), `stock` (the JVM harness), `topic` (Kafka input,
//! through the JVM), `output` and `report` (table, JSON, HTML).

pub mod alloc;
mod avro_confluent;
mod avro_types;
mod ddl;
mod error;
mod format;
mod generate;
mod measure;
mod memory;
mod messages;
mod output;
mod progress;
mod render;
mod report;
mod schema;
mod stock;
mod topic;
mod verify;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use karrow_codecs::avro::derive::derive_schema_json;
use karrow_codecs::avro::model::AvroNode;
use karrow_codecs::flink_binary::read_batch_rows;
use karrow_codecs::types::{FlinkKind, FlinkType};
use karrow_registry::{DevRegistry, SchemaDefinition};

pub use error::BenchError;
use format::{Encoded, Format, FormatKind, Rows};
use measure::{Figures, Op, Plan};
use messages::{MessageFileFormat, Messages};
use output::{Line, Results};
use progress::Progress;
use verify::Check;

/// Arguments of `karrow bench`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    karrow bench --columns \"auction BIGINT, price DECIMAL(10,2), tags ARRAY<STRING>\" --generate 100000\n  \
    karrow bench --schema bid.avsc --input bids.bin --threads 2 --report out/\n  \
    karrow bench --registry http://localhost:8081 --subject bids-value --generate 50000 --json\n  \
    karrow bench --registry http://localhost:8081 --subject bids-value --bootstrap localhost:9092 --topic bids --limit 50000")]
pub struct BenchArgs {
    /// Format to measure (the formats whose native codec has landed).
    #[arg(long, value_enum, default_value = "avro-confluent")]
    format: FormatKind,

    /// Avro schema file (.avsc) the messages are written with.
    #[arg(long, value_name = "FILE", help_heading = "Schema")]
    schema: Option<PathBuf>,
    /// Schema registry URL: with --subject, where the schema comes from; with --input or
    /// --topic, where the messages' schema ids are looked up (without it, every message is
    /// read with the one schema given, whatever id it carries).
    #[arg(long, value_name = "URL", help_heading = "Schema")]
    registry: Option<String>,
    /// Registry subject whose latest version is the writer schema.
    #[arg(
        long,
        value_name = "SUBJECT",
        requires = "registry",
        help_heading = "Schema"
    )]
    subject: Option<String>,
    /// The table's columns as Flink DDL, e.g. "id BIGINT NOT NULL, price DECIMAL(10, 2)".
    /// Alone, the messages use the Avro schema Flink derives from it.
    #[arg(long, value_name = "LIST", help_heading = "Schema")]
    columns: Option<String>,

    /// Message file (Confluent-framed values; layout set by --input-format).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "generate",
        help_heading = "Messages"
    )]
    input: Option<PathBuf>,
    /// Kafka topic whose values are the messages: all partitions from the earliest offset,
    /// up to --limit values (read by the JVM class io.karrow.bench.TopicDump; needs java and
    /// the JVM harness, like stock Flink).
    #[arg(
        long,
        value_name = "TOPIC",
        requires = "bootstrap",
        conflicts_with_all = ["input", "generate"],
        help_heading = "Messages"
    )]
    topic: Option<String>,
    /// Kafka bootstrap servers of --topic.
    #[arg(
        long,
        value_name = "HOST:PORT",
        requires = "topic",
        help_heading = "Messages"
    )]
    bootstrap: Option<String>,
    /// At most N values from --topic.
    #[arg(long, requires = "topic", value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Messages")]
    limit: u64,
    /// Give up on the broker after this long without an answer (metadata, or a poll that
    /// returns nothing), ms.
    #[arg(long, requires = "topic", value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Messages")]
    kafka_timeout_ms: u64,
    /// Layout of --input.
    #[arg(
        long,
        value_enum,
        default_value = "length-prefixed",
        help_heading = "Messages"
    )]
    input_format: MessageFileFormat,
    /// Generate N messages from the schema instead of reading them.
    #[arg(long, value_name = "N", help_heading = "Messages")]
    generate: Option<usize>,
    /// Seed of the generator (same seed and options, same bytes).
    #[arg(long, default_value_t = 42, help_heading = "Messages")]
    seed: u64,
    /// Probability that a nullable value is NULL.
    #[arg(long, default_value_t = 0.1, value_parser = parse_rate, help_heading = "Messages")]
    null_rate: f64,
    /// Mean length of generated strings and bytes.
    #[arg(long, default_value_t = 16, help_heading = "Messages")]
    string_len: usize,
    /// Mean element count of generated arrays and maps.
    #[arg(long, default_value_t = 4, help_heading = "Messages")]
    collection_len: usize,
    /// Also write the messages to FILE (length-prefixed layout).
    #[arg(long, value_name = "FILE", help_heading = "Messages")]
    save_messages: Option<PathBuf>,

    /// Threads per side, each with its own codec over a share of the messages.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256), help_heading = "Measurement")]
    threads: u16,
    /// Timed trials per operation (median, min and max are reported).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..), help_heading = "Measurement")]
    trials: u16,
    /// Untimed warm-up passes per native operation.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..), help_heading = "Measurement")]
    warmup: u16,
    /// Minimum duration of one trial (the corpus is passed over as often as needed), ms.
    #[arg(long, default_value_t = 300, help_heading = "Measurement")]
    min_trial_ms: u64,
    /// Messages per native batch call.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..), help_heading = "Measurement")]
    batch_size: u32,
    /// Messages whose rows are compared with stock Flink's (0: all).
    #[arg(long, default_value_t = 10_000, help_heading = "Measurement")]
    verify: usize,
    /// Measure even on a debug build (the figures are then meaningless).
    #[arg(long, help_heading = "Measurement")]
    allow_debug: bool,

    /// Do not run stock Flink.
    #[arg(long, help_heading = "Stock Flink")]
    no_stock: bool,
    /// The java executable (default: $JAVA_HOME/bin/java, else java on PATH).
    #[arg(long, value_name = "PATH", help_heading = "Stock Flink")]
    java: Option<PathBuf>,
    /// Classpath of the JVM harness (default: benches/jvm/target of this repository).
    #[arg(long, value_name = "CP", help_heading = "Stock Flink")]
    jvm_classpath: Option<String>,
    /// JVM warm-up per operation (JIT), ms.
    #[arg(long, default_value_t = 3000, help_heading = "Stock Flink")]
    jvm_warmup_ms: u64,
    /// JVM maximum heap.
    #[arg(long, default_value = "1g", help_heading = "Stock Flink")]
    jvm_heap: String,

    /// Print the results as JSON on stdout instead of the table.
    #[arg(long, help_heading = "Output")]
    json: bool,
    /// Write an HTML report (index.html with SVG charts) into DIR.
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    report: Option<PathBuf>,
    /// No progress line.
    #[arg(long, help_heading = "Output")]
    quiet: bool,
}

fn parse_rate(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is not between 0 and 1"))
    }
}

const SUBJECT: &str = "karrow-bench-value";
const ENCODE_SUBJECT: &str = "karrow-bench-encoded-value";

/// Runs `karrow bench`.
pub fn run(args: BenchArgs) -> Result<(), BenchError> {
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    if build == "debug" {
        if !args.allow_debug {
            return Err(BenchError::DebugBuild);
        }
        eprintln!(
            "karrow: WARNING: DEBUG BUILD: the figures below mean nothing; build with --release"
        );
    }
    if args.input.is_none() && args.generate.is_none() && args.topic.is_none() {
        return Err(BenchError::Usage(
            "no messages: give --input FILE, --topic T (with --bootstrap) or --generate N".into(),
        ));
    }
    let read_messages = args.input.is_some() || args.topic.is_some();
    if args.registry.is_some() && args.subject.is_none() && !read_messages {
        return Err(BenchError::Usage(
            "--registry without --subject only looks up the ids of --input or --topic messages; add --subject, --input or --topic".into(),
        ));
    }
    let progress = Progress::new(!args.quiet);

    // Schema, registries and ids.
    let resolved = schema::resolve(
        args.schema.as_deref(),
        args.registry.as_deref(),
        args.subject.as_deref(),
        args.columns.as_deref(),
    )?;
    let dev = DevRegistry::start(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), None)
        .map_err(|e| BenchError::Registry(format!("starting the in-process dev registry: {e}")))?;
    let dev_client = schema::client(&dev.url())?;
    let register = |subject: &str, text: &str| {
        dev_client
            .register(subject, &SchemaDefinition::avro(text))
            .map_err(|e| BenchError::Schema(format!("the registry refuses the schema: {e}")))
    };
    let (decode_url, writer_id) = match (&args.registry, resolved.registry_id) {
        (Some(url), Some(id)) => (url.clone(), Some(id)),
        (Some(url), None) => (url.clone(), None),
        (None, _) => (dev.url(), Some(register(SUBJECT, &resolved.writer_schema)?)),
    };
    let derived =
        derive_schema_json(&resolved.row_type).map_err(|e| BenchError::Schema(e.to_string()))?;
    let encode_id = register(ENCODE_SUBJECT, &derived)?;

    // Messages.
    let tmp = TempDir::new()?;
    let mut notes = Vec::new();
    let (mut corpus, message_origin): (Messages, String) = match (&args.input, args.generate) {
        _ if args.topic.is_some() => {
            let (topic, bootstrap) = (
                args.topic.as_deref().unwrap_or_default(),
                args.bootstrap.as_deref().unwrap_or_default(),
            );
            let read = topic::read(
                &topic::TopicRequest {
                    bootstrap,
                    topic,
                    limit: usize::try_from(args.limit).unwrap_or(usize::MAX),
                    timeout_ms: args.kafka_timeout_ms,
                    java: args.java.as_deref(),
                    classpath: args.jvm_classpath.as_deref(),
                },
                &tmp.path("topic.bin"),
                &progress,
            )?;
            if read.available > read.messages.len() as u64 {
                notes.push(format!(
                    "topic {topic} holds {} values; the first {} were read (--limit)",
                    read.available,
                    read.messages.len()
                ));
            }
            let origin = format!(
                "Kafka topic {topic} on {bootstrap}: {} partitions from the earliest offsets",
                read.partitions
            );
            (read.messages, origin)
        }
        (Some(path), _) => (
            messages::read(path, args.input_format)?,
            format!("from {}", path.display()),
        ),
        (None, Some(n)) => {
            let id = writer_id
                .ok_or_else(|| BenchError::Usage("cannot generate without a schema id".into()))?;
            let writer = AvroNode::parse(&resolved.writer_schema)
                .map_err(|e| BenchError::Schema(e.to_string()))?;
            let opts = generate::GenerateOptions {
                count: n,
                seed: args.seed,
                null_rate: args.null_rate,
                string_len: args.string_len,
                collection_len: args.collection_len,
            };
            progress.update(&format!("generating {n} messages"));
            let generated = generate::generate(&writer, &resolved.writer_row_type, id, &opts)?;
            (
                generated.into_iter().map(Some).collect(),
                format!(
                    "generated: seed {}, null rate {}, string length {}, collection length {}",
                    args.seed, args.null_rate, args.string_len, args.collection_len
                ),
            )
        }
        (None, None) => return Err(BenchError::Usage("no messages".into())),
    };
    if corpus.is_empty() {
        return Err(BenchError::Messages(
            "there are no messages to measure".into(),
        ));
    }
    if args.registry.is_none() && read_messages {
        // The file's or topic's ids mean nothing to the in-process registry: point them at the
        // given schema.
        let id = writer_id.unwrap_or_default().to_be_bytes();
        let mut rewritten = 0usize;
        for m in corpus.iter_mut().flatten() {
            if m.len() >= 5 && m[0] == 0 && m[1..5] != id {
                m[1..5].copy_from_slice(&id);
                rewritten += 1;
            }
        }
        if rewritten > 0 {
            notes.push(format!(
                "{rewritten} messages carried another schema id; all are read with the given schema (id {} here); use --registry to resolve ids",
                writer_id.unwrap_or_default()
            ));
        }
    }
    if let Some(path) = &args.save_messages {
        messages::write_length_prefixed(path, &corpus)?;
    }
    let message_bytes: u64 = corpus.iter().flatten().map(|m| m.len() as u64).sum();

    // The native format, and every batch decoded once (finds bad messages before timing).
    let format = build_format(
        args.format,
        &resolved.row_type,
        resolved.reader_schema.clone(),
        &decode_url,
        encode_id,
    )?;
    // Reads encoded messages back (their schema id is in the in-process registry).
    let encoded_reader =
        build_format(args.format, &resolved.row_type, None, &dev.url(), encode_id)?;
    progress.update("decoding the corpus once");
    let batches = measure::prepare(format.as_ref(), &corpus, args.batch_size as usize)?;

    // Native rows of the sample, for verification.
    let sample_len = if args.verify == 0 {
        corpus.len()
    } else {
        args.verify.min(corpus.len())
    };
    let sample: Vec<Option<&[u8]>> = corpus[..sample_len].iter().map(|m| m.as_deref()).collect();
    let mut session = format.session()?;
    let mut sample_rows = Rows::default();
    session.decode_binary(&sample, &mut sample_rows)?;
    let from_images = read_batch_rows(sample_rows.images(), format.row_type())?;
    let binary_text =
        render::render_messages(&from_images, sample_rows.per_message().map(|r| r.is_some()));
    let sample_batch = session.decode_arrow(&sample)?;
    let arrow_text = render::render_messages(&sample_batch, sample.iter().map(|m| m.is_some()));
    let mut encoded = Encoded::default();
    session.encode_arrow(&sample_batch, &mut encoded)?;
    let encoded_arrow = verify::hex_lines(encoded.messages());
    encoded.clear();
    session.encode_binary(&sample_rows, &mut encoded)?;
    let encoded_binary = verify::hex_lines(encoded.messages());

    // Stock Flink, first (the JVM takes the machine while it runs; native then runs alone).
    let row_type_string = ddl::flink_type_string(format.row_type());
    let mut lines: Vec<Line> = Vec::new();
    let mut checks: Vec<Check> = Vec::new();
    let mut stock_note = None;
    let mut stock_rows: Option<(Vec<String>, Vec<String>)> = None;
    let mut stock_failure: Option<(String, Option<u64>)> = None;
    let located = if args.no_stock {
        Err("not run (--no-stock)".to_string())
    } else {
        stock::locate(
            args.java.as_deref(),
            args.jvm_classpath.as_deref(),
            stock::HARNESS_CLASS,
        )
        .map_err(|e| format!("not run: {e}"))
    };
    match located {
        Err(why) => stock_note = Some(why),
        Ok(jvm) => {
            let messages_file = tmp.path("messages.bin");
            messages::write_length_prefixed(&messages_file, &corpus)?;
            let reader_file = match &resolved.reader_schema {
                Some(text) => {
                    let p = tmp.path("reader.avsc");
                    std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
                    Some(p)
                }
                None => None,
            };
            let (sample_out, encoded_out) =
                (tmp.path("stock-rows.txt"), tmp.path("stock-encoded.txt"));
            progress.update("stock Flink: starting the JVM");
            let request = stock::Request {
                messages: &messages_file,
                row_type: &row_type_string,
                registry: &decode_url,
                reader_schema_file: reader_file.as_deref(),
                encode_schema_id: encode_id,
                threads: usize::from(args.threads),
                trials: usize::from(args.trials),
                warmup_ms: args.jvm_warmup_ms,
                min_trial_ms: args.min_trial_ms,
                sample: sample_len,
                sample_out: &sample_out,
                encoded_out: &encoded_out,
                heap: &args.jvm_heap,
            };
            match stock::run(&jvm, &request, &progress) {
                Err(e) => stock_note = Some(format!("failed: {e}")),
                Ok(v) if v["ok"] != serde_json::Value::Bool(true) => {
                    let error = v["error"].as_str().unwrap_or("unknown error").to_string();
                    stock_note = Some(format!("failed: {error}"));
                    stock_failure = Some((error, v["index"].as_u64()));
                }
                Ok(v) => {
                    let read = |p: &PathBuf| -> Result<Vec<String>, BenchError> {
                        Ok(std::fs::read_to_string(p)
                            .map_err(|e| BenchError::io(p, e))?
                            .lines()
                            .map(str::to_string)
                            .collect())
                    };
                    stock_rows = Some((read(&sample_out)?, read(&encoded_out)?));
                    for (id, name) in [
                        ("decode", "decode (flink-avro)"),
                        ("encode", "encode (flink-avro)"),
                    ] {
                        lines.push(Line {
                            side: "stock",
                            id,
                            name,
                            figures: stock_figures(&v[id], v["peak_rss_kib"].as_i64()),
                            versus: None,
                        });
                    }
                    if let Some(java) = v["java_version"].as_str() {
                        notes.push(format!(
                            "stock Flink ran on Java {java}; peak RSS is the JVM's whole run"
                        ));
                    }
                }
            }
        }
    }

    // Which native operations may get a figure.
    let mut withheld: Vec<(Op, String)> = Vec::new();
    match (&stock_rows, &stock_failure) {
        (Some((rows, encoded)), _) => {
            for (op, got, what) in [
                (
                    Op::DecodeBinary,
                    &binary_text,
                    "native rows (Flink binary rows) equal stock Flink rows",
                ),
                (
                    Op::DecodeArrow,
                    &arrow_text,
                    "native rows (Arrow) equal stock Flink rows",
                ),
            ] {
                let c = Check::compare(what, got, rows);
                if !c.ok() {
                    withheld.push((op, "rows differ from stock Flink (see DIFFERENCE)".into()));
                }
                checks.push(c);
            }
            // Maps are encoded in the in-memory map's iteration order (a Java HashMap on the
            // stock side), so with maps the encoded messages are compared decoded, as rows.
            let by_rows = has_map(format.row_type());
            let reread = |lines: &[String]| -> Result<Vec<String>, BenchError> {
                let bytes: Vec<Vec<u8>> =
                    lines.iter().map(|l| unhex(l)).collect::<Result<_, _>>()?;
                let view: Vec<Option<&[u8]>> = bytes.iter().map(|b| Some(b.as_slice())).collect();
                let batch = encoded_reader.session()?.decode_arrow(&view)?;
                Ok(render::render_batch(&batch))
            };
            let expected = if by_rows {
                reread(encoded)?
            } else {
                encoded.clone()
            };
            for (op, got, what) in [
                (
                    Op::EncodeBinary,
                    &encoded_binary,
                    "native encoded messages (from Flink rows) equal stock Flink's",
                ),
                (
                    Op::EncodeArrow,
                    &encoded_arrow,
                    "native encoded messages (from Arrow) equal stock Flink's",
                ),
            ] {
                let (got, what) = if by_rows {
                    (
                        reread(got)?,
                        format!("{what}, read back as rows (maps have no fixed order)"),
                    )
                } else {
                    (got.clone(), format!("{what}, byte for byte"))
                };
                let c = Check::compare(what, &got, &expected);
                if !c.ok() {
                    withheld.push((
                        op,
                        "encoded messages differ from stock Flink (see DIFFERENCE)".into(),
                    ));
                }
                checks.push(c);
            }
        }
        (None, Some((error, index))) => {
            let why = match index {
                Some(i) => {
                    format!("stock Flink fails on message/row {i} that native accepts: {error}")
                }
                None => format!("stock Flink failed: {error}"),
            };
            for op in Op::ALL {
                withheld.push((op, why.clone()));
            }
        }
        (None, None) => {
            let c = Check::compare(
                "native rows: Flink binary rows equal Arrow rows (not checked against stock Flink)",
                &binary_text,
                &arrow_text,
            );
            if !c.ok() {
                withheld.push((Op::DecodeBinary, "native paths disagree".into()));
                withheld.push((Op::DecodeArrow, "native paths disagree".into()));
            }
            checks.push(c);
            let c = Check::compare("native encoded bytes: from Flink rows equal from Arrow (not checked against stock Flink)", &encoded_binary, &encoded_arrow);
            if !c.ok() {
                withheld.push((Op::EncodeBinary, "native paths disagree".into()));
                withheld.push((Op::EncodeArrow, "native paths disagree".into()));
            }
            checks.push(c);
        }
    }

    // Native measurement.
    let plan = Plan {
        threads: usize::from(args.threads),
        warmup: usize::from(args.warmup),
        trials: usize::from(args.trials),
        min_trial: Duration::from_millis(args.min_trial_ms),
    };
    let mut native_lines = Vec::new();
    for op in Op::ALL {
        let figures = match withheld.iter().find(|(o, _)| *o == op) {
            Some((_, why)) => Err(why.clone()),
            None => Ok(measure::measure(
                format.as_ref(),
                op,
                &batches,
                &plan,
                &progress,
            )?),
        };
        native_lines.push(output::native_line(op, figures));
    }
    progress.clear();
    native_lines.extend(lines);

    let results = Results {
        format: format.kind().stock_name(),
        schema_origin: resolved.origin.clone(),
        row_type: row_type_string,
        writer_schema: resolved.writer_schema.clone(),
        messages: corpus.len(),
        message_bytes,
        message_origin,
        threads: usize::from(args.threads),
        trials: usize::from(args.trials),
        batch_size: args.batch_size as usize,
        build,
        lines: native_lines,
        stock_note,
        checks,
        notes,
    };
    let table = output::table(&results);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&output::to_json(&results)).unwrap_or_default()
        );
    } else {
        print!("{table}");
    }
    if let Some(dir) = &args.report {
        report::write(dir, &results, &table)?;
        if !args.json {
            println!("report: {}", dir.join("index.html").display());
        }
    }
    drop(dev);
    Ok(())
}

/// The native format of `kind` for a row type, reading writer schemas from `registry_url`.
fn build_format(
    kind: FormatKind,
    row_type: &FlinkType,
    reader_schema: Option<String>,
    registry_url: &str,
    encode_id: i32,
) -> Result<Box<dyn Format>, BenchError> {
    Ok(match kind {
        FormatKind::AvroConfluent => Box::new(avro_confluent::AvroConfluent::new(
            row_type.clone(),
            reader_schema,
            registry_url,
            encode_id,
        )?),
    })
}

fn has_map(ty: &FlinkType) -> bool {
    match &ty.kind {
        FlinkKind::Map(..) | FlinkKind::Multiset(_) => true,
        FlinkKind::Array(e) => has_map(e),
        FlinkKind::Row(fields) => fields.iter().any(|f| has_map(&f.ty)),
        _ => false,
    }
}

fn unhex(line: &str) -> Result<Vec<u8>, BenchError> {
    let bad = || BenchError::Messages(format!("the JVM harness wrote a bad hex line: {line}"));
    if !line.len().is_multiple_of(2) {
        return Err(bad());
    }
    (0..line.len())
        .step_by(2)
        .map(|i| {
            line.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(bad)
        })
        .collect()
}

fn stock_figures(v: &serde_json::Value, peak: Option<i64>) -> Result<Figures, String> {
    let n = |k: &str| {
        v[k].as_u64()
            .ok_or_else(|| format!("the harness reported no {k}"))
    };
    Ok(Figures {
        records: n("records")?,
        bytes: n("bytes")?,
        reps: n("reps")?,
        trial_ns: v["trial_ns"]
            .as_array()
            .ok_or("the harness reported no trials")?
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .collect(),
        allocs_per_record: None,
        alloc_bytes_per_record: v["alloc_bytes_per_record"].as_f64(),
        peak_rss_kib: peak.and_then(|p| u64::try_from(p).ok()),
    })
}

/// A private temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<Self, BenchError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("karrow-bench-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| BenchError::io(&dir, e))?;
        Ok(TempDir(dir))
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
