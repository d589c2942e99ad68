//! Kafka record batches (v2; CRC32C, control batches, compression, aborted transactions)
//! walked from a fetch offset to a stop offset the input chooses.
#![no_main]

use karrow_fuzz::Input;
use karrow_kafka::fetch::response::AbortedTransaction;
use karrow_kafka::RecordBatches;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::kafka::record_batch_seeds), |data: &[u8]| {
    let mut input = Input::new(data);
    let flags = input.byte();
    let from = i64::from(input.byte() as i8);
    let stop = if flags & 2 != 0 { i64::MAX } else { i64::from(input.byte()) };
    let aborted = if flags & 4 != 0 {
        vec![AbortedTransaction { producer_id: i64::from(input.byte()), first_offset: i64::from(input.byte()) }]
    } else {
        Vec::new()
    };
    let records = input.rest();
    let mut batches = RecordBatches::new("t", 0, records, from, stop, flags & 1 != 0, aborted);
    let mut last = i64::MIN;
    let _ = batches.walk(|record| {
        assert!(record.offset > last, "records out of order");
        last = record.offset;
        Ok::<(), ()>(())
    });
    let _ = batches.next_offset();
});
