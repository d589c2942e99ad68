//! Sessions of `protobuf-confluent-native` against a dev registry: registration at open,
//! framing, decoding by the writer schema of each id (with references), and the errors that
//! are never skipped.

use karrow_codecs::framing::write_message_indexes;
use karrow_codecs::protobuf::proto_text::derive_proto_schema;
use karrow_codecs::FlinkType;
use karrow_registry::{
    DevRegistry, RegistryClient, RegistryConfig, SchemaDefinition, SchemaReference, SchemaType,
};

use super::{ProtobufDecodeSession, ProtobufEncodeSession};
use crate::session::Session;

const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[
    {"name":"id","type":{"type":"BIGINT","nullable":false}},
    {"name":"name","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#;

fn encoder_config(url: &str, subject: &str, schema: Option<&str>, message: &str) -> String {
    let schema = schema.map_or("null".to_string(), |s| serde_json::to_string(s).unwrap());
    format!(
        r#"{{"row_type":{ROW},"message":"{message}","options":{{}},
            "confluent":{{"url":"{url}","subject":"{subject}","schema":{schema},"properties":{{}}}}}}"#
    )
}

fn decoder_config(url: &str, ignore: bool) -> String {
    format!(
        r#"{{"row_type":{ROW},"message":"","options":{{"ignore_parse_errors":{ignore}}},
            "confluent":{{"url":"{url}","properties":{{}}}}}}"#
    )
}

/// The row images of one decoded value (the row-list layout without its header).
fn decode(session: &mut ProtobufDecodeSession, value: &[u8]) -> Result<Option<Vec<u8>>, String> {
    session
        .decode_message(value)
        .map(|rows| rows.map(|r| r.images.to_vec()))
        .map_err(|e| e.to_string())
}

fn framed(id: i32, path: &[i32], payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    write_message_indexes(path, &mut out);
    out.extend_from_slice(payload);
    out
}

