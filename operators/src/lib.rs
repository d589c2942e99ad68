//! `karrow-operators`: the operator core. A Flink `Calc` (filter + projections) described by
//! the plan of `docs/operator-plan.md` is validated ([`plan::RunnablePlan::from_json`]) — the
//! single authority on what the core runs exactly like Flink 2.2 — and evaluated on Arrow
//! batches ([`calc::Calc`]), inside fused pipelines that turn binary rows or Kafka values
//! into output rows or encoded values ([`pipeline`]). Plain Rust: no JNI, no I/O.
//!
//! Layout: `plan/` (JSON -> typed nodes -> validation), `expr/` (one module per operator
//! family: `arith`, `decimal`, `compare`, `logic`, `conditional`, `cast`, `strings`,
//! `case_mapping`, `temporal`; `kernels` holds the shared array helpers, `errors` the per-row
//! failures), `calc.rs` (filter, then projections of the kept rows), `pipeline/` (rows in/out,
//! values in/out, the codecs at both ends).
//!
//! Why own kernels and not arrow's compute kernels or DataFusion: Flink's semantics differ
//! from both almost everywhere an expression can differ — Java's wrapping integer overflow
//! (arrow's kernels error or wrap per kernel choice, DataFusion errors), `MOD`'s operand
//! typing, `DecimalDataUtils`' 38-digit quotient then HALF_UP rescale with NULL on overflow,
//! `Double.compare` for DECIMAL-vs-DOUBLE, NaN handling, lazy `AND`/`OR`/`CASE` failure
//! semantics, Flink's own string-to-number parsers, LIKE's shape-dependent dispatch, Java's
//! truncating date arithmetic in `EXTRACT`. Wrapping DataFusion would mean overriding nearly
//! every operator it offers while paying its build (well over a hundred crates, minutes on
//! 2 cores) for the plan/optimizer machinery a single Calc does not need. Only
//! `arrow-select`'s row selection (`filter`, `zip`), whose semantics are exactly Flink's, is
//! used.
//!
//! Expected values come from Flink itself: `oracle/FlinkExprOracle.java` runs each test
//! expression through Flink 2.2's planner and generated code over the rows of
//! `oracle/cases/*.txt`, and the tests assert its output (`oracle/expected/*.txt`).

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
