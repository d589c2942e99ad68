//! Filter + project on an 8,192-row batch of Nexmark bids, the demo query
//! `SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids WHERE price > 1000`
//! (about half the bids pass):
//! - `arrow`: the Calc alone on decoded Arrow columns;
//! - `rows`: binary row images in -> images out (source fusion);
//! - `avro`: Confluent Avro values in -> Avro values out (full fusion).
//!
//! Run (release): `cargo bench -p karrow-operators --bench calc`; per-row cost = time / 8192.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow_schema::Schema;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use karrow_codecs::avro::{AvroConfluentDecoder, AvroConfluentEncoder, EncodedBatch};
use karrow_codecs::flink_binary::{write_batch_rows, RowImages};
use karrow_codecs::schema_source::{InMemorySchemas, SchemaType};
use karrow_codecs::types::row_arrow_fields;
use karrow_codecs::FlinkType;
use karrow_operators::pipeline::formats::{ValueDecoder, ValueEncoder};
use karrow_operators::pipeline::rows::calc_rows;
use karrow_operators::pipeline::values::{Projection, ValuesPipeline};
use karrow_operators::{Calc, RunnablePlan};
use serde_json::json;

const ROWS: usize = 8192;

fn string() -> serde_json::Value {
    json!({"type": "VARCHAR", "nullable": true, "length": 2147483647})
}

fn bid_json() -> serde_json::Value {
    let big = json!({"type": "BIGINT", "nullable": true});
    json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "auction", "type": big}, {"name": "bidder", "type": big}, {"name": "price", "type": big},
        {"name": "channel", "type": string()}, {"name": "url", "type": string()},
        {"name": "date_time", "type": {"type": "TIMESTAMP", "nullable": true, "precision": 3}},
        {"name": "extra", "type": string()}]})
}

fn out_json() -> serde_json::Value {
    let big = json!({"type": "BIGINT", "nullable": true});
    json!({"type": "ROW", "nullable": false, "fields": [
        {"name": "auction", "type": big}, {"name": "bidder", "type": big}, {"name": "price_cents", "type": big},
        {"name": "date_time", "type": {"type": "TIMESTAMP", "nullable": true, "precision": 3}}]})
}

fn calc() -> Calc {
    let big = json!({"type": "BIGINT", "nullable": true});
    let int = json!({"type": "INT", "nullable": false});
    let plan = json!({
        "version": 1, "input": bid_json(),
        "filter": {"call": "GREATER_THAN", "type": {"type": "BOOLEAN", "nullable": true},
            "operands": [{"input": 2, "type": big}, {"literal": 1000, "type": int}]},
        "projections": [{"input": 0, "type": big}, {"input": 1, "type": big},
            {"call": "TIMES", "type": big, "operands": [{"input": 2, "type": big}, {"literal": 100, "type": int}]},
            {"input": 5, "type": {"type": "TIMESTAMP", "nullable": true, "precision": 3}}],
        "output": out_json(), "session": {"time_zone": "UTC"}});
    Calc::new(RunnablePlan::from_json(&plan.to_string()).unwrap()).unwrap()
}

/// Nexmark-like bids: prices uniform in [1, 2000], Nexmark's channel/url/extra shapes.
fn bids() -> RecordBatch {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let n = ROWS as u64;
    let rnd: Vec<u64> = (0..n).map(|_| next()).collect();
    let channels = ["Google", "Facebook", "Baidu", "Apple"];
    let columns: Vec<ArrayRef> = vec![
        Arc::new(
            (0..n)
                .map(|i| Some(1000 + (rnd[i as usize] % 1000) as i64))
                .collect::<Int64Array>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| Some(2000 + (rnd[i as usize] >> 10) as i64 % 5000))
                .collect::<Int64Array>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| Some(1 + (rnd[i as usize] >> 20) as i64 % 2000))
                .collect::<Int64Array>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| Some(channels[i as usize % 4]))
                .collect::<StringArray>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| {
                    Some(format!(
                        "https://www.nexmark.com/item.htm?query=1&channel_id={}",
                        rnd[i as usize] % 9999
                    ))
                })
                .collect::<StringArray>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| Some(1_700_000_000_000 + i as i64 * 37))
                .collect::<TimestampMillisecondArray>(),
        ),
        Arc::new(
            (0..n)
                .map(|i| Some("x".repeat((rnd[i as usize] % 40) as usize)))
                .collect::<StringArray>(),
        ),
    ];
    let ty = FlinkType::from_json(&bid_json()).unwrap();
    RecordBatch::try_new(
        Arc::new(Schema::new(row_arrow_fields(ty.row_fields().unwrap()))),
        columns,
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let bid_type = FlinkType::from_json(&bid_json()).unwrap();
    let out_type = FlinkType::from_json(&out_json()).unwrap();
    let batch = bids();
    let calc = calc();
    let mut group = c.benchmark_group("nexmark_bids_8192");
    group.throughput(Throughput::Elements(ROWS as u64));

    group.bench_function("arrow", |b| {
        b.iter(|| black_box(calc.run(batch.columns(), batch.num_rows()).unwrap()))
    });

    let mut images = RowImages::default();
    write_batch_rows(&batch, &bid_type, &mut images).unwrap();
    let spans: Vec<&[u8]> = images
        .offsets
        .windows(2)
        .map(|w| &images.bytes[w[0] as usize..w[1] as usize])
        .collect();
    group.bench_function("rows", |b| {
        b.iter(|| {
            let mut out = RowImages::default();
            black_box(calc_rows(&calc, spans.iter().copied(), &mut out).unwrap());
            out
        })
    });

    let mut values = EncodedBatch::default();
    AvroConfluentEncoder::new(bid_type.clone(), 1)
        .unwrap()
        .encode_batch(&batch, &mut values)
        .unwrap();
    let messages: Vec<Option<&[u8]>> = values
        .offsets
        .windows(2)
        .map(|w| Some(&values.bytes[w[0] as usize..w[1] as usize]))
        .collect();
    let schema = AvroConfluentEncoder::derived_schema(&bid_type).unwrap();
    let mut pipeline = ValuesPipeline::new(
        ValueDecoder::Avro(
            AvroConfluentDecoder::new(
                &bid_type,
                None,
                Arc::new(InMemorySchemas::default().with(1, SchemaType::Avro, &schema)),
            )
            .unwrap(),
        ),
        calc,
        Projection::new(
            ValueEncoder::Avro(AvroConfluentEncoder::new(out_type.clone(), 2).unwrap()),
            vec![0, 1, 2, 3],
            &out_type,
        )
        .unwrap(),
        None,
    );
    group.bench_function("avro", |b| {
        b.iter(|| black_box(pipeline.run(messages.iter().copied()).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
