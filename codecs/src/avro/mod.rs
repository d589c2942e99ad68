//! Avro: schema model and derivation, writer -> reader resolution, the Confluent
//! encoder (Arrow -> bytes), and the Confluent decoder that turns a batch of Kafka values into one Arrow `RecordBatch` with exactly
//! Flink's `avro-confluent` semantics.
//!
//! Why not `arrow-avro`'s decoder: it decodes a stream of datums into Arrow types
//! chosen from the Avro schema, and the resolution and conversion rules Flink applies
//! differ in places that matter for parity (TINYINT narrowing, decimals read with the
//! table's scale and NULL on overflow, raw logical types, trailing bytes ignored per
//! message, per-record error attribution). The plan here is driven by the Flink row
//! type instead; see `docs/architecture.md`.

pub mod decode;
pub mod derive;
pub mod encode;
pub mod model;

pub use decode::{AvroConfluentDecoder, DecodedBatch};
pub use encode::{AvroConfluentEncoder, EncodedBatch};
