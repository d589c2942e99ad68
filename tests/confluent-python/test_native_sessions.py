"""Confluent's serializers and deserializers against karrow's own format sessions (the Rust side
of the connector's JNI calls, driven by connector-java/native/examples/session_bridge.rs), with
the dev registry in between: Avro schema references, Protobuf schemas Confluent registers as
descriptors, and the JSON Schema karrow derives for non-finite doubles. Rows cross as
flink-json renders them; every field is compared."""

import base64
import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message_factory import GetMessageClass

from test_serializers import shop_classes

AVRO_DECODER, AVRO_ENCODER, JSON_ENCODER, PROTOBUF_DECODER, PROTOBUF_ENCODER = 1, 2, 4, 5, 6


def ty(name, nullable=True, **extra):
    return {"type": name, "nullable": nullable, **extra}


def string(nullable=True):
    return ty("VARCHAR", nullable, length=2147483647)


def row(*fields, nullable=False):
    return {"type": "ROW", "nullable": nullable, "fields": [{"name": n, "type": t} for n, t in fields]}


AMOUNT = json.dumps({
    "type": "record", "name": "Amount", "namespace": "money",
    "fields": [{"name": "units", "type": "long"}, {"name": "currency", "type": "string"}],
})
# Refers to money.Amount, registered under its own subject.
BID = json.dumps({
    "type": "record", "name": "Bid", "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "price", "type": "money.Amount"},
        {"name": "name", "type": ["null", "string"], "default": None},
        {"name": "score", "type": "double"},
    ],
})
BID_ROW = row(
    ("id", ty("BIGINT", False)),
    ("price", row(("units", ty("BIGINT", False)), ("currency", string(False)))),
    ("name", string()),
    ("score", ty("DOUBLE", False)),
)
BID_REFERENCES = [SchemaReference("money.Amount", "amount", 1)]
RECORDS = [
    {"id": 7, "price": {"units": 1250, "currency": "EUR"}, "name": "ada", "score": 0.5},
    {"id": -1, "price": {"units": 0, "currency": ""}, "name": None, "score": -2.25},
]


def registry_config(url, **extra):
    return {"url": url, "properties": {}, **extra}


def test_avro_with_references_written_by_confluent_read_by_karrow(client, registry_url, bridge):
    assert client.register_schema("amount", Schema(AMOUNT, "AVRO")) > 0
    serializer = AvroSerializer(client, Schema(BID, "AVRO", BID_REFERENCES))
    ctx = SerializationContext("bids", MessageField.VALUE)
    decoder = bridge("decode", AVRO_DECODER, {"row_type": BID_ROW, **registry_config(registry_url)})
    for record in RECORDS:
        value = serializer(record, ctx)
        assert decoder.decode(value) == [record]
    latest = client.get_latest_version("bids-value")
    assert [(r.name, r.subject, r.version) for r in latest.schema.references] == [("money.Amount", "amount", 1)]


def test_avro_with_references_written_by_karrow_read_by_confluent(client, registry_url, bridge):
    client.register_schema("amount", Schema(AMOUNT, "AVRO"))
    references = json.dumps([{"name": "money.Amount", "subject": "amount", "version": 1}])
    encoder = bridge("encode", AVRO_ENCODER, {
        "row_type": BID_ROW, **registry_config(registry_url), "subject": "karrow-bids-value",
        "schema": BID, "schema_references": references,
    })
    ctx = SerializationContext("karrow-bids", MessageField.VALUE)
    # Without a cached client: the deserializer fetches the writer schema and its reference.
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": registry_url}))
    for record in RECORDS:
        assert deserializer(encoder.encode(record), ctx) == record
    latest = client.get_latest_version("karrow-bids-value")
    assert [(r.name, r.subject, r.version) for r in latest.schema.references] == [("money.Amount", "amount", 1)]
    # An unknown reference fails when the encoder opens, naming it.
    broken = json.dumps([{"name": "money.Amount", "subject": "amount", "version": 5}])
    failing = bridge("encode", AVRO_ENCODER, {
        "row_type": BID_ROW, **registry_config(registry_url), "subject": "x-value",
        "schema": BID, "schema_references": broken,
    })
    with pytest.raises(RuntimeError, match=r"reference 'money.Amount' \(subject 'amount', version 5\)"):
        failing.encode(RECORDS[0])


