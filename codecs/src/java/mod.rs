//! Java's semantics that Flink's formats inherit from the JVM, decided once for every
//! format (and the operator core): number grammars and spellings (`numbers`), the date and
//! time grammars (`temporal`), base64 variants (`base64`).

pub(crate) mod base64;
pub(crate) mod numbers;
pub(crate) mod temporal;
pub(crate) mod hash_map;
