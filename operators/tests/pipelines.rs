//! The fused pipelines end to end on the demo query
//! `SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids WHERE price > 1000`:
//! rows in -> rows out, and Avro / JSON values in -> Avro / JSON values out, against the same
//! output encoded from rows filtered and projected by hand.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow_schema::Schema;
use karrow_codecs::avro::{AvroConfluentDecoder, AvroConfluentEncoder, EncodedBatch};
use karrow_codecs::flink_binary::{write_batch_rows, RowImages};
use karrow_codecs::json::{JsonDecodeOptions, JsonEncodeOptions, JsonRowDecoder, JsonRowEncoder};
use karrow_codecs::schema_source::{InMemorySchemas, SchemaType};
use karrow_codecs::types::row_arrow_fields;
use karrow_codecs::FlinkType;
use karrow_operators::pipeline::formats::{ValueDecoder, ValueEncoder};
use karrow_operators::pipeline::rows::calc_rows;
use karrow_operators::pipeline::values::{Projection, ValuesPipeline};
use karrow_operators::{Calc, RunnablePlan};
use serde_json::json;

fn bid_type() -> FlinkType {
    FlinkType::from_json(&bid_type_json()).unwrap()
}

fn bid_type_json() -> serde_json::Value {
    json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "auction", "type": {"type": "BIGINT", "nullable": true}},
        {"name": "bidder", "type": {"type": "BIGINT", "nullable": true}},
        {"name": "price", "type": {"type": "BIGINT", "nullable": true}},
        {"name": "channel", "type": {"type": "VARCHAR", "nullable": true, "length": 2147483647}},
        {"name": "date_time", "type": {"type": "TIMESTAMP", "nullable": true, "precision": 3}}
    ]})
}

fn out_type_json() -> serde_json::Value {
    json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "auction", "type": {"type": "BIGINT", "nullable": true}},
        {"name": "bidder", "type": {"type": "BIGINT", "nullable": true}},
        {"name": "price_cents", "type": {"type": "BIGINT", "nullable": true}},
        {"name": "date_time", "type": {"type": "TIMESTAMP", "nullable": true, "precision": 3}}
    ]})
}

fn demo_plan() -> Calc {
    Calc::new(RunnablePlan::from_json(&demo_plan_json().to_string()).unwrap()).unwrap()
}

fn demo_plan_json() -> serde_json::Value {
    let big = json!({"type": "BIGINT", "nullable": true});
    json!({
        "version": 1,
        "input": bid_type_json(),
        "filter": {"call": "GREATER_THAN", "type": {"type": "BOOLEAN", "nullable": true}, "operands": [
            {"input": 2, "type": big}, {"literal": 1000, "type": {"type": "INT", "nullable": false}}]},
        "projections": [
            {"input": 0, "type": big},
            {"input": 1, "type": big},
            {"call": "TIMES", "type": big, "operands": [
                {"input": 2, "type": big}, {"literal": 100, "type": {"type": "INT", "nullable": false}}]},
            {"input": 4, "type": {"type": "TIMESTAMP", "nullable": true, "precision": 3}}
        ],
        "output": out_type_json(),
        "session": {"time_zone": "UTC"}
    })
}

/// 1,000 bids with NULLs, prices around the filter's boundary and overflowing ones.
fn bids() -> RecordBatch {
    let n = 1000i64;
    let price = |i: i64| match i % 7 {
        0 => None,
        1 => Some(1000),
        2 => Some(1001),
        3 => Some(i64::MAX / 50),
        _ => Some(i * 13 % 2500),
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(
            (0..n)
                .map(|i| (i % 11 != 0).then_some(i))
                .collect::<Int64Array>(),
        ),
        Arc::new((0..n).map(|i| Some(i * 31)).collect::<Int64Array>()),
        Arc::new((0..n).map(price).collect::<Int64Array>()),
        Arc::new(
            (0..n)
                .map(|i| Some(format!("ch-{i}-é")))
                .collect::<StringArray>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| (i % 5 != 0).then_some(1_700_000_000_000 + i * 997))
                .collect::<TimestampMillisecondArray>(),
        ),
    ];
    RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(
            bid_type().row_fields().unwrap(),
        ))),
        columns,
    )
    .unwrap()
}

