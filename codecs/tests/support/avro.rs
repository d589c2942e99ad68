//! Avro test values, shared by the Avro integration tests: a schema source that answers one
//! writer schema for every id, Avro's zig-zag varints and length-prefixed bytes, and the
//! Confluent frame.
#![allow(dead_code)] // each test crate uses a part

use std::sync::Arc;

use karrow_codecs::schema_source::{SchemaSource, SchemaType, SourcedSchema};

/// A registry that answers one Avro schema for every id, and no subject versions.
pub struct OneSchema(Arc<str>);

impl OneSchema {
    /// The source answering `text` for every id.
    pub fn source(text: &str) -> Arc<OneSchema> {
        Arc::new(OneSchema(Arc::from(text)))
    }
}

impl SchemaSource for OneSchema {
    fn schema_by_id(&self, _id: i32) -> Result<SourcedSchema, String> {
        Ok(SourcedSchema {
            schema_type: SchemaType::Avro,
            text: self.0.to_string(),
            references: Vec::new(),
        })
    }

    fn schema_by_version(&self, subject: &str, version: i32) -> Result<SourcedSchema, String> {
        Err(format!("no version {version} of subject {subject} here"))
    }
}

/// Appends `v` as Avro writes a `long` or `int`: zig-zag, then a base-128 varint.
pub fn zigzag(v: i64, out: &mut Vec<u8>) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends `s` as Avro writes a `string` or `bytes`: its length, then the bytes.
pub fn string(s: &[u8], out: &mut Vec<u8>) {
    zigzag(s.len() as i64, out);
    out.extend_from_slice(s);
}

/// The Confluent frame around an Avro body: magic byte 0, the schema id big-endian, the body.
pub fn framed(id: i32, body: &[u8]) -> Vec<u8> {
    let mut m = vec![0];
    m.extend_from_slice(&id.to_be_bytes());
    m.extend_from_slice(body);
    m
}
