package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.planner.OperatorCoreOptions;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntUnaryOperator;

/**
 * Event-time parity of {@code kafka-native} with {@code kafka} over a real broker
 * ({@code -Dkarrow.kafka.bootstrap}), the dev registry, 3 partitions and parallelism 2: a table with
 * {@code WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND} and a 1-minute TUMBLE window
 * aggregate ({@code COUNT(*)}, {@code SUM(price)}).
 *
 * <ul>
 *   <li>bounded ({@code latest-offset}): both connectors give exactly the windows computed from the
 *       produced data (the data is out of order by less than the watermark delay within each
 *       partition, so no record is late and the result does not depend on timing);
 *   <li>unbounded with one empty partition and {@code scan.watermark.idle-timeout}: the empty
 *       partition goes idle, the watermark advances with the others, and every window that ends
 *       before the last record's watermark fires, the same for both connectors (without idleness
 *       none would fire: checked by hand, the stock connector's job then never emits a window).
 * </ul>
 * Each {@code kafka-native} job's {@code karrow} metrics must show that it decoded in native
 * batches and fetched natively exactly when {@code 'scan.fetch-mode' = 'native'}.
 */
class KafkaNativeWatermarkITCase {

    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    /** A whole minute (1,699,999,980,000 = 28,333,333 minutes), so window {@code k} starts at {@code BASE + k min}. */
    private static final long BASE = 1_699_999_980_000L;
    private static final long MINUTE = 60_000L;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .setConfiguration(CollectedMetrics.configuration())
                    .build());

    private static DevRegistry registry;

    @BeforeAll
    static void setUp() throws Exception {
        // Fail (not skip) when the broker is absent: CI must start it.
        KafkaTestSupport.requireBroker();
        registry = DevRegistry.start();
    }

    @AfterAll
    static void tearDown() {
        if (registry != null) {
            registry.close();
        }
    }

    /** Window start -> {COUNT(*), SUM(price)} of the records produced, as the query computes them. */
    private static final class Windows {
        final Map<Long, long[]> byStart = new TreeMap<>();

        void add(long dateTime, long price) {
            long[] agg = byStart.computeIfAbsent(Math.floorDiv(dateTime, MINUTE) * MINUTE, k -> new long[2]);
            agg[0]++;
            agg[1] += price;
        }

        /** The expected result rows, limited to windows starting before {@code endExclusive}. */
        Map<Row, Integer> rows(long endExclusive) {
            Map<Row, Integer> rows = new HashMap<>();
            byStart.forEach((start, agg) -> {
                if (start < endExclusive) {
                    rows.merge(Row.of(time(start), time(start + MINUTE), agg[0], agg[1]), 1, Integer::sum);
                }
            });
            return rows;
        }

        private static LocalDateTime time(long millis) {
            return LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
        }
    }

    /**
     * Produces {@code count} bids to {@code partitionOf(i)}, bid {@code i} at {@code BASE + i * 100 ms}
     * plus up to 900 ms of jitter (so each partition is out of order by less than a second), and
     * returns their windows.
     */
    private static Windows produce(String topic, int schemaId, AvroCorpus corpus, int count, IntUnaryOperator partitionOf,
            KafkaProducer<byte[], byte[]> producer) {
        Windows windows = new Windows();
        Random random = new Random(42);
        for (int i = 0; i < count; i++) {
            GenericRecord bid = AvroCorpora.bid(random, i, corpus.writers().get(0));
            long dateTime = BASE + i * 100L + random.nextInt(900);
            bid.put("date_time", dateTime);
            windows.add(dateTime, (Long) bid.get("price"));
            producer.send(new ProducerRecord<>(topic, partitionOf.applyAsInt(i), null,
                    ConfluentAvroEncoder.encode(schemaId, corpus.writers().get(0), bid)));
        }
        producer.flush();
        return windows;
    }

    private static StreamTableEnvironment tableEnv() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return StreamTableEnvironment.create(env);
    }

    private static String ddl(String table, String connector, String format, String topic, String extraOptions) {
        return "CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING,"
                + " WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND)"
                + " WITH ('connector' = '" + connector + "', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'properties.group.id' = 'karrow-watermark-it',"
                + "'scan.startup.mode' = 'earliest-offset',"
                + "'value.format' = '" + format + "', 'value." + format + ".url' = '" + registry.url() + "'"
                + extraOptions + ")";
    }

    private static String windowQuery(String table) {
        return "SELECT window_start, window_end, COUNT(*), SUM(price)"
                + " FROM TABLE(TUMBLE(TABLE " + table + ", DESCRIPTOR(date_time), INTERVAL '1' MINUTE))"
                + " GROUP BY window_start, window_end";
    }

    /** Collects rows until the job ends, or until {@code limit} rows arrived (then cancels the job). */
    private static Map<Row, Integer> collect(StreamTableEnvironment tEnv, String query, int limit) throws Exception {
        Map<Row, Integer> multiset = new HashMap<>();
        int n = 0;
        TableResult result = tEnv.executeSql(query);
        JobClient job = result.getJobClient().orElseThrow();
        // An unbounded job whose windows never fire would block hasNext() forever: cancel it after a while.
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(120));
                timedOut.set(true);
                job.cancel();
            } catch (InterruptedException ignored) {
                // finished in time
            }
        }, "karrow-watermark-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try (CloseableIterator<Row> rows = result.collect()) {
            while (n < limit && rows.hasNext()) {
                multiset.merge(rows.next(), 1, Integer::sum);
                n++;
            }
        } catch (RuntimeException e) {
            if (timedOut.get()) {
                throw new AssertionError("Cancelled after 120 s with " + n + " of " + limit + " rows: " + multiset, e);
            }
            throw e;
        } finally {
            watchdog.interrupt();
        }
        return multiset;
    }

    /**
     * {@link #collect} as its own job over one {@code kafka-native} + {@code avro-confluent-native}
     * table, asserting from the job's metrics that the source decoded {@code records} records (at
     * least that many when {@code atLeast}: an unbounded job may read on until it is cancelled) in
     * native batches, fetched natively iff {@code nativeFetch}.
     */
    private static Map<Row, Integer> collectNative(StreamTableEnvironment tEnv, String query, int limit,
            long records, boolean atLeast, boolean nativeFetch) throws Exception {
        String job = "watermark-native-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", job);
        Map<Row, Integer> rows = collect(tEnv, query, limit);
        long decoded = CollectedMetrics.sum(job, "karrow", "numRecordsDecoded");
        long fetched = CollectedMetrics.sum(job, "karrow", "numRecordsFetchedNatively");
        if (atLeast) {
            assertThat(decoded).as("records the kafka-native source decoded: %s", query)
                    .isGreaterThanOrEqualTo(records);
        } else {
            assertThat(decoded).as("records the kafka-native source decoded: %s", query).isEqualTo(records);
        }
        assertThat(CollectedMetrics.sum(job, "karrow", "numNativeBatches"))
                .as("native decode batches: %s", query).isPositive();
        assertThat(fetched).as("records fetched natively: %s", query).isEqualTo(nativeFetch ? decoded : 0);
        return rows;
    }

    /** The option that selects the native fetch. */
    private static final String NATIVE_FETCH = ", 'scan.fetch-mode' = 'native'";

    @Test
    void boundedTumbleWindowsGiveTheStockConnectorsResults() throws Exception {
        String topic = createTopic("watermark-bounded", 3);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        Windows windows;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            windows = produce(topic, id, corpus, 5_990, i -> i % 3, producer);
        }
        Map<Row, Integer> expected = windows.rows(Long.MAX_VALUE);
        assertThat(expected).hasSize(10);

        StreamTableEnvironment tEnv = tableEnv();
        String bounded = ", 'scan.bounded.mode' = 'latest-offset'";
        tEnv.executeSql(ddl("stock", "kafka", "avro-confluent-reference", topic, bounded));
        tEnv.executeSql(ddl("batched", "kafka-native", "avro-confluent-native", topic, bounded));
        tEnv.executeSql(ddl("fetched", "kafka-native", "avro-confluent-native", topic, bounded + NATIVE_FETCH));
        Map<Row, Integer> stock = collect(tEnv, windowQuery("stock"), Integer.MAX_VALUE);
        assertThat(stock).isEqualTo(expected);
        assertThat(collectNative(tEnv, windowQuery("batched"), Integer.MAX_VALUE, 5_990, false, false))
                .isEqualTo(stock);
        assertThat(collectNative(tEnv, windowQuery("fetched"), Integer.MAX_VALUE, 5_990, false, true))
                .isEqualTo(stock);
    }

    @Test
    void idleTimeoutLetsWindowsFireWithAnEmptyPartition() throws Exception {
        String topic = createTopic("watermark-idle", 3);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        Windows windows;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            // Partitions 0 and 1 hold six minutes of bids; partition 2 stays empty.
            windows = produce(topic, id, corpus, 3_590, i -> i % 2, producer);
            // One late-enough bid per non-empty partition moves both watermarks to 7:29 (window 7 stays open).
            GenericRecord closer = AvroCorpora.bid(new Random(7), 0, corpus.writers().get(0));
            closer.put("date_time", BASE + 7 * MINUTE + 30_000);
            for (int p = 0; p < 2; p++) {
                producer.send(new ProducerRecord<>(topic, p, null,
                        ConfluentAvroEncoder.encode(id, corpus.writers().get(0), closer)));
            }
            producer.flush();
        }
        // Windows 0..5 fire (window 6 is empty, window 7 holds the closers and never fires).
        Map<Row, Integer> expected = windows.rows(BASE + 6 * MINUTE);
        assertThat(expected).hasSize(6);

        StreamTableEnvironment tEnv = tableEnv();
        // Long enough that a partition with data is not declared idle while its consumer starts on a
        // loaded machine (its records would then arrive after the windows fired, and be dropped):
        // 3 s was seen to lose that race in CI.
        String idle = ", 'scan.watermark.idle-timeout' = '15 s'";
        tEnv.executeSql(ddl("stock_idle", "kafka", "avro-confluent-reference", topic, idle));
        tEnv.executeSql(ddl("batched_idle", "kafka-native", "avro-confluent-native", topic, idle));
        tEnv.executeSql(ddl("fetched_idle", "kafka-native", "avro-confluent-native", topic, idle + NATIVE_FETCH));
        Map<Row, Integer> stock = collect(tEnv, windowQuery("stock_idle"), expected.size());
        assertThat(stock).isEqualTo(expected);
        // The windows fire only after both closers, the last records of their partitions, decoded.
        assertThat(collectNative(tEnv, windowQuery("batched_idle"), expected.size(), 3_592, true, false))
                .isEqualTo(stock);
        assertThat(collectNative(tEnv, windowQuery("fetched_idle"), expected.size(), 3_592, true, true))
                .isEqualTo(stock);
    }

    /**
     * {@link #collect} as its own job with the operator core on, over a {@code kafka-native} table
     * with the native fetch: the plan must fuse the Calc under the window aggregate into the scan
     * (its watermark strategy generated again over the Calc's rows), and the source must have emitted
     * {@code rows} fused rows (at least that many when {@code atLeast}).
     */
    private static Map<Row, Integer> collectFused(StreamTableEnvironment tEnv, String query, int limit, long rows,
            boolean atLeast) throws Exception {
        String job = "watermark-fused-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", job);
        tEnv.getConfig().set(OperatorCoreOptions.ENABLED, true);
        tEnv.getConfig().set(OperatorCoreOptions.WATERMARKED_SCANS_ENABLED, true);
        try {
            String explain = tEnv.explainSql(query);
            assertThat(explain).as("the fused plan of %s", query).contains("KarrowFusedScan");
            Map<Row, Integer> result = collect(tEnv, query, limit);
            long emitted = CollectedMetrics.sum(job, "karrow", "numFusedRowsEmitted");
            if (atLeast) {
                assertThat(emitted).as("rows the fused scan emitted: %s", query).isGreaterThanOrEqualTo(rows);
            } else {
                assertThat(emitted).as("rows the fused scan emitted: %s", query).isEqualTo(rows);
            }
            assertThat(CollectedMetrics.sum(job, "karrow", "numFusedBatches")).as("fused batches: %s", query)
                    .isPositive();
            return result;
        } finally {
            tEnv.getConfig().set(OperatorCoreOptions.ENABLED, false);
        }
    }

    /** The window query over a watermarked table, fused, against the stock connector (bounded). */
    @Test
    void boundedTumbleWindowsOverAFusedScanGiveTheStockConnectorsResults() throws Exception {
        String topic = createTopic("watermark-fused-bounded", 3);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        Windows windows;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            windows = produce(topic, id, corpus, 5_990, i -> i % 3, producer);
        }
        Map<Row, Integer> expected = windows.rows(Long.MAX_VALUE);
        assertThat(expected).hasSize(10);

        StreamTableEnvironment tEnv = tableEnv();
        String bounded = ", 'scan.bounded.mode' = 'latest-offset'";
        tEnv.executeSql(ddl("stock", "kafka", "avro-confluent-reference", topic, bounded));
        tEnv.executeSql(ddl("fused", "kafka-native", "avro-confluent-native", topic, bounded + NATIVE_FETCH));
        Map<Row, Integer> stock = collect(tEnv, windowQuery("stock"), Integer.MAX_VALUE);
        assertThat(stock).isEqualTo(expected);
        assertThat(collectFused(tEnv, windowQuery("fused"), Integer.MAX_VALUE, 5_990, false)).isEqualTo(stock);
    }

    /**
     * A filtering Calc under the window aggregate, fused: Flink's watermark generator runs on the
     * scan's rows, before the filter, so a row the filter drops still moves the watermark, and the
     * rows that pass after it but lie behind that watermark are late and miss their windows. The
     * fused source emits a watermark row for each row its Calc drops, so the same rows are late
     * fused as stock. One partition, parallelism 1, a watermark on every event and a one-phase
     * aggregate: rows and watermarks reach the window operator in one order, whatever the timing.
     */
    @Test
    void aFilteredRowMovesTheWatermarkOverAFusedScanAsItDoesStock() throws Exception {
        String topic = createTopic("watermark-fused-filtered", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        int count = 3_000;
        int jumper = 1_000;
        long jumperTime = BASE + 4 * MINUTE + 30_000;
        // Bids every 100 ms, in order, price > 0; bid 1000 (at 1:40 by its position) is dated 4:30 and
        // has price 0, so the query's filter drops it: its watermark (4:29) makes the passing bids of
        // windows 1 to 3 that follow it late.
        Windows passing = new Windows();
        Windows onTime = new Windows();
        Random random = new Random(42);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < count; i++) {
                GenericRecord bid = AvroCorpora.bid(random, i, corpus.writers().get(0));
                long dateTime = i == jumper ? jumperTime : BASE + i * 100L;
                long price = i == jumper ? 0 : 1 + i % 997;
                bid.put("date_time", dateTime);
                bid.put("price", price);
                if (i != jumper) {
                    passing.add(dateTime, price);
                    long windowEnd = Math.floorDiv(dateTime, MINUTE) * MINUTE + MINUTE;
                    // Flink's window operator drops a row whose window fired: end - 1 <= watermark.
                    if (i < jumper || windowEnd - 1 > jumperTime - 1_000) {
                        onTime.add(dateTime, price);
                    }
                }
                producer.send(new ProducerRecord<>(topic, 0, null,
                        ConfluentAvroEncoder.encode(id, corpus.writers().get(0), bid)));
            }
            producer.flush();
        }
        Map<Row, Integer> expected = onTime.rows(Long.MAX_VALUE);
        assertThat(expected).as("the late rows leave windows out").hasSizeLessThan(passing.rows(Long.MAX_VALUE).size());

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.optimizer.agg-phase-strategy", "ONE_PHASE");
        String options = ", 'scan.bounded.mode' = 'latest-offset', 'scan.watermark.emit.strategy' = 'on-event'";
        tEnv.executeSql(ddl("stock", "kafka", "avro-confluent-reference", topic, options));
        tEnv.executeSql(ddl("fused", "kafka-native", "avro-confluent-native", topic, options + NATIVE_FETCH));
        tEnv.executeSql("CREATE TEMPORARY VIEW stock_paid AS SELECT * FROM stock WHERE price > 0");
        tEnv.executeSql("CREATE TEMPORARY VIEW fused_paid AS SELECT * FROM fused WHERE price > 0");
        Map<Row, Integer> stock = collect(tEnv, windowQuery("stock_paid"), Integer.MAX_VALUE);
        assertThat(stock).isEqualTo(expected);
        assertThat(collectFused(tEnv, windowQuery("fused_paid"), Integer.MAX_VALUE, count - 1, false))
                .isEqualTo(stock);
    }

    /**
     * Idleness and per-partition watermarks through a fused scan: the windows fire when the empty
     * partition goes idle, exactly the stock connector's windows (without the fused source's
     * per-split watermarks and idleness none would fire, or records would be late).
     */
    @Test
    void idleTimeoutLetsWindowsFireOverAFusedScanWithAnEmptyPartition() throws Exception {
        String topic = createTopic("watermark-fused-idle", 3);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        Windows windows;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            windows = produce(topic, id, corpus, 3_590, i -> i % 2, producer);
            GenericRecord closer = AvroCorpora.bid(new Random(7), 0, corpus.writers().get(0));
            closer.put("date_time", BASE + 7 * MINUTE + 30_000);
            for (int p = 0; p < 2; p++) {
                producer.send(new ProducerRecord<>(topic, p, null,
                        ConfluentAvroEncoder.encode(id, corpus.writers().get(0), closer)));
            }
            producer.flush();
        }
        Map<Row, Integer> expected = windows.rows(BASE + 6 * MINUTE);
        assertThat(expected).hasSize(6);

        StreamTableEnvironment tEnv = tableEnv();
        String idle = ", 'scan.watermark.idle-timeout' = '15 s'";
        tEnv.executeSql(ddl("stock_idle", "kafka", "avro-confluent-reference", topic, idle));
        tEnv.executeSql(ddl("fused_idle", "kafka-native", "avro-confluent-native", topic, idle + NATIVE_FETCH));
        Map<Row, Integer> stock = collect(tEnv, windowQuery("stock_idle"), expected.size());
        assertThat(stock).isEqualTo(expected);
        assertThat(collectFused(tEnv, windowQuery("fused_idle"), expected.size(), 3_592, true)).isEqualTo(stock);
    }
}
