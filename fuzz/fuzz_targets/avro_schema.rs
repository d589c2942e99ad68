//! Avro schema JSON: parsed as Java Avro parses it, then used as the `schema` option (the
//! reader schema) of each harness table, and resolved against itself as the writer.
#![no_main]

use karrow_codecs::avro::model::AvroNode;
use karrow_codecs::avro::decode::resolve::resolve;
use karrow_fuzz::{avro, sql_types};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(karrow_fuzz::avro::schema_seeds), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(node) = AvroNode::parse(text) else {
        return;
    };
    let _ = node.describe();
    let _ = resolve(&node, &node);
    for case in avro::CASES {
        let row = sql_types::parse(case.row);
        let _ = avro::decoder(&row, Some(text), text);
    }
});
