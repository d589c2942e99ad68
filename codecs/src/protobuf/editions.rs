//! Editions files (`edition = "2023"` / `"2024"`) lowered to proto2 files that
//! prost-reflect 0.16 can read, with their features kept.
//!
//! prost-reflect knows `syntax = "proto2"` and `"proto3"` only. An editions file decides
//! per element, by features inherited file -> message -> oneof -> field (and file ->
//! message -> enum), what the two syntaxes decide per file. This module rewrites the
//! serialized `FileDescriptorSet` byte by byte:
//!
//! - the `syntax` and `edition` fields of an editions file are dropped (so it reads as
//!   proto2, which is also how flink-protobuf sees it: its proto3 test is
//!   `getSyntax().equals("proto3")`);
//! - a field whose resolved presence is `LEGACY_REQUIRED` gets the `required` label, and a
//!   message field whose resolved encoding is `DELIMITED` becomes a group (except map
//!   entries, which are always length-prefixed);
//! - every field and enum gets its fully resolved `FeatureSet` written into its options
//!   (replacing the one declared there), which [`super::features`] reads back.
//!
//! Everything else is copied verbatim. Only fields 1-5 of `FeatureSet` and the Java
//! extension's `legacy_closed_enum` and `utf8_validation` matter to a reader here; the
//! defaults are those of editions 2023 and 2024 (identical for these features).

use super::wire::{put_tag, put_varint, WireReader, WireType};
use crate::error::CodecError;

// google/protobuf/descriptor.proto field numbers.
const SET_FILE: u32 = 1;
const FILE_PACKAGE: u32 = 2;
const FILE_MESSAGE: u32 = 4;
const FILE_ENUM: u32 = 5;
const FILE_EXTENSION: u32 = 7;
const FILE_OPTIONS: u32 = 8;
const FILE_SYNTAX: u32 = 12;
const FILE_EDITION: u32 = 14;
const MESSAGE_NAME: u32 = 1;
const MESSAGE_FIELD: u32 = 2;
const MESSAGE_NESTED: u32 = 3;
const MESSAGE_ENUM: u32 = 4;
const MESSAGE_EXTENSION: u32 = 6;
const MESSAGE_OPTIONS: u32 = 7;
const MESSAGE_ONEOF: u32 = 8;
const FIELD_LABEL: u32 = 4;
const FIELD_TYPE: u32 = 5;
const FIELD_TYPE_NAME: u32 = 6;
const FIELD_OPTIONS: u32 = 8;
const FIELD_ONEOF_INDEX: u32 = 9;
const ONEOF_OPTIONS: u32 = 2;
const ENUM_OPTIONS: u32 = 3;
const FILE_OPTIONS_FEATURES: u32 = 50;
const MESSAGE_OPTIONS_MAP_ENTRY: u32 = 7;
const MESSAGE_OPTIONS_FEATURES: u32 = 12;
/// `FieldOptions.features`: where the resolved features of a lowered field are written.
pub(crate) const FIELD_OPTIONS_FEATURES: u32 = 21;
const ONEOF_OPTIONS_FEATURES: u32 = 1;
/// `EnumOptions.features`: where the resolved features of a lowered enum are written.
pub(crate) const ENUM_OPTIONS_FEATURES: u32 = 7;
const LABEL_OPTIONAL: u64 = 1;
const LABEL_REQUIRED: u64 = 2;
const TYPE_GROUP: u64 = 10;
const TYPE_MESSAGE: u64 = 11;
const EDITION_2023: u64 = 1000;
const EDITION_2024: u64 = 1001;

