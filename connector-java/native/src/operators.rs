//! The operator pipeline session (kind 8, `docs/jni-contract.md`): a validated
//! `karrow-operators` plan, answering `decodeBatch` with the kept, projected rows in the
//! row-list layout (source fusion), and `control` with the planning-time question "is this
//! plan runnable?".
//!
//! `configJson` is one of:
//! - the plan itself (`docs/operator-plan.md`): `decodeBatch` takes row images of the plan's
//!   input type;
//! - `{"plan": <plan>, "decoder": {"kind": K, "config": <the decoder's configJson>}}`: the
//!   session owns a value decoder of kind `K` (Avro, JSON or Protobuf; `bytes` are the
//!   decoder's) and `decodeBatch` takes Kafka values, decodes them into the plan's input rows
//!   (honouring the decoder's `ignore_parse_errors`) and runs the plan on them in the same
//!   call: the fused `kafka-native` source;
//! - `{}`: a checker, a session without a plan that answers only `control` (what the
//!   planner keeps while it plans).
//!
//! A plan the core does not run fails the open with the decline reason.
//!
//! **Full fusion.** A fused source's plan with an encode stage (`docs/operator-plan.md`,
//! "Encode stage") opens the sink's encoders too, each exactly as the sink's own encoder
//! session opens (the same [`SessionKind::open`], so the same writer-schema registration
//! and the same bytes). Such a session answers `runBatch` instead of `decodeBatch`: the
//! values are decoded, the Calc runs, the kept rows are projected onto the key and value
//! columns and encoded, and the records go into a new [`EncodedBatch`] (its own handle),
//! which the sink writer hands to its producer (`handOver`). Nothing per record crosses.

use karrow_codecs::flink_binary::{read_batch_rows, write_batch_rows, RowImages};
use karrow_codecs::types::{FlinkField, FlinkKind};
use karrow_codecs::FlinkType;
use karrow_operators::pipeline::rows::calc_rows;
use karrow_operators::plan::{EncodeFormat, Encoder};
use karrow_operators::{decline_reason, Calc, PipelineError, RunnablePlan};
use serde::Deserialize;

use crate::encoded_batch::EncodedBatch;
use crate::error::NativeError;
use crate::row_list::RowList;
use crate::session::{Session, SessionKind};
use crate::value_batch::ValueBatch;

/// A Calc over row images, or over the rows its own value decoder gives, with the buffers
/// its calls reuse.
pub struct OperatorRowsSession {
    /// `None` for a checker session.
    calc: Option<Calc>,
    /// The value decoder of a fused source: values in instead of row images.
    decoder: Option<Box<dyn Session>>,
    out: RowImages,
    header: Vec<u8>,
    input_row_ends: Vec<i32>,
    /// The sink's encoders of a fully fused session (the plan has an encode stage).
    encoders: Option<SinkEncoders>,
}

/// One of the sink's encoders in a fully fused session: the format's own encoder session
/// and the output columns it writes.
struct SinkEncoder {
    session: Box<dyn Session>,
    columns: Vec<usize>,
    /// The output row type of `columns` (the Calc's types: the row images' layout).
    image_type: FlinkType,
    images: RowImages,
    what: &'static str,
}

/// The value encoder and, when the sink has a key format, the key encoder.
struct SinkEncoders {
    value: SinkEncoder,
    key: Option<SinkEncoder>,
}

/// The encoder session kind of a sink format (the kind the sink's own encoder opens).
fn encoder_kind(format: EncodeFormat) -> SessionKind {
    match format {
        EncodeFormat::Json | EncodeFormat::JsonConfluent => SessionKind::JsonEncoder,
        EncodeFormat::AvroConfluent => SessionKind::AvroEncoder,
        EncodeFormat::ProtobufConfluent => SessionKind::ProtobufEncoder,
    }
}

impl SinkEncoder {
    fn open(
        encoder: &Encoder,
        output: &FlinkType,
        what: &'static str,
    ) -> Result<Self, NativeError> {
        let fields = output.row_fields()?;
        let picked = encoder
            .columns
            .iter()
            .map(|&c| {
                fields.get(c).cloned().ok_or_else(|| {
                    NativeError::Config(format!("the encode stage names output column {c}"))
                })
            })
            .collect::<Result<Vec<FlinkField>, _>>()?;
        let session = encoder_kind(encoder.format).open(&encoder.config.to_string(), &[])?;
        Ok(SinkEncoder {
            session,
            columns: encoder.columns.clone(),
            image_type: FlinkType {
                nullable: false,
                kind: FlinkKind::Row(picked),
            },
            images: RowImages::default(),
            what,
        })
    }

