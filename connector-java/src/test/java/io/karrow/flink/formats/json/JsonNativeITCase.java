package io.karrow.flink.formats.json;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
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
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code json-native} from Flink SQL against a real broker ({@code -Dkarrow.kafka.bootstrap}), 3
 * partitions, parallelism 2: the same bounded queries over the same topic with Flink's {@code json}
 * format and with {@code json-native} behind the stock {@code kafka} connector (the format swap) and
 * behind {@code kafka-native} (one native call per fetched batch), compared as exact multisets; the
 * same {@code INSERT} written through {@code json} and {@code json-native} (both connectors) must
 * leave the same (key, value) bytes on the output topics.
 *
 * <p>The input mixes what JSON producers really send: fields out of order, missing and extra keys,
 * numbers as strings, nested objects into STRING columns, top-level arrays (several rows per
 * record), empty values and tombstones (no row), keys (every 97th null) and headers.
 */
class JsonNativeITCase {

    private static final int RECORDS = 12_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    private static String bidsTopic;

    @BeforeAll
    static void setUp() throws Exception {
        // Fail (not skip) when the broker is absent: CI must start it.
        KafkaTestSupport.requireBroker();
        bidsTopic = createTopic("json-bids", 3);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Random random = new Random(7);
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = i % 97 == 0 ? null : ("bidder-" + random.nextInt(500)).getBytes(StandardCharsets.UTF_8);
                RecordHeaders headers = new RecordHeaders();
                if (i % 7 == 0) {
                    headers.add("h", new byte[] {1});
                    headers.add("h", new byte[] {(byte) i});
                }
                producer.send(new ProducerRecord<>(bidsTopic, i % 3, key, value(random, i), headers));
            }
            producer.flush();
        }
    }

    /** One Kafka value: a bid object, a top-level array of bids, an empty value or a tombstone. */
    private static byte[] value(Random random, int i) {
        if (i % 50 == 0) {
            return null;
        }
        if (i % 61 == 0) {
            return new byte[0];
        }
        String text = i % 13 == 0 ? "[" + bid(random, i) + "," + bid(random, i + 1) + "]" : bid(random, i);
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String bid(Random random, int i) {
        StringBuilder s = new StringBuilder("{");
        s.append("\"bidder\":").append(random.nextInt(500)).append(',');
        s.append("\"auction\":").append(i % 5 == 0 ? "\"" + (1000 + i) + "\"" : String.valueOf(1000 + i)).append(',');
        s.append("\"price\":").append(i % 11 == 0 ? (random.nextInt(1_000_000) + ".75") : random.nextInt(1_000_000));
        s.append(",\"channel\":\"").append(i % 3 == 0 ? "Google" : "ch\\u00e9-" + random.nextInt(100)).append('"');
        if (i % 17 != 0) {
            s.append(",\"url\":\"https://www.nexmark.com/").append(Integer.toHexString(random.nextInt())).append('"');
        }
        s.append(",\"date_time\":\"2026-11-30 ").append(String.format("%02d:%02d:%02d.%03d",
                i % 24, random.nextInt(60), random.nextInt(60), random.nextInt(1000))).append('"');
        if (i % 9 == 0) {
            s.append(",\"extra\":{\"tags\":[1,2.50,\"x\"],\"ok\":true}");
        } else if (i % 4 == 0) {
            s.append(",\"extra\":null");
        } else {
            s.append(",\"extra\":\"e").append(random.nextInt(1000)).append('"');
        }
        s.append(",\"ignored\":{\"deep\":[[{}]]}");
        s.append(",\"amount\":").append(i % 7 == 0 ? "12345678.125" : (random.nextInt(100_000) + "." + random.nextInt(100)));
        return s.append('}').toString();
    }

    private static final String COLUMNS = "auction BIGINT, bidder INT, price BIGINT, channel STRING, url STRING,"
            + " date_time TIMESTAMP(3), extra STRING, amount DECIMAL(10, 2)";

    private static String source(String table, String connector, String format, String extraColumns, String extraOptions) {
        return source(table, connector, bidsTopic, format, extraColumns, extraOptions);
    }

    private static String source(
            String table, String connector, String topic, String format, String extraColumns, String extraOptions) {
        return "CREATE TABLE " + table + " (" + extraColumns + COLUMNS + ") WITH ('connector' = '" + connector + "',"
                + " 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + " 'properties.group.id' = 'json-native-it', 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset', 'value.format' = '" + format + "'" + extraOptions + ")";
    }

    @Test
    void valueOnlyTableGivesTheJsonFormatsRows() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("stock", "kafka", "json", "", ""));
        tEnv.executeSql(source("swapped", "kafka", "json-native", "", ""));
        tEnv.executeSql(source("batched", "kafka-native", "json-native", "", ""));
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM stock");
        // Tombstones and empty values give no row; every 13th record is an array of two bids.
        assertThat(size(expected)).isGreaterThan(RECORDS * 95 / 100);
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM swapped", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM batched", RECORDS)).isEqualTo(expected);
    }

    @Test
    void keyAndMetadataColumnsGiveTheJsonFormatsRows() throws Exception {
        String keyed = "k STRING, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL,"
                + " headers MAP<STRING, BYTES> METADATA VIRTUAL, ";
        String keyOptions = ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'";
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("stock_keyed", "kafka", "json", keyed, keyOptions));
        tEnv.executeSql(source("swapped_keyed", "kafka", "json-native", keyed, keyOptions));
        tEnv.executeSql(source("batched_keyed", "kafka-native", "json-native", keyed, keyOptions));
        String query = "SELECT k, `partition`, `offset`, CARDINALITY(headers), auction, bidder, price, channel, url,"
                + " date_time, extra, amount FROM ";
        Map<Row, Integer> expected = collect(tEnv, query + "stock_keyed");
        assertThat(size(expected)).isGreaterThan(RECORDS * 95 / 100);
        assertThat(collectDecodedPerRecord(tEnv, query + "swapped_keyed", RECORDS)).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, query + "batched_keyed", RECORDS)).isEqualTo(expected);
    }

    @Test
    void insertWritesTheJsonFormatsBytes() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("bids", "kafka", "json", "k STRING, ", ", 'key.format' = 'raw', 'key.fields' = 'k',"
                + " 'value.fields-include' = 'EXCEPT_KEY'"));
        String outStock = createTopic("json-out-stock", 3);
        String outSwapped = createTopic("json-out-swapped", 3);
        String outBatched = createTopic("json-out-batched", 3);
        for (String[] sink : new String[][] {{"out_stock", "kafka", "json", outStock},
                {"out_swapped", "kafka", "json-native", outSwapped}, {"out_batched", "kafka-native", "json-native", outBatched}}) {
            tEnv.executeSql("CREATE TABLE " + sink[0] + " (k STRING, auction BIGINT, bidder INT, price_cents BIGINT,"
                    + " date_time TIMESTAMP(3), extra STRING, amount DECIMAL(10, 2), tags ARRAY<STRING>)"
                    + " WITH ('connector' = '" + sink[1] + "', 'topic' = '" + sink[3] + "',"
                    + " 'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'key.format' = 'raw', 'key.fields' = 'k',"
                    + " 'value.format' = '" + sink[2] + "', 'sink.partitioner' = 'default')");
        }
        String select = " SELECT k, auction, bidder, price * 100, date_time, extra, amount,"
                + " ARRAY[channel, url] FROM bids WHERE price > 1000 AND k IS NOT NULL";
        var statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO out_stock" + select);
        statements.addInsertSql("INSERT INTO out_swapped" + select);
        statements.addInsertSql("INSERT INTO out_batched" + select);
        String job = nameNextJobs(tEnv, "json-native-insert");
        statements.execute().await();
        Map<String, Integer> expected = keyValueMultiset(KafkaTestSupport.readAll(outStock, false));
        assertThat(size(expected)).isGreaterThan(RECORDS / 2);
        assertThat(keyValueMultiset(KafkaTestSupport.readAll(outSwapped, false))).isEqualTo(expected);
        assertThat(keyValueMultiset(KafkaTestSupport.readAll(outBatched, false))).isEqualTo(expected);
        // Both json-native sinks encoded every output record natively (the keys are raw, not native):
        // the swapped one per record, the kafka-native one in batches.
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsEncoded"))
                .as("records the two json-native sinks encoded").isEqualTo(2L * size(expected));
    }

    @Test
    void ignoreParseErrorsSkipsWhatTheJsonFormatSkips() throws Exception {
        String topic = createTopic("json-bad", 2);
        List<String> values = Arrays.asList(
                "{\"auction\":1,\"price\":\"x\"}", "not json", "{\"auction\":\"3\",\"bidder\":4}",
                "[{\"auction\":5},{\"auction\":6,\"bidder\":[1]}]", "{\"auction\":8,\"date_time\":\"2026-02-30 00:00:00\"}",
                "{\"auction\":9,\"amount\":123456789.999}", "{\"auction\":10} trailing", "   ", "{\"auction\":\"x\"}");
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < values.size(); i++) {
                producer.send(new ProducerRecord<>(topic, i % 2, null, values.get(i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        StreamTableEnvironment tEnv = tableEnv();
        for (String[] t : new String[][] {{"bad_stock", "kafka", "json"}, {"bad_swapped", "kafka", "json-native"},
                {"bad_batched", "kafka-native", "json-native"}}) {
            tEnv.executeSql(source(t[0], t[1], topic, t[2], "", ", 'value." + t[2] + ".ignore-parse-errors' = 'true'"));
        }
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM bad_stock");
        assertThat(size(expected)).isEqualTo(8);
        // Every value reached native code, the skipped ones too.
        assertThat(collectDecodedPerRecord(tEnv, "SELECT * FROM bad_swapped", values.size())).isEqualTo(expected);
        assertThat(collectDecodedInBatches(tEnv, "SELECT * FROM bad_batched", values.size())).isEqualTo(expected);
    }

    @Test
    void badRecordFailsTheJobWithTopicPartitionOffsetAndTheField() throws Exception {
        String topic = createTopic("json-fail", 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 5; i++) {
                String value = i == 3 ? "{\"auction\":\"three\"}" : "{\"auction\":" + i + "}";
                producer.send(new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(source("fail_batched", "kafka-native", topic, "json-native", "", ""));
        assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM fail_batched"))
                .satisfies(t -> assertThat(messages(t))
                        .contains("topic '" + topic + "', partition 0, offset 3")
                        .contains("field: auction"));
    }

    /** The records as a multiset of key hex and value text. */
    private static Map<String, Integer> keyValueMultiset(List<ConsumerRecord<byte[], byte[]>> records) {
        return KafkaTestSupport.keyValueMultiset(records, v -> new String(v, StandardCharsets.UTF_8));
    }

}