/// `FeatureSet` field numbers and the values read here.
pub(crate) mod feature {
    /// `field_presence`: `EXPLICIT` = 1, `IMPLICIT` = 2, `LEGACY_REQUIRED` = 3.
    pub(crate) const FIELD_PRESENCE: u32 = 1;
    /// `enum_type`: `OPEN` = 1, `CLOSED` = 2.
    pub(crate) const ENUM_TYPE: u32 = 2;
    /// `repeated_field_encoding`: `PACKED` = 1, `EXPANDED` = 2.
    pub(crate) const REPEATED_FIELD_ENCODING: u32 = 3;
    /// `utf8_validation`: `VERIFY` = 2, `NONE` = 3.
    pub(crate) const UTF8_VALIDATION: u32 = 4;
    /// `message_encoding`: `LENGTH_PREFIXED` = 1, `DELIMITED` = 2.
    pub(crate) const MESSAGE_ENCODING: u32 = 5;
    /// The `pb.java` extension (`JavaFeatures`).
    pub(crate) const JAVA: u32 = 1001;
    /// `JavaFeatures.legacy_closed_enum` (bool).
    pub(crate) const JAVA_LEGACY_CLOSED_ENUM: u32 = 1;
    /// `JavaFeatures.utf8_validation`: `DEFAULT` = 1, `VERIFY` = 2.
    pub(crate) const JAVA_UTF8_VALIDATION: u32 = 2;

    pub(crate) const IMPLICIT: u64 = 2;
    pub(crate) const LEGACY_REQUIRED: u64 = 3;
    pub(crate) const OPEN: u64 = 1;
    pub(crate) const PACKED: u64 = 1;
    pub(crate) const VERIFY: u64 = 2;
    pub(crate) const DELIMITED: u64 = 2;
    pub(crate) const JAVA_VERIFY: u64 = 2;
}

/// The features a reader here needs, resolved or partly declared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Features {
    /// `field_presence`, `enum_type`, `repeated_field_encoding`, `utf8_validation`,
    /// `message_encoding` (0 = not set).
    pub(crate) core: [u64; 5],
    /// `pb.java.legacy_closed_enum` (0 = not set, 1 = false, 2 = true).
    pub(crate) java_legacy_closed_enum: u64,
    /// `pb.java.utf8_validation` (0 = not set).
    pub(crate) java_utf8_validation: u64,
}

impl Features {
    /// The defaults of editions 2023 and 2024: explicit presence, open enums, packed,
    /// UTF-8 verified, length-prefixed; Java: open enums stay open, default UTF-8 rule.
    fn edition_defaults() -> Self {
        Features {
            core: [1, 1, 1, 2, 1],
            java_legacy_closed_enum: 1,
            java_utf8_validation: 1,
        }
    }

    /// Reads a serialized `FeatureSet` (fields not listed in [`Features`] are ignored).
    pub(crate) fn parse(buf: &[u8]) -> Result<Self, String> {
        let mut out = Features::default();
        let mut r = WireReader::new(buf);
        while !r.at_end() {
            let (number, wire) = r.read_tag().map_err(|e| e.to_string())?;
            match (number, wire) {
                (1..=5, WireType::Varint) => {
                    out.core[number as usize - 1] = r.read_varint().map_err(|e| e.to_string())?
                }
                (feature::JAVA, WireType::Len) => {
                    let (start, end) = r.read_len_span().map_err(|e| e.to_string())?;
                    let mut j = WireReader::new(&buf[start..end]);
                    while !j.at_end() {
                        let (n, w) = j.read_tag().map_err(|e| e.to_string())?;
                        match (n, w) {
                            (feature::JAVA_LEGACY_CLOSED_ENUM, WireType::Varint) => {
                                let v = j.read_varint().map_err(|e| e.to_string())?;
                                out.java_legacy_closed_enum = if v != 0 { 2 } else { 1 };
                            }
                            (feature::JAVA_UTF8_VALIDATION, WireType::Varint) => {
                                out.java_utf8_validation =
                                    j.read_varint().map_err(|e| e.to_string())?
                            }
                            _ => j.skip(n, w, 0).map_err(|e| e.to_string())?,
                        }
                    }
                }
                _ => r.skip(number, wire, 0).map_err(|e| e.to_string())?,
            }
        }
        Ok(out)
    }

