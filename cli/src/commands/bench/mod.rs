//! `karrow bench`: serde benchmarking on your own schema and data, the native format
//! against stock Flink in one run, with verification that both give the same rows.
//!
//! One file per concern: `schema` (inputs -> row type and schemas, with `ddl` and
//! `avro_types`), `messages`, `generate` (Avro) and `generate_json` (the corpus), `format`
//! (the [`format::Format`] trait; `avro_confluent`, `json` and `protobuf` implement it, the
//! last two over `image_session`; `generate_protobuf` and `protoc` for Protobuf), `measure`
//! (+ `alloc`, `memory`, `progress`),
//! `render` and `verify` (row comparison), `stock` (the JVM harness), `topic` (Kafka input,
//! through the JVM), `output` and `report` (table, JSON, HTML).

pub mod alloc;
mod avro_confluent;
mod avro_types;
mod compare;
mod corpus;
mod ddl;
mod error;
mod format;
mod generate;
mod generate_json;
mod generate_protobuf;
mod image_session;
mod json;
mod measure;
mod memory;
mod messages;
mod output;
mod progress;
mod protobuf;
mod protoc;
mod render;
mod report;
mod sample;
mod schema;
mod stock;
mod topic;
mod verify;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use karrow_codecs::avro::derive::derive_schema_json;
use karrow_codecs::json::JavaFloatText;
use karrow_codecs::types::FlinkType;
use karrow_registry::{DevRegistry, SchemaDefinition};

pub use error::BenchError;
use format::{Format, FormatKind};
use measure::{Op, Plan};
use messages::MessageFileFormat;
use output::Results;
use progress::Progress;

/// Arguments of `karrow bench`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    karrow bench --columns \"auction BIGINT, price DECIMAL(10,2), tags ARRAY<STRING>\" --generate 100000\n  \
    karrow bench --schema bid.avsc --input bids.bin --threads 2 --report out/\n  \
    karrow bench --registry http://localhost:8081 --subject bids-value --generate 50000 --json\n  \
    karrow bench --registry http://localhost:8081 --subject bids-value --bootstrap localhost:9092 --topic bids --limit 50000\n  \
    karrow bench --format json --columns \"id BIGINT, tags ARRAY<STRING>, ts TIMESTAMP(3)\" --generate 100000\n  \
    karrow bench --format protobuf --schema orders.proto --message shop.Order --generate 100000\n  \
    karrow bench --format protobuf-confluent --schema orders.desc --message shop.Order --bootstrap localhost:9092 --topic orders")]
pub struct BenchArgs {
    /// Format to measure: `avro-confluent` (schema from --schema, --subject or --columns),
    /// `json` (plain JSON values) or `json-confluent` (Confluent-framed JSON; the stock side is
    /// flink-json after the header), both with the schema from --columns, `protobuf` or
    /// `protobuf-confluent` (Confluent-framed Protobuf; the stock side is flink-protobuf after
    /// the header), both with --schema (a .proto or descriptor set) and --message. The
    /// `-native` names are accepted.
    #[arg(long, value_enum, default_value = "avro-confluent")]
    format: FormatKind,

    /// Avro schema file (.avsc) the messages are written with; for protobuf formats a .proto
    /// file (imports found next to it) or a serialized FileDescriptorSet (`protoc
    /// --include_imports --descriptor_set_out`).
    #[arg(long, value_name = "FILE", help_heading = "Schema")]
    schema: Option<PathBuf>,
    /// Protobuf: the message's full name (package included), e.g. shop.Order.
    #[arg(long, value_name = "NAME", help_heading = "Schema")]
    message: Option<String>,
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
    /// Alone, avro-confluent messages use the Avro schema Flink derives from it; json and
    /// json-confluent take their row type only from it; protobuf formats read the message's
    /// fields of these names (default: every field, as flink-protobuf types them).
    #[arg(long, value_name = "LIST", help_heading = "Schema")]
    columns: Option<String>,

