//! Flink `BinaryRowData` images read into an Arrow batch: the inverse of
//! [`super::from_arrow`] (see there for the layouts), used on the encode path where
//! Java hands over the binary rows Flink already holds.

use std::sync::Arc;

use crate::types::{row_arrow_fields, FlinkField, FlinkKind, FlinkType};
use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Decimal128Builder, PrimitiveBuilder, StringBuilder,
};
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, ListArray, MapArray, NullArray, RecordBatch, StructArray,
};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, FieldRef, Fields, Schema, TimeUnit};

use super::layout::element_size;
use super::slots::{bad, read_i32, Slots};
use crate::error::CodecError;

/// Appends values of one Arrow type read from binary slots.
trait Column {
    fn append(&mut self, slots: &Slots<'_>, i: usize, size: usize) -> Result<(), CodecError>;
    fn append_null(&mut self);
    fn finish(&mut self) -> Result<ArrayRef, CodecError>;
}

fn column_for(ty: &FlinkType) -> Box<dyn Column> {
    let dt = ty.arrow_type();
    match &ty.kind {
        FlinkKind::Null => Box::new(NullColumn(0)),
        FlinkKind::Boolean => Box::new(BoolColumn(BooleanBuilder::new())),
        FlinkKind::TinyInt => Box::new(Prim::<Int8Type>::new(dt, |s, i, z| {
            Ok(i8::from_le_bytes(s.fixed::<1>(i, z)))
        })),
        FlinkKind::SmallInt => Box::new(Prim::<Int16Type>::new(dt, |s, i, z| {
            Ok(i16::from_le_bytes(s.fixed::<2>(i, z)))
        })),
        FlinkKind::Int | FlinkKind::IntervalYearMonth => {
            Box::new(Prim::<Int32Type>::new(dt, |s, i, z| {
                Ok(i32::from_le_bytes(s.fixed::<4>(i, z)))
            }))
        }
        FlinkKind::Date => Box::new(Prim::<Date32Type>::new(dt, |s, i, z| {
            Ok(i32::from_le_bytes(s.fixed::<4>(i, z)))
        })),
        FlinkKind::Time(_) => Box::new(Prim::<Time32MillisecondType>::new(dt, |s, i, z| {
            Ok(i32::from_le_bytes(s.fixed::<4>(i, z)))
        })),
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => {
            Box::new(Prim::<Int64Type>::new(dt, |s, i, z| {
                Ok(i64::from_le_bytes(s.fixed::<8>(i, z)))
            }))
        }
        FlinkKind::Float => Box::new(Prim::<Float32Type>::new(dt, |s, i, z| {
            Ok(f32::from_le_bytes(s.fixed::<4>(i, z)))
        })),
        FlinkKind::Double => Box::new(Prim::<Float64Type>::new(dt, |s, i, z| {
            Ok(f64::from_le_bytes(s.fixed::<8>(i, z)))
        })),
        FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) => timestamp_column(*p, dt),
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Box::new(TextColumn(StringBuilder::new())),
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
            Box::new(BytesColumn(BinaryBuilder::new()))
        }
        FlinkKind::Decimal { precision, scale } => Box::new(DecimalColumn::new(*precision, *scale)),
        FlinkKind::Row(fields) => Box::new(RowColumn::new(fields, true)),
        FlinkKind::Array(element) => Box::new(ListColumn::new(element)),
        FlinkKind::Map(key, value) => Box::new(MapColumn::new(ty, key, value)),
        FlinkKind::Multiset(element) => {
            let count = FlinkType {
                nullable: true,
                kind: FlinkKind::Int,
            };
            Box::new(MapColumn::new(ty, element, &count))
        }
    }
}

fn timestamp_column(precision: u8, dt: DataType) -> Box<dyn Column> {
    // Compact (p <= 3): epoch millis in the slot. Otherwise: millis in the variable part
    // and nano-of-millisecond in the slot's low word.
    fn parts(s: &Slots<'_>, i: usize, z: usize, compact: bool) -> Result<(i64, i64), CodecError> {
        if compact {
            return Ok((i64::from_le_bytes(s.fixed::<8>(i, z)), 0));
        }
        let (at, nanos) = s.reference(i, z);
        let millis = s
            .buf
            .get(at..at + 8)
            .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .ok_or_else(|| bad("timestamp outside the row"))?;
        Ok((millis, nanos as i64))
    }
    match &dt {
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            Box::new(Prim::<TimestampMillisecondType>::new(dt, |s, i, z| {
                Ok(parts(s, i, z, true)?.0)
            }))
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            Box::new(Prim::<TimestampMicrosecondType>::new(dt, |s, i, z| {
                let (m, n) = parts(s, i, z, false)?;
                Ok(m * 1_000 + n / 1_000)
            }))
        }
        _ => {
            let _ = precision;
            Box::new(Prim::<TimestampNanosecondType>::new(dt, |s, i, z| {
                let (m, n) = parts(s, i, z, false)?;
                Ok(m * 1_000_000 + n)
            }))
        }
    }
}

