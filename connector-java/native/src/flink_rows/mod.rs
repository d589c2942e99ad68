//! Arrow batches written as Flink's binary row format, so the Java side wraps each row
//! in a `BinaryRowData` without creating an object per field.

mod binary_row;

pub use binary_row::{write_batch_rows, RowImages};
