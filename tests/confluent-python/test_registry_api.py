"""Confluent's own `SchemaRegistryClient` against `karrow registry serve` over real HTTP:
register, look up, versions, compatibility, soft and permanent deletes, config, mode and
contexts, for AVRO, PROTOBUF (text and descriptor) and JSON, with Confluent's error codes."""

import base64
import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
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


def test_metadata_and_rules_are_kept_inherited_and_found_by_latest_with_metadata(client, registry_url):
    from confluent_kafka.schema_registry import Metadata, MetadataProperties, RuleSet
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    def meta(**properties):
        return Metadata(tags=None, properties=MetadataProperties(properties), sensitive=None)

    rules = RuleSet.from_dict({"domainRules": [{"name": "checked", "kind": "CONDITION", "mode": "WRITE",
                                                "type": "CEL", "expr": "message.a > 0", "disabled": True}]})
    v1 = Schema(AVRO_V1, "AVRO", metadata=meta(owner="ada", **{"app.version": "1"}), rule_set=rules)
    id1 = client.register_schema("md-value", v1)
    # Served back with the schema, by id and by version.
    client.clear_caches()
    assert client.get_schema(id1).metadata.properties.properties == {"owner": "ada", "app.version": "1"}
    assert client.get_version("md-value", 1).schema.rule_set.to_dict() == rules.to_dict()
    # The same schema with other metadata is another schema: a new id and version.
    v2 = Schema(AVRO_V1, "AVRO", metadata=meta(owner="ada", **{"app.version": "2"}))
    id2 = client.register_schema("md-value", v2)
    assert id2 != id1 and client.get_versions("md-value") == [1, 2]
    # Registered without them, a version carries the latest's metadata and rules over.
    id3 = client.register_schema("md-value", Schema(AVRO_V2, "AVRO"))
    third = client.get_version("md-value", 3).schema
    assert third.metadata.properties.properties == {"owner": "ada", "app.version": "2"} and third.rule_set.to_dict() == rules.to_dict()
    # ...and registering it again finds it.
    assert client.register_schema("md-value", Schema(AVRO_V2, "AVRO")) == id3

    # GET /subjects/{s}/metadata: the latest version whose properties hold every pair.
    found = client.get_latest_with_metadata("md-value", {"app.version": "1"})
    assert (found.version, found.schema_id) == (1, id1)
    assert client.get_latest_with_metadata("md-value", {"owner": "ada"}).version == 3
    assert client.get_latest_with_metadata("md-value", {"owner": "ada", "app.version": "2"}).version == 3
    assert error_of(lambda: client.get_latest_with_metadata("md-value", {"owner": "bob"})) == (404, 40403)
    assert error_of(lambda: client.get_latest_with_metadata("nope", {"owner": "ada"})) == (404, 40401)
    # A soft-deleted version is found only with deleted=true.
    client.delete_version("md-value", 1)
    client.clear_caches()  # the client caches latest-with-metadata answers
    assert error_of(lambda: client.get_latest_with_metadata("md-value", {"app.version": "1"})) == (404, 40403)
    assert client.get_latest_with_metadata("md-value", {"app.version": "1"}, deleted=True).version == 1

    # Confluent's serializer with use.latest.with.metadata writes with the latest matching
    # version (3, which inherited app.version 2).
    serializer = AvroSerializer(client, None, conf={
        "auto.register.schemas": False, "use.latest.with.metadata": {"app.version": "2"}})
    ctx = SerializationContext("md", MessageField.VALUE)
    framed = serializer({"a": 5, "b": "x"}, ctx)
    assert int.from_bytes(framed[1:5], "big") == id3
    assert AvroDeserializer(SchemaRegistryClient({"url": registry_url}))(framed, ctx) == {"a": 5, "b": "x"}


def test_guids_are_answered_resolvable_and_carry_header_mode_schema_ids(client, registry_url):
    from confluent_kafka.schema_registry import header_schema_id_serializer
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    registered = client.register_schema_full_response("g-value", Schema(AVRO_V1, "AVRO"))
    assert registered.guid is not None
    # The same schema under another subject has the same id and GUID.
    other = client.register_schema_full_response("g2-value", Schema(AVRO_V1, "AVRO"))
    assert (other.schema_id, other.guid) == (registered.schema_id, registered.guid)
    client.clear_caches()
    assert client.get_schema_by_guid(registered.guid).schema_str == client.get_schema(registered.schema_id).schema_str
    assert client.get_version("g-value", 1).guid == registered.guid
    assert error_of(lambda: client.get_schema_by_guid("00000000-0000-8000-8000-000000000000")) == (404, 40403)

    # Confluent 8's header mode: the GUID travels in the __value_schema_id header, the value
    # has no prefix; the default (dual) deserializer resolves it by GUID.
    serializer = AvroSerializer(client, AVRO_V2, conf={"schema.id.serializer": header_schema_id_serializer})
    headers = []
    ctx = SerializationContext("g", MessageField.VALUE, headers)
    value = serializer({"a": 1, "b": "long enough"}, ctx)  # the deserializer wants 6+ bytes
    assert value[0] != 0 and [k for k, _ in headers] == ["__value_schema_id"]
    guid = client.get_latest_version("g-value").guid
    assert headers[0][1] == b"\x01" + __import__("uuid").UUID(guid).bytes
    fresh = SchemaRegistryClient({"url": registry_url})
    assert AvroDeserializer(fresh)(value, SerializationContext("g", MessageField.VALUE, headers)) == {
        "a": 1, "b": "long enough"}
