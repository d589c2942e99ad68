package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.size;
import static io.karrow.flink.testutils.SqlTestSupport.messages;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Parity of {@code 'connector' = 'kafka-native'} with the stock {@code kafka} connector through Flink
 * SQL, over a real broker ({@code -Dkarrow.kafka.bootstrap}, started by {@code
 * tests/services/kafka.sh start}), the dev registry, 3 partitions and parallelism 2: the same bounded
 * query, {@code kafka} + the oracle {@code avro-confluent-reference} vs {@code kafka-native} +
 * {@code avro-confluent-native} (one native call per fetched batch) and vs {@code kafka-native} +
 * the oracle format (the per-record fallback), compared as exact multisets. Each {@code
 * kafka-native} job's {@code karrow} metrics must show the path it was asked for: every record
 * decoded by the kafka-native source, in native batches with {@code avro-confluent-native} and in
 * none with the oracle format, and fetched natively exactly when {@code 'scan.fetch-mode' = 'native'}.
 */
class KafkaNativeSourceITCase {

    private static final int BIDS = 20_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    /** Reports to {@link CollectedMetrics}, so each job's path is seen to engage. */
    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    private static String bidsTopic;

    @BeforeAll
    static void setUp() throws Exception {
        bidsTopic = bidsTopic();
    }