/// The demo query's output, computed directly.
fn expected(input: &RecordBatch) -> (RecordBatch, Vec<u32>) {
    let col = |i: usize| {
        input
            .column(i)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .clone()
    };
    let (auction, bidder, price) = (col(0), col(1), col(2));
    let ts = input
        .column(4)
        .as_any()
        .downcast_ref::<TimestampMillisecondArray>()
        .unwrap();
    let keep: Vec<usize> = (0..input.num_rows())
        .filter(|&i| !arrow_array::Array::is_null(&price, i) && price.value(i) > 1000)
        .collect();
    let pick = |a: &Int64Array| {
        keep.iter()
            .map(|&i| (!arrow_array::Array::is_null(a, i)).then(|| a.value(i)))
            .collect::<Int64Array>()
    };
    let cents: Int64Array = keep
        .iter()
        .map(|&i| Some(price.value(i).wrapping_mul(100)))
        .collect();
    let times: TimestampMillisecondArray = keep
        .iter()
        .map(|&i| (!arrow_array::Array::is_null(ts, i)).then(|| ts.value(i)))
        .collect();
    let out_type = FlinkType::from_json(&out_type_json()).unwrap();
    let schema = Arc::new(Schema::new(row_arrow_fields(
        out_type.row_fields().unwrap(),
    )));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(pick(&auction)),
            Arc::new(pick(&bidder)),
            Arc::new(cents),
            Arc::new(times),
        ],
    )
    .unwrap();
    (batch, keep.iter().map(|&i| i as u32).collect())
}

fn images(batch: &RecordBatch, ty: &FlinkType) -> RowImages {
    let mut out = RowImages::default();
    write_batch_rows(batch, ty, &mut out).unwrap();
    out
}

fn spans(images: &RowImages) -> Vec<&[u8]> {
    images
        .offsets
        .windows(2)
        .map(|w| &images.bytes[w[0] as usize..w[1] as usize])
        .collect()
}

#[test]
fn rows_in_rows_out_keeps_and_projects_like_the_query() {
    let calc = demo_plan();
    let input = bids();
    let input_images = images(&input, &bid_type());
    let mut out = RowImages::default();
    let rows = calc_rows(&calc, spans(&input_images), &mut out).unwrap();
    let (want, want_rows) = expected(&input);
    let out_type = FlinkType::from_json(&out_type_json()).unwrap();
    assert_eq!(rows, want_rows);
    assert_eq!(out.bytes, images(&want, &out_type).bytes);
    assert!(!rows.is_empty() && rows.len() < input.num_rows());
}

/// With `watermark_columns`, every row the filter drops becomes a watermark row at its place:
/// `date_time` (output column 3, input column 4 unchanged) set, every other column NULL, row
/// kind DELETE; the kept rows are exactly those of the plan without them.
#[test]
fn watermark_rows_stand_in_input_order_for_the_rows_the_filter_drops() {
    let mut plan = demo_plan_json();
    plan["watermark_columns"] = json!([3]);
    let calc = Calc::new(RunnablePlan::from_json(&plan.to_string()).unwrap()).unwrap();
    let input = bids();
    let input_images = images(&input, &bid_type());
    let mut out = RowImages::default();
    let rows = calc_rows(&calc, spans(&input_images), &mut out).unwrap();
    assert_eq!(rows, (0..input.num_rows() as u32).collect::<Vec<_>>());

    let mut plain = RowImages::default();
    let kept = calc_rows(&demo_plan(), spans(&input_images), &mut plain).unwrap();
    let plain = spans(&plain);
    let ts = input
        .column(4)
        .as_any()
        .downcast_ref::<TimestampMillisecondArray>()
        .unwrap();
    let out_type = FlinkType::from_json(&out_type_json()).unwrap();
    let mut next_kept = 0;
    for (r, image) in spans(&out).into_iter().enumerate() {
        if kept.get(next_kept) == Some(&(r as u32)) {
            assert_eq!(image, plain[next_kept], "kept row {r}");
            next_kept += 1;
            continue;
        }
        // The stand-in: what write_batch_rows writes for (NULL, NULL, NULL, date_time), DELETE.
        let time = (!arrow_array::Array::is_null(ts, r)).then(|| ts.value(r));
        let null = || Arc::new(Int64Array::from(vec![None::<i64>])) as ArrayRef;
        let one = RecordBatch::try_new(
            Arc::new(Schema::new(row_arrow_fields(
                out_type.row_fields().unwrap(),
            ))),
            vec![
                null(),
                null(),
                null(),
                Arc::new(TimestampMillisecondArray::from(vec![time])),
            ],
        )
        .unwrap();
        let mut want = images(&one, &out_type).bytes;
        want[0] = karrow_operators::pipeline::rows::WATERMARK_ROW_KIND;
        assert_eq!(image, want.as_slice(), "watermark row {r}");
    }
    assert_eq!(next_kept, kept.len());
    assert!(!kept.is_empty() && kept.len() < input.num_rows());
}

