//! Schema GUIDs (Confluent 8): a UUID per registered schema, answered with the schema and
//! resolvable by `GET /schemas/guids/{guid}`, which Confluent's deserializers call for values
//! whose schema id is a GUID (the `__value_schema_id` header of
//! `schema.id.serializer=header_schema_id_serializer`).
//!
//! The dev registry derives the GUID from the schema's identity (type, canonical form,
//! references, contract), so a schema keeps its GUID across restarts and registries without a
//! GUID in the journal: FNV-1a over the identity in 128 bits, laid out as an RFC 9562 version 8
//! (vendor-specific) UUID.

/// The GUID of the schema whose identity key is `identity`, in the lower-case hyphenated form.
pub(crate) fn guid_of(identity: &str) -> String {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut hash = OFFSET;
    for byte in identity.bytes() {
        hash ^= u128::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    // Version 8 in bits 48..52 (from the top), variant 0b10 in bits 64..66.
    let hash = (hash & !(0xf << 76)) | (0x8 << 76);
    let hash = (hash & !(0x3 << 62)) | (0x2 << 62);
    let hex = format!("{hash:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// `text` as a GUID in [`guid_of`]'s form (any case, with or without hyphens), or `None`.
pub(crate) fn normalize(text: &str) -> Option<String> {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    Some(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guids_are_stable_version_8_uuids_that_differ_per_identity() {
        let a = guid_of("AVRO\u{0}\"string\"\u{0}[]");
        assert_eq!(a, guid_of("AVRO\u{0}\"string\"\u{0}[]"));
        assert_ne!(a, guid_of("AVRO\u{0}\"int\"\u{0}[]"));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "8");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
        assert_eq!(guid_of(""), "6c62272e-07bb-8142-a2b8-21756295c58d");
        assert_eq!(normalize(&a.to_ascii_uppercase()), Some(a.clone()));
        assert_eq!(normalize(&a.replace('-', "")), Some(a));
        assert_eq!(normalize("nope"), None);
        assert_eq!(normalize("g2b8217562a5c58d6c62272e07bb0142"), None);
    }
}
