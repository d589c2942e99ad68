"""Confluent's own `SchemaRegistryClient` against `karrow registry serve` over real HTTP:
register, look up, versions, compatibility, soft and permanent deletes, config, mode and
contexts, for AVRO, PROTOBUF (text and descriptor) and JSON, with Confluent's error codes."""

import base64
import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference
from confluent_kafka.schema_registry.error import SchemaRegistryError
from google.protobuf import descriptor_pb2

AVRO_V1 = json.dumps(
    {"type": "record", "name": "User", "namespace": "t", "fields": [{"name": "a", "type": "int"}]}
)
AVRO_V2 = json.dumps(
    {
        "type": "record",
        "name": "User",
        "namespace": "t",
        "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "string", "default": ""}],
    }
)
AVRO_BAD = json.dumps(
    {
        "type": "record",
        "name": "User",
        "namespace": "t",
        "fields": [{"name": "a", "type": "int"}, {"name": "c", "type": "string"}],
    }
)
PROTO = 'syntax = "proto3";\n\npackage p;\n\nmessage M {\n  int32 a = 1;\n  optional string b = 2;\n}\n'
JSON_SCHEMA = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}})


def error_of(call):
    with pytest.raises(SchemaRegistryError) as raised:
        call()
    return raised.value.http_status_code, raised.value.error_code


def proto_descriptor(text_name="m.proto"):
    """The FileDescriptorProto of PROTO, built field by field as protoc would."""
    f = descriptor_pb2.FileDescriptorProto(name=text_name, package="p", syntax="proto3")
    m = f.message_type.add(name="M")
    m.field.add(name="a", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, json_name="a")
    m.field.add(name="b", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, json_name="b",
                oneof_index=0, proto3_optional=True)
    m.oneof_decl.add(name="_b")
    return f


@pytest.mark.parametrize(
    "schema,other",
    [
        (Schema(AVRO_V1, "AVRO"), Schema(AVRO_V2, "AVRO")),
        (Schema(PROTO, "PROTOBUF"), Schema(PROTO.replace("int32 a", "int64 a"), "PROTOBUF")),
        (Schema(JSON_SCHEMA, "JSON"), Schema(json.dumps({"type": "string"}), "JSON")),
    ],
    ids=["avro", "protobuf", "json"],
)
def test_register_lookup_versions_and_delete(client, schema, other):
    assert client.get_schema_types() == ["AVRO", "JSON", "PROTOBUF"]
    sid = client.register_schema("s-value", schema)
    assert client.register_schema("s-value", schema) == sid
    fetched = client.get_schema(sid)
    assert (fetched.schema_str, fetched.schema_type) == (schema.schema_str, schema.schema_type)
    found = client.lookup_schema("s-value", schema)
    assert (found.schema_id, found.version, found.subject) == (sid, 1, "s-value")
    assert client.get_subjects() == ["s-value"]

    other_id = client.register_schema("s-value", other)
    assert other_id != sid
    assert client.get_versions("s-value") == [1, 2]
    latest = client.get_latest_version("s-value")
    assert (latest.version, latest.schema_id) == (2, other_id)
    assert client.get_version("s-value", 1).schema_id == sid
    assert [(v.subject, v.version) for v in client.get_schema_versions(sid)] == [("s-value", 1)]
    assert client.get_subjects_by_schema_id(other_id) == ["s-value"]

    # Soft delete one version, then the subject; then permanently.
    assert client.delete_version("s-value", 2) == 2
    assert client.get_versions("s-value") == [1]
    assert client.get_versions("s-value", deleted=True) == [1, 2]
    assert error_of(lambda: client.delete_version("s-value", 2)) == (404, 40406)
    assert error_of(lambda: client.delete_version("s-value", 1, permanent=True)) == (404, 40407)
    assert client.delete_version("s-value", 2, permanent=True) == 2
    assert error_of(lambda: client.delete_subject("s-value", permanent=True)) == (404, 40405)
    assert client.delete_subject("s-value") == [1]
    assert client.get_subjects() == []
    assert client.get_subjects(deleted=True) == ["s-value"]
    assert error_of(lambda: client.delete_subject("s-value")) == (404, 40404)
    # Soft-deleted ids stay readable.
    client.clear_caches()
    assert client.get_schema(sid).schema_str == schema.schema_str
    assert client.delete_subject("s-value", permanent=True) == [1]
    assert client.get_subjects(deleted=True) == []
    # Permanently deleted ids are gone; the next id is still new.
    client.clear_caches()
    assert error_of(lambda: client.get_schema(sid)) == (404, 40403)
    assert error_of(lambda: client.get_versions("s-value")) == (404, 40401)
    again = client.register_schema("s-value", schema)
    assert again > other_id
    assert client.get_versions("s-value") == [1]