#[test]
fn watermark_columns_must_be_unchanged_input_columns_of_a_source_fusion_plan() {
    for (columns, why) in [
        (json!([2]), "not an input column projected unchanged"),
        (json!([4]), "not an output column"),
        (json!([3, 3]), "named twice"),
        (json!(["x"]), "not a column index"),
    ] {
        let mut plan = demo_plan_json();
        plan["watermark_columns"] = columns;
        let reason = karrow_operators::decline_reason(&plan.to_string()).unwrap();
        assert!(reason.contains(why), "{reason}");
    }
}

fn avro_values(batch: &RecordBatch) -> EncodedBatch {
    let mut out = EncodedBatch::default();
    AvroConfluentEncoder::new(bid_type(), 7)
        .unwrap()
        .encode_batch(batch, &mut out)
        .unwrap();
    out
}

fn messages(e: &EncodedBatch) -> Vec<Option<&[u8]>> {
    e.offsets
        .windows(2)
        .map(|w| Some(&e.bytes[w[0] as usize..w[1] as usize]))
        .collect()
}

#[test]
fn avro_values_in_avro_and_json_values_out() {
    let input = bids();
    let encoded = avro_values(&input);
    let mut values = messages(&encoded);
    values.insert(3, None); // a tombstone gives no row
    let out_type = FlinkType::from_json(&out_type_json()).unwrap();
    let schema = AvroConfluentEncoder::derived_schema(&bid_type()).unwrap();
    let decoder = || {
        ValueDecoder::Avro(
            AvroConfluentDecoder::new(
                &bid_type(),
                None,
                Arc::new(InMemorySchemas::default().with(7, SchemaType::Avro, &schema)),
            )
            .unwrap(),
        )
    };
    let (want, want_rows) = expected(&input);
    // Value indices shift by one after the tombstone.
    let want_sources: Vec<u32> = want_rows
        .iter()
        .map(|&r| if r >= 3 { r + 1 } else { r })
        .collect();

    // Avro out, with a JSON key of (auction).
    let mut pipeline = ValuesPipeline::new(
        decoder(),
        demo_plan(),
        Projection::new(
            ValueEncoder::Avro(AvroConfluentEncoder::new(out_type.clone(), 9).unwrap()),
            vec![0, 1, 2, 3],
            &out_type,
        )
        .unwrap(),
        Some(
            Projection::new(
                ValueEncoder::Json(
                    JsonRowEncoder::new(&key_type(), JsonEncodeOptions::default()).unwrap(),
                ),
                vec![0],
                &out_type,
            )
            .unwrap(),
        ),
    );
    let out = pipeline.run(values.iter().copied()).unwrap();
    let mut want_values = EncodedBatch::default();
    AvroConfluentEncoder::new(out_type.clone(), 9)
        .unwrap()
        .encode_batch(&want, &mut want_values)
        .unwrap();
    assert_eq!(out.values.bytes, want_values.bytes);
    assert_eq!(out.values.offsets, want_values.offsets);
    assert_eq!(out.source, want_sources);
    let keys = out.keys.unwrap();
    let first_key = &keys.bytes[keys.offsets[0] as usize..keys.offsets[1] as usize];
    assert!(
        first_key.starts_with(b"{\"auction\":"),
        "{}",
        String::from_utf8_lossy(first_key)
    );

    // JSON out.
    let mut pipeline = ValuesPipeline::new(
        decoder(),
        demo_plan(),
        Projection::new(
            ValueEncoder::Json(
                JsonRowEncoder::new(&out_type, JsonEncodeOptions::default()).unwrap(),
            ),
            vec![0, 1, 2, 3],
            &out_type,
        )
        .unwrap(),
        None,
    );
    let out = pipeline.run(values.iter().copied()).unwrap();
    let encoder = JsonRowEncoder::new(&out_type, JsonEncodeOptions::default()).unwrap();
    let mut want_json = Vec::new();
    for image in spans(&images(&want, &out_type)) {
        encoder.encode_row(image, &mut want_json).unwrap();
    }
    assert_eq!(out.values.bytes, want_json);
}

