package io.karrow.flink.formats.json;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static io.karrow.flink.testutils.KafkaTestSupport.topicWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedInBatches;
import static io.karrow.flink.testutils.SqlTestSupport.collectDecodedPerRecord;
import static io.karrow.flink.testutils.SqlTestSupport.nameNextJobs;
import static io.karrow.flink.testutils.SqlTestSupport.size;
import static io.karrow.flink.testutils.SqlTestSupport.messages;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code json-confluent-native} from Flink SQL against a real broker ({@code -Dkarrow.kafka.bootstrap})
 * and the dev registry, 3 partitions, parallelism 2.
 *
 * <p>Two topics hold the same records: one the plain JSON payloads, the other the same payloads framed
 * as Confluent's JSON Schema serializer writes them ({@code 0x00}, a registered schema id big-endian,
 * the JSON), built here from the documented wire format. Flink's {@code json} over the plain topic is
 * the oracle for {@code json-confluent-native} over the framed one, behind the stock {@code kafka}
 * connector and behind {@code kafka-native}, compared as exact multisets. Writing through {@code
 * json-confluent-native} must register a JSON schema under {@code <topic>-value} whose id heads every
 * value, followed by exactly the bytes {@code json} writes for the same {@code INSERT}. Values without
 * the header, and (with {@code validate-schema-id}) unknown ids, fail the job with a message naming them.
 */
class JsonConfluentNativeITCase {

    private static final int RECORDS = 6_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    private static final String FORMAT = JsonConfluentNativeFormatFactory.IDENTIFIER;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    @RegisterExtension
    static final DevRegistry registry = DevRegistry.perClass();
    private static int schemaId;
    private static String plainTopic;
    private static String framedTopic;