#[test]
fn derived_schema_round_trip_and_decoding_by_registered_schemas() {
    let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
    let url = registry.url();
    let client = RegistryClient::new(RegistryConfig::from_url(&url)).unwrap();

    // Encode with the derived schema: registered as PROTOBUF under the subject.
    let mut encoder =
        ProtobufEncodeSession::open(&encoder_config(&url, "t-value", None, ""), &[]).unwrap();
    let id = encoder.schema_id().unwrap();
    let latest = client.latest("t-value").unwrap();
    assert_eq!(latest.id, id);
    assert_eq!(latest.definition.schema_type, SchemaType::Protobuf);
    let row_type = FlinkType::from_json_str(ROW).unwrap();
    assert_eq!(
        latest.definition.schema,
        derive_proto_schema(&row_type).unwrap()
    );

    // A row decoded from {id: 5, name: "x"} of the derived message, encoded back.
    let payload = [0x08, 0x05, 0x12, 0x01, b'x'];
    let mut decoder = ProtobufDecodeSession::open(&decoder_config(&url, false), &[]).unwrap();
    let image = decode(&mut decoder, &framed(id, &[0], &payload))
        .unwrap()
        .unwrap();
    let value = encoder.encode_one(&image).unwrap().to_vec();
    assert_eq!(value, framed(id, &[0], &payload));
    // The long form of [0] reads the same.
    let mut long = vec![0];
    long.extend_from_slice(&id.to_be_bytes());
    long.extend_from_slice(&[0x02, 0x00]);
    long.extend_from_slice(&payload);
    assert_eq!(decode(&mut decoder, &long).unwrap().unwrap(), image);
    // A tombstone gives no row.
    let (rows, ends) = decoder.decode_batch([None]).unwrap();
    assert_eq!(ends, &[0]);
    assert_eq!(rows.images.len(), 0);

    // An explicit schema with a reference: message B.Inner (path [1, 0]) uses common.Name.
    let common = "syntax = \"proto3\"; package common; message Name { string text = 1; }";
    client
        .register("common-value", &SchemaDefinition::protobuf(common))
        .unwrap();
    let outer = "syntax = \"proto3\"; import \"common.proto\";\n\
                 message A { int32 z = 1; }\n\
                 message B { message Inner { int64 id = 1; string name = 2; common.Name n = 3; } }";
    let outer_id = client
        .register(
            "outer-value",
            &SchemaDefinition::protobuf(outer).with_references(vec![SchemaReference {
                name: "common.proto".into(),
                subject: "common-value".into(),
                version: 1,
            }]),
        )
        .unwrap();
    let nested = decode(&mut decoder, &framed(outer_id, &[1, 0], &payload))
        .unwrap()
        .unwrap();
    assert_eq!(nested, image);

    // Index out of range: fails naming the id, skipped under ignore-parse-errors.
    let err = decode(&mut decoder, &framed(outer_id, &[2], &payload)).unwrap_err();
    assert!(err.contains("index 2 is out of range"), "{err}");
    assert!(err.contains(&format!("schema id {outer_id}")), "{err}");
    let mut lenient = ProtobufDecodeSession::open(&decoder_config(&url, true), &[]).unwrap();
    assert_eq!(
        decode(&mut lenient, &framed(outer_id, &[2], &payload)).unwrap(),
        None
    );
    assert_eq!(decode(&mut lenient, b"\x01junk").unwrap(), None);
    // Unknown ids and schemas of another type are never skipped.
    let unknown = outer_id + 100;
    let err = decode(&mut lenient, &framed(unknown, &[0], &payload)).unwrap_err();
    assert!(
        err.starts_with(&format!(
            "Could not find schema with id {unknown} in registry"
        )),
        "{err}"
    );
    let avro_id = client
        .register("avro-value", &SchemaDefinition::avro("\"string\""))
        .unwrap();
    let err = decode(&mut lenient, &framed(avro_id, &[0], &payload)).unwrap_err();
    assert!(
        err.contains("is a AVRO schema, not a PROTOBUF schema"),
        "{err}"
    );
    // A message whose fields do not fit the row type: never skipped either.
    let err = decode(&mut lenient, &framed(outer_id, &[0], &payload)).unwrap_err();
    assert!(err.contains("message 'A'"), "{err}");
    assert!(err.contains("Column id does not exists"), "{err}");

    // An explicit writer schema and message name: the header carries its index path.
    let mut explicit = ProtobufEncodeSession::open(
        &encoder_config(&url, "x-value", Some(outer), "B.Inner"),
        &[],
    );
    // The option's schema may import only well-known files, not registered subjects.
    let err = match explicit {
        Err(e) => e.to_string(),
        Ok(_) => panic!("an import of a registered subject must fail"),
    };
    assert!(err.contains("common.proto"), "{err}");
    let own = "syntax = \"proto3\"; package p;\n\
               message A { int32 z = 1; }\n\
               message B { message Inner { int64 id = 1; string name = 2; } }";
    explicit =
        ProtobufEncodeSession::open(&encoder_config(&url, "x-value", Some(own), "B.Inner"), &[]);
    let mut explicit = explicit.unwrap();
    let x_id = explicit.schema_id().unwrap();
    assert_eq!(client.latest("x-value").unwrap().definition.schema, own);
    assert_eq!(
        explicit.encode_one(&image).unwrap(),
        framed(x_id, &[1, 0], &payload).as_slice()
    );
    registry.stop();
}

#[test]
fn an_unreachable_registry_fails_the_encoder_open_and_names_the_id_when_decoding() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let err = match ProtobufEncodeSession::open(&encoder_config(&url, "t-value", None, ""), &[]) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("opened without a registry"),
    };
    assert!(err.contains(&port.to_string()), "{err}");
    let mut decoder = ProtobufDecodeSession::open(&decoder_config(&url, true), &[]).unwrap();
    let err = decoder
        .decode_message(&framed(256, &[0], &[]))
        .err()
        .unwrap();
    assert_eq!(err.schema_id(), Some(256), "{err}");
}
