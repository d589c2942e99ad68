//! `karrow-kafka`: Kafka's wire protocol spoken natively, without an object per record.
//!
//! Measured in `benches/run-fetch-bench.sh`: walking Kafka's fetch responses in place costs
//! about a tenth of the CPU per record of Kafka's Java consumer or librdkafka. This crate
//! is that reader for the `kafka-native` source: [`FetchSession`] keeps the assigned
//! partitions (with their next and stopping offsets) and one connection per leader, sends
//! Fetch requests ([`fetch::request`]), parses the responses ([`fetch::response`]) and walks
//! their record batches ([`records`]) with the Java consumer's rules (CRC32C, control
//! batches, aborted transactions under `read_committed`).
//!
//! What stays with Kafka's Java consumer on the Java side: offset lookup (earliest, latest,
//! committed, by timestamp), commits and partition metadata. Compressed batches are
//! decompressed ([`compression`]). Connections speak TLS and SASL PLAIN / SCRAM as
//! `security.protocol` says ([`security`]); other SASL mechanisms stay with Kafka's Java client.

pub mod compression;
pub mod connection;
pub mod error;
pub mod error_codes;
pub mod fetch;
pub mod produce;
pub mod protocol;
pub mod records;
pub mod security;
mod transport;
pub mod wakeup;
mod wire;

pub use error::FetchError;
pub use fetch::{FetchSession, Isolation, PartitionSlot, Polled, Truncation};
pub use records::{Record, RecordBatches, TimestampType};
pub use wakeup::Wakeup;
