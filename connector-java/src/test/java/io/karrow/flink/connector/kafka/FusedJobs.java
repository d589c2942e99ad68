package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.planner.OperatorCoreOptions;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * The fused variants of the fault ITCases (failover, savepoints): a query the operator core fuses
 * (a filter and a projection over a {@code kafka-native} + {@code avro-confluent-native} scan with
 * no metadata columns), the tables each side runs it over, the stock job's output as the oracle, and
 * the checks that a fused job really ran fused (a silent fallback fails them).
 *
 * <p>Which part of the job a side fuses:
 * <ul>
 *   <li>{@link Side#STOCK}: {@code kafka} + {@code avro-confluent-reference} in, {@code kafka} +
 *       {@code json} out, the operator core off;
 *   <li>{@link Side#UNFUSED}: {@code kafka-native} in, the operator core off; out through the
 *       stock sink, or through {@code kafka-native} with native produce when {@code fullSink};
 *   <li>{@link Side#FUSED}: the same tables with the operator core on: the Calc runs inside the
 *       scan (source fusion), and with {@code fullSink} the sink's encoders too (full fusion).
 * </ul>
 */
final class FusedJobs {

    /** The bid columns of the Avro corpus, without metadata (metadata columns decline fusion). */
    static final String BID_COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
            + " date_time TIMESTAMP(3), extra STRING";

    /** The sink's columns: the query's output. */
    static final String OUT_COLUMNS = "auction BIGINT, bidder BIGINT, price3 BIGINT, channel STRING, url STRING,"
            + " date_time TIMESTAMP(3), extra STRING";

    /** A filter and projections the operator core runs (it drops one record in seven). */
    static final String QUERY = "SELECT auction, bidder, price * 3 AS price3, channel, url, date_time, extra"
            + " FROM src WHERE MOD(price, 7) <> 0";

    /** Whether {@link #QUERY} keeps a bid. */
    static boolean passes(GenericRecord bid) {
        return (Long) bid.get("price") % 7 != 0;
    }

    /** Which path a job takes. */
    enum Side {
        STOCK,
        UNFUSED,
        FUSED
    }

    private FusedJobs() {}

    /**
     * Bids {@code from .. from + count - 1} (bid {@code i} to partition {@code i % 3}, seeded by
     * {@code from}, as the unfused variants write them); returns how many {@link #QUERY} keeps.
     */
    static int produce(String topic, int schemaId, AvroCorpus corpus, int from, int count) {
        Random random = new Random(from);
        int kept = 0;
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (int i = from; i < from + count; i++) {
                GenericRecord record = AvroCorpora.bid(random, i, corpus.writers().get(0));
                kept += passes(record) ? 1 : 0;
                producer.send(new ProducerRecord<>(topic, i % 3, null,
                        ConfluentAvroEncoder.encode(schemaId, corpus.writers().get(0), record)));
            }
            producer.flush();
        }
        return kept;
    }

    /** A table environment for {@code side}: parallelism 2, UTC, the operator core on iff fused. */
    static StreamTableEnvironment tableEnv(StreamExecutionEnvironment env, Side side, String jobName) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("pipeline.name", jobName);
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, side == Side.FUSED);
        return tEnv;
    }

    /** The source table {@code src} of {@code side}, unbounded unless {@code extraOptions} bound it. */
    static String sourceDdl(Side side, String topic, String registryUrl, String groupId, String extraOptions) {
        String connector = side == Side.STOCK ? "kafka" : "kafka-native";
        String format = side == Side.STOCK ? "avro-confluent-reference" : "avro-confluent-native";
        return "CREATE TABLE src (" + BID_COLUMNS + ") WITH ('connector' = '" + connector + "', 'topic' = '" + topic
                + "', 'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "',"
                + " 'properties.group.id' = '" + groupId + "', 'scan.startup.mode' = 'earliest-offset',"
                + (side == Side.STOCK ? "" : " 'scan.fetch-mode' = 'native',")
                + " 'value.format' = '" + format + "', 'value." + format + ".url' = '" + registryUrl + "'"
                + extraOptions + ")";
    }

    /**
     * The sink table {@code snk}: stock {@code kafka} + {@code json}, or (for a kafka-native side with
     * {@code fullSink}) {@code kafka-native} + {@code json-native} with native produce;
     * {@code guarantee} holds the delivery options (ending in a comma, or empty).
     */
    static String sinkDdl(Side side, boolean fullSink, String topic, String guarantee) {
        boolean nativeSink = fullSink && side != Side.STOCK;
        return "CREATE TABLE snk (" + OUT_COLUMNS + ") WITH ('connector' = '" + (nativeSink ? "kafka-native" : "kafka")
                + "', 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap()
                + "', " + guarantee + (nativeSink ? "'sink.produce-mode' = 'native', " : "")
                + "'value.format' = '" + (nativeSink ? "json-native" : "json") + "')";
    }

    /** Exactly-once delivery options with a fresh transactional id prefix. */
    static String exactlyOnce() {
        return "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'karrow-fused-"
                + UUID.randomUUID().toString().substring(0, 8) + "', 'properties.transaction.timeout.ms' = '600000', ";
    }

    /**
     * What the stock job writes for every record of {@code in} (bounded, no failure): the oracle.
     * Asserted free of duplicates, so a duplicated or lost output record shows in a comparison.
     */
    static Map<String, Integer> stockValues(String in, String registryUrl) throws Exception {
        String out = KafkaTestSupport.createTopic("fused-oracle", 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = tableEnv(env, Side.STOCK, "fused-oracle-" + UUID.randomUUID());
        tEnv.executeSql(sourceDdl(Side.STOCK, in, registryUrl, "karrow-fused-oracle",
                ", 'scan.bounded.mode' = 'latest-offset'"));
        tEnv.executeSql(sinkDdl(Side.STOCK, false, out, ""));
        tEnv.executeSql("INSERT INTO snk " + QUERY).await();
        Map<String, Integer> values = multiset(KafkaTestSupport.readAll(out, false));
        assertThat(values.values()).as("the stock output has no two equal records").allMatch(n -> n == 1);
        return values;
    }

    /** The values of {@code records}, with their counts. */
    static Map<String, Integer> multiset(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<String, Integer> m = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            m.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
        }
        return m;
    }

    /** The plan of a job on {@code side} shows the fused nodes exactly when it is fused. */
    static void assertPlan(Side side, boolean fullSink, String explain) {
        if (side != Side.FUSED) {
            assertThat(explain).as("an unfused plan").doesNotContain("Karrow");
            return;
        }
        assertThat(explain).as("the fused plan").contains("KarrowFusedScan");
        if (fullSink) {
            assertThat(explain).as("the fully fused plan").contains("fusedSink=[default_catalog.default_database.snk]");
        } else {
            assertThat(explain).as("a source-fused plan").doesNotContain("fusedSink=");
        }
    }

    /**
     * The job {@code jobName} ran on {@code side}'s path, from its counters: fused rows (source fusion)
     * or fused encoded records (full fusion) when fused, none when not; and, fully fused, no row
     * through the sink's per-row encoder. {@code atLeast} records went through a fused job (more
     * after a restart: records read again).
     */
    static void assertRan(Side side, boolean fullSink, String jobName, long atLeast) {
        long rows = CollectedMetrics.sum(jobName, "karrow", "numFusedRowsEmitted");
        long encoded = CollectedMetrics.sum(jobName, "karrow", "numFusedRecordsEncoded");
        long produced = CollectedMetrics.sum(jobName, "karrow", "numRecordsProducedFused");
        long batches = CollectedMetrics.sum(jobName, "karrow", "numFusedBatches");
        if (side != Side.FUSED) {
            assertThat(batches).as("fused batches of the unfused job %s", jobName).isZero();
            assertThat(rows + encoded + produced).as("fused records of the unfused job %s", jobName).isZero();
            return;
        }
        assertThat(batches).as("fused batches of %s", jobName).isPositive();
        if (fullSink) {
            assertThat(encoded).as("records the fused scan of %s encoded", jobName).isGreaterThanOrEqualTo(atLeast);
            assertThat(produced).as("fused records the sink of %s produced", jobName).isGreaterThanOrEqualTo(atLeast);
            assertThat(CollectedMetrics.sum(jobName, "karrow", "numRecordsEncoded"))
                    .as("rows through the per-row encoder of %s", jobName).isZero();
        } else {
            assertThat(rows).as("rows the fused scan of %s emitted", jobName).isGreaterThanOrEqualTo(atLeast);
        }
    }
}
