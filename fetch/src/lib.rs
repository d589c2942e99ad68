//! `karrow-fetch`: reads Kafka records without building an object per record.
//!
//! Measured in `benches/run-fetch-bench.sh`: walking Kafka's fetch responses in place costs
//! about a tenth of the CPU per record of Kafka's Java consumer or librdkafka. This crate
//! is that reader for the `kafka-native` source: [`FetchSession`] keeps the assigned
//! partitions (with their next and stopping offsets) and one connection per leader, sends
//! Fetch requests ([`request`]), parses the responses ([`response`]) and walks their record
//! batches ([`batches`]) with the Java consumer's rules (CRC32C, control batches, aborted
//! transactions under `read_committed`).
//!
//! What stays with Kafka's Java consumer on the Java side: offset lookup (earliest, latest,
//! committed, by timestamp), commits and partition metadata. Compressed batches are
//! decompressed ([`compression`]). Not supported here: TLS and SASL (the connector refuses
//! them when the job is planned).

pub mod batches;
pub mod compression;
pub mod error;
pub mod request;
pub mod response;
pub mod session;
mod wire;

#[cfg(test)]
mod test_batches;

pub use batches::{Record, RecordBatches, TimestampType};
pub use error::FetchError;
pub use session::{FetchSession, Isolation, PartitionSlot, Polled};
