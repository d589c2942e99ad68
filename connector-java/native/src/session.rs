//! The sessions that live behind handles, and the one set of calls Java makes on them.
//!
//! Every session is a [`Session`]: its [`SessionKind`] says which calls it answers; the
//! others fail with a clear error. The JNI entry points (`jni/entry_points.rs`) are
//! generic: they find the session by handle ([`crate::handles`]) and call the trait, so a
//! new kind of session (the operator pipeline, the native producer) plugs in with a
//! [`SessionKind`] variant, its `open` arm below and a `Session` impl, and no new entry
//! point unless it needs a call shape none of the generic ones has (`docs/jni-contract.md`,
//! "Adding a session kind").

use crate::avro::{AvroDecodeSession, AvroEncodeSession};
use crate::encoded_batch::EncodedBatch;
use crate::error::NativeError;
use crate::fetch::NativeFetch;
use crate::json::{JsonDecodeSession, JsonEncodeSession};
use crate::produce::NativeProducer;
use crate::protobuf::{ProtobufDecodeSession, ProtobufEncodeSession};
use crate::row_list::RowList;
use crate::value_batch::ValueBatch;

/// What a session is, as Java names it when it opens one (`SessionKind.java` mirrors the
/// codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SessionKind {
    /// `avro-confluent-native` decoder.
    AvroDecoder = 1,
    /// `avro-confluent-native` encoder.
    AvroEncoder = 2,
    /// `json-native` / `json-confluent-native` decoder.
    JsonDecoder = 3,
    /// `json-native` / `json-confluent-native` encoder.
    JsonEncoder = 4,
    /// `protobuf-native` / `protobuf-confluent-native` decoder.
    ProtobufDecoder = 5,
    /// `protobuf-native` / `protobuf-confluent-native` encoder.
    ProtobufEncoder = 6,
    /// The native fetch of the `kafka-native` source.
    Fetch = 7,
    /// An operator pipeline (#19): row images (or, with its own decoder, Kafka values) in,
    /// the Calc's kept and projected rows out.
    OperatorRows = 8,
    /// The native producer of the `kafka-native` sink (and its committer's EndTxn).
    Produce = 9,
    /// The encoded records of one fetched batch of a fully fused pipeline, between the
    /// fused source's `runBatch` and the producer's `handOver` (never opened by Java).
    EncodedBatch = 10,
}

impl SessionKind {
    /// Every kind, in code order.
    pub const ALL: [SessionKind; 10] = [
        SessionKind::AvroDecoder,
        SessionKind::AvroEncoder,
        SessionKind::JsonDecoder,
        SessionKind::JsonEncoder,
        SessionKind::ProtobufDecoder,
        SessionKind::ProtobufEncoder,
        SessionKind::Fetch,
        SessionKind::OperatorRows,
        SessionKind::Produce,
        SessionKind::EncodedBatch,
    ];

    /// One more than the largest code: the length of per-kind tables (code 0 is unused).
    pub const CODES: usize = 11;

    /// The kind with code `code`.
    pub fn from_code(code: i32) -> Result<Self, NativeError> {
        SessionKind::ALL
            .into_iter()
            .find(|kind| i32::from(kind.code()) == code)
            .ok_or_else(|| NativeError::InvalidCall(format!("no native session kind {code}")))
    }

    /// The code Java passes for this kind.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            SessionKind::AvroDecoder => "Avro decoder",
            SessionKind::AvroEncoder => "Avro encoder",
            SessionKind::JsonDecoder => "JSON decoder",
            SessionKind::JsonEncoder => "JSON encoder",
            SessionKind::ProtobufDecoder => "Protobuf decoder",
            SessionKind::ProtobufEncoder => "Protobuf encoder",
            SessionKind::Fetch => "fetch session",
            SessionKind::OperatorRows => "operator pipeline",
            SessionKind::Produce => "native producer",
            SessionKind::EncodedBatch => "encoded batch",
        }
    }

    /// Opens a session of this kind from Java's JSON configuration and the kind's bytes (a
    /// serialized `FileDescriptorSet` for the Protobuf kinds; empty for the others).
    pub fn open(self, config_json: &str, bytes: &[u8]) -> Result<Box<dyn Session>, NativeError> {
        let no_bytes = || {
            if bytes.is_empty() {
                Ok(())
            } else {
                Err(NativeError::InvalidCall(format!(
                    "a {} takes no bytes, got {}",
                    self.name(),
                    bytes.len()
                )))
            }
        };
        Ok(match self {
            SessionKind::AvroDecoder => {
                no_bytes()?;
                Box::new(AvroDecodeSession::open(config_json)?)
            }
            SessionKind::AvroEncoder => {
                no_bytes()?;
                Box::new(AvroEncodeSession::open(config_json)?)
            }
            SessionKind::JsonDecoder => {
                no_bytes()?;
                Box::new(JsonDecodeSession::open(config_json)?)
            }
            SessionKind::JsonEncoder => {
                no_bytes()?;
                Box::new(JsonEncodeSession::open(config_json)?)
            }
            SessionKind::ProtobufDecoder => {
                Box::new(ProtobufDecodeSession::open(config_json, bytes)?)
            }
            SessionKind::ProtobufEncoder => {
                Box::new(ProtobufEncodeSession::open(config_json, bytes)?)
            }
            SessionKind::Fetch => {
                no_bytes()?;
                Box::new(NativeFetch::open(config_json)?)
            }
            SessionKind::OperatorRows => Box::new(crate::operators::OperatorRowsSession::open(
                config_json,
                bytes,
            )?),
            SessionKind::Produce => {
                no_bytes()?;
                Box::new(NativeProducer::open(config_json)?)
            }
            SessionKind::EncodedBatch => {
                return Err(NativeError::InvalidCall(
                    "an encoded batch is made by a fused session's runBatch, not opened".into(),
                ))
            }
        })
    }
}

