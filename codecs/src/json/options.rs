//! The options of the `json` format (spec §1.1), as the codec needs them.

use serde::Deserialize;

pub use crate::java::numbers::JavaFloatText;
pub use crate::java::temporal::TimestampStandard;

/// Decode-side options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonDecodeOptions {
    /// `fail-on-missing-field`: a declared field absent from the object is an error.
    #[serde(default)]
    pub fail_on_missing_field: bool,
    /// `ignore-parse-errors`: field failures become NULL, unreadable messages are skipped.
    #[serde(default)]
    pub ignore_parse_errors: bool,
    /// `timestamp-format.standard`.
    #[serde(default)]
    pub timestamp_standard: TimestampStandard,
    /// `decode.json-parser.enabled`: `true` reproduces the streaming-token decoder
    /// (`JsonParserRowDataDeserializationSchema`, the default), `false` the tree decoder
    /// (`JsonRowDataDeserializationSchema`); they differ in corner cases (spec §1.9).
    #[serde(default = "default_true")]
    pub json_parser: bool,
    /// The `Double.toString` digits of the JVM the job runs on (the tree decoder prints float
    /// literals read into STRING columns with them); set from the JVM's version, not from the
    /// format options.
    #[serde(skip)]
    pub float_text: JavaFloatText,
}

impl Default for JsonDecodeOptions {
    fn default() -> Self {
        JsonDecodeOptions {
            fail_on_missing_field: false,
            ignore_parse_errors: false,
            timestamp_standard: TimestampStandard::Sql,
            json_parser: true,
            float_text: JavaFloatText::Shortest,
        }
    }
}

fn default_true() -> bool {
    true
}

/// `map-null-key.mode`: what encoding does with a NULL map key.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MapNullKeyMode {
    /// Fail the record (the default).
    #[default]
    Fail,
    /// Leave the entry out.
    Drop,
    /// Write the entry with this key text (`map-null-key.literal`, default `null`).
    Literal(String),
}

/// Encode-side options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JsonEncodeOptions {
    /// `timestamp-format.standard`.
    pub timestamp_standard: TimestampStandard,
    /// `map-null-key.mode` with its literal.
    pub map_null_key: MapNullKeyMode,
    /// `encode.decimal-as-plain-number`: plain digits with the declared scale.
    pub decimal_as_plain_number: bool,
    /// `encode.ignore-null-fields`: leave NULL row fields out.
    pub ignore_null_fields: bool,
    /// The FLOAT/DOUBLE digits of the JVM the job runs on (`Float/Double.toString`).
    pub float_text: JavaFloatText,
}