ORDER_ROW = row(
    ("id", ty("BIGINT")),
    ("customer", row(("text", string()), nullable=True)),
    ("at", row(("seconds", ty("BIGINT")), ("nanos", ty("INT")), nullable=True)),
    ("lines", ty("ARRAY", element=row(("sku", string()), ("qty", ty("INT")), nullable=True))),
    ("totals", ty("MAP", key=string(), value=ty("BIGINT"))),
    ("note", string()),
    ("status", string()),
)
LINE_ROW = row(("sku", string()), ("qty", ty("INT")))


def protobuf_config(url, message="", **registry):
    return {"row_type": None, "message": message, "options": {}, "confluent": registry_config(url, **registry)}


def test_protobuf_descriptors_from_confluent_read_by_karrow_and_karrow_read_by_confluent(client, registry_url, bridge):
    _, _, Order, Line = shop_classes()
    # Confluent's serializer registers descriptors (the order and its import).
    serializer = ProtobufSerializer(Order, client, {"auto.register.schemas": True})
    ctx = SerializationContext("orders", MessageField.VALUE)
    value = Order(id=7, note="n", status=1)
    value.customer.text = "ada"
    value.at.seconds = 1_700_000_000
    value.at.nanos = 5
    value.lines.add(sku="s1", qty=2)
    value.lines.add(sku="s2", qty=-1)
    value.totals["eur"] = 1250
    config = protobuf_config(registry_url)
    config["row_type"] = ORDER_ROW
    decoder = bridge("decode", PROTOBUF_DECODER, config)
    assert decoder.decode(serializer(value, ctx)) == [{
        "id": 7, "customer": {"text": "ada"}, "at": {"seconds": 1_700_000_000, "nanos": 5},
        "lines": [{"sku": "s1", "qty": 2}, {"sku": "s2", "qty": -1}], "totals": {"eur": 1250},
        "note": "n", "status": "PAID",
    }]
    # A nested message (index path [1, 0]) of the same schema.
    line_serializer = ProtobufSerializer(Line, client, {"auto.register.schemas": True})
    line_ctx = SerializationContext("lines", MessageField.VALUE)
    config["row_type"] = LINE_ROW
    line_decoder = bridge("decode", PROTOBUF_DECODER, config)
    assert line_decoder.decode(line_serializer(Line(sku="x", qty=3), line_ctx)) == [{"sku": "x", "qty": 3}]

    # karrow writes with the schema it derives; Confluent's deserializer asks for it with
    # format=serialized and reads the values.
    encoder_config = protobuf_config(registry_url, subject="karrow-lines-value", schema=None)
    encoder_config["row_type"] = LINE_ROW
    encoder = bridge("encode", PROTOBUF_ENCODER, encoder_config)
    deserializer = ProtobufDeserializer(Line, {}, SchemaRegistryClient({"url": registry_url}))
    karrow_ctx = SerializationContext("karrow-lines", MessageField.VALUE)
    for sku, qty in [("a", 1), ("", 0), ("ü", -7)]:
        assert deserializer(encoder.encode({"sku": sku, "qty": qty}), karrow_ctx) == Line(sku=sku, qty=qty)


