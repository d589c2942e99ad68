//! The formats `karrow bench` measures. Each format implements [`Format`] (one per process,
//! shared by the threads) and hands out one [`Session`] per thread; adding a format means one more [`FormatKind`] variant and one more file implementing these two
//! traits (`avro_confluent.rs`, `json.rs`, `protobuf.rs`).

use arrow_array::RecordBatch;
use clap::ValueEnum;
use karrow_codecs::types::FlinkType;

use super::error::BenchError;

/// The formats that can be benchmarked (those whose native codec has landed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatKind {
    /// Confluent-framed Avro (`avro-confluent` / `avro-confluent-native`).
    #[value(alias = "avro-confluent-native")]
    AvroConfluent,
    /// Plain JSON values (`json` / `json-native`), the row type from `--columns`.
    #[value(alias = "json-native")]
    Json,
    /// Confluent-framed JSON (`json-confluent-native`; the stock side is flink-json after the
    /// 5-byte header, as open-source Flink has no such format), the row type from `--columns`.
    #[value(alias = "json-confluent-native")]
    JsonConfluent,
    /// Protobuf values (`protobuf` / `protobuf-native`) of the message `--message` of the
    /// `.proto` or descriptor set `--schema`.
    #[value(alias = "protobuf-native")]
    Protobuf,
    /// Confluent-framed Protobuf (`protobuf-confluent-native`; the stock side is
    /// flink-protobuf after the header and message indexes, as open-source Flink has no such
    /// format), the message's `.proto` registered as the writer schema.
    #[value(alias = "protobuf-confluent-native")]
    ProtobufConfluent,
}

impl FormatKind {
    /// The stock Flink format name.
    pub fn stock_name(self) -> &'static str {
        match self {
            FormatKind::AvroConfluent => "avro-confluent",
            FormatKind::Json => "json",
            FormatKind::JsonConfluent => "json-confluent",
            FormatKind::Protobuf => "protobuf",
            FormatKind::ProtobufConfluent => "protobuf-confluent",
        }
    }

    /// The names of the stock lines (decode, encode), after the Flink library that runs them.
    pub fn stock_line_names(self) -> [&'static str; 2] {
        match self {
            FormatKind::AvroConfluent => ["decode (flink-avro)", "encode (flink-avro)"],
            FormatKind::Json => ["decode (flink-json)", "encode (flink-json)"],
            FormatKind::JsonConfluent => [
                "decode (header + flink-json)",
                "encode (header + flink-json)",
            ],
            FormatKind::Protobuf => ["decode (flink-protobuf)", "encode (flink-protobuf)"],
            FormatKind::ProtobufConfluent => [
                "decode (header + flink-protobuf)",
                "encode (header + flink-protobuf)",
            ],
        }
    }

    /// This format's Confluent-framed variant when `framed` (`json` -> `json-confluent`,
    /// `protobuf` -> `protobuf-confluent`), else this format.
    pub fn confluent_framed_if(self, framed: bool) -> FormatKind {
        match self {
            FormatKind::Json if framed => FormatKind::JsonConfluent,
            FormatKind::Protobuf if framed => FormatKind::ProtobufConfluent,
            kind => kind,
        }
    }

    /// Whether the values are JSON (`json`, `json-confluent`).
    pub fn is_json(self) -> bool {
        matches!(self, FormatKind::Json | FormatKind::JsonConfluent)
    }

    /// Whether the values are Protobuf (`protobuf`, `protobuf-confluent`).
    pub fn is_protobuf(self) -> bool {
        matches!(self, FormatKind::Protobuf | FormatKind::ProtobufConfluent)
    }

    /// Whether the messages are Confluent-framed with an Avro writer schema in a registry.
    pub fn uses_avro_registry(self) -> bool {
        matches!(self, FormatKind::AvroConfluent)
    }
}

/// Messages produced by an encode: message `i` is `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Default)]
pub struct Encoded {
    /// All messages back to back.
    pub bytes: Vec<u8>,
    /// `messages + 1` offsets (empty before the first encode).
    pub offsets: Vec<i32>,
}

impl Encoded {
    /// Empties the buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.offsets.clear();
    }

    /// The messages, one slice each.
    pub fn messages(&self) -> impl Iterator<Item = &[u8]> {
        self.offsets
            .windows(2)
            .map(|w| &self.bytes[w[0] as usize..w[1] as usize])
    }
}

/// Flink binary row images: row `i` is `bytes[offsets[i]..offsets[i + 1]]`, and an empty
/// span is a null value (no row).
#[derive(Debug, Default)]
pub struct Rows {
    /// All images back to back.
    pub bytes: Vec<u8>,
    /// `messages + 1` offsets.
    pub offsets: Vec<i32>,
}

impl Rows {
    /// The non-empty images (the rows), in order.
    pub fn images(&self) -> impl Iterator<Item = &[u8]> {
        self.offsets
            .windows(2)
            .filter(|w| w[1] > w[0])
            .map(|w| &self.bytes[w[0] as usize..w[1] as usize])
    }

    /// Per message: its image, or `None` for a null value.
    pub fn per_message(&self) -> impl Iterator<Item = Option<&[u8]>> {
        self.offsets
            .windows(2)
            .map(|w| (w[1] > w[0]).then(|| &self.bytes[w[0] as usize..w[1] as usize]))
    }
}

/// One format, configured for one schema.
pub trait Format: Send + Sync {
    /// The kind, for names and the stock harness.
    fn kind(&self) -> FormatKind;
    /// The Flink row type the messages are read into.
    fn row_type(&self) -> &FlinkType;
    /// A codec for one thread.
    fn session(&self) -> Result<Box<dyn Session>, BenchError>;
}

/// `format`, once it has handed out a session: a schema its codec refuses fails here, before
/// the run, rather than in a worker thread.
pub fn checked<F: Format>(format: F) -> Result<F, BenchError> {
    format.session()?;
    Ok(format)
}

/// The per-thread codec of a [`Format`]. Batch entry points; `None` is a null value.
pub trait Session: Send {
    /// Decodes messages into Flink binary row images (the path the Flink format runs).
    fn decode_binary(
        &mut self,
        messages: &[Option<&[u8]>],
        out: &mut Rows,
    ) -> Result<(), BenchError>;
    /// Decodes messages into one Arrow batch (one row per non-null message).
    fn decode_arrow(&mut self, messages: &[Option<&[u8]>]) -> Result<RecordBatch, BenchError>;
    /// Encodes every row of `batch`, appending to `out`.
    fn encode_arrow(&mut self, batch: &RecordBatch, out: &mut Encoded) -> Result<(), BenchError>;
    /// Encodes Flink binary row images (the sink path: images read into Arrow, then encoded).
    fn encode_binary(&mut self, rows: &Rows, out: &mut Encoded) -> Result<(), BenchError>;
}
