//! Kafka's Fetch protocol: requests to partition leaders ([`request`]), their responses
//! ([`response`]) and the session that keeps the assigned partitions and one connection per
//! leader ([`session`]).

pub mod leaders;
pub mod partition_errors;
pub mod request;
pub mod response;
pub mod session;
#[cfg(test)]
pub(crate) mod test_peer;

pub use request::FetchLimits;
pub use session::{
    response_limit, FetchLatencies, FetchSession, Isolation, PartitionSlot, Polled, Truncation,
};
