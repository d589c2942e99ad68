//! Confluent-framed JSON values (`json-confluent-native`), with and without
//! `validate-schema-id` (id 404 is unknown to the registry), under every option set.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use karrow_codecs::json::JsonConfluentDecoder;
use karrow_codecs::schema_source::{SchemaSource, SchemaType, SourcedSchema};
use karrow_fuzz::{json, sql_types, Input};
use libfuzzer_sys::fuzz_target;

struct Ids;

impl SchemaSource for Ids {
    fn schema_by_id(&self, id: i32) -> Result<SourcedSchema, String> {
        if id == 404 {
            return Err(format!("Could not find schema with id {id} in registry"));
        }
        Ok(SourcedSchema {
            schema_type: SchemaType::Json,
            text: "{}".to_string(),
            references: Vec::new(),
        })
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        Err(format!("Subject '{subject}' version {version} not found"))
    }
}

thread_local! {
    static DECODERS: RefCell<HashMap<(usize, u8), JsonConfluentDecoder>> = RefCell::new(HashMap::new());
}

fuzz_target!(init: karrow_fuzz::write_seeds_if_asked(|| karrow_fuzz::json::seeds(true)), |data: &[u8]| {
    let mut input = Input::new(data);
    let row = input.byte() as usize % json::ROWS.len();
    let bits = input.byte() & 0x1f;
    let message = input.rest();
    DECODERS.with(|decoders| {
        let mut decoders = decoders.borrow_mut();
        let decoder = decoders.entry((row, bits)).or_insert_with(|| {
            let ids: Option<Arc<dyn SchemaSource>> = (bits & 0x10 != 0).then(|| Arc::new(Ids) as _);
            JsonConfluentDecoder::new(&sql_types::parse(json::ROWS[row]), json::options(bits), ids)
                .expect("the harness's tables make decoders")
        });
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        let _ = decoder.decode_message(message, &mut out, &mut ends);
        assert!(ends.last().is_none_or(|&e| e == out.len()));
    });
});