    /// Message file (the format's Kafka values; layout set by --input-format).
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
    /// Protobuf: the protoc that generates the message class stock Flink needs (default: the
    /// protoc of the harness's protobuf-java version in the Maven repository holding it).
    #[arg(long, value_name = "PATH", help_heading = "Stock Flink")]
    protoc: Option<PathBuf>,

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

/// Runs `karrow bench`: schemas and registries, the corpus, stock Flink, the checks, then
/// the native measurement and the report.
pub fn run(args: BenchArgs) -> Result<(), BenchError> {
    let build = check_args(&args)?;
    let progress = Progress::new(!args.quiet);

    // Schema, registries and ids.
    let proto = match (args.format.is_protobuf(), &args.schema, &args.message) {
        (true, Some(path), Some(message)) => Some(protobuf::load(path, message)?),
        _ => None,
    };
    let mut resolved = if let Some(p) = &proto {
        schema::resolve_protobuf(args.columns.as_deref(), p, args.format)?
    } else if args.format.uses_avro_registry() {
        schema::resolve(
            args.schema.as_deref(),
            args.registry.as_deref(),
            args.subject.as_deref(),
            args.columns.as_deref(),
        )?
    } else {
        schema::resolve_columns(args.columns.as_deref(), args.format.stock_name())?
    };
    let dev = DevRegistry::start(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), None)
        .map_err(|e| BenchError::Registry(format!("starting the in-process dev registry: {e}")))?;
    let (decode_url, writer_id, encode_id) = if args.format.uses_avro_registry() {
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
        let derived = derive_schema_json(&resolved.row_type)
            .map_err(|e| BenchError::Schema(e.to_string()))?;
        (decode_url, writer_id, register(ENCODE_SUBJECT, &derived)?)
    } else if args.format == FormatKind::JsonConfluent {
        // The JSON Schema json-confluent-native derives, registered once: generated values
        // carry its id, encoded ones too (as the encoder registers it when it opens).
        let derived = karrow_codecs::json::json_schema::derive_json_schema(&resolved.row_type)
            .map_err(|e| BenchError::Schema(e.to_string()))?;
        let id = schema::client(&dev.url())?
            .register(SUBJECT, &SchemaDefinition::json(derived.as_str()))
            .map_err(|e| BenchError::Schema(format!("the registry refuses the schema: {e}")))?;
        resolved.writer_schema = derived;
        (dev.url(), Some(id), id)
    } else if let (FormatKind::ProtobufConfluent, Some(p)) = (args.format, &proto) {
        // The message's file, registered as the writer schema of the values and of the
        // encoder (the `schema` option of protobuf-confluent-native).
        let client = schema::client(&dev.url())?;
        let register = |subject: &str| {
            client
                .register(subject, &SchemaDefinition::protobuf(p.text.as_str()))
                .map_err(|e| BenchError::Schema(format!("the registry refuses the schema: {e}")))
        };
        let id = register(SUBJECT)?;
        (dev.url(), Some(id), register(ENCODE_SUBJECT)?)
    } else {
        (dev.url(), None, 0)
    };

    let tmp = TempDir::new()?;
    let corpus = corpus::load(&args, &resolved, writer_id, proto.as_ref(), &tmp, &progress)?;

