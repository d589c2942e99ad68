package io.karrow.flink.formats.avro;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The format swap on the sink side, end to end: a Kafka-to-Kafka {@code INSERT} reads Confluent Avro
 * bids and writes them through the stock {@code kafka} connector once with {@code
 * avro-confluent-native} and once with the oracle {@code avro-confluent-reference}; the two output
 * topics must hold the same value bytes, record by record. Parallelism 1 and one-partition topics
 * keep the order deterministic. Needs a real broker ({@code -Dkarrow.kafka.bootstrap}) and the dev
 * registry.
 */
class AvroConfluentNativeSinkITCase {

    private static final int BIDS = 20_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    /** Writes {@link #BIDS} Confluent-Avro bids to a new one-partition topic; returns how many have price > 1000. */
    private static int produceBids(String topic) throws Exception {
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(topic + "-value", corpus.writers().get(0).toString());
        Random random = new Random(corpus.seed());
        int selected = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < BIDS; i++) {
                GenericRecord bid = AvroCorpora.bid(random, i, corpus.writers().get(0));
                if ((Long) bid.get("price") > 1000) {
                    selected++;
                }
                producer.send(new ProducerRecord<>(topic, null, ConfluentAvroEncoder.encode(id, corpus.writers().get(0), bid)));
            }
            producer.flush();
        }
        return selected;
    }

    private static String sourceDdl(String topic) {
        return "CREATE TABLE src (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING) WITH ("
                + "'connector' = 'kafka', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'properties.group.id' = 'karrow-sink-it',"
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                + "'value.format' = 'avro-confluent-reference',"
                + "'value.avro-confluent-reference.url' = '" + ENV.registry().url() + "')";
    }

    private static String sinkDdl(String table, String topic, String format, String guaranteeOptions, boolean keyed) {
        String key = keyed
                ? "'key.format' = '" + format + "', 'key." + format + ".url' = '" + ENV.registry().url() + "',"
                        + "'key.fields' = 'auction;bidder', 'value.fields-include' = 'EXCEPT_KEY',"
                : "";
        return "CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price_cents BIGINT, channel STRING,"
                + " date_time TIMESTAMP(3), extra STRING) WITH ("
                + "'connector' = 'kafka', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + guaranteeOptions + key
                + "'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + ENV.registry().url() + "')";
    }

    private static final String QUERY =
            " SELECT auction, bidder, price * 100 AS price_cents, channel, date_time, extra FROM src WHERE price > 1000";

    /** Runs the query into both sinks and asserts the two output topics hold the same key and value bytes. */
    private static void runAndCompare(String guaranteeOptions, boolean readCommitted, long checkpointMillis, boolean keyed)
            throws Exception {
        String in = createTopic("bids-in", 1);
        int expected = produceBids(in);
        String outNative = createTopic("bids-out-native", 1);
        String outReference = createTopic("bids-out-reference", 1);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(sourceDdl(in));
        tEnv.executeSql(sinkDdl("out_native", outNative, "avro-confluent-native", guaranteeOptions.replace("%s", "n"), keyed));
        tEnv.executeSql(sinkDdl("out_reference", outReference, "avro-confluent-reference", guaranteeOptions.replace("%s", "r"), keyed));
        StatementSet statements = tEnv.createStatementSet();
        statements.addInsertSql("INSERT INTO out_native" + QUERY);
        statements.addInsertSql("INSERT INTO out_reference" + QUERY);
        String job = "avro-native-sink-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", job);
        statements.execute().await(5, TimeUnit.MINUTES);

        List<ConsumerRecord<byte[], byte[]>> reference = KafkaTestSupport.readAll(outReference, readCommitted);
        List<ConsumerRecord<byte[], byte[]>> actual = KafkaTestSupport.readAll(outNative, readCommitted);
        assertThat(reference).hasSize(expected);
        assertThat(actual).hasSize(expected);
        for (int i = 0; i < expected; i++) {
            assertSameBytes("value of record " + i, reference.get(i).value(), actual.get(i).value());
            assertSameBytes("key of record " + i, reference.get(i).key(), actual.get(i).key());
        }
        if (keyed) {
            assertThat(reference.get(0).key()).isNotNull();
        } else {
            assertThat(reference.get(0).key()).isNull();
        }
        // The native format encoded every record (its key too, when keyed): one serialize call each.
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsEncoded"))
                .as("serialize calls of avro-confluent-native").isEqualTo((keyed ? 2L : 1L) * expected);
    }

    private static void assertSameBytes(String what, byte[] expected, byte[] actual) {
        if (!java.util.Arrays.equals(expected, actual)) {
            throw new AssertionError(what + " differs: reference " + hex(expected) + " / native " + hex(actual));
        }
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }

    @Test
    void noGuaranteeWritesTheOraclesBytes() throws Exception {
        runAndCompare("'sink.delivery-guarantee' = 'none',", false, 0, false);
    }

    @Test
    void atLeastOnceWritesTheOraclesBytes() throws Exception {
        runAndCompare("'sink.delivery-guarantee' = 'at-least-once',", false, 0, false);
    }

    /** Key and value both native: subjects {@code <topic>-key} and {@code <topic>-value}, projected generic rows. */
    @Test
    void keyedAtLeastOnceWritesTheOraclesBytes() throws Exception {
        runAndCompare("'sink.delivery-guarantee' = 'at-least-once',", false, 0, true);
    }

    @Test
    void exactlyOnceWritesTheOraclesBytes() throws Exception {
        String prefix = "karrow-it-" + UUID.randomUUID().toString().substring(0, 8) + "-%s";
        runAndCompare("'sink.delivery-guarantee' = 'exactly-once',"
                + "'sink.transactional-id-prefix' = '" + prefix + "',"
                + "'properties.transaction.timeout.ms' = '600000',", true, 1000, false);
    }
}