    /// `self` with every feature `child` sets overriding it.
    fn merged(self, child: Features) -> Features {
        let mut out = self;
        for (o, c) in out.core.iter_mut().zip(child.core) {
            if c != 0 {
                *o = c;
            }
        }
        if child.java_legacy_closed_enum != 0 {
            out.java_legacy_closed_enum = child.java_legacy_closed_enum;
        }
        if child.java_utf8_validation != 0 {
            out.java_utf8_validation = child.java_utf8_validation;
        }
        out
    }

    /// The serialized `FeatureSet` of these (resolved) features.
    pub(crate) fn to_bytes(self) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, v) in self.core.iter().enumerate() {
            if *v != 0 {
                put_tag(&mut out, i as u32 + 1, WireType::Varint);
                put_varint(&mut out, *v);
            }
        }
        let mut java = Vec::new();
        if self.java_legacy_closed_enum != 0 {
            put_tag(
                &mut java,
                feature::JAVA_LEGACY_CLOSED_ENUM,
                WireType::Varint,
            );
            put_varint(&mut java, u64::from(self.java_legacy_closed_enum == 2));
        }
        if self.java_utf8_validation != 0 {
            put_tag(&mut java, feature::JAVA_UTF8_VALIDATION, WireType::Varint);
            put_varint(&mut java, self.java_utf8_validation);
        }
        if !java.is_empty() {
            put_len(&mut out, feature::JAVA, &java);
        }
        out
    }

    /// The value of core feature `number` (1-5).
    pub(crate) fn get(&self, number: u32) -> u64 {
        self.core[number as usize - 1]
    }
}

/// Returns `set` (a serialized `FileDescriptorSet`) with every editions file lowered as
/// the module comment describes, or `None` when it holds no editions file.
pub(crate) fn lower_editions(set: &[u8]) -> Result<Option<Vec<u8>>, CodecError> {
    let bad = |e: String| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}"));
    let files = fields(set).map_err(bad)?;
    let mut any = false;
    for f in &files {
        if f.number == SET_FILE && f.wire == WireType::Len && is_editions(f.payload).map_err(bad)? {
            any = true;
        }
    }
    if !any {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(set.len() + set.len() / 4);
    for f in &files {
        if f.number == SET_FILE && f.wire == WireType::Len && is_editions(f.payload).map_err(bad)? {
            put_len(&mut out, SET_FILE, &lower_file(f.payload)?);
        } else {
            out.extend_from_slice(f.raw);
        }
    }
    Ok(Some(out))
}

/// Whether the serialized `FileDescriptorProto` says `syntax = "editions"`.
fn is_editions(file: &[u8]) -> Result<bool, String> {
    Ok(fields(file)?
        .iter()
        .any(|f| f.number == FILE_SYNTAX && f.wire == WireType::Len && f.payload == b"editions"))
}

fn lower_file(file: &[u8]) -> Result<Vec<u8>, CodecError> {
    let bad = |e: String| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}"));
    let parts = fields(file).map_err(bad)?;
    let name = string_field(&parts, 1);
    let edition = parts
        .iter()
        .find(|f| f.number == FILE_EDITION && f.wire == WireType::Varint)
        .map(|f| f.varint);
    if !matches!(edition, Some(EDITION_2023) | Some(EDITION_2024)) {
        return Err(CodecError::InvalidProtobufSchema(format!(
            "protobuf-native reads editions 2023 and 2024; '{name}' uses edition {}",
            edition.map_or("(none)".to_string(), |e| e.to_string())
        )));
    }
    let package = string_field(&parts, FILE_PACKAGE);
    let scope = if package.is_empty() {
        String::new()
    } else {
        format!(".{package}")
    };
    let features = Features::edition_defaults()
        .merged(declared_features(&parts, FILE_OPTIONS, FILE_OPTIONS_FEATURES).map_err(bad)?);
    let mut out = Vec::with_capacity(file.len() + file.len() / 4);
    for f in &parts {
        match f.number {
            FILE_SYNTAX | FILE_EDITION => {}
            FILE_MESSAGE if f.wire == WireType::Len => put_len(
                &mut out,
                FILE_MESSAGE,
                &lower_message(f.payload, &scope, features)?,
            ),
            FILE_ENUM if f.wire == WireType::Len => {
                put_len(&mut out, FILE_ENUM, &lower_enum(f.payload, features)?)
            }
            FILE_EXTENSION if f.wire == WireType::Len => put_len(
                &mut out,
                FILE_EXTENSION,
                &lower_field(f.payload, features, &[], false)?,
            ),
            _ => out.extend_from_slice(f.raw),
        }
    }
    Ok(out)
}