    // The JVM stock Flink runs on decides how JSON spells FLOAT/DOUBLE (`Double.toString`
    // changed in Java 19); the native side writes what that JVM writes.
    let located = compare::locate_stock(&args);
    let mut notes = corpus.notes.clone();
    let float_text = match (args.format.is_json(), &located) {
        (true, Ok(jvm)) => match stock::java_feature(&jvm.java) {
            Some(feature) => {
                notes.push(format!(
                    "json-native writes FLOAT/DOUBLE as Java {feature}'s Float/Double.toString (the JVM stock Flink runs on)"
                ));
                JavaFloatText::for_java_feature(feature)
            }
            None => {
                notes.push("the Java version of the stock JVM is unknown: json-native writes FLOAT/DOUBLE as Java 19+ does".into());
                JavaFloatText::Shortest
            }
        },
        (true, Err(_)) => {
            notes.push("json-native writes FLOAT/DOUBLE as Java 19+'s Float/Double.toString (no stock JVM to match)".into());
            JavaFloatText::Shortest
        }
        _ => JavaFloatText::Shortest,
    };
    if args.format.is_json() || args.format.is_protobuf() {
        let codec = if args.format.is_json() {
            "JSON"
        } else {
            "Protobuf"
        };
        notes.push(format!("the {codec} codec has no Arrow path: decode to Arrow is decode to Flink rows then rows to Arrow, encode from Arrow is Arrow to Flink rows then encode"));
    }

    // The native format, and every batch decoded once (finds bad messages before timing).
    let format = build_format(
        args.format,
        &resolved.row_type,
        resolved.reader_schema.clone(),
        &decode_url,
        encode_id,
        float_text,
        proto.as_ref(),
    )?;
    // Reads encoded messages back (their schema id is in the in-process registry).
    let encoded_reader = build_format(
        args.format,
        &resolved.row_type,
        None,
        &dev.url(),
        encode_id,
        float_text,
        proto.as_ref(),
    )?;
    progress.update("decoding the corpus once");
    let batches = measure::prepare(format.as_ref(), &corpus.messages, args.batch_size as usize)?;
    let sample = sample::take(format.as_ref(), &corpus.messages, args.verify)?;

    let row_type_string = ddl::flink_type_string(format.row_type());
    let stock_inputs = compare::StockInputs {
        kind: args.format,
        row_type: &row_type_string,
        resolved: &resolved,
        decode_url: &decode_url,
        encode_id,
        sample_len: sample.len,
        proto: proto.as_ref(),
        protoc: args.protoc.as_deref(),
    };
    let stock = compare::run_stock(
        &args,
        located,
        &stock_inputs,
        &corpus.messages,
        &tmp,
        &progress,
    )?;
    let verdicts = compare::verdicts(&stock, &sample, format.as_ref(), encoded_reader.as_ref())?;

    // Native measurement.
    let plan = Plan {
        threads: usize::from(args.threads),
        warmup: usize::from(args.warmup),
        trials: usize::from(args.trials),
        min_trial: Duration::from_millis(args.min_trial_ms),
    };
    let mut lines = Vec::new();
    for op in Op::ALL {
        let figures = match verdicts.withheld.iter().find(|(o, _)| *o == op) {
            Some((_, why)) => Err(why.clone()),
            None => Ok(measure::measure(
                format.as_ref(),
                op,
                &batches,
                &plan,
                &progress,
            )?),
        };
        lines.push(output::native_line(op, figures));
    }
    progress.clear();
    lines.extend(stock.lines);

    notes.extend(stock.notes);
    let results = Results {
        format: format.kind().stock_name(),
        schema_origin: resolved.origin.clone(),
        row_type: row_type_string,
        writer_schema: resolved.writer_schema.clone(),
        messages: corpus.messages.len(),
        message_bytes: corpus.bytes(),
        message_origin: corpus.origin.clone(),
        threads: usize::from(args.threads),
        trials: usize::from(args.trials),
        batch_size: args.batch_size as usize,
        build,
        lines,
        stock_note: stock.note,
        checks: verdicts.checks,
        notes,
    };
    emit(&args, &results)?;
    drop(dev);
    Ok(())
}