def test_compatibility_endpoints_and_levels(client):
    client.register_schema("c-value", Schema(AVRO_V1, "AVRO"))
    assert client.test_compatibility("c-value", Schema(AVRO_V2, "AVRO")) is True
    assert client.test_compatibility("c-value", Schema(AVRO_BAD, "AVRO"), version=1) is False
    assert client.test_compatibility_all_versions("c-value", Schema(AVRO_BAD, "AVRO")) is False
    # No such version, no such subject, an invalid schema: Confluent's codes.
    assert error_of(lambda: client.test_compatibility("c-value", Schema(AVRO_V2, "AVRO"), version=9)) == (404, 40402)
    assert error_of(lambda: client.test_compatibility("nope", Schema(AVRO_V2, "AVRO"))) == (404, 40401)
    assert error_of(lambda: client.test_compatibility("c-value", Schema("{", "AVRO"))) == (422, 42201)
    assert client.test_compatibility_all_versions("nope", Schema(AVRO_V2, "AVRO")) is True

    assert error_of(lambda: client.register_schema("c-value", Schema(AVRO_BAD, "AVRO"))) == (409, 409)
    assert client.get_compatibility() == "BACKWARD"
    # A subject without its own level: 40408, as Confluent answers.
    assert error_of(lambda: client.get_compatibility("c-value")) == (404, 40408)
    assert client.set_compatibility("c-value", "NONE") == {"compatibility": "NONE"}
    assert client.get_compatibility("c-value") == "NONE"
    assert client.test_compatibility("c-value", Schema(AVRO_BAD, "AVRO")) is True
    client.register_schema("c-value", Schema(AVRO_BAD, "AVRO"))
    assert client.get_config("c-value").compatibility_level.value == "NONE"
    assert client.delete_config("c-value").compatibility_level.value == "NONE"
    assert error_of(lambda: client.get_compatibility("c-value")) == (404, 40408)
    assert error_of(lambda: client.set_compatibility(level="SIDEWAYS")) == (422, 42203)
    client.set_compatibility(level="FULL_TRANSITIVE")
    assert client.get_config().compatibility_level.value == "FULL_TRANSITIVE"


def test_mode_and_contexts(client):
    assert client.get_global_mode() == "READWRITE"
    assert error_of(lambda: client.get_mode("m-value")) == (404, 40409)
    assert client.update_mode("m-value", "READONLY") == "READONLY"
    assert client.get_mode("m-value") == "READONLY"
    assert error_of(lambda: client.register_schema("m-value", Schema(AVRO_V1, "AVRO"))) == (422, 42205)
    assert client.delete_mode("m-value") == "READONLY"
    client.register_schema("m-value", Schema(AVRO_V1, "AVRO"))
    # IMPORT needs an empty registry unless forced.
    assert error_of(lambda: client.update_global_mode("IMPORT")) == (422, 42205)
    assert client.update_global_mode("IMPORT", force=True) == "IMPORT"
    assert client.update_global_mode("READWRITE") == "READWRITE"
    assert error_of(lambda: client.update_global_mode("FAST")) == (422, 42204)
    assert client.get_contexts() == ["."]


def test_protobuf_in_both_forms_gets_one_id_and_both_formats(client):
    text_id = client.register_schema("p-value", Schema(PROTO, "PROTOBUF"))
    encoded = base64.standard_b64encode(proto_descriptor().SerializeToString()).decode()
    # The same schema as a descriptor: the same id, no new version.
    assert client.register_schema("p-value", Schema(encoded, "PROTOBUF")) == text_id
    assert client.get_versions("p-value") == [1]
    # A descriptor-only subject: stored and answered as .proto text...
    described = descriptor_pb2.FileDescriptorProto()
    described.CopyFrom(proto_descriptor())
    described.message_type[0].name = "N"
    described_id = client.register_schema("d-value", Schema(
        base64.standard_b64encode(described.SerializeToString()).decode(), "PROTOBUF"))
    text = client.get_schema(described_id).schema_str
    assert text == PROTO.replace("message M", "message N")
    # ...and as the descriptor under format=serialized, equal but for the file name.
    client.clear_caches()
    serialized = client.get_schema(described_id, fmt="serialized").schema_str
    back = descriptor_pb2.FileDescriptorProto.FromString(base64.standard_b64decode(serialized))
    back.name = described.name
    assert back == described
    version = client.get_version("d-value", 1, fmt="serialized")
    assert version.schema.schema_str == serialized
    # Garbage in either form is 42201.
    assert error_of(lambda: client.register_schema("x", Schema("bm9wZQ==", "PROTOBUF"))) == (422, 42201)


def test_references_and_referenced_by(client):
    common = 'syntax = "proto3";\npackage common;\n\nmessage Name {\n  string text = 1;\n}\n'
    client.register_schema("common.proto", Schema(common, "PROTOBUF"))
    outer = 'syntax = "proto3";\nimport "common.proto";\n\nmessage Outer {\n  common.Name n = 1;\n}\n'
    refs = [SchemaReference("common.proto", "common.proto", 1)]
    outer_id = client.register_schema("outer-value", Schema(outer, "PROTOBUF", refs))
    fetched = client.get_schema(outer_id)
    assert [(r.name, r.subject, r.version) for r in fetched.references] == [("common.proto", "common.proto", 1)]
    assert client.get_referenced_by("common.proto", 1) == [outer_id]
    # A referenced version cannot be deleted: 42206.
    assert error_of(lambda: client.delete_version("common.proto", 1)) == (422, 42206)
    # A reference to nothing: 42201.
    bad = [SchemaReference("common.proto", "nope", 1)]
    assert error_of(lambda: client.register_schema("o2", Schema(outer, "PROTOBUF", bad))) == (422, 42201)
