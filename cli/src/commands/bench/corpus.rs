//! The messages a run measures: read from a file or a Kafka topic, or generated from the
//! schema; ids pointed at the in-process registry when no registry resolves them.

use super::format::FormatKind;
use super::messages::{self, Messages};
use super::progress::Progress;
use super::protobuf::ProtoSchema;
use super::schema::Resolved;
use super::{generate, generate_json, generate_protobuf, topic, BenchArgs, BenchError, TempDir};
use karrow_codecs::avro::model::AvroNode;

/// The corpus of a run, where it came from, and what a reader of the results should know.
pub struct Corpus {
    /// The messages (`None`: a null value).
    pub messages: Messages,
    /// Where the messages came from, for the report.
    pub origin: String,
    /// Notes for the report (limits applied, ids rewritten).
    pub notes: Vec<String>,
}

impl Corpus {
    /// Bytes of all non-null messages.
    pub fn bytes(&self) -> u64 {
        self.messages.iter().flatten().map(|m| m.len() as u64).sum()
    }
}

/// Reads or generates the messages of `args`; `writer_id` is the writer schema's id in the
/// registry the native decoder reads, `proto` the Protobuf message type.
pub fn load(
    args: &BenchArgs,
    resolved: &Resolved,
    writer_id: Option<i32>,
    proto: Option<&ProtoSchema>,
    tmp: &TempDir,
    progress: &Progress,
) -> Result<Corpus, BenchError> {
    let mut notes = Vec::new();
    let (mut messages, origin) = match (&args.input, args.generate) {
        _ if args.topic.is_some() => read_topic(args, tmp, progress, &mut notes)?,
        (Some(path), _) => (
            messages::read(path, args.input_format)?,
            format!("from {}", path.display()),
        ),
        (None, Some(n)) => generate_messages(args, resolved, writer_id, proto, n, progress)?,
        (None, None) => return Err(BenchError::Usage("no messages".into())),
    };
    if messages.is_empty() {
        return Err(BenchError::Messages(
            "there are no messages to measure".into(),
        ));
    }
    if (args.format.uses_avro_registry() || args.format == FormatKind::ProtobufConfluent)
        && args.registry.is_none()
        && (args.input.is_some() || args.topic.is_some())
    {
        point_ids_at(&mut messages, writer_id.unwrap_or_default(), &mut notes);
    }
    if let Some(path) = &args.save_messages {
        messages::write_length_prefixed(path, &messages)?;
    }
    Ok(Corpus {
        messages,
        origin,
        notes,
    })
}

fn read_topic(
    args: &BenchArgs,
    tmp: &TempDir,
    progress: &Progress,
    notes: &mut Vec<String>,
) -> Result<(Messages, String), BenchError> {
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
        progress,
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
    Ok((read.messages, origin))
}

fn generate_messages(
    args: &BenchArgs,
    resolved: &Resolved,
    writer_id: Option<i32>,
    proto: Option<&ProtoSchema>,
    count: usize,
    progress: &Progress,
) -> Result<(Messages, String), BenchError> {
    let opts = generate::GenerateOptions {
        count,
        seed: args.seed,
        null_rate: args.null_rate,
        string_len: args.string_len,
        collection_len: args.collection_len,
    };
    progress.update(&format!("generating {count} messages"));
    let generated = match args.format {
        FormatKind::Json => generate_json::generate(&resolved.row_type, &opts)?,
        FormatKind::JsonConfluent => {
            let id = writer_id
                .ok_or_else(|| BenchError::Usage("cannot generate without a schema id".into()))?;
            let mut messages = generate_json::generate(&resolved.row_type, &opts)?;
            for m in &mut messages {
                let mut framed = Vec::with_capacity(m.len() + 5);
                framed.push(0);
                framed.extend_from_slice(&id.to_be_bytes());
                framed.extend_from_slice(m);
                *m = framed;
            }
            messages
        }
        FormatKind::Protobuf | FormatKind::ProtobufConfluent => {
            let p = proto.ok_or_else(|| BenchError::Usage("no Protobuf message".into()))?;
            let mut prefix = Vec::new();
            if args.format == FormatKind::ProtobufConfluent {
                let id = writer_id.ok_or_else(|| {
                    BenchError::Usage("cannot generate without a schema id".into())
                })?;
                let writer = super::protobuf::Protobuf::writer_schema(
                    &resolved.row_type,
                    &p.text,
                    p.message.full_name(),
                )?;
                prefix.extend_from_slice(&karrow_codecs::framing::confluent_header(id));
                karrow_codecs::framing::write_message_indexes(&writer.path, &mut prefix);
            }
            generate_protobuf::generate(&p.message, &prefix, &opts)?
        }
        FormatKind::AvroConfluent => {
            let id = writer_id
                .ok_or_else(|| BenchError::Usage("cannot generate without a schema id".into()))?;
            let writer = AvroNode::parse(&resolved.writer_schema)
                .map_err(|e| BenchError::Schema(e.to_string()))?;
            generate::generate(&writer, &resolved.writer_row_type, id, &opts)?
        }
    };
    Ok((
        generated.into_iter().map(Some).collect(),
        format!(
            "generated: seed {}, null rate {}, string length {}, collection length {}",
            args.seed, args.null_rate, args.string_len, args.collection_len
        ),
    ))
}

/// The file's or topic's ids mean nothing to the in-process registry: every message is
/// pointed at the given schema's `id`.
fn point_ids_at(messages: &mut Messages, id: i32, notes: &mut Vec<String>) {
    let bytes = id.to_be_bytes();
    let mut rewritten = 0usize;
    for m in messages.iter_mut().flatten() {
        if m.len() >= 5 && m[0] == 0 && m[1..5] != bytes {
            m[1..5].copy_from_slice(&bytes);
            rewritten += 1;
        }
    }
    if rewritten > 0 {
        notes.push(format!(
            "{rewritten} messages carried another schema id; all are read with the given schema (id {id} here); use --registry to resolve ids"
        ));
    }
}
