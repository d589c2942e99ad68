//! Decoder mechanics on hand-written wire bytes (the Java parity suites compare with
//! flink-protobuf itself over generated corpora).

use super::ProtobufRowDecoder;
use crate::protobuf::test_support::{array, map, message, render, row, ty};
use crate::protobuf::ProtobufOptions;
use crate::types::FlinkType;

const PROTO2: &str = r#"
syntax = "proto2";
package t;
enum Color { RED = 1; GREEN = 2; }
message Inner { optional int32 x = 1; optional string s = 2; }
message Req { required int32 r = 1; }
message M {
  optional int32 i = 1;
  optional string s = 2;
  optional Inner inner = 3;
  repeated int32 nums = 4;
  repeated int32 packed_nums = 5 [packed = true];
  map<string, int32> m = 6;
  optional Color color = 7;
  repeated Color colors = 8;
  optional sint64 z = 9;
  optional fixed32 f32 = 10;
  optional double d = 11;
  optional bytes b = 12;
  optional int32 dflt = 13 [default = 42];
  optional Req req = 14;
  optional group Grp = 15 { optional int32 g = 16; }
  oneof choice { int32 one_i = 20; Inner one_m = 21; }
  optional uint32 u32 = 22;
  map<int64, string> lm = 23;
  map<bool, int32> bm = 24;
}
"#;

const PROTO3: &str = r#"
syntax = "proto3";
package t3;
enum Kind { ZERO = 0; ONE = 1; }
message Inner { int32 x = 1; }
message M {
  int32 i = 1;
  string s = 2;
  Inner inner = 3;
  repeated int32 nums = 4;
  Kind kind = 5;
  optional int64 opt = 6;
  map<int32, Inner> m = 7;
}
"#;

fn inner2() -> FlinkType {
    row(&[("x", ty("INT")), ("s", ty("STRING"))])
}

fn decode(
    source: &str,
    name: &str,
    row_type: &FlinkType,
    options: ProtobufOptions,
    bytes: &[u8],
) -> Result<Option<String>, String> {
    let descriptor = message(source, name);
    let mut d =
        ProtobufRowDecoder::new(&descriptor, row_type, options).map_err(|e| e.to_string())?;
    let (mut out, mut ends) = (Vec::new(), Vec::new());
    d.decode_message(bytes, &mut out, &mut ends)
        .map_err(|e| e.to_string())?;
    Ok(match ends.as_slice() {
        [] => None,
        [end] => {
            assert_eq!(*end, out.len());
            Some(render(&out, row_type))
        }
        more => panic!("{} rows from one message", more.len()),
    })
}

fn m2(row_type: &FlinkType, bytes: &[u8]) -> Result<String, String> {
    decode(PROTO2, "t.M", row_type, ProtobufOptions::default(), bytes).map(|r| r.expect("a row"))
}

