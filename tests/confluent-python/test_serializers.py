"""Confluent's serializers and deserializers against `karrow registry serve`: the Protobuf
serializer registers its schema (and its import) as base64 descriptors, which the registry
serves as `.proto` text and, under `format=serialized`, as the same descriptor; the
deserializers read back through the registry. Avro and JSON Schema round trips too."""

import base64
import json
from decimal import Decimal

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, timestamp_pb2
from google.protobuf.message_factory import GetMessageClass

F = descriptor_pb2.FieldDescriptorProto


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def add_field(message, name, number, kind, label=F.LABEL_OPTIONAL, type_name=None, optional=False):
    field = message.field.add(name=name, number=number, type=kind, label=label, json_name=camel(name))
    if type_name:
        field.type_name = type_name
    if optional:
        field.oneof_index = len(message.oneof_decl)
        field.proto3_optional = True
        message.oneof_decl.add(name="_" + name)
    return field


def shop_files():
    """Two files as protoc would describe them: shop/common.proto, and shop/order.proto which
    imports it and google/protobuf/timestamp.proto."""
    common = descriptor_pb2.FileDescriptorProto(name="shop/common.proto", package="shop.common", syntax="proto3")
    name = common.message_type.add(name="Name")
    add_field(name, "text", 1, F.TYPE_STRING)

    order = descriptor_pb2.FileDescriptorProto(name="shop/order.proto", package="shop", syntax="proto3")
    order.dependency.extend(["shop/common.proto", "google/protobuf/timestamp.proto"])
    first = order.message_type.add(name="Header")
    add_field(first, "source", 1, F.TYPE_STRING)
    msg = order.message_type.add(name="Order")
    add_field(msg, "id", 1, F.TYPE_INT64)
    add_field(msg, "customer", 2, F.TYPE_MESSAGE, type_name=".shop.common.Name")
    add_field(msg, "at", 3, F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp")
    add_field(msg, "lines", 4, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".shop.Order.Line")
    add_field(msg, "totals", 5, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".shop.Order.TotalsEntry")
    add_field(msg, "note", 6, F.TYPE_STRING, optional=True)
    add_field(msg, "status", 7, F.TYPE_ENUM, type_name=".shop.Order.Status")
    line = msg.nested_type.add(name="Line")
    add_field(line, "sku", 1, F.TYPE_STRING)
    add_field(line, "qty", 2, F.TYPE_INT32)
    entry = msg.nested_type.add(name="TotalsEntry")
    add_field(entry, "key", 1, F.TYPE_STRING)
    add_field(entry, "value", 2, F.TYPE_INT64)
    entry.options.map_entry = True
    status = msg.enum_type.add(name="Status")
    status.value.add(name="UNKNOWN", number=0)
    status.value.add(name="PAID", number=1)
    return common, order


def shop_classes():
    common, order = shop_files()
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(common)
    pool.Add(order)
    Order = GetMessageClass(pool.FindMessageTypeByName("shop.Order"))
    Line = GetMessageClass(pool.FindMessageTypeByName("shop.Order.Line"))
    return common, order, Order, Line


def test_protobuf_serializer_registers_descriptors_the_registry_serves_as_text_and_serialized(client, registry_url):
    common, order, Order, Line = shop_classes()
    ctx = SerializationContext("orders", MessageField.VALUE)
    serializer = ProtobufSerializer(Order, client, {"auto.register.schemas": True})
    value = Order(id=7, note="n", status=1)
    value.customer.text = "ada"
    value.at.seconds = 1_700_000_000
    value.lines.add(sku="s1", qty=2)
    value.totals["eur"] = 1250
    framed = serializer(value, ctx)

    # The import was registered under its own subject; the well-known import was skipped.
    assert sorted(client.get_subjects()) == ["orders-value", "shop/common.proto"]
    latest = client.get_latest_version("orders-value")
    assert [(r.name, r.subject, r.version) for r in latest.schema.references] == [
        ("shop/common.proto", "shop/common.proto", 1)
    ]
    # Framing: magic byte, the id, message index [1] (Order is the second message).
    assert framed[0] == 0 and int.from_bytes(framed[1:5], "big") == latest.schema_id
    assert framed[5:7] == b"\x02\x02"

    # Served as .proto text by default...
    text = latest.schema.schema_str
    assert text.startswith('syntax = "proto3";\n\npackage shop;\n\nimport "shop/common.proto";\nimport "google/protobuf/timestamp.proto";\n'), text
    for line in [
        "message Order {",
        "  common.Name customer = 2;",
        "  google.protobuf.Timestamp at = 3;",
        "  repeated Line lines = 4;",
        "  map<string, int64> totals = 5;",
        "  optional string note = 6;",
        "  Status status = 7;",
        "  enum Status {",
    ]:
        assert line in text, f"{line!r} not in:\n{text}"
    # ...which is the same schema: registering the text finds the same id.
    same = Schema(text, "PROTOBUF", latest.schema.references)
    assert client.register_schema("orders-value", same) == latest.schema_id
    assert client.get_versions("orders-value") == [1]

    # ...and as the descriptor under format=serialized, equal to the serializer's own.
    client.clear_caches()
    for fetched in (
        client.get_schema(latest.schema_id, fmt="serialized").schema_str,
        client.get_version("orders-value", 1, fmt="serialized").schema.schema_str,
    ):
        back = descriptor_pb2.FileDescriptorProto.FromString(base64.standard_b64decode(fetched))
        back.name = order.name
        assert back == order
    dep = client.get_version("shop/common.proto", 1, fmt="serialized").schema.schema_str
    back = descriptor_pb2.FileDescriptorProto.FromString(base64.standard_b64decode(dep))
    back.name = common.name
    assert back == common

    # Confluent's deserializer reads through the registry (format=serialized, references).
    fresh = SchemaRegistryClient({"url": registry_url})
    deserializer = ProtobufDeserializer(Order, {"use.deprecated.format": False}, fresh)
    assert deserializer(framed, ctx) == value

    # A nested message: index path [1, 0].
    line_serializer = ProtobufSerializer(Line, client, {"auto.register.schemas": True})
    line_ctx = SerializationContext("lines", MessageField.VALUE)
    line_framed = line_serializer(Line(sku="x", qty=1), line_ctx)
    assert line_framed[5:8] == b"\x04\x02\x00"
    assert ProtobufDeserializer(Line, {}, fresh)(line_framed, line_ctx) == Line(sku="x", qty=1)


def test_avro_and_json_serializers_round_trip(client, registry_url):
    avro_schema = json.dumps({
        "type": "record", "name": "Bid", "namespace": "t",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            {"name": "tag", "type": ["null", "string"], "default": None},
        ],
    })
    ctx = SerializationContext("bids", MessageField.VALUE)
    ser = AvroSerializer(client, avro_schema)
    record = {"id": 5, "price": Decimal("12.50"), "tag": None}
    framed = ser(record, ctx)
    fresh = SchemaRegistryClient({"url": registry_url})
    assert AvroDeserializer(fresh)(framed, ctx) == record
    assert client.get_latest_version("bids-value").schema.schema_type == "AVRO"

    json_schema = json.dumps({
        "$schema": "http://json-schema.org/draft-07/schema#", "title": "Row", "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}},
    })
    jctx = SerializationContext("rows", MessageField.VALUE)
    jser = JSONSerializer(json_schema, client)
    jframed = jser({"a": 1, "b": "x"}, jctx)
    assert JSONDeserializer(None, schema_registry_client=fresh)(jframed, jctx) == {"a": 1, "b": "x"}
    assert client.get_latest_version("rows-value").schema.schema_type == "JSON"
