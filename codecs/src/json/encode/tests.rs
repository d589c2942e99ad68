use super::*;
use crate::flink_binary::test_images::{image, s, V};
use crate::json::options::TimestampStandard;

// ---- types -------------------------------------------------------------------------

fn t(kind: FlinkKind) -> FlinkType {
    FlinkType {
        nullable: true,
        kind,
    }
}

fn nn(ty: FlinkType) -> FlinkType {
    FlinkType {
        nullable: false,
        ..ty
    }
}

fn string() -> FlinkType {
    t(FlinkKind::VarChar(i32::MAX as u32))
}

fn int() -> FlinkType {
    t(FlinkKind::Int)
}

fn dec(precision: u8, scale: i8) -> FlinkType {
    t(FlinkKind::Decimal { precision, scale })
}

fn arr(item: FlinkType) -> FlinkType {
    t(FlinkKind::Array(Box::new(item)))
}

fn map(key: FlinkType, value: FlinkType) -> FlinkType {
    t(FlinkKind::Map(Box::new(key), Box::new(value)))
}

fn row(fields: &[(&str, FlinkType)]) -> FlinkType {
    t(FlinkKind::Row(
        fields
            .iter()
            .map(|(name, ty)| FlinkField {
                name: (*name).to_string(),
                ty: ty.clone(),
            })
            .collect(),
    ))
}

// ---- encoding helpers --------------------------------------------------------------

fn options() -> JsonEncodeOptions {
    JsonEncodeOptions::default()
}

fn ignoring_nulls() -> JsonEncodeOptions {
    JsonEncodeOptions {
        ignore_null_fields: true,
        ..options()
    }
}

fn with_null_keys(mode: MapNullKeyMode) -> JsonEncodeOptions {
    JsonEncodeOptions {
        map_null_key: mode,
        ..options()
    }
}

fn encode_bytes(
    ty: &FlinkType,
    opts: JsonEncodeOptions,
    values: &[V],
) -> Result<Vec<u8>, CodecError> {
    let img = image(ty, values);
    let encoder = JsonRowEncoder::new(ty, opts)?;
    let mut out = Vec::new();
    encoder.encode_row(&img, &mut out)?;
    Ok(out)
}

fn encode(ty: &FlinkType, opts: JsonEncodeOptions, values: &[V]) -> String {
    String::from_utf8(encode_bytes(ty, opts, values).unwrap()).unwrap()
}

fn json(ty: &FlinkType, values: &[V]) -> String {
    encode(ty, options(), values)
}

fn failure(ty: &FlinkType, opts: JsonEncodeOptions, values: &[V]) -> String {
    match encode_bytes(ty, opts, values) {
        Err(CodecError::JsonEncode(message)) => message,
        other => panic!("expected a JsonEncode error, got {other:?}"),
    }
}

fn scalars() -> FlinkType {
    row(&[
        ("b", t(FlinkKind::Boolean)),
        ("t", t(FlinkKind::TinyInt)),
        ("s", t(FlinkKind::SmallInt)),
        ("i", int()),
        ("l", t(FlinkKind::BigInt)),
        ("f", t(FlinkKind::Float)),
        ("d", t(FlinkKind::Double)),
        ("c", t(FlinkKind::Char(3))),
        ("v", string()),
        ("bin", t(FlinkKind::Binary(5))),
        ("vb", t(FlinkKind::VarBinary(i32::MAX as u32))),
        ("dec", dec(10, 2)),
        ("date", t(FlinkKind::Date)),
        ("time", t(FlinkKind::Time(0))),
        ("ts", t(FlinkKind::Timestamp(3))),
        ("ltz", t(FlinkKind::TimestampLtz(3))),
        ("iym", t(FlinkKind::IntervalYearMonth)),
        ("idt", t(FlinkKind::IntervalDayTime)),
    ])
}

fn scalar_values() -> Vec<V> {
    vec![
        V::Bool(true),
        V::I8(-5),
        V::I16(-300),
        V::I32(42),
        V::I64(-9_000_000_000),
        V::F32(1.5),
        V::F64(0.1),
        s("ab"),
        s("hello world"),
        V::Bytes(vec![0, 1, 2, 255, 251]),
        V::Bytes(vec![]),
        V::Dec(12345),
        V::I32(18262),
        V::I32(45_296_789),
        V::Ts(1500, 0),
        V::Ts(-1, 0),
        V::I32(14),
        V::I64(90_061_001),
    ]
}

// ---- scalars -----------------------------------------------------------------------

#[test]
fn every_scalar_type_sql_standard() {
    assert_eq!(
        json(&scalars(), &scalar_values()),
        r#"{"b":true,"t":-5,"s":-300,"i":42,"l":-9000000000,"f":1.5,"d":0.1,"c":"ab","v":"hello world","bin":"AAEC//s=","vb":"","dec":123.45,"date":"2020-01-01","time":"12:34:56","ts":"1970-01-01 00:00:01.5","ltz":"1969-12-31 23:59:59.999Z","iym":14,"idt":90061001}"#
    );
}