    /// Encodes the `columns` of `batch` (the Calc's output); a failing row fails with the
    /// index of the value it came from (`sources`).
    fn encode<'s>(
        &'s mut self,
        batch: &arrow_array::RecordBatch,
        sources: &[u32],
    ) -> Result<(&'s [u8], &'s [i32]), NativeError> {
        let internal = |e: String| NativeError::Operator {
            index: None,
            message: e,
        };
        let projected = batch
            .project(&self.columns)
            .map_err(|e| internal(e.to_string()))?;
        self.images.bytes.clear();
        self.images.offsets.clear();
        write_batch_rows(&projected, &self.image_type, &mut self.images)?;
        let mut slices = Vec::with_capacity(projected.num_rows());
        for w in self.images.offsets.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            slices.push(
                self.images
                    .bytes
                    .get(a..b)
                    .ok_or_else(|| internal("row image offsets out of range".into()))?,
            );
        }
        let what = self.what;
        self.session.encode_batch(&slices).map_err(|e| {
            let source = e
                .record_index()
                .and_then(|r| sources.get(r))
                .map(|&s| s as usize);
            NativeError::Operator {
                index: source,
                message: format!("the sink's {what} format cannot encode a row: {e}"),
            }
        })
    }
}

/// The configuration of a fused source's session: the plan and the value decoder.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FusedSourceConfig {
    plan: serde_json::Value,
    decoder: DecoderConfig,
}

/// Which value decoder a fused source runs, configured as its own session would be.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DecoderConfig {
    kind: i32,
    config: serde_json::Value,
}

/// The `control` requests of an operator session.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Control {
    /// `{"op":"decline_reason","plan":{...}}`: `null` when the plan is runnable, else the
    /// reason as a JSON string.
    DeclineReason { plan: serde_json::Value },
}

fn pipeline_error(e: PipelineError) -> NativeError {
    match e {
        PipelineError::Eval(row) => NativeError::Operator {
            index: Some(row.row),
            message: row.error.to_string(),
        },
        PipelineError::Codec(c) => NativeError::from(c),
        PipelineError::Internal(m) => NativeError::Operator {
            index: None,
            message: m,
        },
    }
}

/// The planning-time answer for a plan: the operator core's reason, then — for a plan with
/// an encode stage — whether each encoder's configuration reads as its encoder session's
/// would (no registry call).
pub fn full_decline_reason(plan_json: &str) -> Option<String> {
    if let Some(reason) = decline_reason(plan_json) {
        return Some(reason);
    }
    let plan = match RunnablePlan::from_json(plan_json) {
        Ok(plan) => plan,
        Err(d) => return Some(d.0),
    };
    let stage = plan.encode.as_ref()?;
    for (what, encoder) in [("value", Some(&stage.value)), ("key", stage.key.as_ref())] {
        let Some(encoder) = encoder else { continue };
        let config = encoder.config.to_string();
        let checked = match encoder_kind(encoder.format) {
            SessionKind::JsonEncoder => {
                crate::config::JsonEncoderConfig::from_json(&config).map(drop)
            }
            SessionKind::AvroEncoder => {
                crate::config::AvroEncoderConfig::from_json(&config).map(drop)
            }
            _ => crate::config::ProtobufConfig::from_json(&config).map(drop),
        };
        if let Err(e) = checked {
            return Some(format!(
                "encode stage: {what}: the {} encoder's config: {e}",
                encoder.format.name()
            ));
        }
    }
    None
}

fn open_calc(plan_json: &str) -> Result<Calc, NativeError> {
    let plan = RunnablePlan::from_json(plan_json)
        .map_err(|d| NativeError::Config(format!("the operator plan is declined: {d}")))?;
    Calc::new(plan).map_err(pipeline_error)
}

/// The row images of a row-list layout, in order.
fn row_images<'a>(list: &RowList<'a>) -> Result<Vec<&'a [u8]>, NativeError> {
    let bad = || NativeError::InvalidCall("a malformed row list from the value decoder".into());
    let word = |i: usize| -> Result<usize, NativeError> {
        let bytes = list.header.get(4 * i..4 * i + 4).ok_or_else(bad)?;
        let value = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        usize::try_from(value).map_err(|_| bad())
    };
    let count = word(0)?;
    let header_len = list.header.len();
    if header_len != 4 * (count + 2) {
        return Err(bad());
    }
    let mut images = Vec::with_capacity(count);
    for r in 0..count {
        let start = word(1 + r)?.checked_sub(header_len).ok_or_else(bad)?;
        let end = word(2 + r)?.checked_sub(header_len).ok_or_else(bad)?;
        images.push(list.images.get(start..end).ok_or_else(bad)?);
    }
    Ok(images)
}

/// The value whose rows include row `row`, from the per-value running row counts `ends`.
fn value_of_row(ends: &[i32], row: usize) -> usize {
    ends.partition_point(|&end| usize::try_from(end).is_ok_and(|end| end <= row))
}

/// Writes the row-list header of the rows at `offsets` (the `RowImages` offsets: every
/// start and the end) into `header`.
fn write_header(offsets: &[i32], header: &mut Vec<u8>) -> Result<(), NativeError> {
    let rows = offsets.len().saturating_sub(1);
    let header_len = 4 * (rows + 2);
    header.clear();
    let as_i32 = |n: usize| {
        i32::try_from(n).map_err(|_| NativeError::InvalidCall("rows exceed 2 GiB".into()))
    };
    header.extend_from_slice(&as_i32(rows)?.to_le_bytes());
    for off in offsets.iter().copied() {
        let off = usize::try_from(off)
            .map_err(|_| NativeError::InvalidCall("a negative offset".into()))?;
        header.extend_from_slice(&as_i32(header_len + off)?.to_le_bytes());
    }
    if offsets.is_empty() {
        header.extend_from_slice(&as_i32(header_len)?.to_le_bytes());
    }
    Ok(())
}

