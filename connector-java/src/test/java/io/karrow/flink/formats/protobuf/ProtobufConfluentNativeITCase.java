package io.karrow.flink.formats.protobuf;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.topicWith;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedInBatches;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedPerRecord;
import static io.karrow.flink.testutils.SqlTestSupport.nameNextJobs;
import static io.karrow.flink.testutils.SqlTestSupport.messages;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code protobuf-confluent-native} from Flink SQL against a real broker ({@code
 * -Dkarrow.kafka.bootstrap}) and the dev registry, parallelism 2: an {@code INSERT} registers a PROTOBUF
 * schema and the rows read back equal the rows written; values built here by hand from the documented
 * wire format ({@code 0x00}, the schema id, the message-index array, the message) with a schema that
 * imports another registered subject decode to the expected rows for a top-level and a nested index
 * path; bad headers fail naming the record or are skipped under {@code ignore-parse-errors}, unknown
 * schema ids always fail naming the id.
 */
class ProtobufConfluentNativeITCase {

    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    private static final String FORMAT = ProtobufConfluentNativeFormatFactory.IDENTIFIER;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    /** Imported by {@link #SHOP} as {@code common.proto}. */
    private static final String COMMON = "syntax = \"proto3\";\npackage common;\n"
            + "message Money { int64 cents = 1; string currency = 2; }\n";

    /**
     * Message paths: [0] Ignored, [1] Order, [1, 0] Order.Line (the map field's entry type, declared
     * before Line, is not counted), [2] Refund.
     */
    private static final String SHOP = "syntax = \"proto3\";\npackage shop;\nimport \"common.proto\";\n"
            + "message Ignored { string x = 1; }\n"
            + "message Order {\n"
            + "  int64 id = 1;\n"
            + "  common.Money price = 2;\n"
            + "  repeated string tags = 3;\n"
            + "  map<string, int32> counts = 4;\n"
            + "  enum Kind { KIND_UNSPECIFIED = 0; }\n"
            + "  message Line { string sku = 1; int64 qty = 2; common.Money price = 3; }\n"
            + "}\n"
            + "message Refund { int64 id = 1; }\n";

    @RegisterExtension
    static final DevRegistry registry = DevRegistry.perClass();
    private static int shopId;

    @BeforeAll
    static void setUp() throws Exception {
        KafkaTestSupport.requireBroker();
        registry.register("pcn-common-value", "PROTOBUF", COMMON);
        shopId = registerWithReference("pcn-shop-value", SHOP, "common.proto", "pcn-common-value", 1);
    }

