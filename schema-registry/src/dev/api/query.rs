//! Query parameters of a request target (`a=1&b=x%20y`), and the `offset`/`limit` paging
//! Confluent's list endpoints take.

use crate::pct::decode_segment;

/// Decoded query parameters, in order.
#[derive(Debug, Default)]
pub(crate) struct Query {
    params: Vec<(String, String)>,
}

impl Query {
    /// Parses a query string; undecodable pairs are dropped.
    pub(crate) fn parse(query: &str) -> Self {
        let params = query
            .split('&')
            .filter(|p| !p.is_empty())
            .filter_map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                let k = decode_segment(&k.replace('+', " "))?;
                let v = decode_segment(&v.replace('+', " "))?;
                Some((k, v))
            })
            .collect();
        Query { params }
    }

    /// The first value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in order (`key=a&key=b`).
    pub(crate) fn all(&self, name: &str) -> Vec<&str> {
        self.params
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether `name` is `true` (case-insensitive).
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// `items` from `offset` (default 0), at most `limit` of them (negative or absent: all).
    pub(crate) fn page<T>(&self, items: Vec<T>) -> Vec<T> {
        let offset = self
            .get("offset")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        let limit = self
            .get("limit")
            .and_then(|v| v.parse::<i64>().ok())
            .filter(|l| *l >= 0)
            .map(|l| usize::try_from(l).unwrap_or(usize::MAX));
        let rest = items.into_iter().skip(offset);
        match limit {
            Some(l) => rest.take(l).collect(),
            None => rest.collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_flags_and_pages() {
        let q = Query::parse("deleted=TRUE&subjectPrefix=a%2Fb+c&offset=1&limit=2&x");
        assert!(q.flag("deleted"));
        assert!(!q.flag("x"));
        assert_eq!(q.get("subjectPrefix"), Some("a/b c"));
        assert_eq!(q.page(vec![1, 2, 3, 4]), vec![2, 3]);
        assert_eq!(Query::parse("limit=-1").page(vec![1, 2]), vec![1, 2]);
        assert_eq!(
            Query::parse("key=a&x=1&key=b%20c").all("key"),
            vec!["a", "b c"]
        );
    }
}