def test_derived_json_schema_admits_the_non_finite_doubles_json_writes(client, registry_url, bridge):
    values_row = row(("d", ty("DOUBLE")), ("f", ty("FLOAT", False)), ("dec", ty("DECIMAL", precision=5, scale=2)))
    encoder = bridge("encode", JSON_ENCODER, {
        "row_type": values_row, "confluent": registry_config(registry_url, subject="doubles-value", schema=None),
    })
    ctx = SerializationContext("doubles", MessageField.VALUE)
    # Confluent's deserializer validates each value against the writer schema from the registry.
    deserializer = JSONDeserializer(None, schema_registry_client=SchemaRegistryClient({"url": registry_url}))
    for d, f in [("NaN", "Infinity"), ("-Infinity", "NaN"), (1.5, -0.25), (None, 3.0)]:
        written = deserializer(encoder.encode({"d": d, "f": f, "dec": 1.25}), ctx)
        assert written == {"d": d, "f": f, "dec": 1.25}
    schema = json.loads(client.get_latest_version("doubles-value").schema.schema_str)
    floating = {"oneOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]}
    assert schema["properties"]["f"] == floating
    assert schema["properties"]["d"] == {"oneOf": [{"type": "null"}, floating]}
    # Any other string is still refused by the validating deserializer.
    other = b"\x00" + bytes.fromhex(encoder.encode({"d": 1, "f": 1, "dec": 1}).hex())[1:5] + b'{"d":"nan","f":1,"dec":1}'
    with pytest.raises(Exception, match="nan"):
        deserializer(other, ctx)


SIGNED = ('syntax = "proto3";\n\npackage karrow;\n\nimport "shop/common.proto";\n\n'
          'message Signed {\n  int64 id = 1;\n  shop.common.Name who = 2;\n}\n')


def test_protobuf_schema_importing_a_registered_subject_written_by_karrow_read_by_confluent(
        client, registry_url, bridge):
    common, _, _, _ = shop_classes()
    # The shared file, registered as Confluent's serializer registers an import: a descriptor
    # under a subject named after the file.
    client.register_schema("shop/common.proto", Schema(
        base64.standard_b64encode(common.SerializeToString()).decode(), "PROTOBUF"))
    references = json.dumps([{"name": "shop/common.proto", "subject": "shop/common.proto", "version": 1}])
    config = protobuf_config(registry_url, subject="signed-value", schema=SIGNED, schema_references=references)
    config["row_type"] = row(("id", ty("BIGINT")), ("who", row(("text", string()), nullable=True)))
    encoder = bridge("encode", PROTOBUF_ENCODER, config)
    values = [encoder.encode({"id": 5, "who": {"text": "ada"}}), encoder.encode({"id": -1, "who": None})]
    latest = client.get_latest_version("signed-value")
    assert latest.schema.schema_str == SIGNED
    assert [(r.name, r.subject, r.version) for r in latest.schema.references] == [
        ("shop/common.proto", "shop/common.proto", 1)]

    # Confluent's deserializer, with the class a user generates from the registered files.
    client.clear_caches()  # the client caches the latest version whatever the format
    serialized = client.get_latest_version("signed-value", fmt="serialized").schema.schema_str
    file = descriptor_pb2.FileDescriptorProto.FromString(base64.standard_b64decode(serialized))
    assert list(file.dependency) == ["shop/common.proto"]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(common)
    pool.Add(file)
    Signed = GetMessageClass(pool.FindMessageTypeByName("karrow.Signed"))
    expected = [Signed(id=5), Signed(id=-1)]
    expected[0].who.text = "ada"
    ctx = SerializationContext("signed", MessageField.VALUE)
    for deserializer in (ProtobufDeserializer(Signed, {}, SchemaRegistryClient({"url": registry_url})),
                         ProtobufDeserializer(Signed, {})):
        assert [deserializer(v, ctx) for v in values] == expected

    # A reference that names nothing fails when the encoder opens, naming it; references
    # without a schema are refused.
    broken = json.dumps([{"name": "shop/common.proto", "subject": "shop/common.proto", "version": 9}])
    failing = bridge("encode", PROTOBUF_ENCODER, {**config, "confluent": registry_config(
        registry_url, subject="x-value", schema=SIGNED, schema_references=broken)})
    with pytest.raises(RuntimeError, match=r"reference 'shop/common.proto' \(subject 'shop/common.proto', version 9\)"):
        failing.encode({"id": 1, "who": None})
    lonely = bridge("encode", PROTOBUF_ENCODER, {**config, "confluent": registry_config(
        registry_url, subject="y-value", schema=None, schema_references=references)})
    with pytest.raises(RuntimeError, match="without the 'schema'"):
        lonely.encode({"id": 1, "who": None})