fn key_type() -> FlinkType {
    FlinkType::from_json(&json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "auction", "type": {"type": "BIGINT", "nullable": true}}]}))
    .unwrap()
}

#[test]
fn json_values_in_go_through_row_images() {
    let input = bids();
    let encoder = JsonRowEncoder::new(&bid_type(), JsonEncodeOptions::default()).unwrap();
    let mut json_values = Vec::new();
    for image in spans(&images(&input, &bid_type())) {
        let mut v = Vec::new();
        encoder.encode_row(image, &mut v).unwrap();
        json_values.push(v);
    }
    let out_type = FlinkType::from_json(&out_type_json()).unwrap();
    let mut pipeline = ValuesPipeline::new(
        ValueDecoder::Json(JsonRowDecoder::new(&bid_type(), JsonDecodeOptions::default()).unwrap()),
        demo_plan(),
        Projection::new(
            ValueEncoder::Avro(AvroConfluentEncoder::new(out_type.clone(), 9).unwrap()),
            vec![0, 1, 2, 3],
            &out_type,
        )
        .unwrap(),
        None,
    );
    let out = pipeline
        .run(json_values.iter().map(|v| Some(v.as_slice())))
        .unwrap();
    let (want, want_rows) = expected(&input);
    let mut want_values = EncodedBatch::default();
    AvroConfluentEncoder::new(out_type, 9)
        .unwrap()
        .encode_batch(&want, &mut want_values)
        .unwrap();
    assert_eq!(out.values.bytes, want_values.bytes);
    assert_eq!(out.source, want_rows);
}

#[test]
fn a_failing_row_reports_the_value_it_came_from() {
    let int = json!({"type": "BIGINT", "nullable": true});
    let plan = json!({
        "version": 1, "input": bid_type_json(), "filter": null,
        "projections": [{"call": "DIVIDE", "type": int, "operands": [{"input": 0, "type": int},
            {"call": "MINUS", "type": int, "operands": [{"input": 2, "type": int}, {"literal": 1000, "type": int}]}]}],
        "output": {"type": "ROW", "nullable": false, "fields": [{"name": "q", "type": int}]},
        "session": {"time_zone": "UTC"}
    });
    let calc = Calc::new(RunnablePlan::from_json(&plan.to_string()).unwrap()).unwrap();
    let input = bids();
    let input_images = images(&input, &bid_type());
    let mut out = RowImages::default();
    // auction / (price - 1000): row 1 is the first with price 1000 (row 0's price is NULL).
    let err = calc_rows(&calc, spans(&input_images), &mut out).unwrap_err();
    assert!(err.to_string().contains("row 1 "), "{err}");
    assert!(err.to_string().contains("/ by zero"), "{err}");
}

