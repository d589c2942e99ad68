//! Protobuf messages decoded straight from the wire format into Flink binary row images,
//! with flink-protobuf's semantics (protobuf-java's parse, then the generated getters).
//!
//! Each message is read in two passes over its bytes: [`scan`] records where every
//! field the row type reads occurs (and checks the rest as protobuf-java's parse
//! would), then [`row`] writes the columns in order from those occurrences — the last
//! value of a singular field, the merge of every occurrence of a sub-message, all
//! elements of a repeated field, the entries of a map — or the absent-field value.

mod arrays;
pub(crate) mod flat;
mod maps;
mod row;
mod scan;
mod small_values;
mod values;

use prost_reflect::MessageDescriptor;

use super::checks::{CheckError, Checks};
use super::plan::{MessagePlan, ProtobufOptions};
use super::wire::WireError;
use crate::error::{CodecError, ErrorContext};
use crate::flink_binary::elements::ElementImages;
use crate::types::{FlinkKind, FlinkType};

/// Decodes protobuf Kafka values of one message type into rows of one row type.
pub struct ProtobufRowDecoder {
    plan: MessagePlan,
    checks: Checks,
    options: ProtobufOptions,
    scratch: Scratch,
}

/// One recorded occurrence of a field on the wire: its value's span and wire type, and
/// the next occurrence of the same field (`NONE` at the end).
#[derive(Debug, Clone, Copy)]
pub(super) struct Occurrence {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) next: u32,
    pub(super) wire: super::wire::WireType,
}

/// The first and last occurrence of one column's field (`NONE` when absent).
#[derive(Debug, Clone, Copy)]
pub(super) struct Chain {
    pub(super) first: u32,
    pub(super) last: u32,
}

/// "No occurrence" in [`Occurrence::next`] and [`Chain`].
pub(super) const NONE: u32 = u32::MAX;

/// [`Chain::first`] of a column the scan wrote straight into the row.
pub(super) const WRITTEN: u32 = u32::MAX - 1;

impl Chain {
    pub(super) const EMPTY: Chain = Chain {
        first: NONE,
        last: NONE,
    };

    /// The chain of a column the scan wrote itself.
    pub(super) const DIRECT: Chain = Chain {
        first: WRITTEN,
        last: WRITTEN,
    };
}

/// Buffers reused across messages; nested messages use the stacks above their parent's
/// part and give it back when done.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) occurrences: Vec<Occurrence>,
    pub(super) chains: Vec<Chain>,
    /// Spare buffers for sub-messages that occur several times (merged by concatenation).
    pub(super) merged: Vec<Vec<u8>>,
    /// Spare element buffers for arrays and map sides.
    pub(super) elements: Vec<ElementImages>,
    /// Per oneof of each message level: the occurrence count when a member that is not a
    /// column was last seen (`NONE`: never), a position among the column occurrences.
    pub(super) ghost_marks: Vec<u32>,
    /// The entries of the maps being written (nested maps above their parent's).
    entries: Vec<maps::MapEntry>,
    /// Buffer spans of map entries' message values (see [`maps::MapEntry`]).
    parts: Vec<(u32, u32)>,
    /// The replay of the `HashMap` that orders a map's entries.
    map_order: maps::MapOrder,
}

impl Scratch {
    /// A cleared element buffer from the pool.
    pub(super) fn take_elements(&mut self) -> ElementImages {
        let mut e = self.elements.pop().unwrap_or_default();
        e.clear();
        e
    }

    /// Gives an element buffer back to the pool.
    pub(super) fn give_elements(&mut self, e: ElementImages) {
        self.elements.push(e);
    }

    /// An empty byte buffer from the pool.
    pub(super) fn take_bytes(&mut self) -> Vec<u8> {
        let mut b = self.merged.pop().unwrap_or_default();
        b.clear();
        b
    }

    /// Gives a byte buffer back to the pool.
    pub(super) fn give_bytes(&mut self, b: Vec<u8>) {
        self.merged.push(b);
    }
}