/// Per input `i` (a row image, or a value with the rows ending at `row_ends[i]`), the
/// output rows of inputs `0..=i`, given the kept input rows in order.
fn output_ends(kept: &[u32], row_ends: impl Iterator<Item = usize>, out: &mut Vec<i32>) {
    out.clear();
    let mut next = kept.iter().peekable();
    let mut count = 0i32;
    for end in row_ends {
        while next.peek().is_some_and(|&&r| (r as usize) < end) {
            next.next();
            count += 1;
        }
        out.push(count);
    }
}

impl OperatorRowsSession {
    /// Opens a session for `config_json` (a plan, a fused source's plan and decoder, or `{}`);
    /// a declined plan fails with its reason. `bytes` are the decoder's (Protobuf descriptors).
    pub fn open(config_json: &str, bytes: &[u8]) -> Result<Self, NativeError> {
        let value = serde_json::from_str::<serde_json::Value>(config_json)
            .map_err(|e| NativeError::Config(format!("operator session configuration: {e}")))?;
        let object = value.as_object();
        let (calc, decoder) = if object.is_some_and(|o| o.is_empty()) {
            (None, None)
        } else if object.is_some_and(|o| o.contains_key("decoder")) {
            let fused: FusedSourceConfig = serde_json::from_value(value)
                .map_err(|e| NativeError::Config(format!("fused source configuration: {e}")))?;
            let kind = SessionKind::from_code(fused.decoder.kind)?;
            if !matches!(
                kind,
                SessionKind::AvroDecoder | SessionKind::JsonDecoder | SessionKind::ProtobufDecoder
            ) {
                return Err(NativeError::Config(format!(
                    "a fused source decodes with a value decoder, not a {}",
                    kind.name()
                )));
            }
            let calc = open_calc(&fused.plan.to_string())?;
            let decoder = kind.open(&fused.decoder.config.to_string(), bytes)?;
            (Some(calc), Some(decoder))
        } else {
            (Some(open_calc(config_json)?), None)
        };
        let encoders = match calc.as_ref().and_then(|c| c.plan().encode.as_ref()) {
            None => None,
            Some(_) if decoder.is_none() => {
                return Err(NativeError::Config(
                    "an encode stage runs in a fused source's session (with its decoder)".into(),
                ))
            }
            Some(stage) => {
                let output = &calc.as_ref().map(|c| &c.plan().output);
                let output = output.ok_or_else(|| NativeError::Config("no plan".into()))?;
                Some(SinkEncoders {
                    value: SinkEncoder::open(&stage.value, output, "value")?,
                    key: match &stage.key {
                        Some(k) => Some(SinkEncoder::open(k, output, "key")?),
                        None => None,
                    },
                })
            }
        };
        if decoder.is_none() && !bytes.is_empty() {
            return Err(NativeError::InvalidCall(format!(
                "an operator pipeline without a decoder takes no bytes, got {}",
                bytes.len()
            )));
        }
        Ok(OperatorRowsSession {
            calc,
            decoder,
            out: RowImages::default(),
            header: Vec::new(),
            input_row_ends: Vec::new(),
            encoders,
        })
    }

    /// Decodes `values`, runs the Calc and encodes the kept rows into `batch`. A failure
    /// names the value it comes from.
    fn run_values(
        &mut self,
        values: ValueBatch<'_>,
        batch: &mut EncodedBatch,
    ) -> Result<(), NativeError> {
        let (Some(calc), Some(decoder), Some(encoders)) =
            (&self.calc, &mut self.decoder, &mut self.encoders)
        else {
            return Err(NativeError::InvalidCall(
                "runBatch needs a fully fused session (a plan with an encode stage)".into(),
            ));
        };
        let (list, value_row_ends) = decoder.decode_batch(values)?;
        let images = row_images(&list)?;
        let input = read_batch_rows(images.iter().copied(), &calc.plan().input)?;
        let result =
            calc.run(input.columns(), input.num_rows())
                .map_err(|e| NativeError::Operator {
                    index: Some(value_of_row(value_row_ends, e.row)),
                    message: e.error.to_string(),
                })?;
        let sources = result
            .rows
            .iter()
            .map(|&r| {
                u32::try_from(value_of_row(value_row_ends, r as usize)).map_err(|_| {
                    NativeError::InvalidCall("more than 2^32 values in one batch".into())
                })
            })
            .collect::<Result<Vec<u32>, _>>()?;
        let SinkEncoders { value, key } = encoders;
        let (values, value_offsets) = value.encode(&result.batch, &sources)?;
        let keys = match key {
            Some(k) => Some(k.encode(&result.batch, &sources)?),
            None => None,
        };
        let span = |offsets: &[i32],
                    i: usize,
                    bytes: &'_ [u8]|
         -> Result<std::ops::Range<usize>, NativeError> {
            let (a, b) = (offsets.get(i).copied(), offsets.get(i + 1).copied());
            match (a, b) {
                (Some(a), Some(b)) if a >= 0 && a <= b && (b as usize) <= bytes.len() => {
                    Ok(a as usize..b as usize)
                }
                _ => Err(NativeError::InvalidCall(
                    "an encoder gave offsets out of range".into(),
                )),
            }
        };
        for (i, &source) in sources.iter().enumerate() {
            let value = &values[span(value_offsets, i, values)?];
            let key = match &keys {
                Some((k, offsets)) => Some(&k[span(offsets, i, k)?]),
                None => None,
            };
            batch.push(key, value, source)?;
        }
        Ok(())
    }
}