#[test]
fn every_scalar_type_iso_standard() {
    let opts = JsonEncodeOptions {
        timestamp_standard: TimestampStandard::Iso8601,
        ..options()
    };
    assert_eq!(
        encode(&scalars(), opts, &scalar_values()),
        r#"{"b":true,"t":-5,"s":-300,"i":42,"l":-9000000000,"f":1.5,"d":0.1,"c":"ab","v":"hello world","bin":"AAEC//s=","vb":"","dec":123.45,"date":"2020-01-01","time":"12:34:56","ts":"1970-01-01T00:00:01.5","ltz":"1969-12-31T23:59:59.999Z","iym":14,"idt":90061001}"#
    );
}

#[test]
fn every_field_null() {
    let nulls = vec![V::Null; 18];
    assert_eq!(
        json(&scalars(), &nulls),
        r#"{"b":null,"t":null,"s":null,"i":null,"l":null,"f":null,"d":null,"c":null,"v":null,"bin":null,"vb":null,"dec":null,"date":null,"time":null,"ts":null,"ltz":null,"iym":null,"idt":null}"#
    );
}

#[test]
fn ignore_null_fields_leaves_out_null_fields() {
    let mut values = vec![V::Null; 18];
    values[3] = V::I32(7);
    values[8] = s("x");
    assert_eq!(
        encode(&scalars(), ignoring_nulls(), &values),
        r#"{"i":7,"v":"x"}"#
    );
    assert_eq!(
        encode(&scalars(), ignoring_nulls(), &vec![V::Null; 18]),
        "{}"
    );
}

#[test]
fn integer_extremes() {
    let ty = row(&[
        ("t", t(FlinkKind::TinyInt)),
        ("s", t(FlinkKind::SmallInt)),
        ("i", int()),
        ("l", t(FlinkKind::BigInt)),
    ]);
    assert_eq!(
        json(
            &ty,
            &[
                V::I8(-128),
                V::I16(32767),
                V::I32(i32::MIN),
                V::I64(i64::MIN)
            ]
        ),
        r#"{"t":-128,"s":32767,"i":-2147483648,"l":-9223372036854775808}"#
    );
    assert_eq!(
        json(
            &ty,
            &[V::I8(0), V::I16(-32768), V::I32(i32::MAX), V::I64(i64::MAX)]
        ),
        r#"{"t":0,"s":-32768,"i":2147483647,"l":9223372036854775807}"#
    );
}