type ReadFn<N> = fn(&Slots<'_>, usize, usize) -> Result<N, CodecError>;

struct Prim<T: ArrowPrimitiveType> {
    builder: PrimitiveBuilder<T>,
    dt: DataType,
    read: ReadFn<T::Native>,
}

impl<T: ArrowPrimitiveType> Prim<T> {
    fn new(dt: DataType, read: ReadFn<T::Native>) -> Self {
        Prim {
            builder: PrimitiveBuilder::<T>::new().with_data_type(dt.clone()),
            dt,
            read,
        }
    }
}

impl<T: ArrowPrimitiveType> Column for Prim<T> {
    fn append(&mut self, slots: &Slots<'_>, i: usize, size: usize) -> Result<(), CodecError> {
        let v = (self.read)(slots, i, size)?;
        self.builder.append_value(v);
        Ok(())
    }
    fn append_null(&mut self) {
        self.builder.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        let a = self.builder.finish();
        self.builder = PrimitiveBuilder::<T>::new().with_data_type(self.dt.clone());
        Ok(Arc::new(a))
    }
}

struct NullColumn(usize);

impl Column for NullColumn {
    fn append(&mut self, _: &Slots<'_>, _: usize, _: usize) -> Result<(), CodecError> {
        self.0 += 1;
        Ok(())
    }
    fn append_null(&mut self) {
        self.0 += 1;
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        Ok(Arc::new(NullArray::new(std::mem::take(&mut self.0))))
    }
}

struct BoolColumn(BooleanBuilder);

impl Column for BoolColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        self.0.append_value(s.fixed::<1>(i, z)[0] != 0);
        Ok(())
    }
    fn append_null(&mut self) {
        self.0.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        Ok(Arc::new(self.0.finish()))
    }
}

struct TextColumn(StringBuilder);

impl Column for TextColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        let bytes = s.var(i, z)?;
        let text =
            std::str::from_utf8(bytes).map_err(|e| bad(format!("string is not UTF-8: {e}")))?;
        self.0.append_value(text);
        Ok(())
    }
    fn append_null(&mut self) {
        self.0.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        Ok(Arc::new(self.0.finish()))
    }
}

struct BytesColumn(BinaryBuilder);

impl Column for BytesColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        self.0.append_value(s.var(i, z)?);
        Ok(())
    }
    fn append_null(&mut self) {
        self.0.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        Ok(Arc::new(self.0.finish()))
    }
}

struct DecimalColumn {
    builder: Decimal128Builder,
    precision: u8,
    scale: i8,
}

impl DecimalColumn {
    fn new(precision: u8, scale: i8) -> Self {
        DecimalColumn {
            builder: Self::builder(precision, scale),
            precision,
            scale,
        }
    }
    fn builder(precision: u8, scale: i8) -> Decimal128Builder {
        Decimal128Builder::new()
            .with_precision_and_scale(precision, scale)
            .unwrap_or_default()
    }
}

impl Column for DecimalColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        let v = if self.precision <= 18 {
            i64::from_le_bytes(s.fixed::<8>(i, z)) as i128
        } else {
            let bytes = s.var(i, z)?;
            if bytes.is_empty() || bytes.len() > 16 {
                return Err(bad(format!("decimal of {} bytes", bytes.len())));
            }
            let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
            let mut buf = [fill; 16];
            buf[16 - bytes.len()..].copy_from_slice(bytes);
            i128::from_be_bytes(buf)
        };
        self.builder.append_value(v);
        Ok(())
    }
    fn append_null(&mut self) {
        self.builder.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        let a = self.builder.finish();
        self.builder = Self::builder(self.precision, self.scale);
        Ok(Arc::new(a))
    }
}

struct RowColumn {
    fields: Fields,
    types: Vec<FlinkType>,
    children: Vec<Box<dyn Column>>,
    nulls: NullBufferBuilder,
    nullable: bool,
}

