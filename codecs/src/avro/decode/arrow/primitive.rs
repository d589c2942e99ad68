//! Fixed-width columns: BOOLEAN, the integer types, DATE, TIME, TIMESTAMP, FLOAT, DOUBLE.

use arrow_array::{ArrayRef, ArrowPrimitiveType, BooleanArray, PrimitiveArray};
use arrow_schema::DataType;
use serde_json::Value;
use std::sync::Arc;

use super::column::{BooleanColumn, FixedColumn};
use super::{bad_default, unexpected, Decoder};
use crate::avro::decode::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::decode::resolve::Read;

/// Ways of reading a writer value as a reader number, with Flink's conversions.
pub(crate) struct Reads;

impl Reads {
    /// INT, DATE, TIME: an Avro int.
    pub(crate) fn int<N: FromI64>(read: &Read, cur: &mut Cursor<'_>) -> ReadResult<N> {
        match read {
            Read::Int => Ok(N::from_i64(cur.read_int()? as i64)),
            other => Err(unexpected(other, "an int column")),
        }
    }

    /// TINYINT, SMALLINT: an Avro int narrowed with Java cast semantics (int 300 -> 44).
    pub(crate) fn int_wrapping<N: FromI64>(read: &Read, cur: &mut Cursor<'_>) -> ReadResult<N> {
        Self::int(read, cur)
    }

    /// BIGINT, TIMESTAMP: an Avro long, or an int promoted to long.
    pub(crate) fn long<N: FromI64>(read: &Read, cur: &mut Cursor<'_>) -> ReadResult<N> {
        match read {
            Read::Int => Ok(N::from_i64(cur.read_int()? as i64)),
            Read::Long => Ok(N::from_i64(cur.read_long()?)),
            other => Err(unexpected(other, "a long column")),
        }
    }

    /// FLOAT: an Avro float, or an int/long promoted to float.
    pub(crate) fn float(read: &Read, cur: &mut Cursor<'_>) -> ReadResult<f32> {
        match read {
            Read::Int => Ok(cur.read_int()? as f32),
            Read::Long => Ok(cur.read_long()? as f32),
            Read::Float => cur.read_float(),
            other => Err(unexpected(other, "a float column")),
        }
    }

    /// DOUBLE: an Avro double, or an int/long/float promoted to double.
    pub(crate) fn double(read: &Read, cur: &mut Cursor<'_>) -> ReadResult<f64> {
        match read {
            Read::Int => Ok(cur.read_int()? as f64),
            Read::Long => Ok(cur.read_long()? as f64),
            Read::Float => Ok(cur.read_float()? as f64),
            Read::Double => cur.read_double(),
            other => Err(unexpected(other, "a double column")),
        }
    }
}

/// Native Arrow values that an Avro integer converts into, wrapping like a Java cast.
pub(crate) trait FromI64: Copy {
    /// Narrows or keeps `v` with two's-complement wrapping.
    fn from_i64(v: i64) -> Self;
}

/// Native Arrow values that a reader schema's JSON default converts into.
pub(crate) trait JsonDefault: Sized {
    /// Reads a JSON default, or `None` when it is not a number of this kind.
    fn json_default(v: &Value) -> Option<Self>;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl FromI64 for $t {
            fn from_i64(v: i64) -> Self { v as $t }
        }
        impl JsonDefault for $t {
            fn json_default(v: &Value) -> Option<Self> { v.as_i64().map(|x| x as $t) }
        }
    )*};
}
integers!(i8, i16, i32, i64);

impl JsonDefault for f32 {
    fn json_default(v: &Value) -> Option<Self> {
        v.as_f64().map(|x| x as f32)
    }
}

impl JsonDefault for f64 {
    fn json_default(v: &Value) -> Option<Self> {
        v.as_f64()
    }
}

/// Reads one native value.
type ReadFn<N> = fn(&Read, &mut Cursor<'_>) -> ReadResult<N>;

/// A primitive column of Arrow type `T`.
pub(crate) struct PrimitiveDecoder<T: ArrowPrimitiveType> {
    column: FixedColumn<T::Native>,
    data_type: DataType,
    read: ReadFn<T::Native>,
}

impl<T: ArrowPrimitiveType> PrimitiveDecoder<T> {
    /// A decoder producing `data_type` (which carries time zones and units) with `read`.
    pub(crate) fn new(data_type: DataType, read: ReadFn<T::Native>) -> Self {
        PrimitiveDecoder {
            column: FixedColumn::default(),
            data_type,
            read,
        }
    }
}

impl<T> Decoder for PrimitiveDecoder<T>
where
    T: ArrowPrimitiveType,
    T::Native: JsonDefault,
{
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        let v = (self.read)(read, cur)?;
        self.column.push(v);
        Ok(())
    }

    fn append_null(&mut self) {
        self.column.push_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let v = T::Native::json_default(default).ok_or_else(|| bad_default(default, "number"))?;
        self.column.push(v);
        Ok(())
    }

    fn len(&self) -> usize {
        self.column.len()
    }

    fn truncate(&mut self, len: usize) {
        self.column.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let (values, nulls) = self.column.finish();
        // The data type is the one `decoder_for` chose for `T` (time zone and unit), so
        // `with_data_type` accepts it.
        let array = PrimitiveArray::<T>::try_new(values, nulls)
            .map_err(|e| ReadError::new(format!("building a column: {e}")))?
            .with_data_type(self.data_type.clone());
        Ok(Arc::new(array))
    }
}

/// A BOOLEAN column.
#[derive(Default)]
pub(crate) struct BooleanDecoder {
    column: BooleanColumn,
}

impl Decoder for BooleanDecoder {
    fn decode(&mut self, read: &Read, cur: &mut Cursor<'_>) -> ReadResult<()> {
        match read {
            Read::Boolean => {
                let v = cur.read_boolean()?;
                self.column.push(v);
                Ok(())
            }
            other => Err(unexpected(other, "a boolean column")),
        }
    }

    fn append_null(&mut self) {
        self.column.push_null();
    }

    fn append_default(&mut self, default: &Value) -> ReadResult<()> {
        let v = default
            .as_bool()
            .ok_or_else(|| bad_default(default, "boolean"))?;
        self.column.push(v);
        Ok(())
    }

    fn len(&self) -> usize {
        self.column.len()
    }

    fn truncate(&mut self, len: usize) {
        self.column.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ReadError> {
        let (values, nulls) = self.column.finish();
        Ok(Arc::new(BooleanArray::new(values, nulls)))
    }
}
