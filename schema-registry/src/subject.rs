//! Subject name strategies: which subject a topic's key or value schema is registered under.

use crate::error::RegistryError;

/// Confluent's subject name strategies, as named by `key/value.subject.name.strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SubjectNameStrategy {
    /// `{topic}-key` / `{topic}-value` (Confluent's and Flink's default).
    #[default]
    TopicName,
    /// The record's full name, whatever the topic.
    RecordName,
    /// `{topic}-{record full name}`.
    TopicRecordName,
}

impl SubjectNameStrategy {
    /// The subject for `topic`'s key (`is_key`) or value whose record full name is
    /// `record_name`; the record strategies fail without one.
    pub fn subject(
        self,
        topic: &str,
        is_key: bool,
        record_name: Option<&str>,
    ) -> Result<String, RegistryError> {
        let record = || {
            record_name
                .filter(|n| !n.is_empty())
                .ok_or_else(|| RegistryError::InvalidConfig {
                    reason: format!(
                        "subject name strategy {self:?} needs a record name for topic '{topic}'"
                    ),
                })
        };
        Ok(match self {
            SubjectNameStrategy::TopicName => {
                format!("{topic}-{}", if is_key { "key" } else { "value" })
            }
            SubjectNameStrategy::RecordName => record()?.to_string(),
            SubjectNameStrategy::TopicRecordName => format!("{topic}-{}", record()?),
        })
    }

    /// Parses a strategy from its short name (`TopicNameStrategy`) or Confluent's Java class
    /// name (`io.confluent.kafka.serializers.subject.TopicNameStrategy`).
    pub fn from_name(name: &str) -> Result<Self, RegistryError> {
        match name.rsplit('.').next().unwrap_or(name) {
            "TopicNameStrategy" => Ok(SubjectNameStrategy::TopicName),
            "RecordNameStrategy" => Ok(SubjectNameStrategy::RecordName),
            "TopicRecordNameStrategy" => Ok(SubjectNameStrategy::TopicRecordName),
            _ => Err(RegistryError::InvalidConfig {
                reason: format!(
                    "unknown subject name strategy '{name}' (expected TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy)"
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies() {
        let s = SubjectNameStrategy::TopicName;
        assert_eq!(s.subject("orders", false, None).unwrap(), "orders-value");
        assert_eq!(s.subject("orders", true, None).unwrap(), "orders-key");
        let r = SubjectNameStrategy::from_name(
            "io.confluent.kafka.serializers.subject.RecordNameStrategy",
        )
        .unwrap();
        assert_eq!(r.subject("orders", false, Some("a.B")).unwrap(), "a.B");
        assert!(r.subject("orders", false, None).is_err());
        let tr = SubjectNameStrategy::from_name("TopicRecordNameStrategy").unwrap();
        assert_eq!(
            tr.subject("orders", false, Some("a.B")).unwrap(),
            "orders-a.B"
        );
        assert!(SubjectNameStrategy::from_name("Nope").is_err());
    }
}
