//! `karrow-operators`: the operator core. A Flink `Calc` (filter + projections) described by
//! the plan of `docs/operator-plan.md` is validated ([`plan::RunnablePlan::from_json`]) — the
//! single authority on what the core runs exactly like Flink 2.2 — and evaluated on Arrow
//! batches ([`calc::Calc`]), inside fused pipelines that turn binary rows or Kafka values
//! into output rows or encoded values ([`pipeline`]). Plain Rust: no JNI, no I/O.

pub mod calc;
pub mod error;
pub(crate) mod expr;
pub mod pipeline;
pub mod plan;
pub mod session;

pub use calc::Calc;
pub use error::{Decline, EvalError, PipelineError, RowError};
pub use plan::{decline_reason, RunnablePlan};
pub use session::Session;