fn lower_message(message: &[u8], scope: &str, parent: Features) -> Result<Vec<u8>, CodecError> {
    let bad = |e: String| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}"));
    let parts = fields(message).map_err(bad)?;
    let full_name = format!("{scope}.{}", string_field(&parts, MESSAGE_NAME));
    let features = parent
        .merged(declared_features(&parts, MESSAGE_OPTIONS, MESSAGE_OPTIONS_FEATURES).map_err(bad)?);
    let is_map_entry =
        option_flag(&parts, MESSAGE_OPTIONS, MESSAGE_OPTIONS_MAP_ENTRY).map_err(bad)?;
    // Oneofs sit between the message and their member fields in the inheritance chain.
    let mut oneofs = Vec::new();
    for f in parts
        .iter()
        .filter(|f| f.number == MESSAGE_ONEOF && f.wire == WireType::Len)
    {
        let oneof = fields(f.payload).map_err(bad)?;
        oneofs.push(features.merged(
            declared_features(&oneof, ONEOF_OPTIONS, ONEOF_OPTIONS_FEATURES).map_err(bad)?,
        ));
    }
    // Map entry types declared here: fields of those types stay length-prefixed.
    let mut map_entries = Vec::new();
    for f in parts
        .iter()
        .filter(|f| f.number == MESSAGE_NESTED && f.wire == WireType::Len)
    {
        let nested = fields(f.payload).map_err(bad)?;
        if option_flag(&nested, MESSAGE_OPTIONS, MESSAGE_OPTIONS_MAP_ENTRY).map_err(bad)? {
            map_entries.push(format!(
                "{full_name}.{}",
                string_field(&nested, MESSAGE_NAME)
            ));
        }
    }
    let mut out = Vec::with_capacity(message.len() + message.len() / 4);
    for f in &parts {
        match f.number {
            MESSAGE_FIELD if f.wire == WireType::Len => {
                let field = fields(f.payload).map_err(bad)?;
                let inherited = field
                    .iter()
                    .find(|p| p.number == FIELD_ONEOF_INDEX && p.wire == WireType::Varint)
                    .and_then(|p| oneofs.get(p.varint as usize).copied())
                    .unwrap_or(features);
                put_len(
                    &mut out,
                    MESSAGE_FIELD,
                    &lower_field(f.payload, inherited, &map_entries, is_map_entry)?,
                )
            }
            MESSAGE_EXTENSION if f.wire == WireType::Len => put_len(
                &mut out,
                MESSAGE_EXTENSION,
                &lower_field(f.payload, features, &map_entries, false)?,
            ),
            MESSAGE_NESTED if f.wire == WireType::Len => put_len(
                &mut out,
                MESSAGE_NESTED,
                &lower_message(f.payload, &full_name, features)?,
            ),
            MESSAGE_ENUM if f.wire == WireType::Len => {
                put_len(&mut out, MESSAGE_ENUM, &lower_enum(f.payload, features)?)
            }
            _ => out.extend_from_slice(f.raw),
        }
    }
    Ok(out)
}

