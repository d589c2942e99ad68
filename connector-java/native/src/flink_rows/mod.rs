//! Arrow batches written as Flink's binary row format, so the Java side wraps each row
//! in a `BinaryRowData` without creating an object per field; and binary rows read back
//! into Arrow on the encode path.

mod binary_reader;
mod binary_row;

pub use binary_reader::read_batch_rows;
pub use binary_row::{write_batch_rows, RowImages};