/// Refuses argument combinations that cannot run; returns the build ("debug" or
/// "release").
fn check_args(args: &BenchArgs) -> Result<&'static str, BenchError> {
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
    if args.format.is_protobuf() {
        if args.schema.is_none() || args.message.is_none() {
            return Err(BenchError::Usage(format!(
                "--format {} reads the message type from --schema FILE (.proto or descriptor set) and --message NAME",
                args.format.stock_name()
            )));
        }
        if let Some(option) = first_given(&[
            (args.registry.is_some(), "--registry"),
            (args.subject.is_some(), "--subject"),
        ]) {
            return Err(BenchError::Usage(format!(
                "--format {} takes its schema from --schema and --message, not {option}",
                args.format.stock_name()
            )));
        }
    } else if args.message.is_some() {
        return Err(BenchError::Usage(
            "--message names a Protobuf message: only with --format protobuf or protobuf-confluent"
                .into(),
        ));
    } else if !args.format.uses_avro_registry() {
        if let Some(option) = first_given(&[
            (args.schema.is_some(), "--schema"),
            (args.registry.is_some(), "--registry"),
            (args.subject.is_some(), "--subject"),
        ]) {
            return Err(BenchError::Usage(format!(
                "--format {} has no registry schema: give the table's columns with --columns, not {option}",
                args.format.stock_name()
            )));
        }
    }
    let read_messages = args.input.is_some() || args.topic.is_some();
    if args.registry.is_some() && args.subject.is_none() && !read_messages {
        return Err(BenchError::Usage(
            "--registry without --subject only looks up the ids of --input or --topic messages; add --subject, --input or --topic".into(),
        ));
    }
    Ok(build)
}

/// The name of the first option given among `(given, name)`.
fn first_given(options: &[(bool, &'static str)]) -> Option<&'static str> {
    options
        .iter()
        .find_map(|&(given, name)| given.then_some(name))
}

/// Prints the table (or the JSON) and writes the HTML report.
fn emit(args: &BenchArgs, results: &Results) -> Result<(), BenchError> {
    let table = output::table(results);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&output::to_json(results)).unwrap_or_default()
        );
    } else {
        print!("{table}");
    }
    if let Some(dir) = &args.report {
        report::write(dir, results, &table)?;
        if !args.json {
            println!("report: {}", dir.join("index.html").display());
        }
    }
    Ok(())
}

/// The native format of `kind` for a row type, reading writer schemas from `registry_url`
/// (Avro, Confluent Protobuf), spelling floats with `float_text` (JSON), of the message
/// `proto` (Protobuf).
fn build_format(
    kind: FormatKind,
    row_type: &FlinkType,
    reader_schema: Option<String>,
    registry_url: &str,
    encode_id: i32,
    float_text: JavaFloatText,
    proto: Option<&protobuf::ProtoSchema>,
) -> Result<Box<dyn Format>, BenchError> {
    if kind.is_protobuf() {
        let p = proto.ok_or_else(|| BenchError::Usage("no Protobuf message".into()))?;
        let confluent = if kind == FormatKind::ProtobufConfluent {
            Some(protobuf::Confluent {
                source: std::sync::Arc::new(schema::client(registry_url)?),
                writer: protobuf::Protobuf::writer_schema(
                    row_type,
                    &p.text,
                    p.message.full_name(),
                )?,
                encode_id,
            })
        } else {
            None
        };
        return Ok(Box::new(protobuf::Protobuf::new(
            row_type.clone(),
            p.message.clone(),
            confluent,
        )?));
    }
    Ok(match kind {
        FormatKind::AvroConfluent => Box::new(avro_confluent::AvroConfluent::new(
            row_type.clone(),
            reader_schema,
            registry_url,
            encode_id,
        )?),
        FormatKind::Json => Box::new(json::Json::new(row_type.clone(), float_text, None)?),
        FormatKind::JsonConfluent => Box::new(json::Json::new(
            row_type.clone(),
            float_text,
            Some(encode_id),
        )?),
        FormatKind::Protobuf | FormatKind::ProtobufConfluent => {
            return Err(BenchError::Usage("no Protobuf message".into()))
        }
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
