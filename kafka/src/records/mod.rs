//! Kafka's record batches (magic 2): read in place ([`read`]).

pub mod read;

#[cfg(test)]
pub(crate) mod test_batches;

pub use read::{Record, RecordBatches, TimestampType};
