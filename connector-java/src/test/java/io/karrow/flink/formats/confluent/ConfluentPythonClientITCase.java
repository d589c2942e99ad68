package io.karrow.flink.formats.confluent;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * karrow's Confluent formats and Confluent's own Python client ({@code confluent-kafka}, its
 * serializers and deserializers, {@link ConfluentPythonPeer}) on one real broker ({@code
 * -Dkarrow.kafka.bootstrap}) and the dev registry over HTTP, in both directions, every field
 * compared:
 * <ul>
 *   <li>Confluent's serializers write (Avro with a reference to another subject and two schema
 *       versions; Protobuf registered as descriptors with an imported subject, at the message-index
 *       paths [0], [1] (two versions), [1, 0] and [2], every scalar type; JSON Schema in two
 *       versions, the second with a reference), karrow reads through {@code kafka}, {@code
 *       kafka-native} and {@code kafka-native} with the native fetch: the rows Confluent's side
 *       says it wrote (for Avro also Flink's {@code avro-confluent} through the oracle
 *       format).</li>
 *   <li>karrow writes through {@code kafka} and {@code kafka-native} with the schema it derives
 *       (and, for Protobuf, with a {@code schema} that imports a registered subject through {@code
 *       schema.references}), Confluent's deserializers read (with a fresh registry client, and for
 *       Protobuf and JSON also without one): the rows the query wrote.</li>
 * </ul>
 */
class ConfluentPythonClientITCase {

    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    /** Reports to {@link CollectedMetrics}, so the native fetch is seen to engage. */
    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    @BeforeAll
    static void setUp() throws Exception {
        ConfluentPythonPeer.requireClient();
    }

    private static final String PROTOBUF = "protobuf-confluent-native";

    /** The peer's cases (kafka_peer.py), the format karrow reads them with, and the table's columns. */
    static Stream<Arguments> confluentWrites() {
        return Stream.of(
                Arguments.of("avro", "avro-confluent-native",
                        "id BIGINT, price ROW<units BIGINT, currency STRING>, name STRING, score DOUBLE, f FLOAT,"
                                + " n INT, ok BOOLEAN, `raw` BYTES, tags ARRAY<STRING>, attrs MAP<STRING, BIGINT>,"
                                + " `day` DATE, `at` TIMESTAMP(3), t TIME(3), `dec` DECIMAL(9, 2),"
                                + " lines ARRAY<ROW<sku STRING, qty INT>>, note STRING"),
                Arguments.of("protobuf-header", PROTOBUF, "source STRING"),
                Arguments.of("protobuf-order", PROTOBUF,
                        "id BIGINT, customer ROW<text STRING>, `at` ROW<seconds BIGINT, nanos INT>,"
                                + " lines ARRAY<ROW<sku STRING, qty INT>>, totals MAP<STRING, BIGINT>, note STRING,"
                                + " status STRING"),
                Arguments.of("protobuf-line", PROTOBUF, "sku STRING, qty INT"),
                Arguments.of("protobuf-scalars", PROTOBUF,
                        "d DOUBLE, f FLOAT, i32 INT, i64 BIGINT, u32 INT, u64 BIGINT, s32 INT, s64 BIGINT,"
                                + " fx32 INT, fx64 BIGINT, sfx32 INT, sfx64 BIGINT, b BOOLEAN, s STRING, `by` BYTES,"
                                + " rs ARRAY<INT>"),
                Arguments.of("json", "json-confluent-native",
                        "id BIGINT, name STRING, score DOUBLE, ok BOOLEAN, tags ARRAY<STRING>,"
                                + " attrs MAP<STRING, BIGINT>, `inner` ROW<a INT, b STRING>,"
                                + " lines ARRAY<ROW<sku STRING, qty INT>>, `dec` DECIMAL(9, 2), `at` TIMESTAMP(3),"
                                + " note STRING"));
    }

    private static String source(String table, String connector, String fetchMode, String topic, String format,
            String columns) {
        return "CREATE TABLE " + table + " (" + columns + ") WITH ("
                + "'connector' = '" + connector + "', 'topic' = '" + topic + "', " + fetchMode
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'properties.group.id' = 'karrow-confluent-python-it',"
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                + "'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + ENV.registry().url() + "')";
    }