/// Lowers one field: `required` label, group type, resolved features in its options.
fn lower_field(
    field: &[u8],
    parent: Features,
    map_entries: &[String],
    in_map_entry: bool,
) -> Result<Vec<u8>, CodecError> {
    let bad = |e: String| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}"));
    let parts = fields(field).map_err(bad)?;
    let features = parent
        .merged(declared_features(&parts, FIELD_OPTIONS, FIELD_OPTIONS_FEATURES).map_err(bad)?);
    let type_name = string_field(&parts, FIELD_TYPE_NAME);
    let to_map_entry = map_entries.contains(&type_name);
    let delimited = features.get(feature::MESSAGE_ENCODING) == feature::DELIMITED
        && !in_map_entry
        && !to_map_entry;
    let mut out = Vec::with_capacity(field.len() + 16);
    let mut options_seen = false;
    for f in &parts {
        match (f.number, f.wire) {
            (FIELD_LABEL, WireType::Varint)
                if f.varint == LABEL_OPTIONAL
                    && features.get(feature::FIELD_PRESENCE) == feature::LEGACY_REQUIRED =>
            {
                put_tag(&mut out, FIELD_LABEL, WireType::Varint);
                put_varint(&mut out, LABEL_REQUIRED);
            }
            (FIELD_TYPE, WireType::Varint) if f.varint == TYPE_MESSAGE && delimited => {
                put_tag(&mut out, FIELD_TYPE, WireType::Varint);
                put_varint(&mut out, TYPE_GROUP);
            }
            (FIELD_OPTIONS, WireType::Len) => {
                options_seen = true;
                let options =
                    with_features(f.payload, FIELD_OPTIONS_FEATURES, features).map_err(bad)?;
                put_len(&mut out, FIELD_OPTIONS, &options);
            }
            _ => out.extend_from_slice(f.raw),
        }
    }
    if !options_seen {
        let options = with_features(&[], FIELD_OPTIONS_FEATURES, features).map_err(bad)?;
        put_len(&mut out, FIELD_OPTIONS, &options);
    }
    Ok(out)
}

/// Lowers one enum: its resolved features written into its options.
fn lower_enum(enumeration: &[u8], parent: Features) -> Result<Vec<u8>, CodecError> {
    let bad = |e: String| CodecError::InvalidProtobufSchema(format!("bad descriptor set: {e}"));
    let parts = fields(enumeration).map_err(bad)?;
    let features =
        parent.merged(declared_features(&parts, ENUM_OPTIONS, ENUM_OPTIONS_FEATURES).map_err(bad)?);
    let mut out = Vec::with_capacity(enumeration.len() + 16);
    let mut options_seen = false;
    for f in &parts {
        if f.number == ENUM_OPTIONS && f.wire == WireType::Len {
            options_seen = true;
            let options = with_features(f.payload, ENUM_OPTIONS_FEATURES, features).map_err(bad)?;
            put_len(&mut out, ENUM_OPTIONS, &options);
        } else {
            out.extend_from_slice(f.raw);
        }
    }
    if !options_seen {
        let options = with_features(&[], ENUM_OPTIONS_FEATURES, features).map_err(bad)?;
        put_len(&mut out, ENUM_OPTIONS, &options);
    }
    Ok(out)
}

