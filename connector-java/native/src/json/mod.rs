//! JSON sessions behind Java handles (format `json-native`): one decoder or encoder per
//! parallel Flink reader or writer, with plain-Rust entry points the JNI shims call.
//!
//! A JSON value may hold any number of rows (a top-level array gives one per element),
//! so decoded rows cross the boundary in the "row list" layout of
//! `docs/jni-contract.md`, built by [`RowList`].

mod decode;
mod encode;

pub use crate::row_list::RowList;
pub use decode::{JsonDecodeSession, ValueDecoder};
pub use encode::JsonEncodeSession;
