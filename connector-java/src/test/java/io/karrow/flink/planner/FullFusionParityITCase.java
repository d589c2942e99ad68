package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;
import io.karrow.flink.testutils.SqlTestSupport;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;

/**
 * Full fusion end to end on a real broker and MiniCluster: each query runs once on the stock path
 * ({@code kafka} connector in and out, {@code json} formats, Flink's Calc, Kafka's producer) and once
 * fully fused ({@code kafka-native} in and out with the native fetch, {@code json-native},
 * {@code 'sink.produce-mode' = 'native'}: the scan decodes, runs the Calc and encodes keys and values
 * in one native call per fetched batch, and the sink hands each encoded batch to its native producer).
 * The output topics must hold the same records byte for byte — keys, values, headers, partition by
 * partition in order (one partition in, parallelism 1) — under at-least-once and exactly-once (read
 * {@code read_committed}), and the fused run must show full fusion engaged: {@code EXPLAIN} names the
 * fused sink, the planner reported it fused, the sink's {@code karrow.numRecordsProducedFused} and the
 * source's {@code numFusedRecordsEncoded} equal the stock output's count, and the sink's per-row
 * encoder ({@code numRecordsEncoded}) saw no row. One query writes Confluent Avro values (stock
 * {@code avro-confluent-reference} against {@code avro-confluent-native}, the dev registry over
 * HTTP). A row the Calc fails on fails both jobs; an unchained edge fails the fused job loudly.
 * Needs {@code -Dkarrow.kafka.bootstrap}, {@code -Dkarrow.native.library} and the dev registry binary.
 */
class FullFusionParityITCase {

    private static final int RECORDS = 12_000;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setConfiguration(CollectedMetrics.configuration())
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static final String BIDS_COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
            + " url STRING, date_time TIMESTAMP(3), extra STRING";

    private static final String DEMO = "SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids"
            + " WHERE price > 1000";

    private static String bidsTopic;
    /** The same corpus over three partitions (record n in partition n % 3). */
    private static String bids3Topic;
    private static DevRegistry registry;

    private final List<String> fused = Collections.synchronizedList(new ArrayList<>());
    private final List<String> declined = Collections.synchronizedList(new ArrayList<>());
    private final FusionDecisions.Listener listener = new FusionDecisions.Listener() {
        @Override
        public void fused(String segment, String detail) {
            fused.add(segment);
        }

        @Override
        public void declined(String segment, String reason) {
            declined.add(segment + ": " + reason);
        }
    };