/// Why a message cannot be decoded, with the path of the field being read (boxed: the
/// decode passes return it through every call, and a one-word error keeps those results
/// in registers).
#[derive(Debug)]
pub(super) struct DecodeFail(Box<FailDetail>);

/// What a [`DecodeFail`] says.
#[derive(Debug)]
pub(super) struct FailDetail {
    pub(super) message: String,
    pub(super) field: Option<String>,
}

impl DecodeFail {
    #[cold]
    pub(super) fn new(message: impl Into<String>) -> Self {
        DecodeFail(Box::new(FailDetail {
            message: message.into(),
            field: None,
        }))
    }

    /// Prefixes the field path with `name` (innermost first as the error bubbles up).
    #[cold]
    pub(super) fn in_field(mut self, name: &str) -> Self {
        self.0.field = Some(match self.0.field.take() {
            None => name.to_string(),
            Some(inner) => format!("{name}.{inner}"),
        });
        self
    }
}

impl From<WireError> for DecodeFail {
    fn from(e: WireError) -> Self {
        DecodeFail::new(e.to_string())
    }
}

impl From<CheckError> for DecodeFail {
    fn from(e: CheckError) -> Self {
        DecodeFail::new(e.to_string())
    }
}

impl From<CodecError> for DecodeFail {
    fn from(e: CodecError) -> Self {
        DecodeFail::new(e.to_string())
    }
}

/// Points `slot` (of the image at `base`) at the value written from `start` to the end
/// of `out`.
pub(super) fn point_at(out: &mut [u8], base: usize, slot: usize, start: usize) -> DecodeResult<()> {
    let size = out.len() - start;
    crate::flink_binary::layout::set_offset_and_size(out, base, slot, start, size)?;
    Ok(())
}

/// The result type of the decode passes.
pub(super) type DecodeResult<T> = Result<T, DecodeFail>;

impl ProtobufRowDecoder {
    /// Compiles a decoder of `message` into rows of `row_type` (a ROW type whose column
    /// names are proto field names).
    pub fn new(
        message: &MessageDescriptor,
        row_type: &FlinkType,
        options: ProtobufOptions,
    ) -> Result<Self, CodecError> {
        let FlinkKind::Row(fields) = &row_type.kind else {
            return Err(CodecError::InvalidType(
                "a protobuf message decodes into a ROW type".into(),
            ));
        };
        let (checks, _) = Checks::build(message);
        let mut plan = MessagePlan::compile(message, fields, &options, &checks)?;
        flat::attach(&mut plan, &checks);
        Ok(ProtobufRowDecoder {
            plan,
            checks,
            options,
            scratch: Scratch::default(),
        })
    }

    /// The options this decoder was compiled with.
    pub fn options(&self) -> &ProtobufOptions {
        &self.options
    }

    /// Decodes one Kafka value, appending its row image to `out` and the image's end
    /// offset to `row_ends`. A value that protobuf-java cannot parse fails, or under
    /// `ignore-parse-errors` appends nothing. A zero-length value is an empty message.
    pub fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        let start = out.len();
        let result = if message.len() > u32::MAX as usize - 1 {
            Err(DecodeFail::new("message larger than 4 GiB"))
        } else if matches!(&self.plan.flat, Some(flat) if flat::write_flat(flat, &self.plan, message, out))
        {
            // The one-pass decoder read it (see `flat`).
            Ok(())
        } else {
            self.scratch.occurrences.clear();
            self.scratch.chains.clear();
            self.scratch.ghost_marks.clear();
            self.scratch.entries.clear();
            self.scratch.parts.clear();
            row::write_two_pass(&self.plan, &self.checks, message, 0, &mut self.scratch, out)
        };
        match result {
            Ok(()) => {
                row_ends.push(out.len());
                Ok(())
            }
            Err(_) if self.options.ignore_parse_errors => {
                out.truncate(start);
                Ok(())
            }
            Err(fail) => {
                out.truncate(start);
                let FailDetail { message, field } = *fail.0;
                Err(CodecError::Protobuf {
                    message,
                    context: ErrorContext {
                        field,
                        ..ErrorContext::default()
                    },
                })
            }
        }
    }
}

#[cfg(test)]
mod tests;
