//! The operator pipeline session (kind 8, `docs/jni-contract.md`): a validated
//! `karrow-operators` plan run over a batch of row images of its input type, answering
//! `decodeBatch` with the kept, projected rows in the row-list layout (source fusion), and
//! `control` with the planning-time question "is this plan runnable?".
//!
//! `configJson` is the plan itself (`docs/operator-plan.md`); a plan the core does not run
//! fails the open with the decline reason. `{}` opens a checker: a session without a plan
//! that answers only `control` (what the planner keeps while it plans).

use karrow_codecs::flink_binary::RowImages;
use karrow_operators::pipeline::rows::calc_rows;
use karrow_operators::{decline_reason, Calc, PipelineError, RunnablePlan};
use serde::Deserialize;

use crate::error::NativeError;
use crate::row_list::RowList;
use crate::session::{Session, SessionKind};
use crate::value_batch::ValueBatch;

/// A Calc over row images, with the buffers its calls reuse.
pub struct OperatorRowsSession {
    /// `None` for a checker session.
    calc: Option<Calc>,
    out: RowImages,
    header: Vec<u8>,
    input_row_ends: Vec<i32>,
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

impl OperatorRowsSession {
    /// Opens a session for the plan JSON `config_json`; a declined plan fails with its reason.
    pub fn open(config_json: &str) -> Result<Self, NativeError> {
        let checker = serde_json::from_str::<serde_json::Value>(config_json)
            .is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()));
        let calc = if checker {
            None
        } else {
            let plan = RunnablePlan::from_json(config_json)
                .map_err(|d| NativeError::Config(format!("the operator plan is declined: {d}")))?;
            Some(Calc::new(plan).map_err(pipeline_error)?)
        };
        Ok(OperatorRowsSession {
            calc,
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
    }

    fn decode_batch(
        &mut self,
        values: ValueBatch<'_>,
    ) -> Result<(RowList<'_>, &[i32]), NativeError> {
        let mut images = Vec::with_capacity(values.len());
        for (index, value) in values.enumerate() {
            images.push(value.ok_or_else(|| NativeError::Operator {
                index: Some(index),
                message: "a null row image".into(),
            })?);
        }
        self.out.bytes.clear();
        self.out.offsets.clear();
        let calc = self.calc.as_ref().ok_or_else(|| {
            NativeError::InvalidCall("an operator checker session runs no plan".into())
        })?;
        let kept =
            calc_rows(calc, images.iter().copied(), &mut self.out).map_err(pipeline_error)?;
        // Per input row: the output rows of rows 0..=i (each row gives 0 or 1).
        self.input_row_ends.clear();
        let mut next = kept.iter().peekable();
        let mut count = 0i32;
        for i in 0..images.len() {
            if next.peek().is_some_and(|&&r| r as usize == i) {
                next.next();
                count += 1;
            }
            self.input_row_ends.push(count);
        }
        // The row-list header: count, then the absolute offsets of every row and the end.
        let rows = self.out.offsets.len().saturating_sub(1);
        let header_len = 4 * (rows + 2);
        self.header.clear();
        let as_i32 = |n: usize| {
            i32::try_from(n).map_err(|_| NativeError::InvalidCall("rows exceed 2 GiB".into()))
        };
        self.header.extend_from_slice(&as_i32(rows)?.to_le_bytes());
        for off in self.out.offsets.iter().copied() {
            let absolute = as_i32(header_len + usize::try_from(off).unwrap_or(0))?;
            self.header.extend_from_slice(&absolute.to_le_bytes());
        }
        if self.out.offsets.is_empty() {
            self.header
                .extend_from_slice(&as_i32(header_len)?.to_le_bytes());
        }
        Ok((
            RowList {
                header: &self.header,
                images: &self.out.bytes,
            },
            &self.input_row_ends,
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
        let mut session = OperatorRowsSession::open(&plan().to_string()).unwrap();
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
        let mut session = OperatorRowsSession::open(&p.to_string()).unwrap();
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
        let mut session = OperatorRowsSession::open("{}").unwrap();
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
        let err = OperatorRowsSession::open(&bad.to_string()).err().unwrap();
        assert!(err.to_string().contains("Europe/Berlin"), "{err}");
    }
}