    @BeforeAll
    static void writeCorpus() throws Exception {
        KafkaTestSupport.requireBroker();
        registry = DevRegistry.start();
        bidsTopic = KafkaTestSupport.createTopic("full-fusion-bids", 1);
        Random random = new Random(1919);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            bids3Topic = KafkaTestSupport.createTopic("full-fusion-bids3", 3);
            for (int n = 0; n < RECORDS; n++) {
                byte[] value = bidValue(n, random).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(bidsTopic, value));
                producer.send(new ProducerRecord<>(bids3Topic, n % 3, null, value));
            }
            producer.flush();
        }
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    @BeforeEach
    void listen() {
        FusionDecisions.addListener(listener);
    }

    @AfterEach
    void stopListening() {
        FusionDecisions.removeListener(listener);
    }

    private static String quote(String s) {
        return io.karrow.flink.nativebridge.JsonText.appendString(new StringBuilder(), s).toString();
    }

    /** A Nexmark-like bid around the demo's threshold, with NULLs, extremes and non-ASCII text. */
    private static String bidValue(int n, Random random) {
        long price = random.nextInt(10) == 0 ? 1000 : random.nextInt(20) == 0 ? Long.MAX_VALUE / 7 : random.nextInt(3000);
        String extra = random.nextInt(5) == 0 ? "null" : quote("extra-" + random.nextInt(1000) + " é 日本 😀");
        String bidder = random.nextInt(25) == 0 ? "null" : String.valueOf(random.nextInt(100_000));
        return "{\"auction\": " + (1000 + random.nextInt(500)) + ", \"bidder\": " + bidder
                + ", \"price\": " + price + ", \"channel\": " + quote(new String[] {"Google", "Apple", "Baidu", "Ü"}[n % 4])
                + ", \"url\": " + quote("https://www.nexmark.com/item.htm?query=1&channel_id=" + n)
                + ", \"date_time\": \"2023-11-14 22:13:" + String.format(Locale.ROOT, "%02d.%03d", n % 60, n % 1000)
                + "\", \"extra\": " + extra + "}";
    }

    /** Which side a job runs on. */
    private enum Side {
        STOCK("kafka", "json", ""),
        FUSED("kafka-native", "json-native", "'sink.produce-mode' = 'native', ");

        final String connector;
        final String format;
        final String sinkOptions;

        Side(String connector, String format, String sinkOptions) {
            this.connector = connector;
            this.format = format;
            this.sinkOptions = sinkOptions;
        }
    }

    /**
     * One query's shape: the sink's columns, its key fields (or null), the output partitions,
     * exactly-once, and whether the sink's value format is Confluent Avro (with the dev registry)
     * instead of JSON.
     */
    private record Query(String label, String outColumns, String keyFields, int partitions, boolean exactlyOnce,
            String select, boolean avro, boolean threeInputPartitions) {
        Query(String label, String outColumns, String keyFields, int partitions, boolean exactlyOnce, String select) {
            this(label, outColumns, keyFields, partitions, exactlyOnce, select, false, false);
        }

        Query(String label, String outColumns, String keyFields, int partitions, boolean exactlyOnce, String select,
                boolean avro) {
            this(label, outColumns, keyFields, partitions, exactlyOnce, select, avro, false);
        }
    }

    /** What one side wrote and showed. */
    private record Run(List<ConsumerRecord<byte[], byte[]>> records, String explain, String jobName) {}

    private static Run run(Side side, Query q) throws Exception {
        return run(side, q, true);
    }

    private static Run run(Side side, Query q, boolean chaining) throws Exception {
        String jobName = "full-fusion-" + q.label() + "-" + side.name().toLowerCase(Locale.ROOT);
        String out = KafkaTestSupport.createTopic(jobName, q.partitions());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        if (!chaining) {
            env.disableOperatorChaining();
        }
        if (q.exactlyOnce()) {
            env.enableCheckpointing(200);
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("pipeline.name", jobName);
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, side == Side.FUSED);
        tEnv.executeSql("CREATE TEMPORARY TABLE bids (" + BIDS_COLUMNS + ") WITH ("
                + "'connector' = '" + side.connector + "', "
                + "'topic' = '" + (q.threeInputPartitions() ? bids3Topic : bidsTopic) + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + "'properties.group.id' = 'full-fusion', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + (side == Side.FUSED ? "'scan.fetch-mode' = 'native', " : "")
                + "'value.format' = '" + side.format + "')");
        String guarantee = q.exactlyOnce()
                ? "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'karrow-ff-"
                        + UUID.randomUUID().toString().substring(0, 8) + "', 'properties.transaction.timeout.ms' = '600000', "
                : "'sink.delivery-guarantee' = 'at-least-once', ";
        String key = q.keyFields() == null ? ""
                : "'key.format' = '" + side.format + "', 'key.fields' = '" + q.keyFields() + "', ";
        tEnv.executeSql("CREATE TEMPORARY TABLE out_table (" + q.outColumns() + ") WITH ("
                + "'connector' = '" + side.connector + "', "
                + "'topic' = '" + out + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + side.sinkOptions + guarantee + key
                + valueFormat(side, q) + ")");
        String insert = "INSERT INTO out_table " + q.select();
        String explain = tEnv.explainSql(insert);
        tEnv.executeSql(insert).await();
        return new Run(KafkaTestSupport.readAll(out, q.exactlyOnce()), explain, jobName);
    }

    private static String valueFormat(Side side, Query q) {
        if (!q.avro()) {
            return "'value.format' = '" + side.format + "'";
        }
        String format = side == Side.STOCK ? "avro-confluent-reference" : "avro-confluent-native";
        return "'value.format' = '" + format + "', 'value." + format + ".url' = '" + registry.url() + "'";
    }

    private void assertParity(Query q, int minimumRecords) throws Exception {
        Run stock = run(Side.STOCK, q);
        assertThat(stock.explain()).doesNotContain("Karrow");
        assertThat(stock.records()).hasSizeGreaterThanOrEqualTo(minimumRecords);
        fused.clear();
        declined.clear();
        Run native_ = run(Side.FUSED, q);

        assertThat(native_.explain()).as("declined: %s", declined)
                .contains("fusedSink=[default_catalog.default_database.out_table]");
        assertThat(declined).isEmpty();
        assertThat(fused).anyMatch(s -> s.startsWith("the kafka-native sink default_catalog.default_database.out_table"));
        long expected = stock.records().size();
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numRecordsProducedFused")).isEqualTo(expected);
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numFusedRecordsEncoded")).isEqualTo(expected);
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numFusedBatches")).isPositive();
        // The sink's per-row path (the table rows' encoder) saw no row.
        assertThat(CollectedMetrics.sum(native_.jobName(), "karrow", "numRecordsEncoded")).isZero();
        if (q.threeInputPartitions()) {
            // How one reader interleaves three partitions depends on its fetches: the records of
            // each input partition keep their order, the output is compared as a multiset.
            assertThat(sortedImages(native_.records())).isEqualTo(sortedImages(stock.records()));
        } else {
            assertSameRecords(stock.records(), native_.records());
        }
    }

    /** Partition, key, value and headers of each record, sorted. */
    private static List<String> sortedImages(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> images = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            images.add(r.partition() + "|" + Arrays.toString(r.key()) + "|" + Arrays.toString(r.value()) + "|"
                    + headers(r));
        }
        Collections.sort(images);
        return images;
    }

    private static void assertSameRecords(List<ConsumerRecord<byte[], byte[]>> stock,
            List<ConsumerRecord<byte[], byte[]>> native_) {
        assertThat(native_).hasSameSizeAs(stock);
        for (int i = 0; i < stock.size(); i++) {
            ConsumerRecord<byte[], byte[]> s = stock.get(i);
            ConsumerRecord<byte[], byte[]> n = native_.get(i);
            String what = "output record " + i + ", stock " + text(s.value()) + ", native " + text(n.value());
            assertThat(n.partition()).as(what).isEqualTo(s.partition());
            assertThat(n.key()).as("key of " + what).isEqualTo(s.key());
            assertThat(n.value()).as(what).isEqualTo(s.value());
            assertThat(headers(n)).as("headers of " + what).isEqualTo(headers(s));
        }
    }

    private static List<String> headers(ConsumerRecord<byte[], byte[]> r) {
        List<String> out = new ArrayList<>();
        for (Header h : r.headers()) {
            out.add(h.key() + "=" + Arrays.toString(h.value()));
        }
        return out;
    }

    private static String text(byte[] b) {
        return b == null ? "null" : new String(b, StandardCharsets.UTF_8);
    }

    private static final String DEMO_COLUMNS = "auction BIGINT, bidder BIGINT, price_cents BIGINT, date_time TIMESTAMP(3)";

    @Test
    void theDemoQueryAtLeastOnce() throws Exception {
        assertParity(new Query("demo-alo", DEMO_COLUMNS, null, 1, false, DEMO), 1000);
    }

    @Test
    void theDemoQueryKeyedOverThreePartitionsExactlyOnce() throws Exception {
        assertParity(new Query("demo-eos", DEMO_COLUMNS, "auction", 3, true, DEMO), 1000);
    }

    @Test
    void expressionsKeyedAtLeastOnce() throws Exception {
        assertParity(new Query("exprs", "bidder BIGINT, auction BIGINT, doubled BIGINT, chan STRING, tag STRING,"
                        + " big BOOLEAN, ts TIMESTAMP(3)",
                "bidder", 3, false,
                "SELECT bidder, auction, price * 2 AS doubled, UPPER(channel) AS chan,"
                        + " COALESCE(extra, 'none') AS tag, price > 2000 AS big, date_time AS ts"
                        + " FROM bids WHERE price <> 1000 AND (bidder IS NULL OR MOD(bidder, 3) <> 0)"),
                1000);
    }

    /**
     * Three input partitions read by one subtask: a fetch holds records of several splits, each
     * run of one split's values becomes its own native call and encoded batch (the values laid out
     * at an offset into the fetch's buffer).
     */
    @Test
    void threeInputPartitionsKeyedExactlyOnce() throws Exception {
        assertParity(new Query("three-in", DEMO_COLUMNS, "auction", 3, true, DEMO, false, true), 1000);
    }

    @Test
    void confluentAvroValuesKeyedExactlyOnce() throws Exception {
        assertParity(new Query("avro-eos", "auction BIGINT, bidder BIGINT, price_cents BIGINT, channel STRING,"
                        + " date_time TIMESTAMP(3), extra STRING", "auction", 3, true,
                "SELECT auction, bidder, price * 100 AS price_cents, channel, date_time, extra FROM bids"
                        + " WHERE price > 1000", true),
                1000);
    }

    /**
     * A row the Calc fails on (Flink's CAST of a non-number) fails both jobs: stock Flink's Calc with
     * its message, the fully fused one when the sink hands the batch over, with Flink's message and
     * the record's topic, partition and offset.
     */
    @Test
    void aRowTheCalcFailsOnFailsBothJobs() throws Exception {
        Query q = new Query("fails", "auction BIGINT, v INT", null, 1, false,
                "SELECT auction, CAST(channel AS INT) AS v FROM bids WHERE price > 1000");
        String[] messages = new String[2];
        for (Side side : Side.values()) {
            try {
                run(side, q);
            } catch (Exception e) {
                messages[side.ordinal()] = SqlTestSupport.messages(e);
            }
        }
        assertThat(messages[0]).as("the stock job must fail").isNotNull().containsIgnoringCase("for input string");
        assertThat(messages[1]).as("the stock job failed with %s", messages[0]).isNotNull()
                .containsIgnoringCase("for input string")
                .contains("topic '" + bidsTopic + "', partition 0, offset ");
        assertThat(fused).anyMatch(s -> s.startsWith("the kafka-native sink default_catalog.default_database.out_table"));
    }

    /**
     * The encoded batches cross only chained edges: with chaining off the fully fused job fails with
     * the carrier's message (it never ships a native reference, nor runs unfused).
     */
    @Test
    void anUnchainedEdgeFailsLoudly() {
        Query q = new Query("unchained", DEMO_COLUMNS, null, 1, false, DEMO);
        assertThatThrownBy(() -> run(Side.FUSED, q, false))
                .satisfies(e -> assertThat(SqlTestSupport.messages(e)).contains("cross only chained edges"));
    }
}
