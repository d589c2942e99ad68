//! Arrow -> Avro binary, one encoder per Arrow type behind the private [`Encoder`]
//! trait, writing what Flink's `RowDataToAvroConverters` + Java Avro's
//! `GenericDatumWriter` write for the schema Flink derives (spec sections 2.3 and 2.4).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};

use crate::error::{CodecError, ErrorContext};
use crate::java::big_integer::to_byte_array;
use crate::java::hash_map::string_map_order;
use crate::types::{FlinkKind, FlinkType};

/// Writes one value (row `i` of its array) as Avro binary.
pub(crate) trait Encoder {
    /// Appends the encoding of element `i` to `out`.
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError>;
}

fn failure(message: String) -> CodecError {
    CodecError::Malformed {
        message,
        context: ErrorContext::default(),
    }
}

/// Appends a zig-zag varint.
pub fn write_long(v: i64, out: &mut Vec<u8>) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn write_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    write_long(bytes.len() as i64, out);
    out.extend_from_slice(bytes);
}

/// Builds the encoder of a column of Flink type `ty` held in `array`.
pub(crate) fn encoder_for<'a>(
    array: &'a ArrayRef,
    ty: &'a FlinkType,
    path: &str,
) -> Result<Box<dyn Encoder + 'a>, CodecError> {
    let inner = value_encoder(array, ty, path)?;
    if ty.kind == FlinkKind::Null {
        return Ok(inner);
    }
    Ok(Box::new(Nullable {
        array,
        inner,
        nullable: ty.nullable,
        path: path.to_string(),
    }))
}

fn mismatch(array: &ArrayRef, ty: &FlinkType, path: &str) -> CodecError {
    failure(format!(
        "field '{path}': Arrow type {} does not hold {:?}",
        array.data_type(),
        ty.kind
    ))
}

macro_rules! primitive {
    ($array:expr, $ty:expr, $path:expr, $arrow:ty, $write:expr) => {{
        let values = $array
            .as_primitive_opt::<$arrow>()
            .ok_or_else(|| mismatch($array, $ty, $path))?;
        Box::new(Primitive {
            values,
            write: $write,
        }) as Box<dyn Encoder + 'a>
    }};
}

fn value_encoder<'a>(
    array: &'a ArrayRef,
    ty: &'a FlinkType,
    path: &str,
) -> Result<Box<dyn Encoder + 'a>, CodecError> {
    Ok(match &ty.kind {
        FlinkKind::Null => Box::new(NullValue),
        FlinkKind::Boolean => Box::new(Boolean(
            array
                .as_boolean_opt()
                .ok_or_else(|| mismatch(array, ty, path))?,
        )),
        FlinkKind::TinyInt => primitive!(array, ty, path, Int8Type, |v: i8, out| write_long(
            v as i64, out
        )),
        FlinkKind::SmallInt => primitive!(array, ty, path, Int16Type, |v: i16, out| write_long(
            v as i64, out
        )),
        FlinkKind::Int | FlinkKind::IntervalYearMonth => {
            primitive!(array, ty, path, Int32Type, |v: i32, out| write_long(
                v as i64, out
            ))
        }
        FlinkKind::Date => primitive!(array, ty, path, Date32Type, |v: i32, out| write_long(
            v as i64, out
        )),
        FlinkKind::Time(_) => {
            primitive!(array, ty, path, Time32MillisecondType, |v: i32, out| {
                write_long(v as i64, out)
            })
        }
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => {
            primitive!(array, ty, path, Int64Type, write_long)
        }
        FlinkKind::Float => {
            primitive!(array, ty, path, Float32Type, |v: f32, out: &mut Vec<u8>| {
                out.extend_from_slice(&v.to_le_bytes())
            })
        }
        FlinkKind::Double => {
            primitive!(array, ty, path, Float64Type, |v: f64, out: &mut Vec<u8>| {
                out.extend_from_slice(&v.to_le_bytes())
            })
        }
        FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => match array.data_type() {
            // Flink writes epoch milliseconds; sub-millisecond digits are truncated.
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                primitive!(array, ty, path, TimestampMillisecondType, write_long)
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                primitive!(array, ty, path, TimestampMicrosecondType, |v: i64, out| {
                    write_long(v.div_euclid(1_000), out)
                })
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                primitive!(array, ty, path, TimestampNanosecondType, |v: i64, out| {
                    write_long(v.div_euclid(1_000_000), out)
                })
            }
            _ => return Err(mismatch(array, ty, path)),
        },
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => {
            let values = array
                .as_string_opt::<i32>()
                .ok_or_else(|| mismatch(array, ty, path))?;
            Box::new(Text(values))
        }
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
            let values = array
                .as_binary_opt::<i32>()
                .ok_or_else(|| mismatch(array, ty, path))?;
            Box::new(Bytes(values))
        }
        FlinkKind::Decimal { .. } => {
            primitive!(array, ty, path, Decimal128Type, |v: i128, out| write_bytes(
                &to_byte_array(v),
                out
            ))
        }
        FlinkKind::Array(element) => {
            let list = array
                .as_list_opt::<i32>()
                .ok_or_else(|| mismatch(array, ty, path))?;
            let items = encoder_for(list.values(), element, path)?;
            Box::new(List { list, items })
        }
        FlinkKind::Map(_, value) => map_encoder(array, ty, value, path)?,
        FlinkKind::Multiset(_) => map_encoder(array, ty, &MULTISET_COUNT, path)?,
        FlinkKind::Row(fields) => {
            let s = array
                .as_struct_opt()
                .ok_or_else(|| mismatch(array, ty, path))?;
            let children = s
                .columns()
                .iter()
                .zip(fields)
                .map(|(c, f)| encoder_for(c, &f.ty, &format!("{path}.{}", f.name)))
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(Record { children })
        }
    })
}

