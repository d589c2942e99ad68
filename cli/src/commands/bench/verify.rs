//! Verification while measuring: two renderings of the same messages compared line by line;
//! the first difference is reported and the wrong side gets no speed figure.

/// The first line where two renderings differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Index of the message (or row, for encode) in the sample.
    pub index: usize,
    /// The line on the side under test (`<absent>` past its end).
    pub got: String,
    /// The line on the reference side.
    pub expected: String,
}

/// The outcome of one check.
#[derive(Debug, Clone)]
pub struct Check {
    /// What was compared, e.g. "decode to Flink rows vs stock Flink".
    pub what: String,
    /// How many lines were compared.
    pub compared: usize,
    /// The first difference, if any.
    pub difference: Option<Difference>,
}

impl Check {
    /// Compares `got` with `expected`.
    pub fn compare(what: impl Into<String>, got: &[String], expected: &[String]) -> Self {
        let n = got.len().max(expected.len());
        let line = |v: &[String], i: usize| v.get(i).cloned().unwrap_or_else(|| "<absent>".into());
        let difference = (0..n)
            .find(|&i| got.get(i) != expected.get(i))
            .map(|index| Difference {
                index,
                got: line(got, index),
                expected: line(expected, index),
            });
        Check {
            what: what.into(),
            compared: n,
            difference,
        }
    }

    /// Whether both sides agree.
    pub fn ok(&self) -> bool {
        self.difference.is_none()
    }
}

/// Lowercase hex of each message.
pub fn hex_lines<'a>(messages: impl Iterator<Item = &'a [u8]>) -> Vec<String> {
    messages
        .map(|m| m.iter().map(|b| format!("{b:02x}")).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_difference() {
        let a = vec!["x".to_string(), "y".into()];
        let b = vec!["x".to_string(), "z".into(), "w".into()];
        let c = Check::compare("t", &a, &b);
        assert_eq!(c.difference.unwrap().index, 1);
        assert!(Check::compare("t", &a, &a).ok());
        let d = Check::compare("t", &a, &a[..1]).difference.unwrap();
        assert_eq!((d.index, d.expected.as_str()), (1, "<absent>"));
    }
}
