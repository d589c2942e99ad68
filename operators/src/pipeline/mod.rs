//! The fused pipelines around a [`crate::Calc`]: binary rows in, binary rows out (source
//! fusion, [`rows`]), and Kafka values in, encoded values out (full fusion, [`values`]).

pub mod formats;
pub mod rows;
pub mod values;