    /**
     * {@link #BIDS} Confluent-Avro bids over 3 partitions: keys are the bidder id as text (every 97th
     * key null), every 50th value a tombstone, every 7th record with headers (a duplicated key and a
     * null value).
     */
    private static String bidsTopic() throws Exception {
        String topic = createTopic("native-src", 3);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(topic + "-value", corpus.writers().get(0).toString());
        Random random = new Random(corpus.seed());
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < BIDS; i++) {
                var record = AvroCorpora.bid(random, i, corpus.writers().get(0));
                byte[] key = i % 97 == 0 ? null : String.valueOf(record.get("bidder")).getBytes(StandardCharsets.UTF_8);
                byte[] value = i % 50 == 0 ? null : ConfluentAvroEncoder.encode(id, corpus.writers().get(0), record);
                RecordHeaders headers = new RecordHeaders();
                if (i % 7 == 0) {
                    headers.add("h", new byte[] {1});
                    headers.add("h", new byte[] {(byte) i});
                    headers.add("n", null);
                }
                producer.send(new ProducerRecord<>(topic, i % 3, key, value, headers));
            }
            producer.flush();
        }
        return topic;
    }

    private static String with(String connector, String topic, String format) {
        return " WITH ('connector' = '" + connector + "', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'properties.group.id' = 'karrow-native-it',"
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                + "'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + ENV.registry().url() + "'";
    }

    private static String valueOnlyDdl(String table, String connector, String topic, String format) {
        return valueOnlyDdl(table, connector, topic, format, "");
    }

    private static String valueOnlyDdl(String table, String connector, String topic, String format, String extra) {
        return "CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING)" + with(connector, topic, format) + extra + ")";
    }

    /** The option that selects the native fetch (Kafka's Fetch protocol read by karrow-kafka). */
    private static final String NATIVE_FETCH = ", 'scan.fetch-mode' = 'native'";

    private static String keyedDdl(String table, String connector, String topic, String format) {
        return keyedDdl(table, connector, topic, format, "");
    }

    private static String keyedDdl(String table, String connector, String topic, String format, String extra) {
        return "CREATE TABLE " + table + " (k STRING, auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
                + " url STRING, date_time TIMESTAMP(3), extra STRING,"
                + " `topic` STRING METADATA VIRTUAL, `partition` INT METADATA VIRTUAL,"
                + " `offset` BIGINT METADATA VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,"
                + " `timestamp-type` STRING METADATA VIRTUAL, `leader-epoch` INT METADATA VIRTUAL,"
                + " headers MAP<STRING, BYTES> METADATA VIRTUAL)"
                + with(connector, topic, format)
                + ", 'key.format' = 'raw', 'key.fields' = 'k', 'value.fields-include' = 'EXCEPT_KEY'" + extra + ")";
    }

    private static final String KEYED_QUERY = "SELECT k, auction, bidder, price, channel, url, date_time, extra, `topic`,"
            + " `partition`, `offset`, ts, `timestamp-type`, `leader-epoch`, CARDINALITY(headers),"
            + " CAST(headers['h'] AS STRING), headers['n'] IS NULL FROM ";

    @Test
    void valueOnlyTableGivesTheStockConnectorsRows() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(valueOnlyDdl("stock", "kafka", bidsTopic, "avro-confluent-reference"));
        tEnv.executeSql(valueOnlyDdl("batched", "kafka-native", bidsTopic, "avro-confluent-native"));
        tEnv.executeSql(valueOnlyDdl("fallback", "kafka-native", bidsTopic, "avro-confluent-reference"));
        tEnv.executeSql(valueOnlyDdl("fetched", "kafka-native", bidsTopic, "avro-confluent-native", NATIVE_FETCH));
        tEnv.executeSql(valueOnlyDdl(
                "fetched_fallback", "kafka-native", bidsTopic, "avro-confluent-reference", NATIVE_FETCH));
        Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM stock");
        assertThat(size(expected)).isEqualTo(BIDS - BIDS / 50);
        assertThat(collectOnPath(tEnv, "SELECT * FROM batched", true, false)).isEqualTo(expected);
        assertThat(collectOnPath(tEnv, "SELECT * FROM fallback", false, false)).isEqualTo(expected);
        assertThat(collectOnPath(tEnv, "SELECT * FROM fetched", true, true)).isEqualTo(expected);
        assertThat(collectOnPath(tEnv, "SELECT * FROM fetched_fallback", false, true)).isEqualTo(expected);
    }

    @Test
    void keyAndEveryMetadataColumnGiveTheStockConnectorsRows() throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(keyedDdl("stock_keyed", "kafka", bidsTopic, "avro-confluent-reference"));
        tEnv.executeSql(keyedDdl("batched_keyed", "kafka-native", bidsTopic, "avro-confluent-native"));
        tEnv.executeSql(keyedDdl("fallback_keyed", "kafka-native", bidsTopic, "avro-confluent-reference"));
        tEnv.executeSql(keyedDdl("fetched_keyed", "kafka-native", bidsTopic, "avro-confluent-native", NATIVE_FETCH));
        tEnv.executeSql(keyedDdl(
                "fetched_fallback_keyed", "kafka-native", bidsTopic, "avro-confluent-reference", NATIVE_FETCH));
        Map<Row, Integer> expected = collect(tEnv, KEYED_QUERY + "stock_keyed");
        assertThat(size(expected)).isGreaterThan(BIDS * 9 / 10).isLessThan(BIDS);
        assertThat(collectOnPath(tEnv, KEYED_QUERY + "batched_keyed", true, false)).isEqualTo(expected);
        assertThat(collectOnPath(tEnv, KEYED_QUERY + "fallback_keyed", false, false)).isEqualTo(expected);
        assertThat(collectOnPath(tEnv, KEYED_QUERY + "fetched_keyed", true, true)).isEqualTo(expected);
        assertThat(collectOnPath(tEnv, KEYED_QUERY + "fetched_fallback_keyed", false, true)).isEqualTo(expected);
    }

    /**
     * Runs {@code query} over one {@code kafka-native} table of the bids topic as its own job and
     * asserts from the job's metrics that the source decoded all {@link #BIDS} records (tombstones
     * too), in native batches iff {@code nativeDecode}, fetched natively iff {@code nativeFetch}.
     */
    private static Map<Row, Integer> collectOnPath(
            StreamTableEnvironment tEnv, String query, boolean nativeDecode, boolean nativeFetch) throws Exception {
        String job = "native-src-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", job);
        Map<Row, Integer> rows = collect(tEnv, query);
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsDecoded"))
                .as("records the kafka-native source decoded: %s", query).isEqualTo(BIDS);
        long nativeBatches = CollectedMetrics.sum(job, "karrow", "numNativeBatches");
        if (nativeDecode) {
            assertThat(nativeBatches).as("native decode batches: %s", query).isPositive();
        } else {
            assertThat(nativeBatches).as("native decode batches of the per-record fallback: %s", query).isZero();
        }
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsFetchedNatively"))
                .as("records fetched natively: %s", query).isEqualTo(nativeFetch ? BIDS : 0);
        return rows;
    }

    @Test
    void badRecordFailsTheJobWithTopicPartitionOffsetAndTheReason() throws Exception {
        String topic = createTopic("native-src-bad", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(topic + "-value", corpus.writers().get(0).toString());
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 5; i++) {
                byte[] value = ConfluentAvroEncoder.encode(id, corpus.writers().get(0),
                        AvroCorpora.bid(new Random(i), i, corpus.writers().get(0)));
                if (i == 3) {
                    value[0] = 7;
                }
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            producer.flush();
        }
        StreamTableEnvironment tEnv = tableEnv();
        tEnv.executeSql(valueOnlyDdl("bad_native", "kafka-native", topic, "avro-confluent-native"));
        tEnv.executeSql(valueOnlyDdl("bad_fetched", "kafka-native", topic, "avro-confluent-native", NATIVE_FETCH));
        for (String table : new String[] {"bad_native", "bad_fetched"}) {
            assertThatThrownBy(() -> collect(tEnv, "SELECT * FROM " + table))
                    .satisfies(t -> assertThat(messages(t))
                            .contains("topic '" + topic + "', partition 0, offset 3")
                            .containsIgnoringCase("magic"));
        }
    }

}
