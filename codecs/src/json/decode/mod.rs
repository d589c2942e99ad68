//! JSON messages decoded into Flink binary row images with flink-json's semantics.
//!
//! `encoding.rs` detects the input charset as Jackson does, `../tokens.rs` reads tokens,
//! `plan.rs` compiles the row type, `parser.rs` holds the converters of the default
//! (streaming) decoder, `tree.rs` is Jackson's tree model (STRING from a subtree, and the
//! tree decoder's input).

mod encoding;
mod parser;
mod plan;
mod scalars;
mod tree;
mod tree_converters;

use crate::error::{CodecError, ErrorContext};
use crate::json::options::JsonDecodeOptions;
use crate::json::tokens::{Token, TokenBuffers, Tokens};
use crate::types::FlinkType;

use parser::ParserConverters;
use plan::RowPlan;
use tree::{Node, NodeText};
use tree_converters::TreeConverters;

/// Decodes JSON Kafka values of one row type, with the options of the `json` format.
pub struct JsonRowDecoder {
    plan: RowPlan,
    options: JsonDecodeOptions,
    converters: ParserConverters,
    tree: TreeConverters,
    buffers: TokenBuffers,
}

impl JsonRowDecoder {
    /// Compiles a decoder; fails for types flink-json rejects (MAP with non-string keys).
    /// The options are the format's, validated by the Java factory (which refuses
    /// `fail-on-missing-field` together with `ignore-parse-errors`, as Flink does).
    pub fn new(row_type: &FlinkType, options: JsonDecodeOptions) -> Result<Self, CodecError> {
        let plan = RowPlan::new(row_type.row_fields()?)?;
        let text = NodeText {
            has_decimal: plan::has_decimal(row_type),
            floats: options.float_text,
        };
        Ok(JsonRowDecoder {
            plan,
            converters: ParserConverters::new(
                options.ignore_parse_errors,
                options.fail_on_missing_field,
                options.timestamp_standard,
                text,
            ),
            tree: TreeConverters {
                ignore_parse_errors: options.ignore_parse_errors,
                fail_on_missing_field: options.fail_on_missing_field,
                timestamp_standard: options.timestamp_standard,
                text,
            },
            options,
            buffers: TokenBuffers::default(),
        })
    }

    /// Decodes one Kafka value, appending its rows (0..n: a top-level array gives one row
    /// per element) to `out` and each row image's end offset in `out` to `row_ends`. On
    /// error nothing is appended; under `ignore-parse-errors` a message that cannot be
    /// read yields the rows read before the failure (as flink-json emits them) or none.
    pub fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        if message.is_empty() {
            return Ok(());
        }
        let (out_mark, ends_mark) = (out.len(), row_ends.len());
        let utf8 = encoding::as_utf8(message);
        let buffers = std::mem::take(&mut self.buffers);
        let mut t = Tokens::with_buffers(&utf8, buffers);
        let result = if self.options.json_parser {
            self.rows(&mut t, out, row_ends)
        } else {
            self.tree_rows(&mut t, out, row_ends)
        };
        self.buffers = t.into_buffers();
        match result {
            Ok(()) => Ok(()),
            Err(_) if self.options.ignore_parse_errors => Ok(()),
            Err(reason) => {
                out.truncate(out_mark);
                row_ends.truncate(ends_mark);
                Err(CodecError::Json {
                    message: format!("'{}': {reason}", shown(message)),
                    context: ErrorContext::default(),
                })
            }
        }
    }

    /// The message level of the default decoder (`JsonParserRowDataDeserializationSchema`):
    /// an object is one row, an array one row per element, anything else an error.
    fn rows(
        &mut self,
        t: &mut Tokens<'_>,
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), String> {
        match t.next().map_err(|e| e.0)? {
            Some(Token::StartObject) => {
                self.row(t, out)?;
                row_ends.push(out.len());
                Ok(())
            }
            Some(Token::StartArray) => loop {
                match t.next().map_err(|e| e.0)? {
                    Some(Token::EndArray) => return Ok(()),
                    Some(Token::Null) => {
                        // flink-json hands a null row to the collector, which the Kafka
                        // source cannot emit; karrow reports it (skipped when ignoring).
                        if !self.options.ignore_parse_errors {
                            return Err("Invalid null element in the top-level JSON array".into());
                        }
                    }
                    Some(_) => {
                        let mark = out.len();
                        match self.row(t, out) {
                            Ok(()) => row_ends.push(out.len()),
                            Err(e) if !self.options.ignore_parse_errors => return Err(e),
                            // The element becomes a null row in flink-json: not emitted.
                            Err(_) => out.truncate(mark),
                        }
                    }
                    None => return Err("Unexpected end-of-input in the top-level array".into()),
                }
            },
            _ => Err("No content to map due to end-of-input".into()),
        }
    }

    /// The message level of the tree decoder (`JsonRowDataDeserializationSchema`): the
    /// first value is read whole (a syntax error anywhere in it fails the message);
    /// nothing or `null` gives no row, an array one row per non-null element.
    fn tree_rows(
        &mut self,
        t: &mut Tokens<'_>,
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), String> {
        if t.next().map_err(|e| e.0)?.is_none() {
            return Ok(());
        }
        let node = tree::read_node(t)?;
        let elements = match &node {
            Node::Null => return Ok(()),
            Node::Array(items) => items.iter().collect(),
            single => vec![single],
        };
        for element in elements {
            if matches!(element, Node::Null) {
                continue;
            }
            let mark = out.len();
            match self.tree.row(&self.plan, element, out) {
                Ok(()) => row_ends.push(out.len()),
                Err(e) if !self.options.ignore_parse_errors => {
                    out.truncate(mark);
                    return Err(e);
                }
                Err(_) => out.truncate(mark),
            }
        }
        Ok(())
    }

    fn row(&mut self, t: &mut Tokens<'_>, out: &mut Vec<u8>) -> Result<(), String> {
        let mark = out.len();
        let r = self.converters.row(&self.plan, t, out);
        if r.is_err() {
            out.truncate(mark);
        }
        r
    }
}

/// The message as text for error messages (lossy, bounded).
fn shown(message: &[u8]) -> String {
    const LIMIT: usize = 1024;
    let text = String::from_utf8_lossy(&message[..message.len().min(LIMIT)]);
    if message.len() > LIMIT {
        format!("{text}...")
    } else {
        text.into_owned()
    }
}

#[cfg(test)]
mod tests;
