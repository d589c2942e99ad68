//! Flink binary row images encoded straight into Avro binary, with the same rules as the
//! Arrow encoders (`encoders/`): nullable types as `["null", T]` unions, maps in Java
//! `HashMap` order, decimals as minimal two's-complement bytes, timestamps as epoch millis.
//!
//! A Java-detail image (marked by the Java image writer for a `GenericRowData` that holds
//! a lone UTF-16 surrogate or sub-millisecond nanos, see `flink_binary::java_detail`)
//! holds every string as its Java text and every timestamp laid out at precision 9:
//! flink-avro writes such a string as the JDK's UTF-8 encoder does (`new Utf8(String)`,
//! each lone surrogate `?`), keys its map `HashMap<String, _>` by the Java string (a lone
//! surrogate takes part in the hash and in equality), and writes a timestamp's epoch millis.
//!
//! Why a second input: the format-swap sink encodes one row per call, and reading a
//! one-row Arrow batch per row (builders, `finish`, then the encoders) measured 0.22x of
//! flink-avro in JMH; reading the image while writing the datum allocates nothing.

use std::borrow::Cow;

use super::arrow::write_long;
use crate::error::{CodecError, ErrorContext};
use crate::flink_binary::java_detail::ImageForm;
use crate::flink_binary::layout::element_size;
use crate::flink_binary::slots::{read_i32, Slots};
use crate::java::big_integer::{from_byte_array, to_byte_array};
use crate::java::hash_map::{string_map_order, units_map_order};
use crate::java::utf8::{java_detail_units, java_detail_utf8};
use crate::types::{FlinkField, FlinkKind, FlinkType};

fn failure(message: String) -> CodecError {
    CodecError::Malformed {
        message,
        context: ErrorContext::default(),
    }
}

fn write_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    write_long(bytes.len() as i64, out);
    out.extend_from_slice(bytes);
}

/// Appends the Avro datum of the row image starting at `base` of `buf`.
pub(crate) fn encode_row(
    buf: &[u8],
    base: usize,
    fields: &[FlinkField],
    out: &mut Vec<u8>,
    path: &str,
    form: ImageForm,
) -> Result<(), CodecError> {
    let slots = Slots::row(buf, base, fields.len())?;
    for (i, field) in fields.iter().enumerate() {
        let name = if path.is_empty() {
            field.name.clone()
        } else {
            format!("{path}.{}", field.name)
        };
        encode_slot(&slots, i, 8, &field.ty, out, &name, form)?;
    }
    Ok(())
}

/// Writes element `i` (slot size `size`) with its union branch when the type is nullable.
fn encode_slot(
    slots: &Slots<'_>,
    i: usize,
    size: usize,
    ty: &FlinkType,
    out: &mut Vec<u8>,
    path: &str,
    form: ImageForm,
) -> Result<(), CodecError> {
    if ty.kind == FlinkKind::Null {
        return Ok(());
    }
    let null = slots.is_null(i);
    if ty.nullable {
        if null {
            out.push(0);
            return Ok(());
        }
        out.push(2);
    } else if null {
        return Err(failure(format!(
            "field '{path}': null value for a NOT NULL type"
        )));
    }
    encode_value(slots, i, size, ty, out, path, form)
}

