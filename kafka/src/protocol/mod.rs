//! Kafka requests and responses the producer speaks, each in its flexible (tagged-field)
//! version: request header v2, response header v1 (ApiVersions' response header is v0,
//! as in Kafka). One module per API; each writes a size-prefixed request into a reused
//! buffer and parses its response body (after the size prefix) with every read bounded.
//!
//! The message layouts are Kafka's (`clients/src/main/resources/common/message/*.json`).

pub mod api_versions;
pub mod end_txn;
pub mod find_coordinator;
pub mod init_producer_id;
pub mod metadata;
pub mod produce;
pub mod sasl;
pub mod txn_partitions;

use crate::wire::{put_uvarint, Reader, Short};

/// A response that does not follow the protocol, or that answers another request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub String);

impl From<Short> for Malformed {
    fn from(_: Short) -> Self {
        Malformed("the response ends early".to_string())
    }
}

/// Starts a size-prefixed request in `out` (cleared first): the size placeholder and
/// request header v2 (api key, version, correlation id, client id, no tagged fields).
pub(crate) fn begin_request(
    out: &mut Vec<u8>,
    api_key: i16,
    version: i16,
    correlation_id: i32,
    client_id: &str,
) {
    out.clear();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&api_key.to_be_bytes());
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&correlation_id.to_be_bytes());
    // The client id is a (non-compact) nullable string even in header v2.
    let client = &client_id.as_bytes()[..client_id.len().min(i16::MAX as usize)];
    out.extend_from_slice(&(client.len() as i16).to_be_bytes());
    out.extend_from_slice(client);
    out.push(0);
}

/// Ends the request begun by [`begin_request`]: no top-level tagged fields, then the size.
pub(crate) fn end_request(out: &mut Vec<u8>) {
    out.push(0);
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
}

/// A compact string (length + 1, then UTF-8 bytes).
pub(crate) fn put_compact_str(out: &mut Vec<u8>, s: &str) {
    put_uvarint(out, s.len() as u64 + 1);
    out.extend_from_slice(s.as_bytes());
}

/// A compact nullable string (0 for null).
pub(crate) fn put_compact_nullable_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => put_compact_str(out, s),
        None => out.push(0),
    }
}

/// A compact array length.
pub(crate) fn put_compact_len(out: &mut Vec<u8>, n: usize) {
    put_uvarint(out, n as u64 + 1);
}

/// Reads response header v1 (correlation id, tagged fields) and checks the id.
pub(crate) fn response_header(r: &mut Reader<'_>, correlation_id: i32) -> Result<(), Malformed> {
    correlation(r, correlation_id)?;
    r.skip_tagged_fields()?;
    Ok(())
}

/// Reads and checks a correlation id (response header v0).
pub(crate) fn correlation(r: &mut Reader<'_>, correlation_id: i32) -> Result<(), Malformed> {
    let got = r.i32()?;
    if got != correlation_id {
        return Err(Malformed(format!(
            "correlation id {got} answers no request in flight (expected {correlation_id})"
        )));
    }
    Ok(())
}

/// A compact string, lossily decoded (names from the broker are printed, never trusted).
pub(crate) fn compact_string(r: &mut Reader<'_>) -> Result<String, Malformed> {
    Ok(compact_nullable_string(r)?.unwrap_or_default())
}

/// A compact nullable string.
pub(crate) fn compact_nullable_string(r: &mut Reader<'_>) -> Result<Option<String>, Malformed> {
    match r.compact_len()? {
        None => Ok(None),
        Some(n) => Ok(Some(String::from_utf8_lossy(r.take(n)?).into_owned())),
    }
}

/// A compact array's element count, bounded by the bytes left (each element takes at
/// least `min_element_bytes`), so a hostile count cannot make the caller loop or allocate
/// past the response.
pub(crate) fn compact_count(
    r: &mut Reader<'_>,
    min_element_bytes: usize,
) -> Result<usize, Malformed> {
    let n = r.compact_len()?.unwrap_or(0);
    if n.saturating_mul(min_element_bytes.max(1)) > r.remaining() {
        return Err(Malformed(format!(
            "an array of {n} elements in {} bytes",
            r.remaining()
        )));
    }
    Ok(n)
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Response bodies written the way a broker writes them.
    use crate::wire::put_uvarint;

    /// A response body builder.
    #[derive(Default)]
    pub(crate) struct Body(pub(crate) Vec<u8>);

    impl Body {
        pub(crate) fn header_v1(correlation: i32) -> Body {
            let mut b = Body::default();
            b.i32(correlation).tags();
            b
        }
        pub(crate) fn i16(&mut self, v: i16) -> &mut Self {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        pub(crate) fn i32(&mut self, v: i32) -> &mut Self {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        pub(crate) fn i64(&mut self, v: i64) -> &mut Self {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        pub(crate) fn len(&mut self, n: usize) -> &mut Self {
            put_uvarint(&mut self.0, n as u64 + 1);
            self
        }
        pub(crate) fn str(&mut self, s: &str) -> &mut Self {
            self.len(s.len());
            self.0.extend_from_slice(s.as_bytes());
            self
        }
        pub(crate) fn null(&mut self) -> &mut Self {
            self.0.push(0);
            self
        }
        pub(crate) fn tags(&mut self) -> &mut Self {
            self.0.push(0);
            self
        }
        pub(crate) fn raw(&mut self, b: &[u8]) -> &mut Self {
            self.0.extend_from_slice(b);
            self
        }
    }
}