    private static List<JsonNode> rendered(StreamTableEnvironment tEnv, String query) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            it.forEachRemaining(r -> rows.add(ConfluentPythonPeer.render(r)));
        }
        return rows;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("confluentWrites")
    void confluentSerializersWriteKarrowReads(String kase, String format, String columns) throws Exception {
        String topic = createTopic("confluent-py-" + kase, 2);
        List<JsonNode> written = ConfluentPythonPeer.produce(BOOTSTRAP, ENV.registry().url(), kase, topic);
        assertThat(written).hasSize(40);
        Map<JsonNode, Integer> expected = ConfluentPythonPeer.multiset(written);
        StreamTableEnvironment tEnv = tableEnv();
        List<String[]> tables = new ArrayList<>(List.of(
                new String[] {"per_record", "kafka", "", format},
                new String[] {"batched", "kafka-native", "", format},
                new String[] {"fetched", "kafka-native", "'scan.fetch-mode' = 'native',", format}));
        if (kase.equals("avro")) {
            // Flink's own avro-confluent (flink-avro's registry path; its test-scope Confluent
            // client stand-in resolves references as Confluent's client does).
            tables.add(new String[] {"flink_avro", "kafka", "", "avro-confluent-reference"});
        }
        // One job reads every table (fewer jobs, same sources), each row tagged with its table.
        List<String> selects = new ArrayList<>();
        for (String[] t : tables) {
            tEnv.executeSql(source(t[0], t[1], t[2], topic, t[3], columns));
            selects.add("SELECT CAST('" + t[0] + "' AS STRING) AS via, * FROM " + t[0]);
        }
        String job = "confluent-py-read-" + kase + "-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", job);
        Map<String, List<JsonNode>> byTable = new HashMap<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(String.join(" UNION ALL ", selects)).collect()) {
            it.forEachRemaining(r -> {
                Row fields = new Row(r.getArity() - 1);
                for (int i = 1; i < r.getArity(); i++) {
                    fields.setField(i - 1, r.getField(i));
                }
                byTable.computeIfAbsent((String) r.getField(0), k -> new ArrayList<>())
                        .add(ConfluentPythonPeer.render(fields));
            });
        }
        for (String[] t : tables) {
            assertThat(ConfluentPythonPeer.multiset(byTable.getOrDefault(t[0], List.of())))
                    .as("%s read by %s through %s %s", kase, t[3], t[1], t[2])
                    .isEqualTo(expected);
        }
        // The kafka-native tables decoded natively, one of them fetching natively too.
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsDecoded")).isEqualTo(2L * written.size());
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsFetchedNatively")).isEqualTo(written.size());
    }

    /** karrow's sink columns per format, and the rows written (with NULLs, an empty string, non-ASCII). */
    static Stream<Arguments> karrowWrites() {
        String avro = "id BIGINT NOT NULL, name STRING, score DOUBLE, f FLOAT, ok BOOLEAN, `raw` BYTES,"
                + " tags ARRAY<STRING>, attrs MAP<STRING, BIGINT>, `inner` ROW<a INT, b STRING>, `day` DATE,"
                + " `at` TIMESTAMP(3), `dec` DECIMAL(9, 2)";
        String avroRows = "(1, 'ada', 0.5, 0.25, TRUE, X'00ff10', ARRAY['a', 'b'], MAP['k', 5], ROW(7, 'ü'),"
                + " DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59.999', 12.50),"
                + "(2, CAST(NULL AS STRING), -1e300, -0.5, FALSE, X'', ARRAY[''], MAP['x', -1, 'y', 0],"
                + " ROW(CAST(NULL AS INT), ''), DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.001', -0.01),"
                + "(3, '', CAST(NULL AS DOUBLE), CAST(NULL AS FLOAT), CAST(NULL AS BOOLEAN), CAST(NULL AS BYTES),"
                + " CAST(NULL AS ARRAY<STRING>), CAST(NULL AS MAP<STRING, BIGINT>), CAST(NULL AS ROW<a INT, b STRING>),"
                + " CAST(NULL AS DATE), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS DECIMAL(9, 2)))";
        String protobuf = "id BIGINT NOT NULL, name STRING, score DOUBLE, f FLOAT, ok BOOLEAN, `raw` BYTES,"
                + " tags ARRAY<STRING>, attrs MAP<STRING, BIGINT>, `inner` ROW<a INT, b STRING>, n INT NOT NULL";
        // Protobuf cannot tell an empty repeated or map field from an absent one: none are empty here.
        String protobufRows = "(1, 'ada', 0.5, 0.25, TRUE, X'00ff10', ARRAY['a', ''], MAP['k', 5], ROW(7, 'ü'), 3),"
                + "(2, '', -1e300, -0.5, FALSE, X'', ARRAY['ü'], MAP['x', -1, 'y', 0], ROW(CAST(NULL AS INT), ''), 0),"
                + "(3, CAST(NULL AS STRING), CAST(NULL AS DOUBLE), CAST(NULL AS FLOAT), CAST(NULL AS BOOLEAN),"
                + " CAST(NULL AS BYTES), CAST(NULL AS ARRAY<STRING>), CAST(NULL AS MAP<STRING, BIGINT>),"
                + " CAST(NULL AS ROW<a INT, b STRING>), -4)";
        String json = "id BIGINT NOT NULL, name STRING, score DOUBLE, f FLOAT, ok BOOLEAN, tags ARRAY<STRING>,"
                + " attrs MAP<STRING, BIGINT>, `inner` ROW<a INT, b STRING>, `day` DATE, `at` TIMESTAMP(3),"
                + " `dec` DECIMAL(9, 2)";
        String jsonRows = "(1, 'ada', 0.5, 0.25, TRUE, ARRAY['a', 'b'], MAP['k', 5], ROW(7, 'ü'), DATE '2024-02-29',"
                + " TIMESTAMP '2024-02-29 23:59:59.999', 12.50),"
                + "(2, '', NON_FINITE('NaN'), CAST(NON_FINITE('-Infinity') AS FLOAT), FALSE, ARRAY[''], MAP['x', -1],"
                + " ROW(CAST(NULL AS INT), ''), DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.001', -0.01),"
                + "(3, CAST(NULL AS STRING), NON_FINITE('Infinity'), CAST(NULL AS FLOAT), CAST(NULL AS BOOLEAN),"
                + " CAST(NULL AS ARRAY<STRING>), CAST(NULL AS MAP<STRING, BIGINT>), CAST(NULL AS ROW<a INT, b STRING>),"
                + " CAST(NULL AS DATE), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS DECIMAL(9, 2)))";
        // The `schema` option importing a file registered under its own subject (schema.references).
        String signed = "id BIGINT NOT NULL, who ROW<text STRING>, note STRING";
        String signedRows = "(5, ROW('ada'), 'n'), (-1, CAST(NULL AS ROW<text STRING>), ''),"
                + " (0, ROW(''), CAST(NULL AS STRING))";
        return Stream.of(
                Arguments.of("avro", "avro-confluent-native", avro, avroRows),
                Arguments.of("protobuf", PROTOBUF, protobuf, protobufRows),
                Arguments.of("protobuf-refs", PROTOBUF, signed, signedRows),
                Arguments.of("json", "json-confluent-native", json, jsonRows));
    }

    /** {@code shop/common.proto}, registered once under {@link #COMMON_SUBJECT} for the references case. */
    private static final String COMMON = "syntax = \"proto3\";\npackage shop.common;\n"
            + "message Name { string text = 1; }\n";

    private static final String COMMON_SUBJECT = "shop/common.proto";

    /** The writer schema of the references case: it imports {@link #COMMON}. */
    private static final String SIGNED = "syntax = \"proto3\";\npackage karrow;\nimport \"shop/common.proto\";\n"
            + "message Signed { int64 id = 1; shop.common.Name who = 2; optional string note = 3; }\n";

    /** The sink options of a case beyond url: the references case's schema and references. */
    private static String sinkOptions(String kase) throws Exception {
        if (!kase.equals("protobuf-refs")) {
            return "";
        }
        ENV.registry().register(COMMON_SUBJECT, "PROTOBUF", COMMON);
        int version = ENV.registry().latestVersion(COMMON_SUBJECT).get("version").asInt();
        String references = "[{\"name\":\"shop/common.proto\",\"subject\":\"" + COMMON_SUBJECT
                + "\",\"version\":" + version + "}]";
        return ",'value." + PROTOBUF + ".schema' = '" + SIGNED.replace("'", "''") + "',"
                + "'value." + PROTOBUF + ".schema.references' = '" + references + "'";
    }

    /**
     * {@code NON_FINITE('NaN')}: a DOUBLE the planner cannot fold into a literal (Calcite's
     * literals cannot hold NaN or infinities).
     */
    public static final class NonFinite extends ScalarFunction {
        /** The double {@code text} names. */
        public Double eval(String text) {
            return Double.valueOf(text);
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }

    /** {@code columns} ("name TYPE, ...") as the view's casts of the VALUES columns c0, c1, .... */
    private static String typedView(String view, String columns, String rows) {
        List<String> casts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= columns.length(); i++) {
            char c = i < columns.length() ? columns.charAt(i) : ',';
            depth += c == '<' || c == '(' ? 1 : c == '>' || c == ')' ? -1 : 0;
            if (c == ',' && depth == 0) {
                String column = columns.substring(start, i).trim();
                int space = column.indexOf(' ');
                String name = column.substring(0, space);
                String type = column.substring(space + 1).replace(" NOT NULL", "");
                casts.add("CAST(c" + names.size() + " AS " + type + ") AS " + name);
                names.add("c" + names.size());
                start = i + 1;
            }
        }
        return "CREATE TEMPORARY VIEW " + view + " AS SELECT " + String.join(", ", casts)
                + " FROM (VALUES " + rows + ") AS v(" + String.join(", ", names) + ")";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("karrowWrites")
    void karrowWritesConfluentDeserializersRead(String kase, String format, String columns, String rows)
            throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.createTemporarySystemFunction("NON_FINITE", NonFinite.class);
        String view = "src_" + kase.replace('-', '_');
        tEnv.executeSql(typedView(view, columns, rows));
        List<JsonNode> source = rendered(tEnv, "SELECT * FROM " + view);
        assertThat(source).hasSize(3);
        StatementSet inserts = tEnv.createStatementSet();
        List<String> topics = new ArrayList<>();
        for (String connector : new String[] {"kafka", "kafka-native"}) {
            String topic = createTopic("karrow-py-" + kase, 2);
            topics.add(topic);
            String sink = "sink_" + connector.replace('-', '_') + "_" + UUID.randomUUID().toString().substring(0, 6);
            tEnv.executeSql("CREATE TABLE " + sink + " (" + columns + ") WITH ("
                    + "'connector' = '" + connector + "', 'topic' = '" + topic + "',"
                    + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                    + "'value.format' = '" + format + "',"
                    + "'value." + format + ".url' = '" + ENV.registry().url() + "'" + sinkOptions(kase) + ")");
            inserts.addInsertSql("INSERT INTO " + sink + " SELECT * FROM " + view);
        }
        inserts.execute().await();
        Map<JsonNode, Integer> expected = ConfluentPythonPeer.multiset(source);
        for (String topic : topics) {
            Map<String, List<JsonNode>> read = ConfluentPythonPeer.consume(BOOTSTRAP, ENV.registry().url(), kase, topic, 3);
            List<String> variants = kase.equals("avro")
                    ? List.of("with-registry")
                    : List.of("with-registry", "without-registry");
            assertThat(read.keySet()).containsExactlyElementsOf(variants);
            for (String variant : variants) {
                assertThat(ConfluentPythonPeer.multiset(read.get(variant)))
                        .as("%s written to %s, read by Confluent's deserializer %s", kase, topic, variant)
                        .isEqualTo(expected);
            }
        }
    }
}
