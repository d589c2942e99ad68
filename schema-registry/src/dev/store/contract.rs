//! The data-contract part of a registered schema: Confluent's `metadata` (`tags`,
//! `properties`, `sensitive`) and `ruleSet`, kept as given, served back with the schema, and
//! part of its identity. The dev registry runs no rules; it stores them so that clients which
//! register and look up contracts (`get_latest_with_metadata`, the serializers'
//! `use.latest.with.metadata`) find what they registered.

use serde_json::Value;

// JSON text with object keys sorted at every level (bounded by serde_json's own nesting limit of
// the parsed request): the canonical form a JSON Schema's text gets too.
use crate::dev::schema::json::canonical;

/// `metadata` and `ruleSet` of one schema (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Contract {
    /// `{"tags"?, "properties"?, "sensitive"?}` as registered.
    pub metadata: Option<Value>,
    /// `{"migrationRules"?, "domainRules"?, ...}` as registered.
    pub rule_set: Option<Value>,
}

impl Contract {
    /// A contract from request fields; JSON `null` counts as absent.
    pub(crate) fn given(metadata: Option<Value>, rule_set: Option<Value>) -> Self {
        Contract {
            metadata: metadata.filter(|v| !v.is_null()),
            rule_set: rule_set.filter(|v| !v.is_null()),
        }
    }

    /// Whether neither part is present.
    pub(crate) fn is_empty(&self) -> bool {
        self.metadata.is_none() && self.rule_set.is_none()
    }

    /// This contract with each absent part taken from `previous` (the subject's latest
    /// version), as Confluent's registry carries metadata and rules over to a new version
    /// registered without them.
    pub(crate) fn or_inherited(&self, previous: Option<&Contract>) -> Contract {
        Contract {
            metadata: self
                .metadata
                .clone()
                .or_else(|| previous.and_then(|p| p.metadata.clone())),
            rule_set: self
                .rule_set
                .clone()
                .or_else(|| previous.and_then(|p| p.rule_set.clone())),
        }
    }

    /// The identity of a schema with this contract: the schema's own identity when the
    /// contract is empty (so schemas without contracts keep theirs), else that plus the
    /// canonical JSON of both parts (object keys sorted, whitespace ignored).
    pub(crate) fn identity(&self, schema_identity: &str) -> String {
        if self.is_empty() {
            return schema_identity.to_string();
        }
        let part = |v: &Option<Value>| v.as_ref().map(canonical).unwrap_or_default();
        format!(
            "{schema_identity}\u{0}contract\u{0}{}\u{0}{}",
            part(&self.metadata),
            part(&self.rule_set)
        )
    }

    /// Whether `metadata.properties` holds every `(key, value)` pair (Confluent's
    /// `GET /subjects/{s}/metadata` match: a schema without properties never matches).
    pub(crate) fn has_properties(&self, pairs: &[(String, String)]) -> bool {
        let Some(Value::Object(properties)) =
            self.metadata.as_ref().and_then(|m| m.get("properties"))
        else {
            return false;
        };
        pairs
            .iter()
            .all(|(k, v)| properties.get(k).and_then(Value::as_str) == Some(v.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identity_ignores_key_order_and_keeps_plain_schemas_as_they_were() {
        let a = Contract::given(Some(json!({"properties": {"a": "1", "b": "2"}})), None);
        let b = Contract::given(
            Some(json!({"properties": {"b": "2", "a": "1"}})),
            Some(Value::Null),
        );
        assert_eq!(a.identity("s"), b.identity("s"));
        assert_ne!(a.identity("s"), "s");
        assert_eq!(Contract::given(Some(Value::Null), None).identity("s"), "s");
        let rules = Contract::given(None, Some(json!({"domainRules": []})));
        assert_ne!(rules.identity("s"), a.identity("s"));
    }

    #[test]
    fn inherits_absent_parts_and_matches_properties() {
        let previous = Contract::given(
            Some(json!({"properties": {"owner": "ada", "v": "1"}})),
            Some(json!({"domainRules": []})),
        );
        let own = Contract::given(Some(json!({"properties": {"v": "2"}})), None);
        let merged = own.or_inherited(Some(&previous));
        assert_eq!(merged.metadata, own.metadata);
        assert_eq!(merged.rule_set, previous.rule_set);
        assert_eq!(Contract::default().or_inherited(None), Contract::default());
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert!(previous.has_properties(&pairs(&[("owner", "ada"), ("v", "1")])));
        assert!(previous.has_properties(&[]));
        assert!(!previous.has_properties(&pairs(&[("v", "2")])));
        assert!(!Contract::default().has_properties(&[]));
        let numbers = Contract::given(Some(json!({"properties": {"v": 1}})), None);
        assert!(!numbers.has_properties(&pairs(&[("v", "1")])));
    }
}
