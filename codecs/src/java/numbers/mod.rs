//! Java's number grammars and spellings as flink-json 2.2.0 relies on them (spec §1.5,
//! §1.8): `Long.parseLong` and friends, `Double.parseDouble` / `Float.parseFloat` (decimal
//! and hexadecimal literals, type suffixes, `NaN`/`Infinity`), `new BigDecimal(String)`
//! with Flink's HALF_UP rescaling, and the texts of `Double.toString`, `Float.toString`
//! and `BigDecimal.toString` / `toPlainString`.
//!
//! Error messages are those of Java 17's `NumberFormatException` (the test JVM). Where
//! Java's message is `null` the text is `"null"`.
//!
//! Float printing follows the JVM the job runs on ([`JavaFloatText`]): JDK 19+ (shortest
//! round-trip digits, closest and even on ties, JDK-4511638) or JDK 18 and earlier
//! (`FloatingDecimal`: longer digits for many large values (doubles ≥ ~1e16, floats ≥ ~1e7),
//! for about 17% of powers of two, and `1.0E-323` for `9.9E-324`; see the `java17` tests).
//!
//! `parse_decimal` errors for rescales Java's BigInteger cannot do carry Java's
//! ArithmeticException messages ("Underflow", "BigInteger would overflow supported
//! range").

use std::fmt::{self, Write as _};
use std::str::FromStr;

/// Why a number text did not parse, with Java's NumberFormatException-like message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NumberError(pub(crate) String);

impl NumberError {
    fn for_input_string(text: &str) -> Self {
        NumberError(format!("For input string: \"{text}\""))
    }

    fn value_out_of_range(text: &str) -> Self {
        NumberError(format!("Value out of range. Value:\"{text}\" Radix:10"))
    }

    fn msg(text: &str) -> Self {
        NumberError(text.to_owned())
    }
}

mod big_decimal;
mod digits;
mod float_text;
mod floating_decimal;
mod integers;
mod parse_float;

pub(crate) use big_decimal::*;
use digits::*;
pub use float_text::JavaFloatText;
pub(crate) use float_text::*;
pub(crate) use integers::*;
pub(crate) use parse_float::*;

#[cfg(test)]
mod tests;