impl Session for OperatorRowsSession {
    fn kind(&self) -> SessionKind {
        SessionKind::OperatorRows
    }

    fn retained_bytes(&self) -> usize {
        self.out.bytes.capacity()
            + self.out.offsets.capacity() * 4
            + self.header.capacity()
            + self.input_row_ends.capacity() * 4
            + self.decoder.as_ref().map_or(0, |d| d.retained_bytes())
    }

    fn decode_batch(
        &mut self,
        values: ValueBatch<'_>,
    ) -> Result<(RowList<'_>, &[i32]), NativeError> {
        let OperatorRowsSession {
            calc,
            decoder,
            out,
            header,
            input_row_ends,
            encoders,
        } = self;
        if encoders.is_some() {
            return Err(NativeError::InvalidCall(
                "a fully fused session (a plan with an encode stage) answers runBatch, not decodeBatch"
                    .into(),
            ));
        }
        let calc = calc.as_ref().ok_or_else(|| {
            NativeError::InvalidCall("an operator checker session runs no plan".into())
        })?;
        out.bytes.clear();
        out.offsets.clear();
        match decoder {
            Some(decoder) => {
                // Values in: the decoder's failures already name the value.
                let (list, value_row_ends) = decoder.decode_batch(values)?;
                let images = row_images(&list)?;
                let kept =
                    calc_rows(calc, images.iter().copied(), out).map_err(
                        |e| match pipeline_error(e) {
                            NativeError::Operator {
                                index: Some(row),
                                message,
                            } => NativeError::Operator {
                                index: Some(value_of_row(value_row_ends, row)),
                                message,
                            },
                            other => other,
                        },
                    )?;
                let ends = value_row_ends
                    .iter()
                    .map(|&e| usize::try_from(e).unwrap_or(0));
                output_ends(&kept, ends, input_row_ends);
            }
            None => {
                let mut images = Vec::with_capacity(values.len());
                for (index, value) in values.enumerate() {
                    images.push(value.ok_or_else(|| NativeError::Operator {
                        index: Some(index),
                        message: "a null row image".into(),
                    })?);
                }
                let kept = calc_rows(calc, images.iter().copied(), out).map_err(pipeline_error)?;
                output_ends(&kept, 1..=images.len(), input_row_ends);
            }
        }
        write_header(&out.offsets, header)?;
        Ok((
            RowList {
                header,
                images: &out.bytes,
            },
            input_row_ends,
        ))
    }

    fn control(&mut self, request: &str) -> Result<String, NativeError> {
        let request: Control = serde_json::from_str(request)
            .map_err(|e| NativeError::InvalidCall(format!("operator control request: {e}")))?;
        match request {
            Control::DeclineReason { plan } => Ok(match full_decline_reason(&plan.to_string()) {
                None => "null".into(),
                Some(reason) => serde_json::Value::String(reason).to_string(),
            }),
        }
    }