    /** Registers a PROTOBUF schema with one reference (the test registry helper has none). */
    private static int registerWithReference(String subject, String schema, String name, String refSubject,
            int version) throws IOException, InterruptedException {
        ObjectNode payload = JSON.createObjectNode().put("schemaType", "PROTOBUF").put("schema", schema);
        payload.putArray("references").addObject().put("name", name).put("subject", refSubject)
                .put("version", version);
        HttpRequest request = HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/"
                        + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(payload)))
                .build();
        HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("id").asInt();
    }

    // ---- the wire format, by hand ----

    /** A zig-zag varint as Kafka's {@code ByteUtils.writeVarint} writes it. */
    private static void zigZag(ByteArrayOutputStream out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7f) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    /** {@code 0x00}, the id (big-endian), the message indexes ({@code 00} for [0]), the message. */
    static byte[] framed(int id, int[] path, byte[] message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ByteBuffer.allocate(5).put((byte) 0).putInt(id).array());
        if (path.length == 1 && path[0] == 0) {
            out.write(0);
        } else {
            zigZag(out, path.length);
            for (int index : path) {
                zigZag(out, index);
            }
        }
        out.writeBytes(message);
        return out.toByteArray();
    }

    /** Protobuf bytes written field by field. */
    private interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] message(Fields fields) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            fields.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] money(long cents, String currency) {
        return message(out -> {
            out.writeInt64(1, cents);
            out.writeString(2, currency);
        });
    }

    /** An Order; a {@code null} price or empty tags leave the field out. */
    private static byte[] order(long id, byte[] price, List<String> tags, Map<String, Integer> counts) {
        return message(out -> {
            out.writeInt64(1, id);
            if (price != null) {
                out.writeByteArray(2, price);
            }
            for (String tag : tags) {
                out.writeString(3, tag);
            }
            for (Map.Entry<String, Integer> e : counts.entrySet()) {
                out.writeByteArray(4, message(entry -> {
                    entry.writeString(1, e.getKey());
                    entry.writeInt32(2, e.getValue());
                }));
            }
        });
    }

    private static byte[] line(String sku, long qty, byte[] price) {
        return message(out -> {
            out.writeString(1, sku);
            out.writeInt64(2, qty);
            out.writeByteArray(3, price);
        });
    }

    private static String table(String name, String connector, String topic, String columns, String extraOptions) {
        return "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = '" + connector + "',"
                + " 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + " 'properties.group.id' = 'pcn-it', 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset', 'value.format' = '" + FORMAT + "',"
                + " 'value." + FORMAT + ".url' = '" + registry.url() + "'" + extraOptions + ")";
    }

    // ---- (1) INSERT, then SELECT back ----

    private static final String ROUND_TRIP_COLUMNS = "id BIGINT NOT NULL, name STRING, ok BOOLEAN, n INT,"
            + " f FLOAT, d DOUBLE, payload BYTES, tags ARRAY<STRING>, attrs MAP<STRING, INT>,"
            + " address ROW<street STRING, zip INT>, items ARRAY<ROW<sku STRING, qty BIGINT>>";

    @Test
    void insertRegistersAProtobufSchemaAndSelectReadsTheRowsBack() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        String viaKafka = createTopic("pcn-roundtrip", 3);
        String viaNative = createTopic("pcn-roundtrip-native", 3);
        tEnv.executeSql(table("rt_kafka", "kafka", viaKafka, ROUND_TRIP_COLUMNS, ""));
        tEnv.executeSql(table("rt_native", "kafka-native", viaNative, ROUND_TRIP_COLUMNS, ""));
        String values = " VALUES"
                + " (1, 'a', TRUE, 7, CAST(1.5 AS FLOAT), 2.25, X'00ff', ARRAY['x', 'y'], MAP['k', 1],"
                + "  ROW('main', 1000), ARRAY[ROW('s1', CAST(2 AS BIGINT)), ROW('s2', CAST(3 AS BIGINT))]),"
                + " (2, 'b\u00fc', FALSE, -1, CAST(-0.5 AS FLOAT), -1e10, X'', ARRAY['z'], MAP['a', 2, 'b', 3],"
                + "  ROW('side', 0), ARRAY[ROW('s3', CAST(-4 AS BIGINT))]),"
                // NULL scalars are left out of the message (optional fields) and read back as NULL;
                // NULL nested row, array and map stay NULL.
                + " (3, CAST(NULL AS STRING), CAST(NULL AS BOOLEAN), CAST(NULL AS INT), CAST(NULL AS FLOAT),"
                + "  CAST(NULL AS DOUBLE), CAST(NULL AS BYTES), CAST(NULL AS ARRAY<STRING>),"
                + "  CAST(NULL AS MAP<STRING, INT>), CAST(NULL AS ROW<street STRING, zip INT>),"
                + "  CAST(NULL AS ARRAY<ROW<sku STRING, qty BIGINT>>))";
        var statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO rt_kafka" + values);
        statements.addInsertSql("INSERT INTO rt_native" + values);
        String insertJob = nameNextJobs(tEnv, "pcn-insert");
        statements.execute().await();
        // Both sinks encoded their three rows natively: per record (kafka) and in a batch (kafka-native).
        assertThat(CollectedMetrics.sum(insertJob, "karrow", "numRecordsEncoded"))
                .as("rows the two native sinks encoded").isEqualTo(6);

        Map<Row, Integer> expected = new HashMap<>();
        expected.put(Row.of(1L, "a", true, 7, 1.5f, 2.25, new byte[] {0, (byte) 0xff}, new String[] {"x", "y"},
                Map.of("k", 1), Row.of("main", 1000),
                new Row[] {Row.of("s1", 2L), Row.of("s2", 3L)}), 1);
        expected.put(Row.of(2L, "b\u00fc", false, -1, -0.5f, -1e10, new byte[0], new String[] {"z"},
                Map.of("a", 2, "b", 3), Row.of("side", 0), new Row[] {Row.of("s3", -4L)}), 1);
        expected.put(Row.of(3L, null, null, null, null, null, null, null, null, null, null), 1);
        for (String[] read : new String[][] {{"rt_kafka", viaKafka}, {"rt_native", viaNative}}) {
            assertThat(normalized(collectNatively(tEnv, read[0], 3))).as(read[0]).isEqualTo(normalized(expected));
            JsonNode latest = registry.latestVersion(read[1] + "-value");
            assertThat(latest.get("schemaType").asText()).isEqualTo("PROTOBUF");
            assertThat(latest.get("schema").asText()).startsWith("syntax = \"proto3\";").contains("message Row {")
                    .contains("int64 id = 1;").contains("optional string name = 2;");
            int id = latest.get("id").asInt();
            for (ConsumerRecord<byte[], byte[]> record : KafkaTestSupport.readAll(read[1], false)) {
                // The header of the registered id and the index path [0] as the single byte 00.
                assertThat(Arrays.copyOfRange(record.value(), 0, 6)).isEqualTo(framed(id, new int[] {0}, new byte[0]));
            }
        }
    }

    /**
     * {@code SELECT *} from {@code table} of a topic of {@code records} records, asserting that the
     * native format decoded them: in batches behind {@code kafka-native} (a table named {@code
     * *_native}), per record behind Flink's {@code kafka} connector (the others).
     */
    private static Map<Row, Integer> collectNatively(StreamTableEnvironment tEnv, String table, long records)
            throws Exception {
        String query = "SELECT * FROM " + table;
        return table.endsWith("_native")
                ? collectDecodedInBatches(tEnv, query, records)
                : collectDecodedPerRecord(tEnv, query, records);
    }

    /** Rows with arrays rendered as lists, so that multisets compare by content. */
    private static Map<String, Integer> normalized(Map<Row, Integer> rows) {
        Map<String, Integer> out = new HashMap<>();
        rows.forEach((row, n) -> out.merge(render(row), n, Integer::sum));
        return out;
    }

    private static String render(Object value) {
        if (value instanceof Row) {
            Row row = (Row) value;
            List<String> fields = new ArrayList<>();
            for (int i = 0; i < row.getArity(); i++) {
                fields.add(render(row.getField(i)));
            }
            return "Row" + fields;
        }
        if (value instanceof byte[]) {
            return "bytes" + Arrays.toString((byte[]) value);
        }
        if (value instanceof Object[]) {
            List<String> elements = new ArrayList<>();
            for (Object element : (Object[]) value) {
                elements.add(render(element));
            }
            return "array" + elements;
        }
        if (value instanceof Map) {
            Map<String, String> sorted = new java.util.TreeMap<>();
            ((Map<?, ?>) value).forEach((k, v) -> sorted.put(render(k), render(v)));
            return "map" + sorted;
        }
        return String.valueOf(value);
    }

    // ---- (2) values built by hand: references, top-level and nested index paths ----

    @Test
    void handBuiltValuesDecodeByTheirIndexPathWithAReferencedSchema() throws Exception {
        byte[] usd = money(1999, "USD");
        String orders = topicWith("pcn-hand-orders", List.of(
                framed(shopId, new int[] {1}, order(10, usd, List.of("a", "b"), Map.of("k", 5))),
                framed(shopId, new int[] {1}, order(11, null, List.of(), Map.of())),
                // The long form 02 00 of [0] would be Ignored, not Order; [1] written as 02 02.
                framed(shopId, new int[] {1}, new byte[0])));
        String lines = topicWith("pcn-hand-lines", List.of(
                framed(shopId, new int[] {1, 0}, line("sku-1", 3, money(5, "EUR"))),
                framed(shopId, new int[] {1, 0}, line("sku-2", -7, usd))));
        StreamTableEnvironment tEnv = tableEnv();
        String orderColumns = "id BIGINT, price ROW<cents BIGINT, currency STRING>, tags ARRAY<STRING>,"
                + " counts MAP<STRING, INT>";
        String lineColumns = "sku STRING, qty BIGINT, price ROW<cents BIGINT, currency STRING>";
        tEnv.executeSql(table("orders_kafka", "kafka", orders, orderColumns, ""));
        tEnv.executeSql(table("orders_native", "kafka-native", orders, orderColumns, ""));
        tEnv.executeSql(table("lines_kafka", "kafka", lines, lineColumns, ""));
        tEnv.executeSql(table("lines_native", "kafka-native", lines, lineColumns, ""));

        Map<Row, Integer> expectedOrders = new HashMap<>();
        expectedOrders.put(Row.of(10L, Row.of(1999L, "USD"), new String[] {"a", "b"}, Map.of("k", 5)), 1);
        // proto3: absent message, repeated and map fields are NULL; absent scalars are defaults.
        expectedOrders.put(Row.of(11L, null, null, null), 1);
        expectedOrders.put(Row.of(0L, null, null, null), 1);
        Map<Row, Integer> expectedLines = new HashMap<>();
        expectedLines.put(Row.of("sku-1", 3L, Row.of(5L, "EUR")), 1);
        expectedLines.put(Row.of("sku-2", -7L, Row.of(1999L, "USD")), 1);
        for (String t : List.of("orders_kafka", "orders_native")) {
            assertThat(normalized(collectNatively(tEnv, t, 3))).as(t).isEqualTo(normalized(expectedOrders));
        }
        for (String t : List.of("lines_kafka", "lines_native")) {
            assertThat(normalized(collectNatively(tEnv, t, 2))).as(t).isEqualTo(normalized(expectedLines));
        }
    }

    // ---- (3) errors ----

    @Test
    void badHeadersFailNamingTheRecordOrAreSkippedWhenIgnoringParseErrors() throws Exception {
        byte[] good0 = framed(shopId, new int[] {2}, message(out -> out.writeInt64(1, 0)));
        byte[] good1 = framed(shopId, new int[] {2}, message(out -> out.writeInt64(1, 1)));
        byte[] badMagic = message(out -> out.writeInt64(1, 2));
        byte[] outOfRange = framed(shopId, new int[] {7}, message(out -> out.writeInt64(1, 3)));
        byte[] good4 = framed(shopId, new int[] {2}, message(out -> out.writeInt64(1, 4)));
        String magicTopic = topicWith("pcn-bad-magic", List.of(good0, good1, badMagic, good4));
        String rangeTopic = topicWith("pcn-out-of-range", List.of(good0, outOfRange, good4));
        String both = topicWith("pcn-bad-both", List.of(good0, badMagic, outOfRange, new byte[] {0, 0}, good4));
        StreamTableEnvironment tEnv = tableEnv();
        String ignore = ", 'value." + FORMAT + ".ignore-parse-errors' = 'true'";
        tEnv.executeSql(table("magic_native", "kafka-native", magicTopic, "id BIGINT", ""));
        tEnv.executeSql(table("magic_kafka", "kafka", magicTopic, "id BIGINT", ""));
        tEnv.executeSql(table("range_native", "kafka-native", rangeTopic, "id BIGINT", ""));
        tEnv.executeSql(table("both_ignored", "kafka-native", both, "id BIGINT", ignore));
        tEnv.executeSql(table("both_ignored_kafka", "kafka", both, "id BIGINT", ignore));

        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM magic_native"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + magicTopic + "', partition 0, offset 2")
                        .contains("Unknown data format. Magic number does not match"));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM magic_kafka"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("Failed to deserialize PB object.")
                        .contains("Unknown data format. Magic number does not match"));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM range_native"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + rangeTopic + "', partition 0, offset 1")
                        .contains("index 7 is out of range")
                        .contains("schema id " + shopId));
        // Skipped, not failed: all five values reached native code, in a batch or one by one.
        assertThat(collectDecodedInBatches(tEnv, "SELECT id FROM both_ignored", 5))
                .isEqualTo(Map.of(Row.of(0L), 1, Row.of(4L), 1));
        assertThat(collectDecodedPerRecord(tEnv, "SELECT id FROM both_ignored_kafka", 5))
                .isEqualTo(Map.of(Row.of(0L), 1, Row.of(4L), 1));
    }

    @Test
    void unknownSchemaIdsFailNamingTheIdEvenWhenIgnoringParseErrors() throws Exception {
        int unknown = shopId + 4242;
        byte[] good = framed(shopId, new int[] {2}, message(out -> out.writeInt64(1, 1)));
        String topic = topicWith("pcn-unknown-id", List.of(good, framed(unknown, new int[] {0}, new byte[0]), good));
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(table("unknown_native", "kafka-native", topic, "id BIGINT", ""));
        tEnv.executeSql(table("unknown_ignored", "kafka", topic, "id BIGINT",
                ", 'value." + FORMAT + ".ignore-parse-errors' = 'true'"));
        String named = "Could not find schema with id " + unknown + " in registry";
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM unknown_native"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + topic + "', partition 0, offset 1")
                        .contains(named));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM unknown_ignored"))
                .satisfies(t -> assertThat(messages(t)).contains(named));
    }

    @Test
    void aTableTypeWithoutADerivableSchemaFailsAtPlanning() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        String topic = createTopic("pcn-underivable", 1);
        tEnv.executeSql(table("underivable", "kafka", topic, "id BIGINT, price DECIMAL(10, 2)", ""));
        assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO underivable VALUES (1, 2.5)").await())
                .satisfies(t -> assertThat(messages(t))
                        .contains("cannot derive a Protobuf schema for column 'price'"));
    }
}
