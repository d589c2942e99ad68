//! The operator plan of `docs/operator-plan.md`: parsed from JSON into typed nodes
//! ([`parse`]), then checked and compiled into a [`RunnablePlan`] by the one validation pass
//! ([`validate`]) that decides what the native core runs.

pub mod encode;
pub(crate) mod literal;
pub mod parse;
pub mod validate;

use karrow_codecs::FlinkType;

use crate::error::Decline;
use crate::expr::Expr;
use crate::session::Session;
pub use encode::{EncodeFormat, EncodeStage, Encoder};

/// The contract version this crate reads.
pub const PLAN_VERSION: u64 = 1;

/// A parsed expression node, before validation (see `docs/operator-plan.md`).
#[derive(Debug, Clone, PartialEq)]
pub enum ExprSpec {
    /// `{"input": i, "type": T}`: column `i` of the input row.
    Input {
        /// Column index.
        index: usize,
        /// Its type.
        ty: FlinkType,
    },
    /// `{"field": e, "index": i, "type": T}`: field `i` of a ROW-typed expression.
    Field {
        /// The ROW-typed expression.
        expr: Box<ExprSpec>,
        /// Field index.
        index: usize,
        /// The field's type.
        ty: FlinkType,
    },
    /// `{"literal": v, "type": T}`.
    Literal {
        /// The JSON encoding of the value (`null` for a NULL literal).
        value: serde_json::Value,
        /// Its type.
        ty: FlinkType,
    },
    /// `{"symbol": "BOTH"}`: a flag operand.
    Symbol(String),
    /// `{"call": OP, "operands": [...], "type": T}`.
    Call {
        /// The operator name.
        op: String,
        /// Its operands.
        operands: Vec<ExprSpec>,
        /// The result type Flink inferred.
        ty: FlinkType,
    },
}

/// A parsed plan, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSpec {
    /// The row the scan produces.
    pub input: FlinkType,
    /// The filter condition (a row passes when it is TRUE).
    pub filter: Option<ExprSpec>,
    /// One expression per output column.
    pub projections: Vec<ExprSpec>,
    /// The output row type.
    pub output: FlinkType,
    /// Session settings the expressions depend on.
    pub session: Session,
    /// The sink's encoders (full fusion), checked against `output` when parsed.
    pub encode: Option<EncodeStage>,
    /// Output columns of the watermark rows (`docs/operator-plan.md`, "Watermark rows"):
    /// empty when the plan emits none.
    pub watermark_columns: Vec<usize>,
}

/// A validated plan: every node is one the core runs with exactly Flink's results.
#[derive(Debug)]
pub struct RunnablePlan {
    /// The input row type (a ROW).
    pub input: FlinkType,
    /// The compiled filter.
    pub(crate) filter: Option<Expr>,
    /// The compiled projections, in output order.
    pub(crate) projections: Vec<Expr>,
    /// The output row type (a ROW).
    pub output: FlinkType,
    /// The session settings.
    pub session: Session,
    /// The sink's encoders (full fusion); `None` for a source-fusion plan.
    pub encode: Option<EncodeStage>,
    /// Watermark rows: per output column the watermark generator reads, `(output column,
    /// input column)` (the output column is that input column, projected unchanged). For
    /// every input row the filter drops, the Calc also emits a watermark row (see
    /// [`crate::Calc::run`]). Empty: no watermark rows.
    pub watermark_columns: Vec<(usize, usize)>,
}

impl RunnablePlan {
    /// Parses and validates a plan's JSON text: the runnable plan, or why it is declined.
    pub fn from_json(text: &str) -> Result<Self, Decline> {
        validate::validate(&parse::parse_plan(text)?)
    }

    /// Whether the plan has a filter.
    pub fn has_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// The input columns the plan reads (sorted, distinct).
    pub fn columns_read(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for e in self.filter.iter().chain(&self.projections) {
            e.collect_columns(&mut out);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The planning-time question of the Java rule: `None` when the plan JSON is runnable,
/// else the reason it is not.
pub fn decline_reason(text: &str) -> Option<String> {
    RunnablePlan::from_json(text).err().map(|d| d.0)
}