impl RowColumn {
    fn new(fields: &[FlinkField], nullable: bool) -> Self {
        RowColumn {
            fields: row_arrow_fields(fields),
            types: fields.iter().map(|f| f.ty.clone()).collect(),
            children: fields.iter().map(|f| column_for(&f.ty)).collect(),
            nulls: NullBufferBuilder::new(0),
            nullable,
        }
    }

    /// Appends the row whose image starts at `base`.
    fn append_row(&mut self, buf: &[u8], base: usize) -> Result<(), CodecError> {
        let slots = Slots::row(buf, base, self.types.len())?;
        for (i, child) in self.children.iter_mut().enumerate() {
            if slots.is_null(i) {
                child.append_null();
            } else {
                child.append(&slots, i, 8)?;
            }
        }
        self.nulls.append_non_null();
        Ok(())
    }

    fn finish_struct(&mut self) -> Result<StructArray, CodecError> {
        let children = self
            .children
            .iter_mut()
            .map(|c| c.finish())
            .collect::<Result<Vec<_>, _>>()?;
        let nulls = if self.nullable {
            self.nulls.finish()
        } else {
            None
        };
        self.nulls = NullBufferBuilder::new(0);
        StructArray::try_new(self.fields.clone(), children, nulls).map_err(|e| bad(e.to_string()))
    }
}

impl Column for RowColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        let (at, _) = s.reference(i, z);
        self.append_row(s.buf, at)
    }
    fn append_null(&mut self) {
        for c in &mut self.children {
            c.append_null();
        }
        self.nulls.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        Ok(Arc::new(self.finish_struct()?))
    }
}

/// Appends every element of the binary array at `base` to `items`; returns the count.
fn append_elements(
    buf: &[u8],
    base: usize,
    ty: &FlinkType,
    items: &mut dyn Column,
) -> Result<usize, CodecError> {
    let size = element_size(ty);
    let slots = Slots::array(buf, base, size)?;
    for i in 0..slots.arity {
        if slots.is_null(i) {
            items.append_null();
        } else {
            items.append(&slots, i, size)?;
        }
    }
    Ok(slots.arity)
}

/// Like [`append_elements`], but NULL keys are read the way Flink reads them from a
/// binary map: as an empty string (or zero for non-string keys).
fn append_map_keys(
    buf: &[u8],
    base: usize,
    ty: &FlinkType,
    keys: &mut dyn Column,
) -> Result<usize, CodecError> {
    let size = element_size(ty);
    let slots = Slots::array(buf, base, size)?;
    for i in 0..slots.arity {
        keys.append(&slots, i, size)?;
    }
    Ok(slots.arity)
}

struct ListColumn {
    field: FieldRef,
    element: FlinkType,
    items: Box<dyn Column>,
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    len: usize,
}

impl ListColumn {
    fn new(element: &FlinkType) -> Self {
        ListColumn {
            field: Arc::new(element.arrow_field("element")),
            element: element.clone(),
            items: column_for(element),
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
            len: 0,
        }
    }
}

fn push_offset(offsets: &mut Vec<i32>, len: usize) -> Result<(), CodecError> {
    offsets.push(i32::try_from(len).map_err(|_| bad("more than 2^31 elements"))?);
    Ok(())
}

impl Column for ListColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        let (at, _) = s.reference(i, z);
        self.len += append_elements(s.buf, at, &self.element, self.items.as_mut())?;
        push_offset(&mut self.offsets, self.len)?;
        self.nulls.append_non_null();
        Ok(())
    }
    fn append_null(&mut self) {
        self.offsets.push(*self.offsets.last().unwrap_or(&0));
        self.nulls.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        let values = self.items.finish()?;
        let offsets = OffsetBuffer::new(ScalarBuffer::from(std::mem::replace(
            &mut self.offsets,
            vec![0],
        )));
        self.len = 0;
        let a = ListArray::try_new(self.field.clone(), offsets, values, self.nulls.finish())
            .map_err(|e| bad(e.to_string()))?;
        Ok(Arc::new(a))
    }
}

struct MapColumn {
    entries: FieldRef,
    key: FlinkType,
    value: FlinkType,
    keys: Box<dyn Column>,
    values: Box<dyn Column>,
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    len: usize,
}

