//! Inputs the fuzz targets (`fuzz/`) found, kept as regression tests.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use karrow_kafka::fetch::response::AbortedTransaction;
use karrow_kafka::RecordBatches;

fn hex(parts: &[&str]) -> Vec<u8> {
    let text: String = parts.concat();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The same lz4 batch (offsets 0..=2) twice in one response: Kafka's consumer hands on
/// only records at or after its next fetch offset, so the second copy yields nothing; the
/// walker handed records 1 and 2 on twice.
#[test]
fn a_batch_repeated_in_a_response_is_not_read_twice() {
    let records = hex(&[
        "00000000000000000000006b0000000002d7e855d80003000000020000018bcf",
        "e568000000018bcfe56864ffffffffffffffff0000000000000000000304224d",
        "186040822b00008022000000046b310476310402680276026e011e0014020112",
        "76616c75652074776f0010002804046b33010000000000000000000000000000",
        "00006b0000000002d7e855d80003000000020000018bcfe568000000018bcfe5",
        "6864ffffffffffffffff0000000000000000000304224d186040822b00008022",
        "000000046b310476310402680276026e011e001402011276616c75652074776f",
        "0010002804046b33010000000000",
    ]);
    let aborted = vec![AbortedTransaction {
        producer_id: 42,
        first_offset: 0,
    }];
    let mut batches = RecordBatches::new("t", 0, &records, 1, 100, true, aborted);
    let mut offsets = Vec::new();
    let walked = batches.walk(|record| {
        offsets.push(record.offset);
        Ok::<(), ()>(())
    });
    assert!(matches!(walked, Ok(Ok(()))), "{walked:?}");
    assert_eq!(offsets, vec![1, 2]);
    assert_eq!(batches.next_offset(), 3);
}
