//! Produce: what the native producer decides before a record becomes bytes in a batch.
//! Today: which partition a record goes to ([`partitioner`]), exactly as the stock Flink
//! Kafka sink decides it.

pub mod partitioner;