fn encode_value(
    slots: &Slots<'_>,
    i: usize,
    size: usize,
    ty: &FlinkType,
    out: &mut Vec<u8>,
    path: &str,
    form: ImageForm,
) -> Result<(), CodecError> {
    match &ty.kind {
        FlinkKind::Null => {}
        FlinkKind::Boolean => out.push((slots.fixed::<1>(i, size)[0] != 0) as u8),
        FlinkKind::TinyInt => write_long(i8::from_le_bytes(slots.fixed::<1>(i, size)) as i64, out),
        FlinkKind::SmallInt => {
            write_long(i16::from_le_bytes(slots.fixed::<2>(i, size)) as i64, out)
        }
        FlinkKind::Int | FlinkKind::Date | FlinkKind::Time(_) | FlinkKind::IntervalYearMonth => {
            write_long(i32::from_le_bytes(slots.fixed::<4>(i, size)) as i64, out)
        }
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => {
            write_long(i64::from_le_bytes(slots.fixed::<8>(i, size)), out)
        }
        FlinkKind::Float => out.extend_from_slice(&slots.fixed::<4>(i, size)),
        FlinkKind::Double => out.extend_from_slice(&slots.fixed::<8>(i, size)),
        FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) => {
            // Flink writes epoch milliseconds; sub-millisecond digits are dropped.
            let millis = if form.compact_timestamp(*p <= 3) {
                i64::from_le_bytes(slots.fixed::<8>(i, size))
            } else {
                let (at, _nanos) = slots.reference(i, size);
                let b = slots
                    .buf
                    .get(at..at + 8)
                    .ok_or_else(|| failure(format!("field '{path}': timestamp outside the row")))?;
                i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            };
            write_long(millis, out);
        }
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => {
            let bytes = slots.var(i, size)?;
            match form {
                ImageForm::Flink => write_bytes(bytes, out),
                ImageForm::JavaDetail => write_bytes(java_detail_utf8(bytes).as_bytes(), out),
            }
        }
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => write_bytes(slots.var(i, size)?, out),
        FlinkKind::Decimal { precision, .. } => {
            let unscaled = if *precision <= 18 {
                i64::from_le_bytes(slots.fixed::<8>(i, size)) as i128
            } else {
                let bytes = slots.var(i, size)?;
                from_byte_array(bytes)
                    .map_err(|e| failure(format!("field '{path}': {e}")))?
                    .ok_or_else(|| {
                        failure(format!("field '{path}': decimal wider than 128 bits"))
                    })?
            };
            write_bytes(&to_byte_array(unscaled), out);
        }
        FlinkKind::Row(fields) => {
            let (at, _) = slots.reference(i, size);
            encode_row(slots.buf, at, fields, out, path, form)?;
        }
        FlinkKind::Array(element) => {
            let (at, _) = slots.reference(i, size);
            let esize = element_size(element);
            let items = Slots::array(slots.buf, at, esize)?;
            if items.arity > 0 {
                write_long(items.arity as i64, out);
                for j in 0..items.arity {
                    encode_slot(&items, j, esize, element, out, path, form)?;
                }
            }
            out.push(0);
        }
        FlinkKind::Map(key, value) => encode_map(slots, i, size, key, value, out, path, form)?,
        FlinkKind::Multiset(element) => {
            let count = FlinkType {
                nullable: true,
                kind: FlinkKind::Int,
            };
            encode_map(slots, i, size, element, &count, out, path, form)?
        }
    }
    Ok(())
}

/// Maps: entries in the iteration order of the `java.util.HashMap` Flink copies the map
/// into; a NULL key slot reads as the empty string, as `BinaryArrayData.getString` does.
/// The keys of a Java-detail image are Java strings: hashed and compared by their UTF-16
/// units (lone surrogates included), written with each lone surrogate as `?`.
#[allow(clippy::too_many_arguments)]
fn encode_map(
    slots: &Slots<'_>,
    i: usize,
    size: usize,
    key: &FlinkType,
    value: &FlinkType,
    out: &mut Vec<u8>,
    path: &str,
    form: ImageForm,
) -> Result<(), CodecError> {
    let (at, _) = slots.reference(i, size);
    let key_size = usize::try_from(read_i32(slots.buf, at)?)
        .map_err(|_| failure(format!("field '{path}': negative map key size")))?;
    let ksize = element_size(key);
    let vsize = element_size(value);
    let keys = Slots::array(slots.buf, at + 4, ksize)?;
    let values = Slots::array(slots.buf, at + 4 + key_size, vsize)?;
    if keys.arity != values.arity {
        return Err(failure(format!(
            "field '{path}': map with {} keys and {} values",
            keys.arity, values.arity
        )));
    }
    let mut texts: Vec<Cow<'_, str>> = Vec::with_capacity(keys.arity);
    let order = match form {
        ImageForm::Flink => {
            for k in 0..keys.arity {
                texts.push(String::from_utf8_lossy(keys.var(k, ksize)?));
            }
            let borrowed: Vec<&str> = texts.iter().map(|t| t.as_ref()).collect();
            string_map_order(&borrowed)
        }
        ImageForm::JavaDetail => {
            let mut units = Vec::with_capacity(keys.arity);
            for k in 0..keys.arity {
                let bytes = keys.var(k, ksize)?;
                units.push(java_detail_units(bytes).collect::<Vec<u16>>());
                texts.push(java_detail_utf8(bytes));
            }
            units_map_order(&units)
        }
    };
    if !order.is_empty() {
        write_long(order.len() as i64, out);
        for k in order {
            write_bytes(texts[k].as_bytes(), out);
            encode_slot(&values, k, vsize, value, out, path, form)?;
        }
    }
    out.push(0);
    Ok(())
}