impl MapColumn {
    fn new(map: &FlinkType, key: &FlinkType, value: &FlinkType) -> Self {
        let DataType::Map(entries, _) = map.arrow_type() else {
            unreachable!("a Flink MAP or MULTISET always maps to an Arrow Map")
        };
        MapColumn {
            entries,
            key: key.clone(),
            value: value.clone(),
            keys: column_for(key),
            values: column_for(value),
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
            len: 0,
        }
    }
}

impl Column for MapColumn {
    fn append(&mut self, s: &Slots<'_>, i: usize, z: usize) -> Result<(), CodecError> {
        let (at, _) = s.reference(i, z);
        let key_size = read_i32(s.buf, at)?;
        let key_size = usize::try_from(key_size).map_err(|_| bad("negative map key size"))?;
        // A NULL key slot of a binary map reads as the empty string, as Flink's
        // `BinaryArrayData.getString` does; Flink's Avro writer then writes key "".
        let n = append_map_keys(s.buf, at + 4, &self.key, self.keys.as_mut())?;
        let m = append_elements(s.buf, at + 4 + key_size, &self.value, self.values.as_mut())?;
        if n != m {
            return Err(bad(format!("map with {n} keys and {m} values")));
        }
        self.len += n;
        push_offset(&mut self.offsets, self.len)?;
        self.nulls.append_non_null();
        Ok(())
    }
    fn append_null(&mut self) {
        self.offsets.push(*self.offsets.last().unwrap_or(&0));
        self.nulls.append_null();
    }
    fn finish(&mut self) -> Result<ArrayRef, CodecError> {
        let keys = self.keys.finish()?;
        let values = self.values.finish()?;
        let DataType::Struct(fields) = self.entries.data_type() else {
            return Err(bad("map entries are not a struct"));
        };
        let entries = StructArray::try_new(fields.clone(), vec![keys, values], None)
            .map_err(|e| bad(e.to_string()))?;
        let offsets = OffsetBuffer::new(ScalarBuffer::from(std::mem::replace(
            &mut self.offsets,
            vec![0],
        )));
        self.len = 0;
        let a = MapArray::try_new(
            self.entries.clone(),
            offsets,
            entries,
            self.nulls.finish(),
            false,
        )
        .map_err(|e| bad(e.to_string()))?;
        Ok(Arc::new(a))
    }
}