#[test]
fn a_filter_without_nulls_keeps_its_true_rows() {
    let calc = demo_plan();
    let input = bids();
    // Only the rows with a price: the filter's result has no NULL.
    let priced: Vec<u32> = (0..input.num_rows() as u32)
        .filter(|&i| !arrow_array::Array::is_null(input.column(2).as_ref(), i as usize))
        .collect();
    let indices = arrow_array::UInt32Array::from(priced);
    let columns: Vec<ArrayRef> = input
        .columns()
        .iter()
        .map(|c| arrow_select::take::take(c.as_ref(), &indices, None).unwrap())
        .collect();
    let input = RecordBatch::try_new(input.schema(), columns).unwrap();
    let out = calc.run(input.columns(), input.num_rows()).unwrap();
    let (want, want_rows) = expected(&input);
    assert_eq!(out.rows, want_rows);
    assert_eq!(out.batch, want);
}

/// Nexmark's DDL nests the bid in a ROW column (`bid ROW<auction BIGINT, price BIGINT>`):
/// `SELECT bid.auction, bid.price * 100 FROM t WHERE bid.price > 1000`, where a NULL `bid`
/// has NULL fields.
#[test]
fn nested_row_fields_read_through_field_access() {
    let big = json!({"type": "BIGINT", "nullable": true});
    let bid = json!({"type": "ROW", "nullable": true, "fields": [
        {"name": "auction", "type": big}, {"name": "price", "type": big}]});
    let input = json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "event_type", "type": {"type": "INT", "nullable": true}},
        {"name": "bid", "type": bid}]});
    let field = |i: usize| json!({"field": {"input": 1, "type": bid}, "index": i, "type": big});
    let plan = json!({
        "version": 1, "input": input,
        "filter": {"call": "GREATER_THAN", "type": {"type": "BOOLEAN", "nullable": true},
            "operands": [field(1), {"literal": 1000, "type": {"type": "INT", "nullable": false}}]},
        "projections": [field(0),
            {"call": "TIMES", "type": big, "operands": [field(1), {"literal": 100, "type": {"type": "INT", "nullable": false}}]}],
        "output": {"type": "ROW", "nullable": false, "fields": [
            {"name": "auction", "type": big}, {"name": "cents", "type": big}]},
        "session": {"time_zone": "UTC"}
    });
    let calc = Calc::new(RunnablePlan::from_json(&plan.to_string()).unwrap()).unwrap();
    let in_type = FlinkType::from_json(&input).unwrap();
    let bid_fields = match &in_type.row_fields().unwrap()[1].ty.kind {
        karrow_codecs::types::FlinkKind::Row(f) => row_arrow_fields(f),
        _ => unreachable!(),
    };
    // Row 1's bid is NULL (its child values are garbage that must not be read), row 2's
    // price is below the filter.
    let auctions: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), Some(99), Some(3), Some(4)]));
    let prices: ArrayRef = Arc::new(Int64Array::from(vec![
        Some(2000),
        Some(5000),
        Some(10),
        Some(1001),
    ]));
    let bids = arrow_array::StructArray::new(
        bid_fields,
        vec![auctions, prices],
        Some(arrow_buffer::NullBuffer::from(vec![
            true, false, true, true,
        ])),
    );
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(in_type.row_fields().unwrap()))),
        vec![
            Arc::new(arrow_array::Int32Array::from(vec![2, 2, 2, 2])),
            Arc::new(bids),
        ],
    )
    .unwrap();
    let mut input_images = RowImages::default();
    write_batch_rows(&batch, &in_type, &mut input_images).unwrap();
    let mut out = RowImages::default();
    let rows = calc_rows(&calc, spans(&input_images), &mut out).unwrap();
    assert_eq!(rows, vec![0, 3]);
    let result = calc.run(batch.columns(), batch.num_rows()).unwrap();
    let col = |i: usize| {
        result
            .batch
            .column(i)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .values()
            .to_vec()
    };
    assert_eq!(col(0), vec![1, 4]);
    assert_eq!(col(1), vec![200_000, 100_100]);
}
