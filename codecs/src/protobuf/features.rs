//! Per-field and per-enum behaviour that proto2 and proto3 files decide by their syntax
//! and editions files by features: presence, packed encoding, UTF-8 checks, open enums.
//!
//! Editions files reach prost-reflect lowered to proto2 by [`super::editions`], with each
//! field's and enum's resolved `FeatureSet` in its options; a descriptor with such
//! options answers from them, any other from its file's syntax.

use prost::Message;
use prost_reflect::{Cardinality, EnumDescriptor, FieldDescriptor, Kind, Syntax};

use super::editions::{feature, Features, ENUM_OPTIONS_FEATURES, FIELD_OPTIONS_FEATURES};
use super::wire::{WireReader, WireType};

/// The resolved features of a field of a lowered editions file, or `None` for proto2 and
/// proto3 fields.
fn field_features(fd: &FieldDescriptor) -> Option<Features> {
    features_in(&fd.options().encode_to_vec(), FIELD_OPTIONS_FEATURES)
}

/// The resolved features of an enum of a lowered editions file, or `None`.
fn enum_features(e: &EnumDescriptor) -> Option<Features> {
    features_in(&e.options().encode_to_vec(), ENUM_OPTIONS_FEATURES)
}

/// The `FeatureSet` in field `number` of serialized options, if any.
fn features_in(options: &[u8], number: u32) -> Option<Features> {
    let mut r = WireReader::new(options);
    let mut found = None;
    while !r.at_end() {
        let (n, wire) = r.read_tag().ok()?;
        if n == number && wire == WireType::Len {
            let (start, end) = r.read_len_span().ok()?;
            found = Features::parse(&options[start..end]).ok();
        } else {
            r.skip(n, wire, 0).ok()?;
        }
    }
    found
}

/// Whether the field tracks presence (`hasX()` exists): proto2 fields, proto3 `optional`,
/// messages and oneof members; in editions every singular field but `IMPLICIT` ones.
pub(crate) fn has_presence(fd: &FieldDescriptor) -> bool {
    match field_features(fd) {
        Some(f) => {
            fd.cardinality() != Cardinality::Repeated
                && (f.get(feature::FIELD_PRESENCE) != feature::IMPLICIT
                    || matches!(fd.kind(), Kind::Message(_))
                    || fd.containing_oneof().is_some())
        }
        None => fd.supports_presence(),
    }
}

/// Whether a repeated field is written packed: proto3 numbers by default, proto2 with
/// `[packed = true]`, editions unless `EXPANDED`.
pub(crate) fn is_packed(fd: &FieldDescriptor) -> bool {
    match field_features(fd) {
        Some(f) => {
            fd.is_list()
                && !matches!(fd.kind(), Kind::String | Kind::Bytes | Kind::Message(_))
                && f.get(feature::REPEATED_FIELD_ENCODING) == feature::PACKED
        }
        None => fd.is_packed(),
    }
}

/// Whether protobuf-java checks UTF-8 when it parses this string field: proto3 files,
/// proto2 files with `option java_string_check_utf8 = true`, editions with
/// `utf8_validation = VERIFY` (or Java's own `VERIFY`). Unchecked strings are converted
/// lossily by the getter instead.
pub(crate) fn validates_utf8(fd: &FieldDescriptor) -> bool {
    match field_features(fd) {
        Some(f) => {
            matches!(fd.kind(), Kind::String)
                && (f.java_utf8_validation == feature::JAVA_VERIFY
                    || f.get(feature::UTF8_VALIDATION) == feature::VERIFY)
        }
        None => {
            let file = fd.parent_file();
            file.syntax() == Syntax::Proto3
                || file
                    .file_descriptor_proto()
                    .options
                    .as_ref()
                    .and_then(|o| o.java_string_check_utf8)
                    .unwrap_or(false)
        }
    }
}

