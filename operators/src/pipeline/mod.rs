//! The fused pipelines around a [`crate::Calc`]: binary rows in, binary rows out (source
//! fusion), and Kafka values in, encoded values out (full fusion).

pub mod rows;