#[test]
fn float_and_double_spellings() {
    let ty = row(&[("f", t(FlinkKind::Float)), ("d", t(FlinkKind::Double))]);
    let cases: &[(f32, f64, &str)] = &[
        (1.0, 1.0, r#"{"f":1.0,"d":1.0}"#),
        (1.0e7, 1.0e7, r#"{"f":1.0E7,"d":1.0E7}"#),
        (1.0e10, 123_456_789.0, r#"{"f":1.0E10,"d":1.23456789E8}"#),
        (
            f32::MAX,
            f64::MIN_POSITIVE,
            r#"{"f":3.4028235E38,"d":2.2250738585072014E-308}"#,
        ),
        (0.001, 1.0e-5, r#"{"f":0.001,"d":1.0E-5}"#),
        (9_999_999.0, 0.1, r#"{"f":9999999.0,"d":0.1}"#),
        (-0.0, -0.0, r#"{"f":-0.0,"d":-0.0}"#),
        (0.1, 1.0e10, r#"{"f":0.1,"d":1.0E10}"#),
    ];
    for (f, d, expected) in cases {
        assert_eq!(&json(&ty, &[V::F32(*f), V::F64(*d)]), expected);
    }
}

#[test]
fn non_finite_numbers_are_quoted_strings() {
    let ty = row(&[
        ("f1", t(FlinkKind::Float)),
        ("f2", t(FlinkKind::Float)),
        ("f3", t(FlinkKind::Float)),
        ("d1", t(FlinkKind::Double)),
        ("d2", t(FlinkKind::Double)),
        ("d3", t(FlinkKind::Double)),
    ]);
    let values = [
        V::F32(f32::NAN),
        V::F32(f32::INFINITY),
        V::F32(f32::NEG_INFINITY),
        V::F64(f64::NAN),
        V::F64(f64::INFINITY),
        V::F64(f64::NEG_INFINITY),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"f1":"NaN","f2":"Infinity","f3":"-Infinity","d1":"NaN","d2":"Infinity","d3":"-Infinity"}"#
    );
}

#[test]
fn decimals_default_strip_trailing_zeros() {
    let ty = row(&[
        ("a", dec(10, 2)),
        ("b", dec(10, 0)),
        ("c", dec(10, 0)),
        ("d", dec(10, 2)),
        ("e", dec(10, 2)),
        ("f", dec(10, 2)),
        ("g", dec(18, 9)),
    ]);
    let values = [
        V::Dec(10000),
        V::Dec(1000),
        V::Dec(120),
        V::Dec(150),
        V::Dec(0),
        V::Dec(-10),
        V::Dec(100),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"a":1E+2,"b":1E+3,"c":1.2E+2,"d":1.5,"e":0,"f":-0.1,"g":1E-7}"#
    );
}

#[test]
fn decimals_as_plain_numbers_keep_the_declared_scale() {
    let ty = row(&[
        ("a", dec(10, 2)),
        ("b", dec(10, 0)),
        ("c", dec(10, 2)),
        ("d", dec(38, 18)),
        ("e", dec(18, 9)),
    ]);
    let opts = JsonEncodeOptions {
        decimal_as_plain_number: true,
        ..options()
    };
    let values = [
        V::Dec(10000),
        V::Dec(1000),
        V::Dec(0),
        V::Dec(1_500_000_000_000_000_000),
        V::Dec(-100),
    ];
    assert_eq!(
        encode(&ty, opts, &values),
        r#"{"a":100.00,"b":1000,"c":0.00,"d":1.500000000000000000,"e":-0.000000100}"#
    );
}

#[test]
fn wide_decimals_from_the_variable_part() {
    let ty = row(&[("a", dec(38, 2)), ("b", dec(20, 0)), ("c", dec(19, 3))]);
    let big = 12_345_678_901_234_567_890_123_456_789_012_345_678i128;
    assert_eq!(
        json(&ty, &[V::Dec(big), V::Dec(-1), V::Dec(-1_234_567)]),
        r#"{"a":123456789012345678901234567890123456.78,"b":-1,"c":-1234.567}"#
    );
}

#[test]
fn timestamps_compact_and_not_compact() {
    let ty = row(&[
        ("t3", t(FlinkKind::Timestamp(3))),
        ("t9", t(FlinkKind::Timestamp(9))),
        ("t6", t(FlinkKind::Timestamp(6))),
        ("l6", t(FlinkKind::TimestampLtz(6))),
    ]);
    let values = [
        V::Ts(0, 0),
        V::Ts(1000, 1),
        V::Ts(1_577_882_096_123, 456_000),
        V::Ts(-1, 999_999),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"t3":"1970-01-01 00:00:00","t9":"1970-01-01 00:00:01.000000001","t6":"2020-01-01 12:34:56.123456","l6":"1969-12-31 23:59:59.999999999Z"}"#
    );
    let iso = JsonEncodeOptions {
        timestamp_standard: TimestampStandard::Iso8601,
        ..options()
    };
    assert_eq!(
        encode(&ty, iso, &values),
        r#"{"t3":"1970-01-01T00:00:00","t9":"1970-01-01T00:00:01.000000001","t6":"2020-01-01T12:34:56.123456","l6":"1969-12-31T23:59:59.999999999Z"}"#
    );
}

#[test]
fn dates_and_times() {
    let ty = row(&[
        ("d1", t(FlinkKind::Date)),
        ("d2", t(FlinkKind::Date)),
        ("d3", t(FlinkKind::Date)),
        ("t1", t(FlinkKind::Time(3))),
        ("t2", t(FlinkKind::Time(0))),
    ]);
    let values = [
        V::I32(0),
        V::I32(-719_528),
        V::I32(2_932_896),
        V::I32(86_399_999),
        V::I32(0),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"d1":"1970-01-01","d2":"0000-01-01","d3":"9999-12-31","t1":"23:59:59","t2":"00:00:00"}"#
    );
}

#[test]
fn intervals_are_integers() {
    let ty = row(&[
        ("ym", t(FlinkKind::IntervalYearMonth)),
        ("dt", t(FlinkKind::IntervalDayTime)),
    ]);
    assert_eq!(
        json(&ty, &[V::I32(-25), V::I64(-86_400_000)]),
        r#"{"ym":-25,"dt":-86400000}"#
    );
}

#[test]
fn binary_is_base64() {
    let ty = row(&[
        ("a", t(FlinkKind::VarBinary(100))),
        ("b", t(FlinkKind::Binary(3))),
    ]);
    assert_eq!(
        json(
            &ty,
            &[
                V::Bytes((0u8..20).collect()),
                V::Bytes(vec![0xff, 0xfe, 0xfd])
            ]
        ),
        r#"{"a":"AAECAwQFBgcICQoLDA0ODxAREhM=","b":"//79"}"#
    );
}

// ---- strings -----------------------------------------------------------------------

#[test]
fn strings_are_escaped_like_jackson() {
    let ty = row(&[("a", string()), ("b", string()), ("c", string())]);
    let out = encode_bytes(
        &ty,
        options(),
        &[
            s("q\"b\\s/\u{8}\t\n\u{c}\r"),
            s("\u{0}\u{1}\u{1f}\u{7f}é"),
            s("😀"),
        ],
    )
    .unwrap();
    let mut expected = br#"{"a":"q\"b\\s/\b\t\n\f\r","b":"\u0000\u0001\u001F"#.to_vec();
    expected.extend_from_slice(&[0x7f, 0xc3, 0xa9]);
    expected.extend_from_slice(br#"","c":"\uD83D\uDE00"}"#);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(out, expected);
}

#[test]
fn inline_and_variable_part_strings() {
    let ty = row(&[
        ("a", string()),
        ("b", string()),
        ("c", string()),
        ("d", string()),
    ]);
    assert_eq!(
        json(
            &ty,
            &[s(""), s("1234567"), s("12345678"), s(&"x".repeat(1000))]
        ),
        format!(
            r#"{{"a":"","b":"1234567","c":"12345678","d":"{}"}}"#,
            "x".repeat(1000)
        )
    );
}

#[test]
fn invalid_utf8_becomes_replacement_characters_as_in_java() {
    let ty = row(&[("a", string()), ("b", string())]);
    let out = encode(
        &ty,
        options(),
        &[
            V::Bytes(vec![b'a', 0xed, 0xa0, 0x80, b'b']),
            V::Bytes(vec![0xf0, 0x9f, 0x98, 0x80, 0xff, b'z', 0xc3]),
        ],
    );
    assert_eq!(
        out,
        "{\"a\":\"a\u{fffd}b\",\"b\":\"\\uD83D\\uDE00\u{fffd}z\u{fffd}\"}"
    );
}

#[test]
fn field_names_are_escaped_too() {
    let ty = row(&[("a\"b", int()), ("tab\there", int()), ("é😀", int())]);
    assert_eq!(
        json(&ty, &[V::I32(1), V::I32(2), V::I32(3)]),
        "{\"a\\\"b\":1,\"tab\\there\":2,\"é\\uD83D\\uDE00\":3}"
    );
}

// ---- rows --------------------------------------------------------------------------

fn nested() -> FlinkType {
    row(&[
        ("id", int()),
        (
            "r",
            row(&[("x", int()), ("y", string()), ("z", row(&[("q", int())]))]),
        ),
        ("tail", string()),
    ])
}

#[test]
fn nested_rows_in_declared_order() {
    let values = [
        V::I32(1),
        V::Row(vec![V::I32(2), s("two"), V::Row(vec![V::I32(3)])]),
        s("end"),
    ];
    assert_eq!(
        json(&nested(), &values),
        r#"{"id":1,"r":{"x":2,"y":"two","z":{"q":3}},"tail":"end"}"#
    );
}

#[test]
fn null_nested_row_and_null_nested_fields() {
    assert_eq!(
        json(&nested(), &[V::Null, V::Null, V::Null]),
        r#"{"id":null,"r":null,"tail":null}"#
    );
    let values = [
        V::I32(1),
        V::Row(vec![V::Null, s("y"), V::Row(vec![V::Null])]),
        V::Null,
    ];
    assert_eq!(
        json(&nested(), &values),
        r#"{"id":1,"r":{"x":null,"y":"y","z":{"q":null}},"tail":null}"#
    );
}

#[test]
fn ignore_null_fields_applies_to_nested_rows() {
    let values = [
        V::I32(1),
        V::Row(vec![V::Null, s("y"), V::Row(vec![V::Null])]),
        V::Null,
    ];
    assert_eq!(
        encode(&nested(), ignoring_nulls(), &values),
        r#"{"id":1,"r":{"y":"y","z":{}}}"#
    );
    assert_eq!(
        encode(&nested(), ignoring_nulls(), &[V::Null, V::Null, V::Null]),
        "{}"
    );
}

#[test]
fn empty_row_type() {
    assert_eq!(json(&row(&[]), &[]), "{}");
}

#[test]
fn the_null_bit_wins_over_not_null_declarations() {
    // Flink 2.2's getters check the NULL bit whatever the declared nullability.
    let ty = row(&[
        ("a", nn(int())),
        ("b", nn(string())),
        ("c", nn(arr(nn(int())))),
        ("d", nn(map(nn(string()), nn(int())))),
    ]);
    assert_eq!(
        json(&ty, &[V::Null, V::Null, V::Null, V::Null]),
        r#"{"a":null,"b":null,"c":null,"d":null}"#
    );
    assert_eq!(
        encode(&ty, ignoring_nulls(), &[V::Null, V::Null, V::Null, V::Null]),
        "{}"
    );
    let values = [
        V::I32(1),
        s("b"),
        V::Arr(vec![V::I32(1), V::Null]),
        V::Map(vec![(s("k"), V::Null)]),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"a":1,"b":"b","c":[1,null],"d":{"k":null}}"#
    );
}

#[test]
fn the_null_type_is_rejected_at_creation() {
    let cases = [
        row(&[("n", t(FlinkKind::Null)), ("a", int())]),
        row(&[("a", arr(t(FlinkKind::Null)))]),
        row(&[("m", map(string(), t(FlinkKind::Null)))]),
    ];
    for ty in cases {
        assert!(
            matches!(
                JsonRowEncoder::new(&ty, options()),
                Err(CodecError::InvalidType(_))
            ),
            "{ty:?}"
        );
    }
}

#[test]
fn row_kind_byte_is_ignored() {
    let ty = row(&[("a", int())]);
    let mut img = image(&ty, &[V::I32(5)]);
    img[0] = 3; // UPDATE_AFTER... any kind
    let encoder = JsonRowEncoder::new(&ty, options()).unwrap();
    let mut out = Vec::new();
    encoder.encode_row(&img, &mut out).unwrap();
    assert_eq!(out, br#"{"a":5}"#);
}

#[test]
fn java_detail_images_keep_sub_millisecond_nanos_and_lone_surrogates() {
    use crate::flink_binary::java_detail::JAVA_DETAIL_MARK;
    let declared = |p: u8| {
        row(&[
            ("t", t(FlinkKind::Timestamp(p))),
            ("l", t(FlinkKind::TimestampLtz(p))),
            ("a", arr(t(FlinkKind::Timestamp(p)))),
            (
                "m",
                map(string(), row(&[("n", t(FlinkKind::Timestamp(p)))])),
            ),
            ("s", string()),
        ])
    };
    // U+D83D and U+DE00 alone, as the Java side writes lone surrogates.
    let lone_high = [b'k', 0xED, 0xA0, 0xBD];
    let lone_low = [0xED, 0xB8, 0x80, b'!'];
    let values = [
        V::Ts(1_000, 1),
        V::Ts(-1, 999_999),
        V::Arr(vec![V::Ts(1_500, 250_000), V::Null]),
        V::Map(vec![
            (V::Bytes(lone_high.to_vec()), V::Row(vec![V::Ts(0, 7)])),
            (V::Bytes(lone_low.to_vec()), V::Row(vec![V::Ts(0, 0)])),
        ]),
        V::Bytes([&b"x"[..], &lone_high, "😀".as_bytes(), &lone_low].concat()),
    ];
    // A marked image lays compact timestamps out as TIMESTAMP(9) does.
    let mut marked = image(&declared(9), &values);
    marked[0] |= JAVA_DETAIL_MARK;
    let encoder = JsonRowEncoder::new(&declared(3), options()).unwrap();
    let mut out = Vec::new();
    encoder.encode_row(&marked, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"t":"1970-01-01 00:00:01.000000001","l":"1969-12-31 23:59:59.999999999Z","a":["1970-01-01 00:00:01.50025",null],"m":{"k\uD83D":{"n":"1970-01-01 00:00:00.000000007"},"\uDE00!":{"n":"1970-01-01 00:00:00"}},"s":"xk\uD83D\uD83D\uDE00\uDE00!"}"#
    );
    // The same image unmarked is a TIMESTAMP(9) row read as TIMESTAMP(9).
    marked[0] &= !JAVA_DETAIL_MARK;
    let mut out = Vec::new();
    JsonRowEncoder::new(&declared(9), options())
        .unwrap()
        .encode_row(&marked, &mut out)
        .unwrap();
    assert!(String::from_utf8(out).unwrap().contains("\u{fffd}"));
}

// ---- arrays ------------------------------------------------------------------------

#[test]
fn arrays_keep_null_elements() {
    let ty = row(&[
        ("ints", arr(int())),
        ("strs", arr(string())),
        ("empty", arr(int())),
        ("none", arr(int())),
    ]);
    let values = [
        V::Arr(vec![V::I32(1), V::Null, V::I32(-3)]),
        V::Arr(vec![s("a"), V::Null, s("a long string here")]),
        V::Arr(vec![]),
        V::Null,
    ];
    let expected =
        r#"{"ints":[1,null,-3],"strs":["a",null,"a long string here"],"empty":[],"none":null}"#;
    assert_eq!(json(&ty, &values), expected);
    assert_eq!(
        encode(&ty, ignoring_nulls(), &values),
        r#"{"ints":[1,null,-3],"strs":["a",null,"a long string here"],"empty":[]}"#
    );
}

#[test]
fn arrays_of_every_element_width() {
    let ty = row(&[
        ("b", arr(t(FlinkKind::Boolean))),
        ("t", arr(t(FlinkKind::TinyInt))),
        ("s", arr(t(FlinkKind::SmallInt))),
        ("f", arr(t(FlinkKind::Float))),
        ("d", arr(t(FlinkKind::Double))),
        ("dates", arr(t(FlinkKind::Date))),
        ("dec", arr(dec(20, 2))),
        ("ts", arr(t(FlinkKind::Timestamp(6)))),
    ]);
    let values = [
        V::Arr(vec![V::Bool(true), V::Null, V::Bool(false)]),
        V::Arr(vec![V::I8(-1), V::I8(127)]),
        V::Arr(vec![V::I16(-2), V::Null]),
        V::Arr(vec![V::F32(0.5), V::F32(f32::NAN)]),
        V::Arr(vec![V::F64(2.5), V::F64(f64::NEG_INFINITY)]),
        V::Arr(vec![V::I32(1), V::Null]),
        V::Arr(vec![V::Dec(12345), V::Null, V::Dec(-5)]),
        V::Arr(vec![V::Ts(1, 1000), V::Null]),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"b":[true,null,false],"t":[-1,127],"s":[-2,null],"f":[0.5,"NaN"],"d":[2.5,"-Infinity"],"dates":["1970-01-02",null],"dec":[123.45,null,-0.05],"ts":["1970-01-01 00:00:00.001001",null]}"#
    );
}

#[test]
fn arrays_of_rows_and_arrays() {
    let ty = row(&[
        ("rows", arr(row(&[("a", int()), ("b", string())]))),
        ("nested", arr(arr(int()))),
    ]);
    let values = [
        V::Arr(vec![
            V::Row(vec![V::I32(1), V::Null]),
            V::Null,
            V::Row(vec![V::Null, s("b")]),
        ]),
        V::Arr(vec![
            V::Arr(vec![V::I32(1), V::I32(2)]),
            V::Null,
            V::Arr(vec![]),
        ]),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"rows":[{"a":1,"b":null},null,{"a":null,"b":"b"}],"nested":[[1,2],null,[]]}"#
    );
    // NULL array elements stay; NULL fields of rows inside the array go.
    assert_eq!(
        encode(&ty, ignoring_nulls(), &values),
        r#"{"rows":[{"a":1},null,{"b":"b"}],"nested":[[1,2],null,[]]}"#
    );
}

// ---- maps and multisets ------------------------------------------------------------

fn map_row() -> FlinkType {
    row(&[("m", map(string(), int()))])
}

#[test]
fn maps_in_binary_order_with_null_values() {
    let entries = vec![
        (s("b"), V::I32(1)),
        (s("a"), V::Null),
        (s("a long key here"), V::I32(3)),
    ];
    assert_eq!(
        json(&map_row(), &[V::Map(entries.clone())]),
        r#"{"m":{"b":1,"a":null,"a long key here":3}}"#
    );
    // NULL map values are never left out.
    assert_eq!(
        encode(&map_row(), ignoring_nulls(), &[V::Map(entries)]),
        r#"{"m":{"b":1,"a":null,"a long key here":3}}"#
    );
    assert_eq!(json(&map_row(), &[V::Map(vec![])]), r#"{"m":{}}"#);
    assert_eq!(json(&map_row(), &[V::Null]), r#"{"m":null}"#);
}

#[test]
fn map_keys_are_escaped() {
    let entries = vec![(s("k\"1\n"), V::I32(1)), (s("😀"), V::I32(2))];
    assert_eq!(
        json(&map_row(), &[V::Map(entries)]),
        r#"{"m":{"k\"1\n":1,"\uD83D\uDE00":2}}"#
    );
}

#[test]
fn null_map_key_fails_by_default() {
    let values = [V::Map(vec![(s("k"), V::I32(1)), (V::Null, V::I32(2))])];
    let message = failure(&map_row(), options(), &values);
    assert_eq!(
        message,
        "Fail to serialize at field: m. JSON format doesn't support to serialize map data \
         with null keys. You can drop null key entries or encode null in literals by \
         specifying map-null-key.mode option."
    );
}

#[test]
fn null_map_key_dropped() {
    let values = [V::Map(vec![
        (V::Null, V::I32(0)),
        (s("k"), V::I32(1)),
        (V::Null, V::I32(2)),
    ])];
    assert_eq!(
        encode(&map_row(), with_null_keys(MapNullKeyMode::Drop), &values),
        r#"{"m":{"k":1}}"#
    );
    let only_null = [V::Map(vec![(V::Null, V::I32(0))])];
    assert_eq!(
        encode(&map_row(), with_null_keys(MapNullKeyMode::Drop), &only_null),
        r#"{"m":{}}"#
    );
}

#[test]
fn null_map_key_as_literal() {
    let values = [V::Map(vec![(s("k"), V::I32(1)), (V::Null, V::I32(2))])];
    assert_eq!(
        encode(
            &map_row(),
            with_null_keys(MapNullKeyMode::Literal("null".into())),
            &values
        ),
        r#"{"m":{"k":1,"null":2}}"#
    );
    assert_eq!(
        encode(
            &map_row(),
            with_null_keys(MapNullKeyMode::Literal("n\"k".into())),
            &values
        ),
        r#"{"m":{"k":1,"n\"k":2}}"#
    );
}

#[test]
fn literal_null_key_collides_with_a_real_key() {
    let values = [V::Map(vec![
        (V::Null, V::I32(1)),
        (s("k"), V::I32(2)),
        (s("null"), V::I32(3)),
    ])];
    assert_eq!(
        encode(
            &map_row(),
            with_null_keys(MapNullKeyMode::Literal("null".into())),
            &values
        ),
        r#"{"m":{"null":3,"k":2}}"#
    );
}

#[test]
fn repeated_map_keys_keep_the_first_position_and_the_last_value() {
    let values = [V::Map(vec![
        (s("a"), V::I32(1)),
        (s("b"), V::I32(2)),
        (s("a"), V::I32(3)),
        (s("c"), V::Null),
        (s("b"), V::Null),
        (s("c"), V::I32(6)),
    ])];
    assert_eq!(json(&map_row(), &values), r#"{"m":{"a":3,"b":null,"c":6}}"#);
}

#[test]
fn repeated_map_keys_equal_only_as_java_strings() {
    // Two different invalid byte sequences that both decode to U+FFFD.
    let values = [V::Map(vec![
        (V::Bytes(vec![0xff]), V::I32(1)),
        (V::Bytes(vec![0xfe]), V::I32(2)),
    ])];
    assert_eq!(json(&map_row(), &values), "{\"m\":{\"\u{fffd}\":2}}");
}

fn row_map() -> FlinkType {
    row(&[(
        "m",
        map(
            string(),
            row(&[
                ("a", int()),
                ("b", int()),
                ("n", row(&[("x", int()), ("y", int())])),
            ]),
        ),
    )])
}

fn repeated_row_values() -> Vec<V> {
    vec![V::Map(vec![
        (
            s("k"),
            V::Row(vec![V::Null, V::I32(1), V::Row(vec![V::I32(7), V::Null])]),
        ),
        (s("other"), V::Row(vec![V::I32(0), V::I32(0), V::Null])),
        (
            s("k"),
            V::Row(vec![V::I32(2), V::Null, V::Row(vec![V::Null, V::I32(8)])]),
        ),
    ])]
}

#[test]
fn repeated_keys_with_row_values_take_the_last_row() {
    assert_eq!(
        json(&row_map(), &repeated_row_values()),
        r#"{"m":{"k":{"a":2,"b":null,"n":{"x":null,"y":8}},"other":{"a":0,"b":0,"n":null}}}"#
    );
}

#[test]
fn repeated_keys_with_row_values_merge_when_ignoring_nulls() {
    // Jackson reuses the earlier ObjectNode and NULL fields are skipped: b and n.x
    // survive from the first row, a is appended after b.
    assert_eq!(
        encode(&row_map(), ignoring_nulls(), &repeated_row_values()),
        r#"{"m":{"k":{"b":1,"n":{"x":7,"y":8},"a":2},"other":{"a":0,"b":0}}}"#
    );
}

#[test]
fn repeated_keys_with_a_null_row_in_between() {
    let values = [V::Map(vec![
        (s("k"), V::Row(vec![V::I32(1), V::Null, V::Null])),
        (s("k"), V::Null),
        (s("k"), V::Row(vec![V::Null, V::I32(2), V::Null])),
    ])];
    assert_eq!(
        encode(&row_map(), ignoring_nulls(), &values),
        r#"{"m":{"k":{"b":2}}}"#
    );
    let ends_null = [V::Map(vec![
        (s("k"), V::Row(vec![V::I32(1), V::Null, V::Null])),
        (s("k"), V::Null),
    ])];
    assert_eq!(
        encode(&row_map(), ignoring_nulls(), &ends_null),
        r#"{"m":{"k":null}}"#
    );
}

#[test]
fn maps_of_arrays_and_maps() {
    let ty = row(&[
        ("ma", map(string(), arr(int()))),
        ("mm", map(t(FlinkKind::Char(2)), map(string(), string()))),
    ]);
    let values = [
        V::Map(vec![
            (s("x"), V::Arr(vec![V::I32(1), V::Null])),
            (s("y"), V::Null),
            (s("x"), V::Arr(vec![V::I32(9)])),
        ]),
        V::Map(vec![
            (s("p"), V::Map(vec![(s("1"), s("one")), (s("2"), V::Null)])),
            (s("p"), V::Map(vec![(s("3"), s("three"))])),
        ]),
    ];
    assert_eq!(
        json(&ty, &values),
        r#"{"ma":{"x":[9],"y":null},"mm":{"p":{"3":"three"}}}"#
    );
}

#[test]
fn multisets_are_objects_of_counts() {
    let ty = row(&[("ms", t(FlinkKind::Multiset(Box::new(string()))))]);
    let values = [V::Map(vec![(s("x"), V::I32(2)), (s("y"), V::Null)])];
    assert_eq!(json(&ty, &values), r#"{"ms":{"x":2,"y":null}}"#);
    let with_null = [V::Map(vec![(V::Null, V::I32(1)), (s("x"), V::I32(2))])];
    assert_eq!(
        encode(
            &ty,
            with_null_keys(MapNullKeyMode::Literal("NULL".into())),
            &with_null
        ),
        r#"{"ms":{"NULL":1,"x":2}}"#
    );
    assert!(failure(&ty, options(), &with_null).starts_with("Fail to serialize at field: ms."));
}

#[test]
fn nested_failures_name_every_enclosing_field() {
    let ty = row(&[
        ("id", int()),
        ("outer", row(&[("m", map(string(), int()))])),
    ]);
    let values = [V::I32(1), V::Row(vec![V::Map(vec![(V::Null, V::I32(1))])])];
    let message = failure(&ty, options(), &values);
    assert!(
        message.starts_with(
            "Fail to serialize at field: outer. Fail to serialize at field: m. JSON format \
             doesn't support to serialize map data with null keys."
        ),
        "{message}"
    );
    // Arrays and maps add no field name of their own.
    let ty = row(&[("arr", arr(map(string(), map(string(), int()))))]);
    let values = [V::Arr(vec![V::Map(vec![(
        s("k"),
        V::Map(vec![(V::Null, V::I32(1))]),
    )])])];
    let message = failure(&ty, options(), &values);
    assert!(
        message.starts_with("Fail to serialize at field: arr. JSON format doesn't"),
        "{message}"
    );
}

// ---- creation and API --------------------------------------------------------------

#[test]
fn non_string_map_keys_are_rejected_at_creation() {
    let cases = [
        (
            row(&[("m", map(int(), string()))]),
            "JSON format doesn't support non-string as key type of map. The type is: MAP<INT, STRING>",
        ),
        (
            row(&[("a", arr(t(FlinkKind::Multiset(Box::new(t(FlinkKind::BigInt))))))]),
            "JSON format doesn't support non-string as key type of map. The type is: MULTISET<BIGINT>",
        ),
        (
            row(&[("m", nn(map(t(FlinkKind::VarBinary(3)), int())))]),
            "JSON format doesn't support non-string as key type of map. The type is: MAP<VARBINARY(3), INT> NOT NULL",
        ),
    ];
    for (ty, expected) in cases {
        match JsonRowEncoder::new(&ty, options()) {
            Err(CodecError::InvalidType(message)) => assert_eq!(message, expected),
            other => panic!("expected InvalidType, got {other:?}"),
        }
    }
    assert!(
        JsonRowEncoder::new(&row(&[("m", map(t(FlinkKind::Char(1)), int()))]), options()).is_ok()
    );
}

#[test]
fn the_row_type_must_be_a_row() {
    assert!(matches!(
        JsonRowEncoder::new(&int(), options()),
        Err(CodecError::InvalidType(_))
    ));
}

#[test]
fn appends_and_leaves_the_buffer_alone_on_error() {
    let encoder = JsonRowEncoder::new(&map_row(), options()).unwrap();
    let good = image(&map_row(), &[V::Map(vec![(s("k"), V::I32(1))])]);
    let bad = image(&map_row(), &[V::Map(vec![(V::Null, V::I32(1))])]);
    let mut out = b"prefix|".to_vec();
    encoder.encode_row(&good, &mut out).unwrap();
    assert_eq!(out, br#"prefix|{"m":{"k":1}}"#);
    assert!(encoder.encode_row(&bad, &mut out).is_err());
    assert_eq!(out, br#"prefix|{"m":{"k":1}}"#);
}

#[test]
fn malformed_images_are_errors_not_panics() {
    let ty = nested();
    let encoder = JsonRowEncoder::new(&ty, options()).unwrap();
    let full = image(
        &ty,
        &[
            V::I32(1),
            V::Row(vec![V::I32(2), s("a longer text"), V::Null]),
            s("t"),
        ],
    );
    for len in 0..full.len() {
        let mut out = Vec::new();
        let _ = encoder.encode_row(&full[..len], &mut out);
    }
    let mut garbage = full.clone();
    for b in garbage.iter_mut().skip(8) {
        *b = 0xff;
    }
    let mut out = Vec::new();
    assert!(encoder.encode_row(&garbage, &mut out).is_err());
    assert!(out.is_empty());
}

#[test]
fn images_written_from_arrow() {
    use arrow_array::builder::{
        Int32Builder, ListBuilder, MapBuilder, MapFieldNames, StringBuilder,
    };
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StructArray};
    use std::sync::Arc;

    let ty = row(&[
        ("id", t(FlinkKind::BigInt)),
        ("tags", arr(string())),
        ("attrs", map(string(), int())),
        ("pos", row(&[("x", int()), ("label", string())])),
    ]);
    let mut tags = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
        arrow_schema::Field::new("element", arrow_schema::DataType::Utf8, true),
    ));
    tags.values().append_value("red");
    tags.values().append_null();
    tags.append(true);
    tags.append(false);
    let names = MapFieldNames {
        entry: "entries".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut attrs = MapBuilder::new(Some(names), StringBuilder::new(), Int32Builder::new());
    attrs.keys().append_value("w");
    attrs.values().append_value(3);
    attrs.keys().append_value("h");
    attrs.values().append_null();
    attrs.append(true).unwrap();
    attrs.append(true).unwrap();
    let fields = ty.row_fields().unwrap();
    let FlinkKind::Row(pos_fields) = &fields[3].ty.kind else {
        unreachable!()
    };
    let pos = StructArray::new(
        crate::types::row_arrow_fields(pos_fields),
        vec![
            Arc::new(arrow_array::Int32Array::from(vec![Some(5), None])) as ArrayRef,
            Arc::new(arrow_array::StringArray::from(vec![
                Some("a label, long"),
                Some("b"),
            ])),
        ],
        Some(vec![true, false].into()),
    );
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![Some(1), None])),
        Arc::new(tags.finish()),
        Arc::new(attrs.finish()),
        Arc::new(pos),
    ];
    let schema = Arc::new(arrow_schema::Schema::new(crate::types::row_arrow_fields(
        fields,
    )));
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    let mut images = crate::flink_binary::RowImages::default();
    crate::flink_binary::write_batch_rows(&batch, &ty, &mut images).unwrap();
    let encoder = JsonRowEncoder::new(&ty, options()).unwrap();
    let mut texts = Vec::new();
    for r in 0..2 {
        let (from, to) = (images.offsets[r] as usize, images.offsets[r + 1] as usize);
        let mut out = Vec::new();
        encoder
            .encode_row(&images.bytes[from..to], &mut out)
            .unwrap();
        texts.push(String::from_utf8(out).unwrap());
    }
    assert_eq!(
        texts,
        vec![
            r#"{"id":1,"tags":["red",null],"attrs":{"w":3,"h":null},"pos":{"x":5,"label":"a label, long"}}"#,
            r#"{"id":null,"tags":null,"attrs":{},"pos":null}"#,
        ]
    );
}