    @BeforeAll
    static void setUp() throws Exception {
        // Fail (not skip) when the broker is absent: CI must start it.
        KafkaTestSupport.requireBroker();
        schemaId = registry.register("producer-bids-value", "JSON",
                "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\"}");
        plainTopic = createTopic("jcn-plain", 3);
        framedTopic = createTopic("jcn-framed", 3);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Random random = new Random(11);
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = i % 89 == 0 ? null : ("bidder-" + random.nextInt(300)).getBytes(StandardCharsets.UTF_8);
                byte[] payload = payload(random, i);
                producer.send(new ProducerRecord<>(plainTopic, i % 3, key, payload));
                producer.send(new ProducerRecord<>(framedTopic, i % 3, key, payload == null ? null : framed(schemaId, payload)));
            }
            producer.flush();
        }
    }

    /** Confluent's JSON Schema wire format: 0x00, the schema id (big-endian int32), the JSON document. */
    static byte[] framed(int id, byte[] json) {
        return ByteBuffer.allocate(5 + json.length).put((byte) 0).putInt(id).put(json).array();
    }

    /** A JSON payload: a bid, an array of bids, an empty document, or a tombstone (null). */
    private static byte[] payload(Random random, int i) {
        if (i % 53 == 0) {
            return null;
        }
        if (i % 67 == 0) {
            return new byte[0];
        }
        String text = i % 11 == 0 ? "[" + bid(random, i) + "," + bid(random, i + 1) + "]" : bid(random, i);
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String bid(Random random, int i) {
        StringBuilder s = new StringBuilder("{");
        if (i % 4 == 0) {
            s.append("\"note\":{\"n\":[1,2.50]},");
        }
        s.append("\"auction\":").append(i % 6 == 0 ? "\"" + (5000 + i) + "\"" : String.valueOf(5000 + i));
        s.append(",\"bidder\":").append(random.nextInt(300));
        s.append(",\"price\":").append(i % 10 == 0 ? random.nextInt(100_000) + ".5" : String.valueOf(random.nextInt(100_000)));
        s.append(",\"channel\":\"").append(i % 5 == 0 ? "Baidu" : "c\\u00fc-" + random.nextInt(50)).append('"');
        s.append(",\"date_time\":\"2026-03-0").append(1 + i % 9).append(' ')
                .append(String.format("%02d:%02d:%02d.%03d", i % 24, random.nextInt(60), random.nextInt(60), random.nextInt(1000)))
                .append('"');
        if (i % 8 != 0) {
            s.append(",\"tags\":[\"t").append(random.nextInt(9)).append("\",null]");
        }
        s.append(",\"amount\":").append(random.nextInt(10_000)).append('.').append(random.nextInt(1000));
        return s.append('}').toString();
    }

    private static final String COLUMNS = "auction BIGINT, bidder INT, price BIGINT, channel STRING,"
            + " date_time TIMESTAMP(3), tags ARRAY<STRING>, note STRING, amount DECIMAL(12, 2)";

    private static String source(String table, String connector, String topic, String format, String extraColumns,
            String extraOptions) {
        String formatOptions = format.equals(FORMAT) ? ", 'value." + FORMAT + ".url' = '" + registry.url() + "'" : "";
        return "CREATE TABLE " + table + " (" + extraColumns + COLUMNS + ") WITH ('connector' = '" + connector + "',"
                + " 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + " 'properties.group.id' = 'jcn-it', 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset', 'value.format' = '" + format + "'" + formatOptions
                + extraOptions + ")";
    }

    @Test
    void framedValuesGiveTheRowsJsonGivesForThePayloads() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("oracle", "kafka", plainTopic, "json", "", ""));
        tEnv.executeSql(source("swapped", "kafka", framedTopic, FORMAT, "", ""));
        tEnv.executeSql(source("batched", "kafka-native", framedTopic, FORMAT, "", ""));
        tEnv.executeSql(source("validated", "kafka-native", framedTopic, FORMAT, "",
                ", 'value." + FORMAT + ".validate-schema-id' = 'true'"));
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM oracle");
        // Tombstones and empty documents give no row; every 11th record is an array of two bids.
        assertThat(size(expected)).isGreaterThan(RECORDS * 95 / 100);
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM swapped", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM batched", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM validated", RECORDS)).isEqualTo(expected);
    }

    @Test
    void keyAndMetadataColumnsGiveTheRowsJsonGives() throws Exception {
        String keyed = "k STRING, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL, ";
        String keyOptions = ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'";
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("oracle_keyed", "kafka", plainTopic, "json", keyed, keyOptions));
        tEnv.executeSql(source("swapped_keyed", "kafka", framedTopic, FORMAT, keyed, keyOptions));
        tEnv.executeSql(source("batched_keyed", "kafka-native", framedTopic, FORMAT, keyed, keyOptions));
        String query = "SELECT k, `partition`, `offset`, auction, bidder, price, channel, date_time, tags, note, amount FROM ";
        Map<Row, Integer> expected = collect(tEnv, query + "oracle_keyed");
        assertThat(size(expected)).isGreaterThan(RECORDS * 9 / 10);
        assertThat(collectDecodedPerRecord(tEnv, query + "swapped_keyed", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, query + "batched_keyed", RECORDS)).isEqualTo(expected);
    }

    @Test
    void insertRegistersAJsonSchemaAndWritesJsonsBytesAfterItsId() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("bids", "kafka", plainTopic, "json", "k STRING, ",
                ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'"));
        String outJson = createTopic("jcn-out-json", 3);
        String outSwapped = createTopic("jcn-out-swapped", 3);
        String outBatched = createTopic("jcn-out-batched", 3);
        for (String[] sink : new String[][] {{"out_json", "kafka", "json", outJson},
                {"out_swapped", "kafka", FORMAT, outSwapped}, {"out_batched", "kafka-native", FORMAT, outBatched}}) {
            String registryOption = sink[2].equals(FORMAT) ? ", 'value." + FORMAT + ".url' = '" + registry.url() + "'" : "";
            tEnv.executeSql("CREATE TABLE " + sink[0] + " (k STRING, auction BIGINT, bidder INT NOT NULL,"
                    + " price_cents BIGINT, date_time TIMESTAMP(3), tags ARRAY<STRING>, amount DECIMAL(12, 2))"
                    + " WITH ('connector' = '" + sink[1] + "', 'topic' = '" + sink[3] + "',"
                    + " 'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'key.format' = 'raw', 'key.fields' = 'k',"
                    + " 'value.format' = '" + sink[2] + "', 'sink.partitioner' = 'default'" + registryOption + ")");
        }
        String select = " SELECT k, auction, COALESCE(bidder, -1), price * 100, date_time, tags, amount FROM bids"
                + " WHERE price > 20000 AND k IS NOT NULL";
        var statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO out_json" + select);
        statements.addInsertSql("INSERT INTO out_swapped" + select);
        statements.addInsertSql("INSERT INTO out_batched" + select);
        String job = nameNextJobs(tEnv, "jcn-insert");
        statements.execute().await();

        Map<String, Integer> expected = keyValueMultiset(KafkaTestSupport.readAll(outJson, false), -1);
        assertThat(size(expected)).isGreaterThan(RECORDS / 2);
        // Both json-confluent-native sinks encoded every output record natively (the keys are raw):
        // the swapped one per record, the kafka-native one in batches.
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsEncoded"))
                .as("records the two native sinks encoded").isEqualTo(2L * size(expected));
        for (String topic : List.of(outSwapped, outBatched)) {
            JsonNode latest = registry.latestVersion(topic + "-value");
            assertThat(latest.get("schemaType").asText()).as(topic).isEqualTo("JSON");
            JsonNode schema = new com.fasterxml.jackson.databind.ObjectMapper().readTree(latest.get("schema").asText());
            assertThat(schema.get("required").toString()).isEqualTo("[\"bidder\"]");
            int id = latest.get("id").asInt();
            assertThat(keyValueMultiset(KafkaTestSupport.readAll(topic, false), id)).as(topic).isEqualTo(expected);
        }
    }

    /**
     * (key hex, value text) pairs; with {@code headerId} >= 0 every value must start with the header of
     * that id, which is removed before the text is taken.
     */
    private static Map<String, Integer> keyValueMultiset(List<ConsumerRecord<byte[], byte[]>> records, int headerId) {
        return KafkaTestSupport.keyValueMultiset(records, value -> {
            if (headerId >= 0) {
                assertThat(Arrays.copyOfRange(value, 0, 5)).isEqualTo(framed(headerId, new byte[0]));
                value = Arrays.copyOfRange(value, 5, value.length);
            }
            return new String(value, StandardCharsets.UTF_8);
        });
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void valueWithoutTheHeaderFailsWithTopicPartitionOffsetOrIsSkippedWhenIgnoringParseErrors() throws Exception {
        String topic = topicWith("jcn-bad-magic", List.of(framed(schemaId, utf8("{\"auction\":0}")),
                framed(schemaId, utf8("{\"auction\":1}")), framed(schemaId, utf8("{\"auction\":2}")),
                utf8("{\"auction\":3}"), framed(schemaId, utf8("{\"auction\":4}"))));
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("magic_batched", "kafka-native", topic, FORMAT, "", ""));
        tEnv.executeSql(source("magic_swapped", "kafka", topic, FORMAT, "", ""));
        tEnv.executeSql(source("magic_ignored", "kafka-native", topic, FORMAT, "",
                ", 'value." + FORMAT + ".ignore-parse-errors' = 'true'"));
        tEnv.executeSql(source("magic_ignored_swapped", "kafka", topic, FORMAT, "",
                ", 'value." + FORMAT + ".ignore-parse-errors' = 'true'"));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM magic_batched"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + topic + "', partition 0, offset 3")
                        .contains("Unknown data format. Magic number does not match"));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM magic_swapped"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("Failed to deserialize JSON '{\"auction\":3}'.")
                        .contains("Unknown data format. Magic number does not match"));
        // Skipped, not failed: all five values reached native code, one per batch or per record.
        Map<Row, Integer> good = Map.of(Row.of(0L), 1, Row.of(1L), 1, Row.of(2L), 1, Row.of(4L), 1);
        assertThat(collectDecodedInBatches(tEnv, "SELECT auction FROM magic_ignored", 5)).isEqualTo(good);
        assertThat(collectDecodedPerRecord(tEnv, "SELECT auction FROM magic_ignored_swapped", 5)).isEqualTo(good);
    }

    @Test
    void validateSchemaIdFailsOnAnUnknownIdNamingIt() throws Exception {
        int unknown = schemaId + 4242;
        String topic = topicWith("jcn-unknown-id", List.of(framed(schemaId, utf8("{\"auction\":0}")),
                framed(unknown, utf8("{\"auction\":1}")), framed(schemaId, utf8("{\"auction\":2}"))));
        StreamTableEnvironment tEnv = tableEnv();
        String validate = ", 'value." + FORMAT + ".validate-schema-id' = 'true'";
        tEnv.executeSql(source("unknown_batched", "kafka-native", topic, FORMAT, "", validate));
        tEnv.executeSql(source("unknown_swapped", "kafka", topic, FORMAT, "",
                validate + ", 'value." + FORMAT + ".ignore-parse-errors' = 'true'"));
        tEnv.executeSql(source("unknown_unchecked", "kafka-native", topic, FORMAT, "", ""));
        String named = "Could not find schema with id " + unknown + " in registry";
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM unknown_batched"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + topic + "', partition 0, offset 1")
                        .contains(named));
        // Never skipped, even under ignore-parse-errors.
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM unknown_swapped"))
                .satisfies(t -> assertThat(messages(t)).contains(named));
        // By default the id is not checked.
        assertThat(size(collectDecodedInBatches(tEnv, "SELECT * FROM unknown_unchecked", 3))).isEqualTo(3);
    }

}
