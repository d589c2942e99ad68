//! Rows as canonical text, for comparing native rows with stock Flink rows. The JVM harness
//! (`io.karrow.bench.StockSerdeHarness#render`) writes exactly the same text from Flink's
//! `RowData`; keep the two in step.
//!
//! One line per message: `-` for a null value (no row), else the row. Values: `null`;
//! `true`/`false`; integers in decimal; FLOAT `f:` + the 8 hex digits of its bits, DOUBLE
//! `d:` + 16; strings in double quotes with `"` `\` escaped by `\` and characters below
//! U+0020 as `\u00xx`; bytes `x'..'` (lowercase hex); DECIMAL as plain text (`-0.05`);
//! DATE `date:<days>`; TIME `time:<millis>`; TIMESTAMP(_LTZ) `ts:<epoch millis>:<nano of
//! milli>`; ARRAY `[a,b]`; MAP/MULTISET `{k=v,...}` with entries sorted by the UTF-8 bytes
//! of the rendered key; ROW `(a,b)`.

use std::fmt::Write;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};

/// The text of each row of `batch`.
pub fn render_batch(batch: &RecordBatch) -> Vec<String> {
    (0..batch.num_rows())
        .map(|row| {
            let mut out = String::from("(");
            for (i, column) in batch.columns().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render_value(column.as_ref(), row, &mut out);
            }
            out.push(')');
            out
        })
        .collect()
}

/// Renders `batch` rows for messages: `-` where `present[i]` is false, else the next row.
pub fn render_messages(
    batch: &RecordBatch,
    present: impl IntoIterator<Item = bool>,
) -> Vec<String> {
    let mut rows = render_batch(batch).into_iter();
    present
        .into_iter()
        .map(|p| {
            if p {
                rows.next().unwrap_or_else(|| "<missing row>".into())
            } else {
                "-".into()
            }
        })
        .collect()
}

fn render_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// DECIMAL text as Java's `BigDecimal#toPlainString`.
pub fn plain_decimal(unscaled: i128, scale: i8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale <= 0 {
        let zeros = if unscaled == 0 { 0 } else { (-scale) as usize };
        return format!("{sign}{digits}{}", "0".repeat(zeros));
    }
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

fn timestamp(millis: i64, nanos_of_milli: i64, out: &mut String) {
    let _ = write!(out, "ts:{millis}:{nanos_of_milli}");
}

fn render_value(array: &dyn Array, i: usize, out: &mut String) {
    if array.is_null(i) {
        out.push_str("null");
        return;
    }
    match array.data_type() {
        DataType::Null => out.push_str("null"),
        DataType::Boolean => out.push_str(if array.as_boolean().value(i) {
            "true"
        } else {
            "false"
        }),
        DataType::Int8 => {
            let _ = write!(out, "{}", array.as_primitive::<Int8Type>().value(i));
        }
        DataType::Int16 => {
            let _ = write!(out, "{}", array.as_primitive::<Int16Type>().value(i));
        }
        DataType::Int32 => {
            let _ = write!(out, "{}", array.as_primitive::<Int32Type>().value(i));
        }
        DataType::Int64 => {
            let _ = write!(out, "{}", array.as_primitive::<Int64Type>().value(i));
        }
        DataType::Float32 => {
            let _ = write!(
                out,
                "f:{:08x}",
                array.as_primitive::<Float32Type>().value(i).to_bits()
            );
        }
        DataType::Float64 => {
            let _ = write!(
                out,
                "d:{:016x}",
                array.as_primitive::<Float64Type>().value(i).to_bits()
            );
        }
        DataType::Utf8 => render_string(array.as_string::<i32>().value(i), out),
        DataType::Binary => {
            out.push_str("x'");
            for b in array.as_binary::<i32>().value(i) {
                let _ = write!(out, "{b:02x}");
            }
            out.push('\'');
        }
        DataType::Decimal128(_, scale) => {
            out.push_str(&plain_decimal(
                array.as_primitive::<Decimal128Type>().value(i),
                *scale,
            ));
        }
        DataType::Date32 => {
            let _ = write!(out, "date:{}", array.as_primitive::<Date32Type>().value(i));
        }
        DataType::Time32(TimeUnit::Millisecond) => {
            let _ = write!(
                out,
                "time:{}",
                array.as_primitive::<Time32MillisecondType>().value(i)
            );
        }
        DataType::Timestamp(unit, _) => {
            let (millis, nanos) = match unit {
                TimeUnit::Second => (
                    array
                        .as_primitive::<TimestampSecondType>()
                        .value(i)
                        .saturating_mul(1000),
                    0,
                ),
                TimeUnit::Millisecond => {
                    (array.as_primitive::<TimestampMillisecondType>().value(i), 0)
                }
                TimeUnit::Microsecond => {
                    let v = array.as_primitive::<TimestampMicrosecondType>().value(i);
                    (v.div_euclid(1000), v.rem_euclid(1000) * 1000)
                }
                TimeUnit::Nanosecond => {
                    let v = array.as_primitive::<TimestampNanosecondType>().value(i);
                    (v.div_euclid(1_000_000), v.rem_euclid(1_000_000))
                }
            };
            timestamp(millis, nanos, out);
        }
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            let values = list.value(i);
            out.push('[');
            for j in 0..values.len() {
                if j > 0 {
                    out.push(',');
                }
                render_value(values.as_ref(), j, out);
            }
            out.push(']');
        }
        DataType::Map(_, _) => {
            let map = array.as_map();
            let entries = map.value(i);
            let (keys, values) = (entries.column(0), entries.column(1));
            let mut rendered: Vec<(String, String)> = (0..entries.len())
                .map(|j| {
                    let (mut k, mut v) = (String::new(), String::new());
                    render_value(keys.as_ref(), j, &mut k);
                    render_value(values.as_ref(), j, &mut v);
                    (k, v)
                })
                .collect();
            rendered.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (j, (k, v)) in rendered.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{k}={v}");
            }
            out.push('}');
        }
        DataType::Struct(_) => {
            let row = array.as_struct();
            out.push('(');
            for (j, column) in row.columns().iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                render_value(column.as_ref(), i, out);
            }
            out.push(')');
        }
        other => {
            let _ = write!(out, "<unrendered {other}>");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_like_java() {
        assert_eq!(plain_decimal(-5, 2), "-0.05");
        assert_eq!(plain_decimal(12345, 2), "123.45");
        assert_eq!(plain_decimal(0, 3), "0.000");
        assert_eq!(plain_decimal(7, 0), "7");
        assert_eq!(plain_decimal(-100, 1), "-10.0");
    }

    #[test]
    fn strings_are_escaped() {
        let mut s = String::new();
        render_string("a\"b\\c\nd€", &mut s);
        assert_eq!(s, "\"a\\\"b\\\\c\\u000ad€\"");
    }
}
