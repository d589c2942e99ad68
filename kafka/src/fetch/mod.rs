//! Kafka's Fetch protocol: requests to partition leaders ([`request`]), their responses
//! ([`response`]) and the session that keeps the assigned partitions and one connection per
//! leader ([`session`]).

pub mod request;
pub mod response;
pub mod session;

pub use request::FetchLimits;
pub use session::{FetchSession, Isolation, PartitionSlot, Polled};
