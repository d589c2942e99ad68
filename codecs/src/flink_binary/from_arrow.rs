//! Arrow batches written as Flink binary row images (layouts in [`super`]).

use super::layout::{
    array_header_bytes, element_size, pad_from, put, round8, row_null_bytes, set_bit,
    set_offset_and_size, write_big_decimal, write_big_timestamp, write_var_bytes,
};
use crate::types::{FlinkKind, FlinkType};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit};

use crate::error::CodecError;

/// Row images of a batch: all rows back to back, row `i` spanning
/// `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Default)]
pub struct RowImages {
    /// Concatenated images.
    pub bytes: Vec<u8>,
    /// `rows + 1` start offsets.
    pub offsets: Vec<i32>,
}

/// Writes every row of `batch` (whose columns follow `row_type`'s fields) as a Flink
/// binary row with RowKind INSERT, appending to `out`.
pub fn write_batch_rows(
    batch: &RecordBatch,
    row_type: &FlinkType,
    out: &mut RowImages,
) -> Result<(), CodecError> {
    let fields = row_type.row_fields()?;
    if fields.len() != batch.num_columns() {
        return Err(CodecError::Rows(format!(
            "batch has {} columns, the row type {}",
            batch.num_columns(),
            fields.len()
        )));
    }
    let types: Vec<&FlinkType> = fields.iter().map(|f| &f.ty).collect();
    if out.offsets.is_empty() {
        out.offsets.push(i32_offset(out.bytes.len())?);
    }
    for row in 0..batch.num_rows() {
        write_row(&mut out.bytes, batch.columns(), &types, row)?;
        out.offsets.push(i32_offset(out.bytes.len())?);
    }
    Ok(())
}

fn i32_offset(n: usize) -> Result<i32, CodecError> {
    i32::try_from(n).map_err(|_| CodecError::Rows("row images exceed 2 GiB in one batch".into()))
}

/// Writes one row of `columns` at the end of `out`.
fn write_row(
    out: &mut Vec<u8>,
    columns: &[ArrayRef],
    types: &[&FlinkType],
    row: usize,
) -> Result<(), CodecError> {
    let arity = types.len();
    let base = out.len();
    let null_bytes = row_null_bytes(arity);
    out.resize(base + null_bytes + 8 * arity, 0);
    for (i, (column, ty)) in columns.iter().zip(types).enumerate() {
        if column.is_null(row) || ty.kind == FlinkKind::Null {
            set_bit(out, base, i + 8);
        } else {
            write_value(out, base, base + null_bytes + 8 * i, column, row, ty)?;
        }
    }
    Ok(())
}

/// Writes one array of `len` elements starting at `start` of `values` at the end of `out`.
fn write_array(
    out: &mut Vec<u8>,
    values: &ArrayRef,
    start: usize,
    len: usize,
    ty: &FlinkType,
) -> Result<(), CodecError> {
    let base = out.len();
    let header = array_header_bytes(len);
    let size = element_size(ty);
    out.resize(base + round8(header + size * len), 0);
    let count =
        i32::try_from(len).map_err(|_| CodecError::Rows("array longer than 2^31".into()))?;
    put(out, base, &count.to_le_bytes());
    for i in 0..len {
        if values.is_null(start + i) || ty.kind == FlinkKind::Null {
            set_bit(out, base + 4, i);
        } else {
            write_value(out, base, base + header + size * i, values, start + i, ty)?;
        }
    }
    Ok(())
}

fn write_value(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    array: &ArrayRef,
    i: usize,
    ty: &FlinkType,
) -> Result<(), CodecError> {
    let mismatch = || {
        CodecError::Rows(format!(
            "column of Arrow type {} does not hold {:?}",
            array.data_type(),
            ty.kind
        ))
    };
    match &ty.kind {
        FlinkKind::Null => Ok(()),
        FlinkKind::Boolean => {
            out[slot] = array.as_boolean_opt().ok_or_else(mismatch)?.value(i) as u8;
            Ok(())
        }
        FlinkKind::TinyInt => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Int8Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::SmallInt => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Int16Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::Int | FlinkKind::IntervalYearMonth => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Int32Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::Date => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Date32Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::Time(_) => {
            let v = array
                .as_primitive_opt::<Time32MillisecondType>()
                .ok_or_else(mismatch)?
                .value(i);
            put(out, slot, &v.to_le_bytes());
            Ok(())
        }
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Int64Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::Float => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Float32Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::Double => {
            put(
                out,
                slot,
                &array
                    .as_primitive_opt::<Float64Type>()
                    .ok_or_else(mismatch)?
                    .value(i)
                    .to_le_bytes(),
            );
            Ok(())
        }
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => {
            let v = array.as_string_opt::<i32>().ok_or_else(mismatch)?.value(i);
            write_var_bytes(out, base, slot, v.as_bytes())
        }
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
            let v = array.as_binary_opt::<i32>().ok_or_else(mismatch)?.value(i);
            write_var_bytes(out, base, slot, v)
        }
        FlinkKind::Decimal { precision, .. } => {
            let v = array
                .as_primitive_opt::<Decimal128Type>()
                .ok_or_else(mismatch)?
                .value(i);
            if *precision <= 18 {
                put(out, slot, &(v as i64).to_le_bytes());
                return Ok(());
            }
            write_big_decimal(out, base, slot, v)
        }
        FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) => {
            let (millis, nanos) = timestamp_parts(array, i).ok_or_else(mismatch)?;
            if *p <= 3 {
                put(out, slot, &millis.to_le_bytes());
                return Ok(());
            }
            write_big_timestamp(out, base, slot, millis, nanos);
            Ok(())
        }
        FlinkKind::Row(fields) => {
            let s = array.as_struct_opt().ok_or_else(mismatch)?;
            let types: Vec<&FlinkType> = fields.iter().map(|f| &f.ty).collect();
            let start = out.len();
            write_row(out, s.columns(), &types, i)?;
            let size = out.len() - start;
            set_offset_and_size(out, base, slot, start, size)
        }
        FlinkKind::Array(element) => {
            let list = array.as_list_opt::<i32>().ok_or_else(mismatch)?;
            let offsets = list.value_offsets();
            let (from, to) = (offsets[i] as usize, offsets[i + 1] as usize);
            let start = out.len();
            write_array(out, list.values(), from, to - from, element)?;
            let size = out.len() - start;
            set_offset_and_size(out, base, slot, start, size)
        }
        FlinkKind::Map(key, value) => write_map(out, base, slot, array, i, key, value),
        FlinkKind::Multiset(element) => {
            let count = FlinkType {
                nullable: true,
                kind: FlinkKind::Int,
            };
            write_map(out, base, slot, array, i, element, &count)
        }
    }
}

