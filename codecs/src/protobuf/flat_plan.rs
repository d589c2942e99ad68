//! The one-pass plan of a flat message, which the decoder keeps on the message's
//! [`super::plan::MessagePlan`]: only data, so that the plan does not depend on the
//! decoder that builds and runs it (`decode/flat.rs`).

/// The one-pass plan of a flat message.
#[derive(Debug)]
pub(crate) struct FlatPlan {
    /// The row image of the empty message (every column absent): header, null bits and
    /// slots, no variable-length part.
    pub(crate) template: Vec<u8>,
    /// Per column whose absent value is NULL: its null bit (byte offset in the image,
    /// mask), which its value clears; empty when no column reads NULL when absent.
    pub(crate) null_bits: Vec<(usize, u8)>,
    /// Per column, how the loop writes its value.
    pub(crate) ops: Vec<FlatOp>,
}

/// How the one-pass loop writes a column: the common kinds inline, the rest through the
/// scan's `write_direct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlatOp {
    /// `int64` / `uint64` into BIGINT: the varint's 64 bits.
    Long,
    /// `int32` / `uint32` into INT: the varint's low 32 bits.
    Int,
    /// A string (ASCII inline, anything else through the scan's `write_direct`).
    Text,
    /// Bytes.
    Bytes,
    /// Any other direct op.
    Other,
}
