"""Confluent's Python client on a real Kafka broker, the peer of
connector-java's ConfluentPythonClientITCase (which runs karrow's formats in Flink SQL).

    kafka_peer.py produce <bootstrap> <registry-url> <case> <topic>
        Confluent's serializers write the case's values to <topic> (subject <topic>-value,
        references and several schema versions registered as the serializers do); stdout: the
        rows a reader must see, one JSON line each, in the rendering below.
    kafka_peer.py consume <bootstrap> <registry-url> <case> <topic> <count>
        reads <count> values from <topic> (every partition, from the start) with Confluent's
        deserializers; stdout: "with-registry <row>" and, where the deserializer can run without
        a registry client, "without-registry <row>" lines.

Rendering (so both sides compare values, not type names): a row is a JSON array of its fields
in column order, nested rows likewise; arrays are arrays, maps objects; bytes are lower-case hex;
DATE the epoch day, TIME milliseconds of the day, TIMESTAMP(3) epoch milliseconds (UTC); DECIMAL
the plain decimal text; FLOAT/DOUBLE numbers ("NaN" as a string). A failure exits non-zero with
the reason on stderr.
"""

import base64
import datetime
import json
import sys
import time
import uuid
from decimal import Decimal

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, timestamp_pb2
from google.protobuf.message_factory import GetMessageClass

EPOCH_DAY = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
COUNT = 40


def hexed(b):
    return None if b is None else bytes(b).hex()


def millis_of_day(t):
    return ((t.hour * 60 + t.minute) * 60 + t.second) * 1000 + t.microsecond // 1000


def epoch_millis(dt):
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return (dt - EPOCH) // datetime.timedelta(milliseconds=1)


# ---------------------------------------------------------------- Avro: references, evolution

