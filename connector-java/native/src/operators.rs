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

use karrow_codecs::flink_binary::RowImages;
use karrow_operators::pipeline::rows::calc_rows;
use karrow_operators::{decline_reason, Calc, PipelineError, RunnablePlan};
use serde::Deserialize;

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
        })
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
        } = self;
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
            Control::DeclineReason { plan } => Ok(match decline_reason(&plan.to_string()) {
                None => "null".into(),
                Some(reason) => serde_json::Value::String(reason).to_string(),
            }),
        }
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
}
