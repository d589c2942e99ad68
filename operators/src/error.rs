//! The two ways an operator plan fails: it is declined while planning ([`Decline`]), or
//! a row makes evaluation fail the way Flink's generated code throws ([`EvalError`]).

/// Why a plan cannot be run natively with exactly Flink's results. The message names the
/// expression, type or option, and is what the Java planner rule logs in its one decline
/// line; the job then runs Flink's own Calc.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Decline(pub String);

impl Decline {
    /// A decline with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Decline(message.into())
    }
}

/// The exception Flink's generated code would throw for a row, by Java class and message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// `java.lang.ArithmeticException` (integer division by zero, decimal division by zero).
    #[error("java.lang.ArithmeticException: {0}")]
    Arithmetic(String),
    /// `java.lang.NumberFormatException` (a CAST from a string that is not a number).
    #[error("java.lang.NumberFormatException: {0}")]
    NumberFormat(String),
    /// A `TableRuntimeException` / `DateTimeException` / `IllegalArgumentException` Flink
    /// throws for a CAST or function argument it cannot convert.
    #[error("{0}")]
    Invalid(String),
}

/// An evaluation failure of one row of a batch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row {row} of the batch: {error}")]
pub struct RowError {
    /// The failing row's index in the batch handed to the operator.
    pub row: usize,
    /// What Flink throws for it.
    pub error: EvalError,
}

/// A failure of a fused pipeline call: evaluation, or the codecs around it.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A row made an expression fail (the job fails, as Flink's Calc would).
    #[error(transparent)]
    Eval(#[from] RowError),
    /// Decoding or encoding failed (bad bytes, a schema mismatch).
    #[error(transparent)]
    Codec(#[from] karrow_codecs::CodecError),
    /// An internal inconsistency (an Arrow array of an unexpected shape): a bug, reported
    /// instead of panicking.
    #[error("internal error: {0}")]
    Internal(String),
}
