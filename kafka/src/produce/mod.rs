//! Produce: which partition a record goes to ([`partitioner`], exactly as the stock Flink
//! Kafka sink decides), and the idempotent producer that writes the batches ([`producer`]).

pub mod error;
pub mod partitioner;
pub mod producer;

pub use error::ProduceError;
pub use producer::{PartitionInfo, Producer, ProducerConfig};