/// Reads binary row images (each a whole `BinaryRowData` of `row_type`) into one batch.
pub fn read_batch_rows<'a>(
    images: impl IntoIterator<Item = &'a [u8]>,
    row_type: &FlinkType,
) -> Result<RecordBatch, CodecError> {
    let fields = row_type.row_fields()?;
    let mut root = RowColumn::new(fields, false);
    let mut rows = 0usize;
    for image in images {
        root.append_row(image, 0)?;
        rows += 1;
    }
    let (_, columns, _) = root.finish_struct()?.into_parts();
    let schema = Arc::new(Schema::new(row_arrow_fields(fields)));
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::super::{write_batch_rows, RowImages};
    use super::*;
    use crate::avro::AvroConfluentDecoder;
    use crate::schema_source::{InMemorySchemas, SchemaType};

    /// Arrow -> binary rows -> Arrow gives the same batch, for every type karrow writes,
    /// and decoding Avro straight to binary rows gives the same images.
    #[test]
    fn binary_rows_round_trip_every_type() {
        let row_type = FlinkType::from_json_str(
            r#"{"type":"ROW","nullable":false,"fields":[
              {"name":"b","type":{"type":"BOOLEAN"}},
              {"name":"t","type":{"type":"TINYINT"}},
              {"name":"s","type":{"type":"SMALLINT"}},
              {"name":"i","type":{"type":"INT"}},
              {"name":"l","type":{"type":"BIGINT"}},
              {"name":"f","type":{"type":"FLOAT"}},
              {"name":"d","type":{"type":"DOUBLE"}},
              {"name":"str","type":{"type":"VARCHAR","length":2147483647}},
              {"name":"bin","type":{"type":"VARBINARY","length":2147483647}},
              {"name":"dec","type":{"type":"DECIMAL","precision":10,"scale":2}},
              {"name":"big","type":{"type":"DECIMAL","precision":30,"scale":5}},
              {"name":"date","type":{"type":"DATE"}},
              {"name":"time","type":{"type":"TIME","precision":3}},
              {"name":"ts","type":{"type":"TIMESTAMP","precision":3}},
              {"name":"arr","type":{"type":"ARRAY","element":{"type":"VARCHAR","length":10}}},
              {"name":"m","type":{"type":"MAP","key":{"type":"VARCHAR","nullable":false,"length":10},"value":{"type":"BIGINT"}}},
              {"name":"r","type":{"type":"ROW","fields":[{"name":"x","type":{"type":"INT"}},{"name":"y","type":{"type":"ARRAY","element":{"type":"ROW","fields":[{"name":"z","type":{"type":"DOUBLE"}}]}}}]}}]}"#,
        )
        .unwrap();
        // Build an Arrow batch by decoding Avro written with the derived schema.
        let schema = crate::avro::derive::derive_schema_json(&row_type).unwrap();
        let schemas = InMemorySchemas::default().with(1, SchemaType::Avro, &schema);
        let mut decoder = AvroConfluentDecoder::new(&row_type, None, Arc::new(schemas)).unwrap();
        let mut messages = Vec::new();
        for k in 0..3i64 {
            let mut b = vec![0, 0, 0, 0, 1];
            let w = crate::avro::encode::arrow::write_long;
            let value = |b: &mut Vec<u8>| b.push(2);
            let null = |b: &mut Vec<u8>| b.push(0);
            if k == 1 {
                for _ in 0..17 {
                    null(&mut b);
                }
            } else {
                value(&mut b);
                b.push(1);
                value(&mut b);
                w(-5 - k, &mut b);
                value(&mut b);
                w(300, &mut b);
                value(&mut b);
                w(-70000, &mut b);
                value(&mut b);
                w(1 << 40, &mut b);
                value(&mut b);
                b.extend_from_slice(&1.5f32.to_le_bytes());
                value(&mut b);
                b.extend_from_slice(&(-2.25f64).to_le_bytes());
                value(&mut b);
                w(10, &mut b);
                b.extend_from_slice(b"long text!");
                value(&mut b);
                w(3, &mut b);
                b.extend_from_slice(&[1, 2, 3]);
                value(&mut b);
                w(2, &mut b);
                b.extend_from_slice(&[0x30, 0x39]);
                value(&mut b);
                w(13, &mut b);
                b.extend_from_slice(&[
                    0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                ]);
                value(&mut b);
                w(18000, &mut b);
                value(&mut b);
                w(3_600_000, &mut b);
                value(&mut b);
                w(1_600_000_000_123, &mut b);
                value(&mut b);
                w(2, &mut b);
                value(&mut b);
                w(1, &mut b);
                b.extend_from_slice(b"a");
                null(&mut b);
                w(0, &mut b);
                value(&mut b);
                w(1, &mut b);
                w(1, &mut b);
                b.extend_from_slice(b"k");
                value(&mut b);
                w(7, &mut b);
                w(0, &mut b);
                value(&mut b);
                value(&mut b);
                w(42, &mut b);
                value(&mut b);
                w(1, &mut b);
                value(&mut b);
                b.extend_from_slice(&0.5f64.to_le_bytes());
                w(0, &mut b);
            }
            messages.push(b);
        }
        let batch = decoder
            .decode_batch(messages.iter().map(|m| Some(m.as_slice())))
            .unwrap()
            .batch;
        let mut images = RowImages::default();
        write_batch_rows(&batch, &row_type, &mut images).unwrap();
        let slices = images
            .offsets
            .windows(2)
            .map(|w| &images.bytes[w[0] as usize..w[1] as usize]);
        let back = read_batch_rows(slices, &row_type).unwrap();
        assert_eq!(back, batch);

        // The direct Avro -> binary row path writes the very same images.
        let mut direct = Vec::new();
        let starts = decoder
            .decode_batch_binary(messages.iter().map(|m| Some(m.as_slice())), &mut direct)
            .unwrap();
        assert_eq!(starts, images.offsets);
        assert_eq!(direct, images.bytes);

        // Encoding the binary rows directly writes what encoding the Arrow batch writes.
        let encoder = crate::avro::AvroConfluentEncoder::new(row_type.clone(), 9).unwrap();
        let mut from_arrow = crate::avro::EncodedBatch::default();
        encoder.encode_batch(&batch, &mut from_arrow).unwrap();
        let mut from_rows = crate::avro::EncodedBatch::default();
        let slices = images
            .offsets
            .windows(2)
            .map(|w| &images.bytes[w[0] as usize..w[1] as usize]);
        encoder.encode_binary_rows(slices, &mut from_rows).unwrap();
        assert_eq!(from_rows.offsets, from_arrow.offsets);
        assert_eq!(from_rows.bytes, from_arrow.bytes);
    }
}