AMOUNT = {
    "type": "record", "name": "Amount", "namespace": "money",
    "fields": [{"name": "units", "type": "long"}, {"name": "currency", "type": "string"}],
}
BID_FIELDS = [
    {"name": "id", "type": "long"},
    {"name": "price", "type": "money.Amount"},
    {"name": "name", "type": ["null", "string"], "default": None},
    {"name": "score", "type": "double"},
    {"name": "f", "type": "float"},
    {"name": "n", "type": "int"},
    {"name": "ok", "type": "boolean"},
    {"name": "raw", "type": "bytes"},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "t", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "lines", "type": {"type": "array", "items": {
        "type": "record", "name": "Line",
        "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
]
# Version 2 adds an optional field (BACKWARD compatible); the table reads both versions.
BID_V1 = {"type": "record", "name": "Bid", "namespace": "shop", "fields": BID_FIELDS}
BID_V2 = {**BID_V1, "fields": BID_FIELDS + [{"name": "note", "type": ["null", "string"], "default": None}]}


def avro_record(i):
    return {
        "id": i * 1000 - 7,
        "price": {"units": i * 13 - 100, "currency": ["EUR", "USD", "ü€"][i % 3]},
        "name": None if i % 4 == 0 else f"n{i}",
        "score": i / 8 - 2,
        "f": (i % 5) * 0.25 - 0.5,
        "n": -3 * i,
        "ok": i % 3 == 0,
        "raw": bytes([i, 255 - i, 0]),
        "tags": [f"t{j}" for j in range(i % 3)],
        "attrs": {f"k{j}": j * i for j in range(i % 2 + 1)},
        "day": datetime.date(2022, 1, 1) + datetime.timedelta(days=i * 37),
        "at": EPOCH + datetime.timedelta(milliseconds=1_700_000_000_000 + i * 1_000_001),
        "t": datetime.time(i % 24, (i * 7) % 60, (i * 11) % 60, (i * 1000) % 1_000_000 // 1000 * 1000),
        "dec": Decimal(i * 125 - 3000).scaleb(-2),
        "lines": [{"sku": f"s{j}", "qty": j - i} for j in range(i % 3)],
    }


def avro_row(r):
    return [
        r["id"], [r["price"]["units"], r["price"]["currency"]], r["name"], r["score"], r["f"], r["n"],
        r["ok"], hexed(r["raw"]), r["tags"], r["attrs"], (r["day"] - EPOCH_DAY).days,
        epoch_millis(r["at"]), millis_of_day(r["t"]), str(r["dec"]),
        [[line["sku"], line["qty"]] for line in r["lines"]], r.get("note"),
    ]


def produce_avro(client, topic):
    amount_subject = topic + "-amount"
    client.register_schema(amount_subject, Schema(json.dumps(AMOUNT), "AVRO"))
    references = [SchemaReference("money.Amount", amount_subject, 1)]
    writers = [
        AvroSerializer(client, Schema(json.dumps(BID_V1), "AVRO", references)),
        AvroSerializer(client, Schema(json.dumps(BID_V2), "AVRO", references)),
    ]
    values, rows = [], []
    for i in range(COUNT):
        record = avro_record(i)
        if i % 2:
            record["note"] = None if i % 3 == 0 else f"note {i}"
        values.append(writers[i % 2](record, value_context(topic)))
        rows.append(avro_row(record))
    versions = client.get_versions(topic + "-value")
    assert versions == [1, 2], versions
    return values, rows


# Written by karrow (avro-confluent-native, the schema derived from the table):
# id BIGINT NOT NULL, name STRING, score DOUBLE, f FLOAT, ok BOOLEAN, raw BYTES, tags ARRAY<STRING>,
# attrs MAP<STRING, BIGINT>, inner ROW<a INT, b STRING>, day DATE, at TIMESTAMP(3), dec DECIMAL(9, 2)
def karrow_avro_row(r):
    inner = r["inner"]
    return [
        r["id"], r["name"], r["score"], r["f"], r["ok"], hexed(r["raw"]), r["tags"], r["attrs"],
        None if inner is None else [inner["a"], inner["b"]],
        None if r["day"] is None else (r["day"] - EPOCH_DAY).days,
        None if r["at"] is None else epoch_millis(r["at"]),
        None if r["dec"] is None else str(r["dec"]),
    ]


def consume_avro(client, values, topic):
    deserializer = AvroDeserializer(client)
    return {"with-registry": [karrow_avro_row(deserializer(v, value_context(topic))) for v in values]}


# ---------------------------------------------------------------- Protobuf: descriptors, index paths

F = descriptor_pb2.FieldDescriptorProto


def add_field(message, name, number, kind, label=F.LABEL_OPTIONAL, type_name=None, optional=False):
    head, *rest = name.split("_")
    field = message.field.add(name=name, number=number, type=kind, label=label,
                              json_name=head + "".join(p[:1].upper() + p[1:] for p in rest))
    if type_name:
        field.type_name = type_name
    if optional:
        field.oneof_index = len(message.oneof_decl)
        field.proto3_optional = True
        message.oneof_decl.add(name="_" + name)


SCALARS = [
    ("d", F.TYPE_DOUBLE), ("f", F.TYPE_FLOAT), ("i32", F.TYPE_INT32), ("i64", F.TYPE_INT64),
    ("u32", F.TYPE_UINT32), ("u64", F.TYPE_UINT64), ("s32", F.TYPE_SINT32), ("s64", F.TYPE_SINT64),
    ("fx32", F.TYPE_FIXED32), ("fx64", F.TYPE_FIXED64), ("sfx32", F.TYPE_SFIXED32),
    ("sfx64", F.TYPE_SFIXED64), ("b", F.TYPE_BOOL), ("s", F.TYPE_STRING), ("by", F.TYPE_BYTES),
]


def shop_pool(version):
    """shop/order.proto (imports shop/common.proto, a subject of its own, and the well-known
    timestamp): [0] Header, [1] Order, [1, 0] Order.Line, [2] Scalars. Version 2 adds a field
    to Order."""
    common = descriptor_pb2.FileDescriptorProto(name="shop/common.proto", package="shop.common", syntax="proto3")
    add_field(common.message_type.add(name="Name"), "text", 1, F.TYPE_STRING)
    order = descriptor_pb2.FileDescriptorProto(name="shop/order.proto", package="shop", syntax="proto3")
    order.dependency.extend(["shop/common.proto", "google/protobuf/timestamp.proto"])
    add_field(order.message_type.add(name="Header"), "source", 1, F.TYPE_STRING)
    msg = order.message_type.add(name="Order")
    add_field(msg, "id", 1, F.TYPE_INT64)
    add_field(msg, "customer", 2, F.TYPE_MESSAGE, type_name=".shop.common.Name")
    add_field(msg, "at", 3, F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp")
    add_field(msg, "lines", 4, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".shop.Order.Line")
    add_field(msg, "totals", 5, F.TYPE_MESSAGE, F.LABEL_REPEATED, ".shop.Order.TotalsEntry")
    add_field(msg, "note", 6, F.TYPE_STRING, optional=True)
    add_field(msg, "status", 7, F.TYPE_ENUM, type_name=".shop.Order.Status")
    if version == 2:
        add_field(msg, "priority", 8, F.TYPE_INT32)
    line = msg.nested_type.add(name="Line")
    add_field(line, "sku", 1, F.TYPE_STRING)
    add_field(line, "qty", 2, F.TYPE_INT32)
    entry = msg.nested_type.add(name="TotalsEntry")
    add_field(entry, "key", 1, F.TYPE_STRING)
    add_field(entry, "value", 2, F.TYPE_INT64)
    entry.options.map_entry = True
    status = msg.enum_type.add(name="Status")
    for number, name in enumerate(["UNKNOWN", "PAID", "SHIPPED"]):
        status.value.add(name=name, number=number)
    scalars = order.message_type.add(name="Scalars")
    for number, (name, kind) in enumerate(SCALARS, start=1):
        add_field(scalars, name, number, kind)
    add_field(scalars, "rs", len(SCALARS) + 1, F.TYPE_SINT32, F.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(common)
    pool.Add(order)
    return lambda name: GetMessageClass(pool.FindMessageTypeByName(name))


def present(message, field, value):
    """What a presence-aware reader sees: an absent message or proto3 `optional` field is NULL."""
    return value if message.HasField(field) else None


def protobuf_header(i, cls):
    return cls(source=f"src-{i}" if i % 5 else ""), lambda m: [m.source]


def protobuf_line(i, cls):
    return cls(sku="" if i % 7 == 0 else f"sku{i}", qty=i * 3 - 50), lambda m: [m.sku, m.qty]


def protobuf_order(i, cls):
    m = cls(id=i * 11 - 3, status=i % 3)
    if i % 4:
        m.customer.text = f"c{i}"
    if i % 3:
        m.at.seconds = 1_700_000_000 + i
        m.at.nanos = i * 1000
    for j in range(i % 3):
        m.lines.add(sku=f"s{j}", qty=j - i)
    for j in range(i % 2 * 2):
        m.totals[f"k{j}"] = i * 100 + j
    if i % 5:
        m.note = "" if i % 5 == 1 else f"note {i}"
    if hasattr(m, "priority"):
        m.priority = i

    def row(m):
        return [
            m.id, present(m, "customer", [m.customer.text]),
            present(m, "at", [m.at.seconds, m.at.nanos]),
            [[line.sku, line.qty] for line in m.lines] or None,
            dict(m.totals) or None, present(m, "note", m.note),
            m.DESCRIPTOR.fields_by_name["status"].enum_type.values_by_number[m.status].name,
        ]
    return m, row


def protobuf_scalars(i, cls):
    k = i - COUNT // 2
    m = cls(d=k / 4, f=k * 0.5, i32=k * 1000, i64=k * 10**12, u32=i * 7, u64=i * 10**12,
            s32=-k, s64=-k * 10**12, fx32=i, fx64=i * 3, sfx32=k * 5, sfx64=k * 10**11,
            b=i % 2 == 1, s="ü" * (i % 3), by=bytes(range(i % 4)))
    m.rs.extend(range(k, k + i % 3))

    def row(m):
        return [m.d, m.f, m.i32, m.i64, m.u32, m.u64, m.s32, m.s64, m.fx32, m.fx64, m.sfx32, m.sfx64,
                m.b, m.s, hexed(m.by), list(m.rs) or None]
    return m, row


PROTOBUF_CASES = {
    "protobuf-header": ("shop.Header", protobuf_header),
    "protobuf-order": ("shop.Order", protobuf_order),
    "protobuf-line": ("shop.Order.Line", protobuf_line),
    "protobuf-scalars": ("shop.Scalars", protobuf_scalars),
}


def produce_protobuf(client, topic, case):
    name, build = PROTOBUF_CASES[case]
    # Order evolves: even values are written with version 1, odd ones with version 2.
    versions = [shop_pool(1)(name), shop_pool(2)(name)] if case == "protobuf-order" else [shop_pool(1)(name)]
    writers = [ProtobufSerializer(cls, client, {"auto.register.schemas": True, "use.deprecated.format": False})
               for cls in versions]
    values, rows = [], []
    for i in range(COUNT):
        message, row = build(i, versions[i % len(versions)])
        values.append(writers[i % len(writers)](message, value_context(topic)))
        rows.append(row(message))
    assert client.get_versions(topic + "-value") == list(range(1, len(versions) + 1))
    return values, rows


# Written by karrow (protobuf-confluent-native, the schema derived from the table):
# id BIGINT NOT NULL, name STRING, score DOUBLE, f FLOAT, ok BOOLEAN, raw BYTES, tags ARRAY<STRING>,
# attrs MAP<STRING, BIGINT>, inner ROW<a INT, b STRING>, n INT NOT NULL
def karrow_protobuf_row(m):
    inner = present(m, "inner", m.inner)
    return [
        m.id, present(m, "name", m.name), present(m, "score", m.score), present(m, "f", m.f),
        present(m, "ok", m.ok), present(m, "raw", hexed(m.raw)), list(m.tags) or None,
        dict(m.attrs) or None,
        None if inner is None else [present(inner, "a", inner.a), present(inner, "b", inner.b)], m.n,
    ]


# Written by karrow with the `schema` option importing shop/common.proto (`schema.references`):
# id BIGINT NOT NULL, who ROW<text STRING>, note STRING
def karrow_protobuf_signed_row(m):
    return [m.id, present(m, "who", [m.who.text]), present(m, "note", m.note)]


def registered_class(client, subject, message):
    """The class a user would generate from the registered schema and the files its
    references name (their descriptor forms, format=serialized)."""
    def file_of(schema_str):
        return descriptor_pb2.FileDescriptorProto.FromString(base64.standard_b64decode(schema_str))

    registered = client.get_latest_version(subject, fmt="serialized").schema
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    for ref in registered.references:
        imported = file_of(client.get_version(ref.subject, ref.version, fmt="serialized").schema.schema_str)
        imported.name = ref.name
        pool.Add(imported)
    file = file_of(registered.schema_str)
    file.name = "karrow_" + subject + ".proto"
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(message))


def consume_protobuf(client, values, topic, message="Row", render=karrow_protobuf_row):
    cls = registered_class(client, topic + "-value", message)
    ctx = value_context(topic)
    with_registry = ProtobufDeserializer(cls, {"use.deprecated.format": False}, client)
    without = ProtobufDeserializer(cls, {"use.deprecated.format": False})
    return {
        "with-registry": [render(with_registry(v, ctx)) for v in values],
        "without-registry": [render(without(v, ctx)) for v in values],
    }


def consume_protobuf_signed(client, values, topic):
    return consume_protobuf(client, values, topic, "karrow.Signed", karrow_protobuf_signed_row)


# ---------------------------------------------------------------- JSON Schema: evolution

JSON_PROPERTIES = {
    "id": {"type": "integer"},
    "name": {"type": ["string", "null"]},
    "score": {"type": "number"},
    "ok": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "attrs": {"type": "object", "additionalProperties": {"type": "integer"}},
    "inner": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
    "lines": {"type": "array", "items": {
        "type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}},
    "dec": {"type": "number"},
    "at": {"type": "string"},
}
JSON_V1 = {"$schema": "http://json-schema.org/draft-07/schema#", "title": "Reading", "type": "object",
           "properties": JSON_PROPERTIES, "required": ["id"]}
# Version 2 adds a field and takes `inner` from another subject (a schema reference).
JSON_INNER = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "inner.json",
              **JSON_PROPERTIES["inner"]}
JSON_V2 = {**JSON_V1, "properties": {**JSON_PROPERTIES, "inner": {"$ref": "inner.json"},
                                     "note": {"type": ["string", "null"]}}}


def json_record(i):
    at = EPOCH + datetime.timedelta(milliseconds=1_700_000_000_000 + i * 1_000_001)
    record = {
        "id": i * 1000 - 7,
        "name": None if i % 4 == 0 else f"n{i}",
        "score": i / 8 - 2,
        "ok": i % 3 == 0,
        "tags": [f"t{j}" for j in range(i % 3)],
        "attrs": {f"k{j}": j * i for j in range(i % 2 + 1)},
        "inner": {"a": i, "b": "ü" * (i % 3)},
        "lines": [{"sku": f"s{j}", "qty": j - i} for j in range(i % 3)],
        "dec": (i * 125 - 3000) / 100,
        "at": at.strftime("%Y-%m-%d %H:%M:%S.") + f"{at.microsecond // 1000:03d}",
    }
    row = [
        record["id"], record["name"], record["score"], record["ok"], record["tags"], record["attrs"],
        [i, record["inner"]["b"]], [[line["sku"], line["qty"]] for line in record["lines"]],
        f"{record['dec']:.2f}", epoch_millis(at), None,
    ]
    if i % 2:
        record["note"] = None if i % 3 == 0 else f"note {i}"
        row[-1] = record["note"]
    return record, row


def produce_json(client, topic):
    client.register_schema(topic + "-inner", Schema(json.dumps(JSON_INNER), "JSON"))
    references = [SchemaReference("inner.json", topic + "-inner", 1)]
    writers = [JSONSerializer(json.dumps(JSON_V1), client),
               JSONSerializer(Schema(json.dumps(JSON_V2), "JSON", references), client)]
    values, rows = [], []
    for i in range(COUNT):
        record, row = json_record(i)
        values.append(writers[i % 2](record, value_context(topic)))
        rows.append(row)
    assert client.get_versions(topic + "-value") == [1, 2]
    assert [r.subject for r in client.get_version(topic + "-value", 2).schema.references] == [topic + "-inner"]
    return values, rows


# Written by karrow (json-confluent-native, the schema derived from the table):
# id BIGINT NOT NULL, name STRING, score DOUBLE, f FLOAT, ok BOOLEAN, tags ARRAY<STRING>,
# attrs MAP<STRING, BIGINT>, inner ROW<a INT, b STRING>, day DATE, at TIMESTAMP(3), dec DECIMAL(9, 2)
def karrow_json_row(r):
    def at(text):
        # flink-json's SQL timestamp text: the fraction as short as it can be, none when zero.
        pattern = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
        return epoch_millis(datetime.datetime.strptime(text, pattern))

    inner = r.get("inner")
    return [
        r["id"], r.get("name"), r.get("score"), r.get("f"), r.get("ok"), r.get("tags"), r.get("attrs"),
        None if inner is None else [inner.get("a"), inner.get("b")],
        None if r.get("day") is None else (datetime.date.fromisoformat(r["day"]) - EPOCH_DAY).days,
        None if r.get("at") is None else at(r["at"]),
        None if r.get("dec") is None else f"{Decimal(str(r['dec'])):.2f}",
    ]


def consume_json(client, values, topic):
    ctx = value_context(topic)
    # Validating against the writer schema from the registry, and against that schema given.
    schema = client.get_latest_version(topic + "-value").schema.schema_str
    with_registry = JSONDeserializer(None, schema_registry_client=client)
    without = JSONDeserializer(schema)
    return {
        "with-registry": [karrow_json_row(with_registry(v, ctx)) for v in values],
        "without-registry": [karrow_json_row(without(v, ctx)) for v in values],
    }


# ---------------------------------------------------------------- Kafka

def value_context(topic):
    return SerializationContext(topic, MessageField.VALUE)


def produce(bootstrap, values, topic):
    failures = []
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for value in values:
        producer.produce(topic, value=value, on_delivery=lambda err, _msg: err and failures.append(err))
        producer.poll(0)
    if producer.flush(60) or failures:
        raise RuntimeError(f"produce to {topic} failed: {failures or 'not all delivered in 60 s'}")


def consume(bootstrap, topic, count):
    """The values of every partition of `topic` from the start, in partition then offset order."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"karrow-peer-{uuid.uuid4()}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    try:
        partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        got = []
        deadline = time.monotonic() + 60  # a safety net against a hang, not an assertion on speed
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                raise KafkaException(msg.error())
            got.append((msg.partition(), msg.offset(), msg.value()))
        if len(got) != count:
            raise RuntimeError(f"read {len(got)} of {count} values from {topic}")
        return [value for _, _, value in sorted(got, key=lambda g: g[:2])]
    finally:
        consumer.close()


def main(argv):
    command, bootstrap, url, case, topic, *rest = argv
    client = SchemaRegistryClient({"url": url})
    if command == "produce":
        if case == "avro":
            values, rows = produce_avro(client, topic)
        elif case == "json":
            values, rows = produce_json(client, topic)
        else:
            values, rows = produce_protobuf(client, topic, case)
        produce(bootstrap, values, topic)
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
    elif command == "consume":
        values = consume(bootstrap, topic, int(rest[0]))
        read = {"avro": consume_avro, "protobuf": consume_protobuf,
                "protobuf-refs": consume_protobuf_signed, "json": consume_json}[case]
        for variant, rows in read(client, values, topic).items():
            for row in rows:
                print(variant, json.dumps(row, ensure_ascii=False))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