#[test]
fn proto2_absent_fields_are_null_and_present_ones_decode() {
    let t = row(&[
        ("i", ty("INT")),
        ("s", ty("STRING")),
        ("inner", inner2()),
        ("nums", array(ty("INT"))),
    ]);
    assert_eq!(m2(&t, &[]).unwrap(), "(NULL, NULL, NULL, NULL)");
    // i=150, s="hi", inner{x=1}
    let bytes = [
        0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1a, 0x02, 0x08, 0x01,
    ];
    assert_eq!(m2(&t, &bytes).unwrap(), r#"(150, "hi", (1, NULL), NULL)"#);
}

#[test]
fn read_default_values_gives_getter_defaults() {
    let t = row(&[
        ("i", ty("INT")),
        ("s", ty("STRING")),
        ("inner", inner2()),
        ("nums", array(ty("INT"))),
        ("m", map(ty("STRING"), ty("INT"))),
        ("color", ty("STRING")),
        ("dflt", ty("INT")),
    ]);
    let options = ProtobufOptions {
        read_default_values: true,
        ..ProtobufOptions::default()
    };
    let got = decode(PROTO2, "t.M", &t, options, &[]).unwrap().unwrap();
    assert_eq!(got, r#"(0, "", (0, ""), [], {}, "RED", 42)"#);
}

#[test]
fn last_scalar_wins_and_sub_messages_merge() {
    let t = row(&[("i", ty("INT")), ("inner", inner2())]);
    // i=1, inner{x=5}, i=2, inner{s="a"}
    let bytes = [
        0x08, 0x01, 0x1a, 0x02, 0x08, 0x05, 0x08, 0x02, 0x1a, 0x03, 0x12, 0x01, b'a',
    ];
    assert_eq!(m2(&t, &bytes).unwrap(), r#"(2, (5, "a"))"#);
}

#[test]
fn repeated_fields_read_packed_and_unpacked_records_in_order() {
    let t = row(&[
        ("nums", array(ty("INT"))),
        ("packed_nums", array(ty("INT"))),
    ]);
    // nums: 1 (unpacked), [2, 3] (packed), 4 (unpacked); packed_nums: 7 unpacked.
    let bytes = [0x20, 0x01, 0x22, 0x02, 0x02, 0x03, 0x20, 0x04, 0x28, 0x07];
    assert_eq!(m2(&t, &bytes).unwrap(), "([1, 2, 3, 4], [7])");
    // An empty packed record is no element: NULL without read-default-values.
    assert_eq!(m2(&t, &[0x22, 0x00]).unwrap(), "(NULL, NULL)");
}

#[test]
fn maps_keep_the_first_position_and_the_last_value() {
    let t = row(&[("m", map(ty("STRING"), ty("INT")))]);
    // {"a":1}, {"b":2}, {"a":3}, {value 9 without key -> ""}
    let bytes = [
        0x32, 0x05, 0x0a, 0x01, b'a', 0x10, 0x01, 0x32, 0x05, 0x0a, 0x01, b'b', 0x10, 0x02, 0x32,
        0x05, 0x0a, 0x01, b'a', 0x10, 0x03, 0x32, 0x02, 0x10, 0x09,
    ];
    // In the order of flink-protobuf's `HashMap<BinaryStringData, _>` (printed by JDK 17).
    assert_eq!(m2(&t, &bytes).unwrap(), r#"({""=9, "a"=3, "b"=2})"#);
}

#[test]
fn maps_come_in_the_order_of_flink_protobufs_hash_map() {
    // Wire order 40, 3, -1, 17, 2^32, 0; a JDK 17 `HashMap<Long, _>` filled in that order
    // iterates -1, 0, 17, 4294967296, 3, 40.
    let t = row(&[("lm", map(ty("BIGINT"), ty("STRING")))]);
    let mut bytes = Vec::new();
    for (key, value) in [
        (&[0x28][..], b'p'),
        (&[0x03], b'q'),
        (
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            b'r',
        ),
        (&[0x11], b's'),
        (&[0x80, 0x80, 0x80, 0x80, 0x10], b't'),
        (&[0x00], b'u'),
    ] {
        bytes.extend([0xba, 0x01, key.len() as u8 + 4, 0x08]);
        bytes.extend(key);
        bytes.extend([0x12, 0x01, value]);
    }
    assert_eq!(
        m2(&t, &bytes).unwrap(),
        r#"({-1="r", 0="u", 17="s", 4294967296="t", 3="q", 40="p"})"#
    );
    // `HashMap<BinaryStringData, _>`: wire z, a, m, b iterates m, z, a, b
    // (docs/parity/protobuf.md, run with flink-protobuf 2.2.0).
    let t = row(&[("m", map(ty("STRING"), ty("INT")))]);
    let mut bytes = Vec::new();
    for (i, key) in [b'z', b'a', b'm', b'b'].into_iter().enumerate() {
        bytes.extend([0x32, 0x05, 0x0a, 0x01, key, 0x10, i as u8]);
    }
    assert_eq!(m2(&t, &bytes).unwrap(), r#"({"m"=2, "z"=0, "a"=1, "b"=3})"#);
    // `HashMap<Boolean, _>`: false (1237) before true (1231), whatever the wire order.
    let t = row(&[("bm", map(ty("BOOLEAN"), ty("INT")))]);
    let bytes = [
        0xc2, 0x01, 0x04, 0x08, 0x01, 0x10, 0x05, 0xc2, 0x01, 0x04, 0x08, 0x00, 0x10, 0x06,
    ];
    assert_eq!(m2(&t, &bytes).unwrap(), "({false=6, true=5})");
}

#[test]
fn closed_enums_drop_unknown_numbers() {
    let t = row(&[("color", ty("STRING")), ("colors", array(ty("INT")))]);
    // color=2, color=9 (unknown: kept as unknown field, GREEN stays); colors [1, 9, 2].
    let bytes = [0x38, 0x02, 0x38, 0x09, 0x40, 0x01, 0x40, 0x09, 0x40, 0x02];
    assert_eq!(m2(&t, &bytes).unwrap(), r#"("GREEN", [1, 2])"#);
    // Only an unknown number: the field is absent.
    assert_eq!(m2(&t, &[0x38, 0x09]).unwrap(), "(NULL, NULL)");
}

#[test]
fn signed_unsigned_and_fixed_encodings_convert_as_java() {
    let t = row(&[
        ("z", ty("BIGINT")),
        ("f32", ty("INT")),
        ("d", ty("DOUBLE")),
        ("b", ty("BYTES")),
        ("u32", ty("INT")),
    ]);
    let mut bytes = vec![0x48, 0x03]; // z = zigzag(3) = -2
    bytes.extend([0x55, 0xff, 0xff, 0xff, 0xff]); // f32 = 0xffffffff -> -1
    bytes.push(0x59);
    bytes.extend(1.5f64.to_le_bytes());
    bytes.extend([0x62, 0x02, 0xde, 0xad]);
    bytes.extend([0xb0, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f]); // u32 = 4294967295 -> -1
    assert_eq!(m2(&t, &bytes).unwrap(), "(-2, -1, 1.5, 0xdead, -1)");
}

#[test]
fn oneof_members_count_only_when_set_last() {
    let t = row(&[("one_i", ty("INT")), ("one_m", inner2())]);
    // one_m{x=1}, one_i=5, one_m{s="q"}: one_m wins and, as protobuf-java keeps its
    // builder, merges both of its occurrences.
    let bytes = [
        0xaa, 0x01, 0x02, 0x08, 0x01, 0xa0, 0x01, 0x05, 0xaa, 0x01, 0x03, 0x12, 0x01, b'q',
    ];
    assert_eq!(m2(&t, &bytes).unwrap(), r#"(NULL, (1, "q"))"#);
    assert_eq!(
        m2(&t, &[0xaa, 0x01, 0x00, 0xa0, 0x01, 0x05]).unwrap(),
        "(5, NULL)"
    );
}

#[test]
fn groups_decode_as_rows() {
    let t = row(&[("grp", row(&[("g", ty("INT"))]))]);
    let found = m2(&t, &[0x7b, 0x80, 0x01, 0x07, 0x7c]);
    // Group field names are the lower-cased group name.
    assert_eq!(found.unwrap(), "((7))");
}

#[test]
fn malformed_bytes_fail_or_are_skipped() {
    let t = row(&[("i", ty("INT"))]);
    for bad in [
        &[0x08][..],         // truncated varint
        &[0x12, 0x05, 0x01], // length past the end
        &[0x00],             // field number 0
        &[0x0f],             // wire type 7
        &[0x7b, 0x08, 0x01], // unterminated group
        &[0x72, 0x00],       // required field missing in a sub-message
        &[0x1a, 0x02, 0x08], // a sub-message not read by the row, truncated
    ] {
        let err = m2(&t, bad).expect_err(&format!("{bad:02x?} must fail"));
        assert!(err.starts_with("Failed to deserialize PB object"), "{err}");
        let skipped = decode(
            PROTO2,
            "t.M",
            &t,
            ProtobufOptions {
                ignore_parse_errors: true,
                ..ProtobufOptions::default()
            },
            bad,
        );
        assert_eq!(skipped, Ok(None));
    }
    // A known field with another wire type is an unknown field.
    assert_eq!(m2(&t, &[0x0d, 1, 2, 3, 4]).unwrap(), "(NULL)");
}

#[test]
fn proto2_strings_convert_invalid_utf8_and_proto3_strings_fail() {
    let t = row(&[("s", ty("STRING"))]);
    assert_eq!(
        m2(&t, &[0x12, 0x02, b'a', 0xff]).unwrap(),
        "(\"a\u{fffd}\")"
    );
    let t3 = row(&[("s", ty("STRING"))]);
    let err = decode(
        PROTO3,
        "t3.M",
        &t3,
        ProtobufOptions::default(),
        &[0x12, 0x01, 0xff],
    );
    assert!(err.unwrap_err().contains("invalid UTF-8"));
}

#[test]
fn proto3_reads_defaults_and_open_enums_keep_unknown_numbers() {
    let t = row(&[
        ("i", ty("INT")),
        ("s", ty("STRING")),
        ("inner", row(&[("x", ty("INT"))])),
        ("nums", array(ty("INT"))),
        ("kind", ty("STRING")),
        ("m", map(ty("INT"), row(&[("x", ty("INT"))]))),
    ]);
    let got = decode(PROTO3, "t3.M", &t, ProtobufOptions::default(), &[]).unwrap();
    // proto3 forces defaults for simple columns only: messages, arrays and maps stay NULL.
    assert_eq!(got.unwrap(), r#"(0, "", NULL, NULL, "ZERO", NULL)"#);
    let got = decode(
        PROTO3,
        "t3.M",
        &t,
        ProtobufOptions::default(),
        &[0x28, 0x07],
    )
    .unwrap();
    assert_eq!(got.unwrap(), r#"(0, "", NULL, NULL, "UNRECOGNIZED", NULL)"#);
    // Map entry without a value: the value's default instance.
    let got = decode(
        PROTO3,
        "t3.M",
        &t,
        ProtobufOptions::default(),
        &[0x3a, 0x02, 0x08, 0x04],
    );
    assert_eq!(
        got.unwrap().unwrap(),
        r#"(0, "", NULL, NULL, "ZERO", {4=(0)})"#
    );
    let all = ProtobufOptions {
        read_default_values: true,
        ..ProtobufOptions::default()
    };
    let got = decode(PROTO3, "t3.M", &t, all, &[]).unwrap();
    assert_eq!(got.unwrap(), r#"(0, "", (0), [], "ZERO", {})"#);
    // An unknown number into a numeric column is Java's UNRECOGNIZED.getNumber() error.
    let numeric = row(&[("kind", ty("INT"))]);
    let err = decode(
        PROTO3,
        "t3.M",
        &numeric,
        ProtobufOptions::default(),
        &[0x28, 0x07],
    );
    assert!(err.unwrap_err().contains("unknown enum value"));
}

#[test]
fn columns_must_exist_and_types_must_match() {
    let descriptor = message(PROTO2, "t.M");
    let missing = row(&[("nope", ty("INT"))]);
    let err = ProtobufRowDecoder::new(&descriptor, &missing, ProtobufOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("Column nope does not exists in definition of proto class."),
        "{err}"
    );
    let wrong = row(&[("i", ty("BIGINT"))]);
    let err = ProtobufRowDecoder::new(&descriptor, &wrong, ProtobufOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("INT(protobuf) is not compatible of BIGINT"),
        "{err}"
    );
    let wrong = row(&[("i", ty("STRING"))]);
    let err = ProtobufRowDecoder::new(&descriptor, &wrong, ProtobufOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("INT(protobuf) is not compatible of VARCHAR"),
        "{err}"
    );
}

#[test]
fn fields_without_presence_need_read_default_values_under_a_proto2_root() {
    let source = r#"
        syntax = "proto2";
        package mix;
        import "p3.proto";
        message Root { optional p3.Leaf leaf = 1; }
    "#;
    let leaf = r#"syntax = "proto3"; package p3; message Leaf { int32 lat = 1; }"#;
    let pool = crate::protobuf::test_support::pool(&[("root.proto", source), ("p3.proto", leaf)]);
    let root = pool.get_message_by_name("mix.Root").unwrap();
    let t = row(&[("leaf", row(&[("lat", ty("INT"))]))]);
    let err = ProtobufRowDecoder::new(&root, &t, ProtobufOptions::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("has no presence"), "{err}");
    let options = ProtobufOptions {
        read_default_values: true,
        ..ProtobufOptions::default()
    };
    assert!(ProtobufRowDecoder::new(&root, &t, options).is_ok());
}

#[test]
fn enums_into_tinyint_are_refused_as_flink_refuses_them() {
    let descriptor = message(PROTO2, "t.M");
    let t = row(&[("color", ty("TINYINT"))]);
    let err = ProtobufRowDecoder::new(&descriptor, &t, ProtobufOptions::default())
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("Do not support flink type: TINYINT"),
        "{err}"
    );
}

#[test]
fn presence_nulls_read_absent_optional_fields_as_null() {
    let t = row(&[
        ("i", ty("INT")),
        ("opt", ty("BIGINT")),
        ("inner", row(&[("x", ty("INT"))])),
    ]);
    let flink = decode(PROTO3, "t3.M", &t, ProtobufOptions::default(), &[]).unwrap();
    assert_eq!(flink.unwrap(), "(0, 0, NULL)");
    let options = ProtobufOptions {
        presence_nulls: true,
        ..ProtobufOptions::default()
    };
    let confluent = decode(PROTO3, "t3.M", &t, options, &[]).unwrap();
    // The implicit field keeps its default; the optional one is NULL.
    assert_eq!(confluent.unwrap(), "(0, NULL, NULL)");
}

const PROTO3_MAPS: &str = r#"
syntax = "proto3";
package t3m;
message M {
  map<bool, string> flags = 1;
  map<string, string> names = 2;
  repeated double ds = 3;
  int32 i = 4;
}
"#;

fn m3m(row_type: &FlinkType, bytes: &[u8]) -> Result<String, String> {
    decode(
        PROTO3_MAPS,
        "t3m.M",
        row_type,
        ProtobufOptions::default(),
        bytes,
    )
    .map(|r| r.expect("a row"))
}

#[test]
fn map_keys_are_equal_when_java_holds_equal_values() {
    let t = row(&[("flags", map(ty("BOOLEAN"), ty("STRING")))]);
    // {true: "a"} with key varint 1, then {true: "b"} with key varint 2.
    let bytes = [
        0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, b'a', 0x0a, 0x05, 0x08, 0x02, 0x12, 0x01, b'b',
    ];
    assert_eq!(m3m(&t, &bytes).unwrap(), r#"({true="b"})"#);
}

#[test]
fn every_proto3_string_of_a_map_is_utf8_checked_even_when_replaced() {
    let t = row(&[("names", map(ty("STRING"), ty("STRING")))]);
    // One entry whose key is given twice, the first time as invalid UTF-8.
    let inside = [0x12, 0x06, 0x0a, 0x01, 0xff, 0x0a, 0x01, b'a'];
    assert!(m3m(&t, &inside).unwrap_err().contains("invalid UTF-8"));
    // Two entries with key "k", the first value invalid: replaced, still parsed.
    let replaced = [
        0x12, 0x06, 0x0a, 0x01, b'k', 0x12, 0x01, 0xff, 0x12, 0x06, 0x0a, 0x01, b'k', 0x12, 0x01,
        b'v',
    ];
    assert!(m3m(&t, &replaced).unwrap_err().contains("invalid UTF-8"));
}

#[test]
fn unread_packed_fields_must_hold_whole_values() {
    let t = row(&[("i", ty("INT"))]);
    // ds (not a column) packed with 7 bytes: not a whole double.
    let bytes = [0x1a, 0x07, 0, 0, 0, 0, 0, 0, 0];
    assert!(m3m(&t, &bytes).is_err());
    let whole = [0x1a, 0x08, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x20, 0x05];
    assert_eq!(m3m(&t, &whole).unwrap(), "(5)");
}

#[test]
fn each_occurrence_of_a_sub_message_must_parse_on_its_own() {
    let t = row(&[("inner", inner2())]);
    // inner { 78 } (a tag without its value), then inner { 01 }: the concatenation would
    // read as field 15 = 1, protobuf-java fails on the first part.
    assert!(m2(&t, &[0x1a, 0x01, 0x78, 0x1a, 0x01, 0x01]).is_err());
}

#[test]
fn oneof_members_that_are_not_columns_still_displace() {
    let t = row(&[("one_m", inner2())]);
    // one_m {x=1}, then one_i = 5 (not a column): one_m is cleared.
    assert_eq!(
        m2(&t, &[0xaa, 0x01, 0x02, 0x08, 0x01, 0xa0, 0x01, 0x05]).unwrap(),
        "(NULL)"
    );
    // one_i first, then one_m: one_m is set.
    assert_eq!(
        m2(&t, &[0xa0, 0x01, 0x05, 0xaa, 0x01, 0x02, 0x08, 0x01]).unwrap(),
        "((1, NULL))"
    );
}

#[test]
fn a_oneof_message_set_again_merges_into_its_earlier_content() {
    let t = row(&[("one_i", ty("INT")), ("one_m", inner2())]);
    // one_m {x=1}, one_i = 5, one_m {}: protobuf-java keeps one_m's builder.
    let bytes = [
        0xaa, 0x01, 0x02, 0x08, 0x01, 0xa0, 0x01, 0x05, 0xaa, 0x01, 0x00,
    ];
    assert_eq!(m2(&t, &bytes).unwrap(), "(NULL, (1, NULL))");
}

/// Rows of more than 64 columns: the scan tracks the first 64 written columns in a bitmask
/// and the rest by the general per-column marks; both must give the same values, absent
/// fields included, when a field repeats (last wins) and around column 64.
#[test]
fn rows_wider_than_64_columns_decode_every_column() {
    let count = 70;
    let fields: String = (1..=count)
        .map(|n| format!("optional int32 f{n} = {n}; "))
        .collect();
    let source = format!("syntax = \"proto2\"; package w; message W {{ {fields} }}");
    let names: Vec<String> = (1..=count).map(|n| format!("f{n}")).collect();
    let columns: Vec<(&str, FlinkType)> = names.iter().map(|n| (n.as_str(), ty("INT"))).collect();
    let t = row(&columns);
    // Every field but 64 and 66 set to its number times 3; field 65 repeated (last wins).
    let mut bytes = Vec::new();
    for n in (1..=count).filter(|n| *n != 64 && *n != 66) {
        crate::protobuf::wire::put_tag(&mut bytes, n, crate::protobuf::wire::WireType::Varint);
        crate::protobuf::wire::put_varint(&mut bytes, u64::from(n) * 3);
    }
    crate::protobuf::wire::put_tag(&mut bytes, 65, crate::protobuf::wire::WireType::Varint);
    crate::protobuf::wire::put_varint(&mut bytes, 7);
    let expected: Vec<String> = (1..=count)
        .map(|n| match n {
            64 | 66 => "NULL".to_string(),
            65 => "7".to_string(),
            n => (n * 3).to_string(),
        })
        .collect();
    let got = decode(&source, "w.W", &t, ProtobufOptions::default(), &bytes)
        .unwrap()
        .unwrap();
    assert_eq!(got, format!("({})", expected.join(", ")));
}