    /// Runs the values up to the first failing one; the batch holds their records and that
    /// value's failure (the stock job has produced the records before the record it fails
    /// on). Each retry runs a shorter prefix, so this ends.
    fn run_batch(&mut self, values: ValueBatch<'_>) -> Result<Box<dyn Session>, NativeError> {
        let mut batch = EncodedBatch::default();
        let mut upto = values.len();
        let mut failure = None;
        loop {
            let prefix = values.clone().first(upto);
            match self.run_values(prefix, &mut batch) {
                Ok(()) => break,
                Err(e) => match e.record_index() {
                    Some(v) if v < upto => {
                        batch = EncodedBatch::default();
                        failure = Some(e);
                        upto = v;
                    }
                    _ => return Err(e),
                },
            }
        }
        batch.failure = failure;
        Ok(Box::new(batch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn big() -> serde_json::Value {
        json!({"type": "BIGINT", "nullable": true})
    }

    fn row_type() -> serde_json::Value {
        json!({"type": "ROW", "nullable": false, "fields": [
            {"name": "a", "type": big()}, {"name": "p", "type": big()}]})
    }

    /// `SELECT a, p * 100 FROM t WHERE p > 1000`.
    fn plan() -> serde_json::Value {
        let int = json!({"type": "INT", "nullable": false});
        json!({"version": 1, "input": row_type(),
            "filter": {"call": "GREATER_THAN", "type": {"type": "BOOLEAN", "nullable": true},
                "operands": [{"input": 1, "type": big()}, {"literal": 1000, "type": int}]},
            "projections": [{"input": 0, "type": big()},
                {"call": "TIMES", "type": big(), "operands": [{"input": 1, "type": big()}, {"literal": 100, "type": int}]}],
            "output": row_type(), "session": {"time_zone": "UTC"}})
    }

    /// A binary row of two BIGINTs (8-byte null header, two slots).
    fn image(a: i64, p: i64) -> Vec<u8> {
        let mut out = vec![0u8; 8];
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&p.to_le_bytes());
        out
    }

    fn i32_at(b: &[u8], i: usize) -> i32 {
        i32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    }

    #[test]
    fn rows_in_kept_rows_out_in_the_row_list_layout() {
        let mut session = OperatorRowsSession::open(&plan().to_string(), &[]).unwrap();
        let rows = [image(1, 999), image(2, 1001), image(3, 5000)];
        let data: Vec<u8> = rows.concat();
        let lengths = [24, 24, 24];
        let (list, ends) = session
            .decode_batch(ValueBatch::new(&data, &lengths).unwrap())
            .unwrap();
        assert_eq!(ends, &[0, 1, 2]);
        let header = list.header;
        assert_eq!(i32_at(header, 0), 2);
        let whole = [header, list.images].concat();
        let start = i32_at(header, 1) as usize;
        let second = i32_at(header, 2) as usize;
        assert_eq!(&whole[start..second], image(2, 100_100).as_slice());
        assert_eq!(i32_at(header, 3) as usize, whole.len());
        // An empty batch still gives the header.
        let (list, ends) = session
            .decode_batch(ValueBatch::new(&[], &[]).unwrap())
            .unwrap();
        assert!(ends.is_empty());
        assert_eq!(list.header.len(), 8);
        assert_eq!(i32_at(list.header, 1), 8);
    }

    #[test]
    fn a_failing_row_names_its_index() {
        let int = json!({"type": "BIGINT", "nullable": true});
        let mut p = plan();
        p["filter"] = serde_json::Value::Null;
        p["projections"][1] = json!({"call": "DIVIDE", "type": int,
            "operands": [{"input": 0, "type": int}, {"input": 1, "type": int}]});
        let mut session = OperatorRowsSession::open(&p.to_string(), &[]).unwrap();
        let data = [image(1, 1), image(2, 0)].concat();
        let err = session
            .decode_batch(ValueBatch::new(&data, &[24, 24]).unwrap())
            .err()
            .unwrap();
        assert_eq!(err.record_index(), Some(1));
        assert!(err.to_string().contains("/ by zero"), "{err}");
    }

    #[test]
    fn planning_asks_whether_a_plan_is_runnable() {
        let mut session = OperatorRowsSession::open("{}", &[]).unwrap();
        assert!(session
            .decode_batch(ValueBatch::new(&[], &[]).unwrap())
            .is_err());
        let ask = |session: &mut OperatorRowsSession, plan: serde_json::Value| {
            session
                .control(&json!({"op": "decline_reason", "plan": plan}).to_string())
                .unwrap()
        };
        assert_eq!(ask(&mut session, plan()), "null");
        let mut declined = plan();
        declined["projections"][1] =
            json!({"call": "RAND", "operands": [], "type": {"type": "DOUBLE"}});
        let reason: String = serde_json::from_str(&ask(&mut session, declined)).unwrap();
        assert!(
            reason.contains("operator RAND is not supported"),
            "{reason}"
        );
        // A declined plan cannot be opened; the reason is in the error.
        let mut bad = plan();
        bad["session"]["time_zone"] = json!("Europe/Berlin");
        let err = OperatorRowsSession::open(&bad.to_string(), &[])
            .err()
            .unwrap();
        assert!(err.to_string().contains("Europe/Berlin"), "{err}");
    }

    /// A fused source: JSON values of `row_type()` through the decoder, then the plan.
    fn fused(ignore_parse_errors: bool, plan: serde_json::Value) -> OperatorRowsSession {
        let config = json!({"plan": plan, "decoder": {"kind": 3, "config": {"row_type": row_type(),
            "options": {"ignore_parse_errors": ignore_parse_errors}}}});
        OperatorRowsSession::open(&config.to_string(), &[]).unwrap()
    }

    fn values(texts: &[Option<&str>]) -> (Vec<u8>, Vec<i32>) {
        let mut data = Vec::new();
        let mut lengths = Vec::new();
        for t in texts {
            match t {
                Some(t) => {
                    data.extend_from_slice(t.as_bytes());
                    lengths.push(t.len() as i32);
                }
                None => lengths.push(-1),
            }
        }
        (data, lengths)
    }

    #[test]
    fn a_fused_source_decodes_values_and_runs_the_plan_in_one_call() {
        let mut session = fused(false, plan());
        let (data, lengths) = values(&[
            Some(r#"{"a":1,"p":999}"#),
            None,
            Some(r#"[{"a":2,"p":1001},{"a":3,"p":1}]"#),
            Some(r#"{"a":4,"p":5000}"#),
        ]);
        let (list, ends) = session
            .decode_batch(ValueBatch::new(&data, &lengths).unwrap())
            .unwrap();
        assert_eq!(ends, &[0, 0, 1, 2]);
        let images = row_images(&list).unwrap();
        assert_eq!(
            images,
            [image(2, 100_100).as_slice(), image(4, 500_000).as_slice()]
        );
    }

    #[test]
    fn a_fused_source_names_the_failing_value() {
        // A decode failure names its value; so does an evaluation failure (row 2 is value 1's
        // second row).
        let mut session = fused(false, plan());
        let (data, lengths) = values(&[Some(r#"{"a":1,"p":2000}"#), Some(r#"{"a":"x"}"#)]);
        let err = session
            .decode_batch(ValueBatch::new(&data, &lengths).unwrap())
            .err()
            .unwrap();
        assert_eq!(err.record_index(), Some(1));

        let big = json!({"type": "BIGINT", "nullable": true});
        let mut p = plan();
        p["filter"] = serde_json::Value::Null;
        p["projections"][1] = json!({"call": "DIVIDE", "type": big,
            "operands": [{"input": 0, "type": big}, {"input": 1, "type": big}]});
        let mut session = fused(false, p);
        let (data, lengths) = values(&[
            Some(r#"{"a":1,"p":1}"#),
            Some(r#"[{"a":2,"p":2},{"a":3,"p":0}]"#),
        ]);
        let err = session
            .decode_batch(ValueBatch::new(&data, &lengths).unwrap())
            .err()
            .unwrap();
        assert_eq!(err.record_index(), Some(1));
        assert!(err.to_string().contains("/ by zero"), "{err}");
    }

    #[test]
    fn a_fused_source_skips_unreadable_values_under_ignore_parse_errors() {
        let mut session = fused(true, plan());
        let (data, lengths) = values(&[Some("{oops"), Some(r#"{"a":2,"p":2000}"#)]);
        let (list, ends) = session
            .decode_batch(ValueBatch::new(&data, &lengths).unwrap())
            .unwrap();
        assert_eq!(ends, &[0, 1]);
        assert_eq!(row_images(&list).unwrap(), [image(2, 200_000).as_slice()]);
    }

    #[test]
    fn a_fused_source_needs_a_value_decoder() {
        let config = json!({"plan": plan(), "decoder": {"kind": 7, "config": {}}});
        assert!(OperatorRowsSession::open(&config.to_string(), &[]).is_err());
        assert!(OperatorRowsSession::open(&plan().to_string(), &[1]).is_err());
    }

    // ---- full fusion: the encode stage ----

    fn sink_type(names: &[&str]) -> serde_json::Value {
        let fields: Vec<_> = names
            .iter()
            .map(|n| json!({"name": n, "type": {"type": "BIGINT", "nullable": true}}))
            .collect();
        json!({"type": "ROW", "nullable": false, "fields": fields})
    }

    /// The demo plan with the sink's encoders: value `(a, p * 100)` under the sink's names,
    /// key `(a)`.
    fn full_plan(value: serde_json::Value, key: serde_json::Value) -> serde_json::Value {
        let mut p = plan();
        p["encode"] = json!({"value": value, "key": key});
        p
    }

    fn json_encoder(columns: serde_json::Value, names: &[&str]) -> serde_json::Value {
        json!({"format": "json-native", "columns": columns,
            "config": {"row_type": sink_type(names)}})
    }

    fn fully_fused(plan: serde_json::Value) -> OperatorRowsSession {
        let config = json!({"plan": plan, "decoder": {"kind": 3, "config": {"row_type": row_type(),
            "options": {"ignore_parse_errors": false}}}});
        OperatorRowsSession::open(&config.to_string(), &[]).unwrap()
    }

    fn run(session: &mut OperatorRowsSession, texts: &[Option<&str>]) -> EncodedBatch {
        let (data, lengths) = values(texts);
        let mut batch = session
            .run_batch(ValueBatch::new(&data, &lengths).unwrap())
            .unwrap();
        let batch = batch.as_encoded_batch().unwrap();
        std::mem::take(batch)
    }

    /// What the unfused path writes for the same values: the source-fusion session's output
    /// rows (of `projection_plan`), encoded by the format's own encoder session.
    fn unfused(
        projection_plan: serde_json::Value,
        encoder: &mut dyn Session,
        texts: &[Option<&str>],
    ) -> (Vec<u8>, Vec<i32>) {
        let mut source = fused(false, projection_plan);
        let (data, lengths) = values(texts);
        let (list, _) = source
            .decode_batch(ValueBatch::new(&data, &lengths).unwrap())
            .unwrap();
        let images = row_images(&list).unwrap();
        let (bytes, offsets) = encoder.encode_batch(&images).unwrap();
        (bytes.to_vec(), offsets.to_vec())
    }

    /// The records of `batch` as (key, value) pairs, read back from its metadata.
    fn records(batch: &EncodedBatch) -> Vec<(Option<Vec<u8>>, Vec<u8>)> {
        let (mut k, mut v) = (0usize, 0usize);
        batch
            .meta
            .chunks_exact(crate::produce::META_BYTES)
            .map(|m| {
                let int = |at: usize| i32::from_le_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]]);
                assert_eq!((int(0), int(4), int(16), int(20)), (-1, 0, 0, 0));
                assert_eq!(&m[24..32], &i64::MIN.to_le_bytes());
                let key = (int(8) >= 0).then(|| {
                    let key = batch.keys[k..k + int(8) as usize].to_vec();
                    k += int(8) as usize;
                    key
                });
                let value = batch.values[v..v + int(12) as usize].to_vec();
                v += int(12) as usize;
                (key, value)
            })
            .collect()
    }

    fn split(bytes: &[u8], offsets: &[i32]) -> Vec<Vec<u8>> {
        offsets
            .windows(2)
            .map(|w| bytes[w[0] as usize..w[1] as usize].to_vec())
            .collect()
    }

    const TEXTS: [Option<&str>; 5] = [
        Some(r#"{"a":1,"p":999}"#),
        None,
        Some(r#"[{"a":2,"p":1001},{"a":null,"p":3000}]"#),
        Some(r#"{"a":4,"p":5000}"#),
        Some(r#"{"a":5}"#),
    ];

    #[test]
    fn full_fusion_writes_the_bytes_of_the_sinks_own_json_encoders() {
        let value = json_encoder(json!([0, 1]), &["id", "price_cents"]);
        let key = json_encoder(json!([0]), &["id"]);
        let mut session = fully_fused(full_plan(value.clone(), key.clone()));
        let batch = run(&mut session, &TEXTS);
        assert_eq!(batch.sources, vec![2, 2, 3]);
        assert!(batch.failure.is_none());

        let mut value_encoder = SessionKind::JsonEncoder
            .open(&value["config"].to_string(), &[])
            .unwrap();
        let (bytes, offsets) = unfused(plan(), value_encoder.as_mut(), &TEXTS);
        let mut key_plan = plan();
        key_plan["projections"] = json!([key_plan["projections"][0]]);
        key_plan["output"] = json!({"type": "ROW", "nullable": false,
            "fields": [{"name": "a", "type": big()}]});
        let mut key_encoder = SessionKind::JsonEncoder
            .open(&key["config"].to_string(), &[])
            .unwrap();
        let (key_bytes, key_offsets) = unfused(key_plan, key_encoder.as_mut(), &TEXTS);
        let expected: Vec<_> = split(&key_bytes, &key_offsets)
            .into_iter()
            .map(Some)
            .zip(split(&bytes, &offsets))
            .collect();
        assert_eq!(records(&batch), expected);
        // The sink's names, not the Calc's.
        assert_eq!(
            String::from_utf8(expected[1].1.clone()).unwrap(),
            r#"{"id":null,"price_cents":300000}"#
        );
        assert_eq!(expected[1].0.as_deref(), Some(&br#"{"id":null}"#[..]));

        // A keyless sink writes null keys; a fully fused session answers runBatch only.
        let mut session = fully_fused(full_plan(value, serde_json::Value::Null));
        let batch = run(&mut session, &TEXTS);
        assert!(records(&batch).iter().all(|(k, _)| k.is_none()));
        assert!(batch.keys.is_empty());
        assert!(session
            .decode_batch(ValueBatch::new(&[], &[]).unwrap())
            .is_err());
    }

    #[test]
    fn full_fusion_writes_the_bytes_of_the_sinks_own_avro_encoder() {
        use karrow_registry::DevRegistry;
        let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
        let url = registry.url();
        let value = json!({"format": "avro-confluent-native", "columns": [1, 0],
            "config": {"row_type": sink_type(&["price_cents", "auction"]), "url": url,
                "subject": "bids_out-value", "properties": {}}});
        let mut session = fully_fused(full_plan(value.clone(), serde_json::Value::Null));
        let batch = run(&mut session, &TEXTS);
        let mut encoder = SessionKind::AvroEncoder
            .open(&value["config"].to_string(), &[])
            .unwrap();
        let mut swapped = plan();
        swapped["projections"] = json!([swapped["projections"][1], swapped["projections"][0]]);
        let (bytes, offsets) = unfused(swapped, encoder.as_mut(), &TEXTS);
        let expected: Vec<_> = split(&bytes, &offsets)
            .into_iter()
            .map(|v| (None, v))
            .collect();
        assert_eq!(expected.len(), 3);
        assert_eq!(records(&batch), expected);
        // Confluent framing with the registered id.
        assert_eq!(expected[0].1[0], 0);
        assert_eq!(
            i32::from_be_bytes(expected[0].1[1..5].try_into().unwrap()),
            encoder.schema_id().unwrap()
        );
    }

    #[test]
    fn a_failing_value_keeps_the_records_before_it_and_its_error() {
        let value = json_encoder(json!([0, 1]), &["id", "price_cents"]);
        let mut session = fully_fused(full_plan(value.clone(), serde_json::Value::Null));
        // Value 3 does not decode: values 0..3 give their records, then the error.
        let mut batch = run(
            &mut session,
            &[TEXTS[2], TEXTS[0], TEXTS[3], Some(r#"{"a":"x"}"#), TEXTS[3]],
        );
        assert_eq!(batch.sources, vec![0, 0, 2]);
        assert_eq!(batch.poll().unwrap()[0], 3);
        assert_eq!(batch.poll().unwrap()[2], 3);
        assert_eq!(batch.failure.as_ref().unwrap().record_index(), Some(3));

        // A Calc failure (value 1) and, after it, a decode failure (value 2): the earlier wins.
        let mut p = full_plan(value, serde_json::Value::Null);
        p["filter"] = serde_json::Value::Null;
        p["projections"][1] = json!({"call": "DIVIDE", "type": big(),
            "operands": [{"input": 0, "type": big()}, {"input": 1, "type": big()}]});
        let mut session = fully_fused(p);
        let batch = run(
            &mut session,
            &[
                Some(r#"{"a":4,"p":2}"#),
                Some(r#"{"a":1,"p":0}"#),
                Some("{oops"),
            ],
        );
        assert_eq!(batch.sources, vec![0]);
        let failure = batch.failure.as_ref().unwrap();
        assert_eq!(failure.record_index(), Some(1));
        assert!(failure.to_string().contains("/ by zero"), "{failure}");
    }

    /// A producer stand-in that keeps what it was handed.
    struct Taker(Vec<Vec<u8>>, usize);

    impl Session for Taker {
        fn kind(&self) -> SessionKind {
            SessionKind::Produce
        }
        fn retained_bytes(&self) -> usize {
            0
        }
        fn append_batch(&mut self, batch: &EncodedBatch) -> Result<usize, NativeError> {
            self.0 = batch.parts().iter().map(|p| p.to_vec()).collect();
            self.1 = batch.count();
            Ok(batch.count())
        }
    }

    #[test]
    fn a_batch_is_handed_over_once_then_its_failure_is_raised() {
        let value = json_encoder(json!([0, 1]), &["id", "price_cents"]);
        let mut session = fully_fused(full_plan(value, serde_json::Value::Null));
        let (data, lengths) = values(&[TEXTS[3], Some("{oops")]);
        let mut batch = session
            .run_batch(ValueBatch::new(&data, &lengths).unwrap())
            .unwrap();
        let mut taker = Taker(Vec::new(), 0);
        let err = crate::encoded_batch::hand_over(batch.as_mut(), &mut taker).unwrap_err();
        assert_eq!(err.record_index(), Some(1));
        assert_eq!(taker.1, 1);
        assert_eq!(taker.0[2], br#"{"id":4,"price_cents":500000}"#.to_vec());
        let again = crate::encoded_batch::hand_over(batch.as_mut(), &mut taker).unwrap_err();
        assert!(again.to_string().contains("handed over already"), "{again}");
        // Only an encoded batch is handed over, and only a producer takes one.
        let mut other = fully_fused(plan());
        assert!(crate::encoded_batch::hand_over(&mut other, &mut taker).is_err());
        let mut fresh = session
            .run_batch(ValueBatch::new(&[], &[]).unwrap())
            .unwrap();
        assert!(crate::encoded_batch::hand_over(fresh.as_mut(), &mut other).is_err());
    }

    #[test]
    fn the_planner_check_reads_the_encoders_configuration() {
        let mut checker = OperatorRowsSession::open("{}", &[]).unwrap();
        let ask =
            |session: &mut OperatorRowsSession, plan: serde_json::Value| -> serde_json::Value {
                let reply = session
                    .control(&json!({"op": "decline_reason", "plan": plan}).to_string())
                    .unwrap();
                serde_json::from_str(&reply).unwrap()
            };
        let value = json_encoder(json!([0, 1]), &["id", "price_cents"]);
        assert_eq!(
            ask(
                &mut checker,
                full_plan(value.clone(), serde_json::Value::Null)
            ),
            serde_json::Value::Null
        );
        let mut bad = value.clone();
        bad["config"]["map_null_key_mode"] = json!(7);
        let reason = ask(&mut checker, full_plan(bad, serde_json::Value::Null));
        assert!(
            reason
                .as_str()
                .unwrap()
                .contains("json-native encoder's config"),
            "{reason}"
        );
        let mut unknown = value;
        unknown["config"]["no_such_option"] = json!(true);
        assert!(ask(&mut checker, full_plan(unknown, serde_json::Value::Null)).is_string());
        // An encode stage needs the fused source's decoder.
        let err = OperatorRowsSession::open(
            &full_plan(json_encoder(json!([0]), &["id"]), serde_json::Value::Null).to_string(),
            &[],
        )
        .err()
        .unwrap();
        assert!(err.to_string().contains("fused source"), "{err}");
    }
}