static MULTISET_COUNT: FlinkType = FlinkType {
    nullable: true,
    kind: FlinkKind::Int,
};

fn map_encoder<'a>(
    array: &'a ArrayRef,
    ty: &'a FlinkType,
    value: &'a FlinkType,
    path: &str,
) -> Result<Box<dyn Encoder + 'a>, CodecError> {
    let map = array
        .as_map_opt()
        .ok_or_else(|| mismatch(array, ty, path))?;
    let keys = map
        .keys()
        .as_string_opt::<i32>()
        .ok_or_else(|| mismatch(array, ty, path))?;
    let values = encoder_for(map.values(), value, path)?;
    Ok(Box::new(Map {
        map,
        keys,
        values,
        path: path.to_string(),
    }))
}

/// Nullable types are unions `["null", T]`: branch 0 for NULL, 1 for a value.
struct Nullable<'a> {
    array: &'a ArrayRef,
    inner: Box<dyn Encoder + 'a>,
    nullable: bool,
    path: String,
}

impl Encoder for Nullable<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let null = self.array.is_null(i);
        if !self.nullable {
            if null {
                return Err(failure(format!(
                    "field '{}': null value for a NOT NULL type",
                    self.path
                )));
            }
            return self.inner.encode(i, out);
        }
        if null {
            out.push(0);
            Ok(())
        } else {
            out.push(2);
            self.inner.encode(i, out)
        }
    }
}

struct NullValue;

impl Encoder for NullValue {
    fn encode(&self, _i: usize, _out: &mut Vec<u8>) -> Result<(), CodecError> {
        Ok(())
    }
}

struct Boolean<'a>(&'a arrow_array::BooleanArray);

impl Encoder for Boolean<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.push(self.0.value(i) as u8);
        Ok(())
    }
}

struct Primitive<'a, T: arrow_array::ArrowPrimitiveType> {
    values: &'a arrow_array::PrimitiveArray<T>,
    write: fn(T::Native, &mut Vec<u8>),
}

impl<T: arrow_array::ArrowPrimitiveType> Encoder for Primitive<'_, T> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        (self.write)(self.values.value(i), out);
        Ok(())
    }
}

struct Text<'a>(&'a arrow_array::StringArray);

impl Encoder for Text<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write_bytes(self.0.value(i).as_bytes(), out);
        Ok(())
    }
}

struct Bytes<'a>(&'a arrow_array::BinaryArray);

impl Encoder for Bytes<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write_bytes(self.0.value(i), out);
        Ok(())
    }
}

/// Arrays are one block: the item count, the items, then the `0` end marker (an empty
/// array is the single byte `0`).
struct List<'a> {
    list: &'a arrow_array::ListArray,
    items: Box<dyn Encoder + 'a>,
}

impl Encoder for List<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let offsets = self.list.value_offsets();
        let (from, to) = (offsets[i] as usize, offsets[i + 1] as usize);
        if to > from {
            write_long((to - from) as i64, out);
            for j in from..to {
                self.items.encode(j, out)?;
            }
        }
        out.push(0);
        Ok(())
    }
}

/// Maps are one block of entries (key string, value), in the iteration order of the
/// `java.util.HashMap` that Flink's converter copies every map into (duplicate keys
/// collapse, the last value wins).
struct Map<'a> {
    map: &'a arrow_array::MapArray,
    keys: &'a arrow_array::StringArray,
    values: Box<dyn Encoder + 'a>,
    path: String,
}

impl Encoder for Map<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let offsets = self.map.value_offsets();
        let (from, to) = (offsets[i] as usize, offsets[i + 1] as usize);
        let mut keys = Vec::with_capacity(to - from);
        for j in from..to {
            if self.keys.is_null(j) {
                return Err(failure(format!(
                    "field '{}': Avro maps cannot hold a NULL key",
                    self.path
                )));
            }
            keys.push(self.keys.value(j));
        }
        let order = string_map_order(&keys);
        if !order.is_empty() {
            write_long(order.len() as i64, out);
            for k in order {
                write_bytes(keys[k].as_bytes(), out);
                self.values.encode(from + k, out)?;
            }
        }
        out.push(0);
        Ok(())
    }
}

struct Record<'a> {
    children: Vec<Box<dyn Encoder + 'a>>,
}

impl Encoder for Record<'_> {
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.children.iter().try_for_each(|c| c.encode(i, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_like_avro() {
        let mut out = Vec::new();
        for v in [0, -1, 1, -64, 64, i64::MAX] {
            write_long(v, &mut out);
        }
        assert_eq!(&out[..6], &[0x00, 0x01, 0x02, 0x7f, 0x80, 0x01]);
    }
}