/// The rows a decode call gives for one value, as parts Java receives back to back: the
/// row-list layout (header, images), or the row's image alone for kinds whose values give
/// at most one row (`docs/jni-contract.md`).
pub type OneValueRows<'a> = [&'a [u8]; 2];

/// Wakes a session's blocking call from another thread ([`Session::waker`]).
pub type Waker = Box<dyn Fn() + Send + Sync>;

/// A native session behind a handle. Each kind implements the calls it answers; the
/// defaults fail naming the kind and the call.
pub trait Session: Send {
    /// What this session is.
    fn kind(&self) -> SessionKind;

    /// Bytes of the buffers this session keeps between calls (their capacity), for
    /// `stats`; called after every call, so it only adds up a few capacities.
    fn retained_bytes(&self) -> usize;

    /// Decodes one Kafka value (`None`: a null value, a tombstone) into its rows; `None`
    /// when it gives no row.
    fn decode_one(
        &mut self,
        _value: Option<&[u8]>,
    ) -> Result<Option<OneValueRows<'_>>, NativeError> {
        Err(unsupported(self.kind(), "decode"))
    }

    /// Decodes a batch of values into the rows of all values in the row-list layout and,
    /// per value `i`, the number of rows of values `0..=i`.
    fn decode_batch(
        &mut self,
        _values: ValueBatch<'_>,
    ) -> Result<(RowList<'_>, &[i32]), NativeError> {
        Err(unsupported(self.kind(), "decode"))
    }

    /// Encodes one row image into one Kafka value.
    fn encode_one(&mut self, _image: &[u8]) -> Result<&[u8], NativeError> {
        Err(unsupported(self.kind(), "encode"))
    }

    /// Encodes row images into values laid out back to back, with `count + 1` offsets.
    fn encode_batch(&mut self, _images: &[&[u8]]) -> Result<(&[u8], &[i32]), NativeError> {
        Err(unsupported(self.kind(), "encode"))
    }

    /// The schema id written in every value's header, if the session writes one.
    fn schema_id(&self) -> Option<i32> {
        None
    }

    /// Runs a control request (JSON text, with an `"op"`) that is not on a per-record or
    /// per-batch path; returns the reply (JSON text).
    fn control(&mut self, _request: &str) -> Result<String, NativeError> {
        Err(unsupported(self.kind(), "control"))
    }

    /// Does one round of the session's work (for fetch: one Fetch request per leader) and
    /// returns its summary.
    fn poll(&mut self) -> Result<&[i64], NativeError> {
        Err(unsupported(self.kind(), "poll"))
    }

    /// What wakes this session's blocking [`Session::poll`] from another thread (asked once,
    /// when the session is opened; `None`: its calls do not block).
    fn waker(&self) -> Option<Waker> {
        None
    }

    /// The parts of the last poll, in the order Java's buffers receive them.
    fn polled_parts(&self) -> Result<Vec<&[u8]>, NativeError> {
        Err(unsupported(self.kind(), "copy out"))
    }

    /// Takes `count` items laid out in `parts` (the kind's parts, in its order; e.g. the
    /// producer's encoded records: metadata, keys, values, headers).
    fn copy_in(&mut self, _parts: &[&[u8]], _count: usize) -> Result<(), NativeError> {
        Err(unsupported(self.kind(), "copy in"))
    }

    /// Runs a batch of Kafka values through a fully fused pipeline (decode, Calc, the
    /// sink's encoders) into a new [`EncodedBatch`] session, which the caller opens as a
    /// handle of its own.
    fn run_batch(&mut self, _values: ValueBatch<'_>) -> Result<Box<dyn Session>, NativeError> {
        Err(unsupported(self.kind(), "run a fused batch"))
    }

    /// This session as an encoded batch, if it is one.
    fn as_encoded_batch(&mut self) -> Option<&mut EncodedBatch> {
        None
    }

    /// Appends the records of an encoded batch (a producer); returns the records appended.
    fn append_batch(&mut self, _batch: &EncodedBatch) -> Result<usize, NativeError> {
        Err(unsupported(self.kind(), "take an encoded batch"))
    }
}

#[cold]
fn unsupported(kind: SessionKind, call: &str) -> NativeError {
    NativeError::InvalidCall(format!("a {} does not {call}", kind.name()))
}
