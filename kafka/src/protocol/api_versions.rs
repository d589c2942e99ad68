//! ApiVersions (key 18, v3): the versions of every API the broker speaks, and its finalized
//! features (`transaction.version` says which transaction protocol the cluster runs).

use super::{
    begin_request, compact_count, compact_string, correlation, end_request, put_compact_str,
    Malformed,
};
use crate::wire::Reader;

/// ApiVersions API key.
pub const API_KEY: i16 = 18;
/// The version spoken (flexible; served by every broker since Kafka 2.4).
pub const VERSION: i16 = 3;

/// What a broker speaks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiVersions {
    /// (api key, min version, max version).
    pub apis: Vec<(i16, i16, i16)>,
    /// Finalized features: (name, max version level).
    pub finalized: Vec<(String, i16)>,
}

impl ApiVersions {
    /// The highest version of `api_key` both sides speak, given ours (`min..=max`).
    pub fn pick(&self, api_key: i16, min: i16, max: i16) -> Option<i16> {
        let &(_, lo, hi) = self.apis.iter().find(|a| a.0 == api_key)?;
        let v = hi.min(max);
        (v >= lo.max(min)).then_some(v)
    }

    /// The finalized level of feature `name` (0 when the broker lists none).
    pub fn feature(&self, name: &str) -> i16 {
        self.finalized
            .iter()
            .find(|f| f.0 == name)
            .map_or(0, |f| f.1)
    }

    /// The cluster's transaction protocol version (`transaction.version`; 2 bumps the epoch
    /// on every transaction and adds partitions implicitly, KIP-890).
    pub fn transaction_version(&self) -> i16 {
        self.feature("transaction.version")
    }
}

/// Writes an ApiVersions v3 request naming this client.
pub fn write_request(out: &mut Vec<u8>, correlation_id: i32, client_id: &str) {
    begin_request(out, API_KEY, VERSION, correlation_id, client_id);
    put_compact_str(out, "karrow");
    put_compact_str(out, env!("CARGO_PKG_VERSION"));
    end_request(out);
}

/// Parses an ApiVersions v3 response (response header v0).
pub fn parse_response(buf: &[u8], correlation_id: i32) -> Result<ApiVersions, Malformed> {
    let mut r = Reader::new(buf);
    correlation(&mut r, correlation_id)?;
    let error = r.i16()?;
    if error != 0 {
        return Err(Malformed(format!(
            "ApiVersions failed with Kafka error {error} ({})",
            crate::error::error_name(error)
        )));
    }
    let mut out = ApiVersions::default();
    for _ in 0..compact_count(&mut r, 7)? {
        let key = r.i16()?;
        let min = r.i16()?;
        let max = r.i16()?;
        r.skip_tagged_fields()?;
        out.apis.push((key, min, max));
    }
    r.i32()?; // throttle_time_ms
    for _ in 0..r.uvarint()? {
        let tag = r.uvarint()?;
        let size = usize::try_from(r.uvarint()?).map_err(|_| Malformed("tag size".into()))?;
        let mut field = Reader::new(r.take(size)?);
        if tag == 2 {
            for _ in 0..compact_count(&mut field, 6)? {
                let name = compact_string(&mut field)?;
                let max_level = field.i16()?;
                field.i16()?; // min_version_level
                field.skip_tagged_fields()?;
                out.finalized.push((name, max_level));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::test_support::Body;

    #[test]
    fn versions_and_the_transaction_feature_are_read() {
        let mut b = Body::default();
        b.i32(5).i16(0).len(2);
        b.i16(0).i16(3).i16(12).tags();
        b.i16(26).i16(0).i16(5).tags();
        b.i32(0);
        // One tagged field: tag 2 (finalized features) with transaction.version = 2.
        let mut features = Body::default();
        features
            .len(1)
            .str("transaction.version")
            .i16(2)
            .i16(0)
            .tags();
        b.raw(&[1, 2]).len(features.0.len() - 1).raw(&features.0);
        let v = parse_response(&b.0, 5).unwrap();
        assert_eq!(v.pick(0, 9, 12), Some(12));
        assert_eq!(v.pick(0, 9, 11), Some(11));
        assert_eq!(v.pick(26, 6, 9), None);
        assert_eq!(v.pick(22, 0, 5), None);
        assert_eq!(v.transaction_version(), 2);
        assert!(parse_response(&b.0, 6).is_err());
    }

    #[test]
    fn a_hostile_array_count_is_refused_before_looping() {
        let mut b = Body::default();
        b.i32(1).i16(0).raw(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(parse_response(&b.0, 1).unwrap_err().0.contains("array"));
    }
}
