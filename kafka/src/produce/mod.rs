//! Produce: which partition a record goes to ([`partitioner`], exactly as the stock Flink
//! Kafka sink decides), the idempotent and transactional producer that writes the batches
//! ([`producer`]), and the transaction coordinator's requests ([`transaction`]).

pub mod error;
pub mod partitioner;
pub mod producer;
pub mod transaction;

pub use error::ProduceError;
pub use producer::{PartitionInfo, Producer, ProducerConfig};
pub use transaction::{Coordinator, ProducerIdAndEpoch};

#[cfg(test)]
mod test_broker;
#[cfg(test)]
mod tests;