fn write_map(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    array: &ArrayRef,
    i: usize,
    key: &FlinkType,
    value: &FlinkType,
) -> Result<(), CodecError> {
    let map = array.as_map_opt().ok_or_else(|| {
        CodecError::Rows(format!(
            "column of Arrow type {} is not a map",
            array.data_type()
        ))
    })?;
    let offsets = map.value_offsets();
    let (from, to) = (offsets[i] as usize, offsets[i + 1] as usize);
    let start = out.len();
    out.resize(start + 4, 0);
    write_array(out, map.keys(), from, to - from, key)?;
    let key_size = out.len() - start - 4;
    put(out, start, &(key_size as i32).to_le_bytes());
    write_array(out, map.values(), from, to - from, value)?;
    let size = out.len() - start;
    // A map's size is 4 mod 8; the variable part after it is padded to a multiple of 8
    // from the start of the enclosing row or array (`base`), as Flink's writers pad it, so
    // a row holding the map has the size Flink gives it even where the row itself sits at
    // an odd word (an element of a map's value array).
    pad_from(out, base);
    set_offset_and_size(out, base, slot, start, size)
}

/// Epoch milliseconds and nano-of-millisecond of a timestamp element.
fn timestamp_parts(array: &ArrayRef, i: usize) -> Option<(i64, u32)> {
    let DataType::Timestamp(unit, _) = array.data_type() else {
        return None;
    };
    let (v, per_milli) = match unit {
        TimeUnit::Millisecond => (
            array
                .as_primitive_opt::<TimestampMillisecondType>()?
                .value(i),
            1,
        ),
        TimeUnit::Microsecond => (
            array
                .as_primitive_opt::<TimestampMicrosecondType>()?
                .value(i),
            1_000,
        ),
        TimeUnit::Nanosecond => (
            array
                .as_primitive_opt::<TimestampNanosecondType>()?
                .value(i),
            1_000_000,
        ),
        TimeUnit::Second => return None,
    };
    let millis = v.div_euclid(per_milli);
    let sub = v.rem_euclid(per_milli) as u32 * (1_000_000 / per_milli as u32);
    Some((millis, sub))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn writes_header_slots_inline_and_variable_strings() {
        let row_type = FlinkType::from_json_str(
            r#"{"type":"ROW","nullable":false,"fields":[
              {"name":"a","type":{"type":"BIGINT"}},
              {"name":"s","type":{"type":"VARCHAR","length":100}}]}"#,
        )
        .unwrap();
        let schema = Arc::new(arrow_schema::Schema::new(vec![
            arrow_schema::Field::new("a", DataType::Int64, true),
            arrow_schema::Field::new("s", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![Some(7), None])),
                Arc::new(StringArray::from(vec![Some("hi"), Some("longer text")])),
            ],
        )
        .unwrap();
        let mut out = RowImages::default();
        write_batch_rows(&batch, &row_type, &mut out).unwrap();
        assert_eq!(out.offsets, vec![0, 24, 24 + 24 + 16]);
        let r0 = &out.bytes[0..24];
        assert_eq!(r0[0], 0); // INSERT, no nulls
        assert_eq!(&r0[8..16], &7i64.to_le_bytes());
        assert_eq!(&r0[16..18], b"hi");
        assert_eq!(r0[23], 0x82);
        let r1 = &out.bytes[24..];
        assert_eq!(r1[1], 0b0000_0001); // field 0 null -> bit 8
        let slot = u64::from_le_bytes(r1[16..24].try_into().unwrap());
        assert_eq!(slot >> 32, 24);
        assert_eq!(slot & 0xffff_ffff, 11);
        assert_eq!(&r1[24..35], b"longer text");
    }
}
