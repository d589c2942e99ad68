//! Kafka Fetch v12 response bodies: parsed, then every partition's record batches walked as
//! the native source walks them (read_uncommitted and read_committed).
#![no_main]

use karrow_kafka::fetch::response::parse_fetch_response;
use karrow_kafka::RecordBatches;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::kafka::fetch_response_seeds), |data: &[u8]| {
    let Ok(partitions) = parse_fetch_response(data, 7) else {
        return;
    };
    for (i, p) in partitions.iter().enumerate() {
        let Some(records) = data.get(p.records.clone()) else {
            panic!("partition records {:?} outside a {}-byte response", p.records, data.len());
        };
        let mut batches = RecordBatches::new(
            &p.topic,
            p.partition,
            records,
            0,
            p.high_watermark,
            i % 2 == 1,
            p.aborted.clone(),
        );
        let _ = batches.walk(|record| {
            let _ = (record.key, record.value, record.headers);
            Ok::<(), ()>(())
        });
    }
});