/// The features declared in the options (field `options_number` of `parts`), field
/// `features_number` of those options; default (nothing set) when there are none.
fn declared_features(
    parts: &[RawField<'_>],
    options_number: u32,
    features_number: u32,
) -> Result<Features, String> {
    let mut out = Features::default();
    for options in parts
        .iter()
        .filter(|f| f.number == options_number && f.wire == WireType::Len)
    {
        for f in fields(options.payload)? {
            if f.number == features_number && f.wire == WireType::Len {
                out = out.merged(Features::parse(f.payload)?);
            }
        }
    }
    Ok(out)
}

/// Whether the bool option `flag` is set in the options (field `options_number`).
fn option_flag(parts: &[RawField<'_>], options_number: u32, flag: u32) -> Result<bool, String> {
    for options in parts
        .iter()
        .filter(|f| f.number == options_number && f.wire == WireType::Len)
    {
        for f in fields(options.payload)? {
            if f.number == flag && f.wire == WireType::Varint {
                return Ok(f.varint != 0);
            }
        }
    }
    Ok(false)
}

/// `options` with its features (field `number`) replaced by `features`.
fn with_features(options: &[u8], number: u32, features: Features) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(options.len() + 16);
    for f in fields(options)? {
        if f.number != number {
            out.extend_from_slice(f.raw);
        }
    }
    put_len(&mut out, number, &features.to_bytes());
    Ok(out)
}

/// The string (or bytes) field `number` of `parts`, lossily; empty when absent.
fn string_field(parts: &[RawField<'_>], number: u32) -> String {
    parts
        .iter()
        .find(|f| f.number == number && f.wire == WireType::Len)
        .map(|f| String::from_utf8_lossy(f.payload).into_owned())
        .unwrap_or_default()
}

fn put_len(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    put_tag(out, number, WireType::Len);
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// One field of a serialized message, with its raw bytes (tag included) for verbatim
/// copies.
struct RawField<'a> {
    number: u32,
    wire: WireType,
    /// The whole field as serialized, tag included.
    raw: &'a [u8],
    /// A length-delimited field's payload (empty otherwise).
    payload: &'a [u8],
    /// A varint field's value (0 otherwise).
    varint: u64,
}

/// The fields of a serialized message, in order.
fn fields(buf: &[u8]) -> Result<Vec<RawField<'_>>, String> {
    let mut out = Vec::new();
    let mut r = WireReader::new(buf);
    while !r.at_end() {
        let start = r.position();
        let (number, wire) = r.read_tag().map_err(|e| e.to_string())?;
        let (mut payload, mut varint): (&[u8], u64) = (&[], 0);
        match wire {
            WireType::Len => {
                let (s, e) = r.read_len_span().map_err(|e| e.to_string())?;
                payload = &buf[s..e];
            }
            WireType::Varint => varint = r.read_varint().map_err(|e| e.to_string())?,
            _ => r.skip(number, wire, 0).map_err(|e| e.to_string())?,
        }
        out.push(RawField {
            number,
            wire,
            raw: &buf[start..r.position()],
            payload,
            varint,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_merge_child_over_parent_and_round_trip() {
        let parent = Features::edition_defaults();
        let mut child = Features::default();
        child.core[0] = feature::IMPLICIT;
        child.java_utf8_validation = feature::JAVA_VERIFY;
        let merged = parent.merged(child);
        assert_eq!(merged.get(feature::FIELD_PRESENCE), feature::IMPLICIT);
        assert_eq!(merged.get(feature::ENUM_TYPE), feature::OPEN);
        assert_eq!(Features::parse(&merged.to_bytes()).unwrap(), merged);
    }

    #[test]
    fn sets_without_editions_files_are_left_alone() {
        let mut file = Vec::new();
        put_len(&mut file, 1, b"a.proto");
        put_len(&mut file, FILE_SYNTAX, b"proto3");
        let mut set = Vec::new();
        put_len(&mut set, SET_FILE, &file);
        assert!(lower_editions(&set).unwrap().is_none());
    }

    #[test]
    fn unsupported_editions_are_refused_by_name() {
        let mut file = Vec::new();
        put_len(&mut file, 1, b"future.proto");
        put_len(&mut file, FILE_SYNTAX, b"editions");
        put_tag(&mut file, FILE_EDITION, WireType::Varint);
        put_varint(&mut file, 99_999);
        let mut set = Vec::new();
        put_len(&mut set, SET_FILE, &file);
        let err = lower_editions(&set).unwrap_err().to_string();
        assert!(err.contains("'future.proto' uses edition 99999"), "{err}");
    }
}
