//! Kafka's record batches (magic 2): read in place ([`read`](mod@read)) and written from encoded
//! buffers ([`write`](mod@write)).

pub mod read;
pub mod write;

#[cfg(test)]
pub(crate) mod test_batches;

pub use read::{Record, RecordBatches, TimestampType};
pub use write::{BatchBuilder, ClosedBatch, ProducerStamp, RecordRef, WriteError};