/// Whether enum field `fd` (of enum `e`) keeps unknown numbers (Java's `UNRECOGNIZED`)
/// rather than treating them as unknown fields: proto3 enums, and editions `OPEN` enums
/// unless the field sets Java's `legacy_closed_enum`.
pub(crate) fn enum_is_open(fd: &FieldDescriptor, e: &EnumDescriptor) -> bool {
    let legacy_closed = field_features(fd).is_some_and(|f| f.java_legacy_closed_enum == 2);
    match enum_features(e) {
        Some(f) => f.get(feature::ENUM_TYPE) == feature::OPEN && !legacy_closed,
        None => e.parent_file().syntax() == Syntax::Proto3 && !legacy_closed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::message_from_descriptor_set;
    use prost_reflect::MessageDescriptor;

    /// `connector-java/src/test/proto/editions.proto`, compiled by protoc 32.1.
    const EDITIONS: &[u8] = include_bytes!("testdata/editions.pb");

    fn editions() -> MessageDescriptor {
        message_from_descriptor_set(EDITIONS, "karrow.test.Editions").unwrap()
    }

    fn field(m: &MessageDescriptor, name: &str) -> FieldDescriptor {
        m.get_field_by_name(name).unwrap()
    }

    #[test]
    fn editions_presence_follows_features() {
        let m = editions();
        assert!(has_presence(&field(&m, "e_int32")));
        assert!(has_presence(&field(&m, "e_string")));
        assert!(!has_presence(&field(&m, "e_implicit")));
        assert!(has_presence(&field(&m, "e_sub")));
        assert!(!has_presence(&field(&m, "e_packed")));
        assert_eq!(field(&m, "e_required").cardinality(), Cardinality::Required);
        assert_eq!(field(&m, "e_int32").cardinality(), Cardinality::Optional);
    }

    #[test]
    fn editions_encoding_follows_features() {
        let m = editions();
        assert!(is_packed(&field(&m, "e_packed")));
        assert!(!is_packed(&field(&m, "e_expanded")));
        assert!(field(&m, "e_delimited").is_group());
        assert!(!field(&m, "e_sub").is_group());
        assert!(validates_utf8(&field(&m, "e_string")));
        let sub = field(&m, "e_sub");
        let Kind::Message(sub) = sub.kind() else {
            panic!("e_sub is a message")
        };
        assert!(validates_utf8(&field(&sub, "name")));
        assert_eq!(
            field(&m, "e_default").default_value(),
            prost_reflect::Value::I32(17)
        );
    }

    #[test]
    fn editions_enums_are_open_unless_closed() {
        let m = editions();
        for (name, open) in [("e_mood", true), ("e_closed_mood", false)] {
            let fd = field(&m, name);
            let Kind::Enum(e) = fd.kind() else {
                panic!("{name} is an enum")
            };
            assert_eq!(enum_is_open(&fd, &e), open, "{name}");
        }
    }

    #[test]
    fn proto2_and_proto3_answer_from_their_syntax() {
        let pool = crate::protobuf::test_support::pool(&[
            (
                "p2.proto",
                "syntax = \"proto2\"; package p; enum E2 { A = 1; } message M2 { \
                 optional int32 a = 1; optional string s = 2; repeated int32 r = 3; \
                 repeated int32 q = 4 [packed = true]; optional E2 e = 5; }",
            ),
            (
                "p3.proto",
                "syntax = \"proto3\"; package p; enum E3 { Z = 0; } message M3 { \
                 int32 a = 1; string s = 2; repeated int32 r = 3; E3 e = 4; \
                 optional int32 o = 5; }",
            ),
        ]);
        let m2 = pool.get_message_by_name("p.M2").unwrap();
        let m3 = pool.get_message_by_name("p.M3").unwrap();
        assert!(has_presence(&field(&m2, "a")));
        assert!(!has_presence(&field(&m3, "a")));
        assert!(has_presence(&field(&m3, "o")));
        assert!(!validates_utf8(&field(&m2, "s")));
        assert!(validates_utf8(&field(&m3, "s")));
        let checked = crate::protobuf::test_support::message(
            "syntax = \"proto2\"; package c; option java_string_check_utf8 = true; \
             message C { optional string s = 1; map<string, string> m = 2; }",
            "c.C",
        );
        assert!(validates_utf8(&field(&checked, "s")));
        let Kind::Message(entry) = field(&checked, "m").kind() else {
            panic!("m is a map")
        };
        assert!(validates_utf8(&entry.map_entry_key_field()));
        assert!(!is_packed(&field(&m2, "r")));
        assert!(is_packed(&field(&m2, "q")));
        assert!(is_packed(&field(&m3, "r")));
        for (m, open) in [(&m2, false), (&m3, true)] {
            let fd = field(m, "e");
            let Kind::Enum(e) = fd.kind() else {
                panic!("e is an enum")
            };
            assert_eq!(enum_is_open(&fd, &e), open);
        }
    }
}
