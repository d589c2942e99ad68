package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.admin;
import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The batched {@code kafka-native} sink end to end against a real broker and the dev registry: the
 * issue's Kafka-to-Kafka {@code INSERT} writes once through the stock {@code kafka} connector with
 * the oracle {@code avro-confluent-reference} format and once through {@code kafka-native} with
 * {@code avro-confluent-native}, in the same job; the output topics must hold the same bytes. One
 * partition and parallelism 1 compare record by record; three partitions and parallelism 2 compare
 * (partition, key, value) multisets. Every delivery guarantee, writable metadata, and exactly-once
 * with an injected failure and restart. Needs {@code -Dkarrow.kafka.bootstrap}.
 */
class KafkaNativeSinkITCase {

    private static final int BIDS = 20_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    private static final String NATIVE = "avro-confluent-native";
    private static final String ORACLE = "avro-confluent-reference";

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniCluster(2);

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

    // ---------------------------------------------------------------------------------------------
    // Tests
    // ---------------------------------------------------------------------------------------------

    @Test
    void deliveryNoneWritesTheOraclesBytes() throws Exception {
        Job job = new Job(1, 1);
        String oracle = job.sink("kafka", ORACLE, "'sink.delivery-guarantee' = 'none',", false, "");
        String actual = job.sink("kafka-native", NATIVE, "'sink.delivery-guarantee' = 'none',", false, "");
        job.run(0);
        assertSameRecordByRecord(job.expected, KafkaTestSupport.readAll(oracle, false), KafkaTestSupport.readAll(actual, false), false);
    }

    @Test
    void atLeastOnceKeyedWritesTheOraclesBytes() throws Exception {
        Job job = new Job(1, 1);
        String oracle = job.sink("kafka", ORACLE, "'sink.delivery-guarantee' = 'at-least-once',", true, "");
        String actual = job.sink("kafka-native", NATIVE, "'sink.delivery-guarantee' = 'at-least-once',", true, "");
        job.run(0);
        assertSameRecordByRecord(job.expected, KafkaTestSupport.readAll(oracle, false), KafkaTestSupport.readAll(actual, false), true);
    }

    @Test
    void exactlyOnceWritesTheOraclesBytes() throws Exception {
        Job job = new Job(1, 1);
        String oracle = job.sink("kafka", ORACLE, exactlyOnce(), false, "");
        String actual = job.sink("kafka-native", NATIVE, exactlyOnce(), false, "");
        String oracleKeyed = job.sink("kafka", ORACLE, exactlyOnce(), true, "");
        String actualKeyed = job.sink("kafka-native", NATIVE, exactlyOnce(), true, "");
        job.run(500);
        assertSameRecordByRecord(job.expected, KafkaTestSupport.readAll(oracle, true), KafkaTestSupport.readAll(actual, true), false);
        assertSameRecordByRecord(job.expected, KafkaTestSupport.readAll(oracleKeyed, true), KafkaTestSupport.readAll(actualKeyed, true), true);
    }

    /**
     * Three-partition topics, parallelism 2: Kafka's default partitioner on the key bytes, and
     * {@code sink.partitioner = 'fixed'} (subtask i writes partition i), compared as multisets of
     * (partition, key, value).
     */
    @Test
    void parallelSinksWriteTheOraclesRecords() throws Exception {
        Job job = new Job(3, 2);
        String guarantee = "'sink.delivery-guarantee' = 'at-least-once',";
        String oracle = job.sink("kafka", ORACLE, guarantee, true, "");
        String actual = job.sink("kafka-native", NATIVE, guarantee, true, "");
        String fixed = "'sink.partitioner' = 'fixed',";
        String oracleFixed = job.sink("kafka", ORACLE, guarantee + fixed, false, "");
        String actualFixed = job.sink("kafka-native", NATIVE, guarantee + fixed, false, "");
        job.run(0);
        assertSameMultiset(job.expected, KafkaTestSupport.readAll(oracle, false), KafkaTestSupport.readAll(actual, false), true);
        assertSameMultiset(job.expected, KafkaTestSupport.readAll(oracleFixed, false), KafkaTestSupport.readAll(actualFixed, false), true);
    }

    /** Writable metadata {@code timestamp} and {@code headers} round-trip as with the stock sink. */
    @Test
    void writableMetadataRoundTrips() throws Exception {
        Job job = new Job(1, 1);
        String metadataColumns = ", ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', hdrs MAP<STRING, BYTES> METADATA FROM 'headers'";
        String query = " SELECT auction, bidder, price * 100 AS price_cents, date_time,"
                + " TO_TIMESTAMP_LTZ(1700000000000 + auction, 3) AS ts,"
                + " MAP['channel', CAST(channel AS BYTES), 'none', CAST(NULL AS BYTES)] AS hdrs"
                + " FROM bids WHERE price > 1000";
        String oracle = job.sink("kafka", ORACLE, "'sink.delivery-guarantee' = 'at-least-once',", false, metadataColumns, query);
        String actual = job.sink("kafka-native", NATIVE, "'sink.delivery-guarantee' = 'at-least-once',", false, metadataColumns, query);
        job.run(0);
        List<ConsumerRecord<byte[], byte[]>> reference = KafkaTestSupport.readAll(oracle, false);
        List<ConsumerRecord<byte[], byte[]>> records = KafkaTestSupport.readAll(actual, false);
        assertSameRecordByRecord(job.expected, reference, records, false);
        for (int i = 0; i < records.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = reference.get(i);
            ConsumerRecord<byte[], byte[]> a = records.get(i);
            assertThat(a.timestamp()).as("timestamp of record %d", i).isEqualTo(r.timestamp());
            assertThat(headers(a)).as("headers of record %d", i).isEqualTo(headers(r));
        }
        ConsumerRecord<byte[], byte[]> first = records.get(0);
        assertThat(first.timestamp()).isBetween(1_700_000_001_000L, 1_700_000_001_999L);
        assertThat(headers(first)).hasSize(1).containsKey("channel");
    }

    /**
     * Exactly-once with failover: a UDF throws once mid-stream, the job restarts from the last
     * checkpoint, and a {@code read_committed} consumer sees every selected input exactly once (count
     * and an order-independent digest equal to the stock sink's in the same job, and to the input).
     */
    @Test
    void exactlyOnceSurvivesAFailureAndRestart() throws Exception {
        FailOnce.reset(BIDS / 2);
        Job job = new Job(1, 1);
        String query = " SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids"
                + " WHERE price > 1000 AND fail_once(auction)";
        String oracle = job.sink("kafka", ORACLE, exactlyOnce(), false, "", query);
        String actual = job.sink("kafka-native", NATIVE, exactlyOnce(), false, "", query);
        job.run(200);
        assertThat(FailOnce.FAILED.get()).as("the injected failure happened").isTrue();

        List<ConsumerRecord<byte[], byte[]>> reference = KafkaTestSupport.readAll(oracle, true);
        List<ConsumerRecord<byte[], byte[]>> records = KafkaTestSupport.readAll(actual, true);
        assertThat(records).hasSize(job.expected);
        assertThat(reference).hasSize(job.expected);
        assertThat(digest(records)).isEqualTo(digest(reference));
        assertThat(digest(records)).isEqualTo(job.expectedDigest);
        // Aborted transactions' records are visible to read_uncommitted: evidence that output
        // written before the failure was rolled back rather than never written.
        System.out.printf("KafkaNativeSinkITCase: failover: %d committed, %d native / %d stock records incl. aborted%n",
                records.size(), KafkaTestSupport.readAll(actual, false).size(), KafkaTestSupport.readAll(oracle, false).size());
    }

    // ---------------------------------------------------------------------------------------------
    // Job set-up
    // ---------------------------------------------------------------------------------------------

    private static final String QUERY =
            " SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids WHERE price > 1000";

    /** One Flink job: the bids source and any number of sinks, run as one statement set. */
    private static final class Job {
        final int partitions;
        final String input;
        final int expected;
        final String expectedDigest;
        final StreamTableEnvironment tEnv;
        final StreamExecutionEnvironment env;
        final StatementSet statements;
        private int sinks;
        private int nativeSinks;

        Job(int partitions, int parallelism) throws Exception {
            this.partitions = partitions;
            this.input = createTopic("bids-in", partitions);
            Bids bids = produceBids(input);
            this.expected = bids.selected;
            this.expectedDigest = bids.digest;
            Configuration config = new Configuration();
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
            env = StreamExecutionEnvironment.getExecutionEnvironment(config);
            env.setParallelism(parallelism);
            tEnv = StreamTableEnvironment.create(env);
            tEnv.createTemporarySystemFunction("fail_once", FailOnce.class);
            tEnv.executeSql("CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
                    + " url STRING, date_time TIMESTAMP(3), extra STRING) WITH ("
                    + "'connector' = 'kafka', 'topic' = '" + input + "',"
                    + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                    + "'properties.group.id' = 'karrow-native-sink-it',"
                    + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                    + "'value.format' = '" + ORACLE + "',"
                    + "'value." + ORACLE + ".url' = '" + registry.url() + "')");
            statements = tEnv.createStatementSet();
        }

        String sink(String connector, String format, String options, boolean keyed, String metadataColumns)
                throws Exception {
            return sink(connector, format, options, keyed, metadataColumns, QUERY);
        }

        /** Declares a sink table on a new topic, adds the INSERT, returns the topic. */
        String sink(String connector, String format, String options, boolean keyed, String metadataColumns, String query)
                throws Exception {
            String table = "out_" + (sinks++);
            String topic = createTopic("bids-out-" + connector + "-" + table, partitions);
            String key = keyed
                    ? "'key.format' = '" + format + "', 'key." + format + ".url' = '" + registry.url() + "',"
                            + "'key.fields' = 'auction',"
                    : "";
            tEnv.executeSql("CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price_cents BIGINT,"
                    + " date_time TIMESTAMP(3)" + metadataColumns + ") WITH ("
                    + "'connector' = '" + connector + "', 'topic' = '" + topic + "',"
                    + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                    + options.replace("%s", table) + key
                    + "'value.format' = '" + format + "',"
                    + "'value." + format + ".url' = '" + registry.url() + "')");
            statements.addInsertSql("INSERT INTO " + table + query);
            if (connector.equals("kafka-native")) {
                nativeSinks++;
            }
            return topic;
        }

        void run(long checkpointMillis) throws Exception {
            if (checkpointMillis > 0) {
                env.enableCheckpointing(checkpointMillis);
            }
            // The kafka-native sinks must run the batched path, not the stock fallback.
            String plan = statements.explain(ExplainDetail.JSON_EXECUTION_PLAN);
            assertThat(plan.split("\"type\" : \"KafkaNativeBatchEncode\"", -1).length - 1)
                    .as("batch encode operators in the plan").isEqualTo(nativeSinks);
            long start = System.nanoTime();
            statements.execute().await(5, TimeUnit.MINUTES);
            System.out.printf("KafkaNativeSinkITCase: job with %d sinks took %d ms%n",
                    sinks, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    private static String exactlyOnce() {
        return "'sink.delivery-guarantee' = 'exactly-once',"
                + "'sink.transactional-id-prefix' = 'karrow-sink-it-" + UUID.randomUUID().toString().substring(0, 8) + "-%s',"
                + "'properties.transaction.timeout.ms' = '600000',";
    }

    /** Fails the job once, when it sees its {@code failAt}-th row; slows rows a little so checkpoints complete first. */
    public static class FailOnce extends ScalarFunction {
        static final AtomicBoolean FAILED = new AtomicBoolean();
        static final AtomicInteger SEEN = new AtomicInteger();
        static volatile int failAt;

        static void reset(int at) {
            FAILED.set(false);
            SEEN.set(0);
            failAt = at;
        }

        public boolean eval(Long auction) throws InterruptedException {
            int seen = SEEN.incrementAndGet();
            if (seen % 20 == 0) {
                Thread.sleep(1);
            }
            // Both sinks share the source and this filter may be evaluated once per sink.
            if (seen >= failAt && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure after " + seen + " rows");
            }
            return true;
        }

        @Override
        public boolean isDeterministic() {
            return true;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Kafka helpers
    // ---------------------------------------------------------------------------------------------

    private record Bids(int selected, String digest) {}

    /**
     * Writes {@link #BIDS} Confluent-Avro bids round-robin over the topic's partitions; returns how
     * many have price > 1000 and the digest of their expected (auction, bidder, price_cents,
     * date_time) tuples.
     */
    private static Bids produceBids(String topic) throws Exception {
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        Random random = new Random(corpus.seed());
        int partitions;
        try (Admin admin = admin()) {
            partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
        }
        List<String> tuples = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < BIDS; i++) {
                GenericRecord bid = AvroCorpora.bid(random, i, corpus.writers().get(0));
                long price = (Long) bid.get("price");
                if (price > 1000) {
                    tuples.add(bid.get("auction") + "|" + bid.get("bidder") + "|" + price * 100 + "|" + bid.get("date_time"));
                }
                producer.send(new ProducerRecord<>(topic, i % partitions, null,
                        ConfluentAvroEncoder.encode(id, corpus.writers().get(0), bid)));
            }
            producer.flush();
        }
        return new Bids(tuples.size(), digestOf(tuples));
    }

    // ---------------------------------------------------------------------------------------------
    // Comparisons
    // ---------------------------------------------------------------------------------------------

    private static void assertSameRecordByRecord(
            int expected,
            List<ConsumerRecord<byte[], byte[]>> reference,
            List<ConsumerRecord<byte[], byte[]>> actual,
            boolean keyed) {
        assertThat(reference).hasSize(expected);
        assertThat(actual).hasSize(expected);
        for (int i = 0; i < expected; i++) {
            assertSameBytes("value of record " + i, reference.get(i).value(), actual.get(i).value());
            assertSameBytes("key of record " + i, reference.get(i).key(), actual.get(i).key());
        }
        if (keyed) {
            assertThat(actual.get(0).key()).isNotNull();
        } else {
            assertThat(actual.get(0).key()).isNull();
        }
    }

    private static void assertSameMultiset(
            int expected,
            List<ConsumerRecord<byte[], byte[]>> reference,
            List<ConsumerRecord<byte[], byte[]>> actual,
            boolean withPartition) {
        assertThat(reference).hasSize(expected);
        assertThat(actual).hasSize(expected);
        assertThat(multiset(actual, withPartition)).isEqualTo(multiset(reference, withPartition));
    }

    private static Map<String, Integer> multiset(List<ConsumerRecord<byte[], byte[]>> records, boolean withPartition) {
        Map<String, Integer> counts = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String entry = (withPartition ? r.partition() + "/" : "") + hex(r.key()) + "/" + hex(r.value());
            counts.merge(entry, 1, Integer::sum);
        }
        return counts;
    }

    /** Order-independent digest of the decoded (auction, bidder, price_cents, date_time) tuples. */
    private static String digest(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> tuples = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            tuples.add(OutputBid.decode(r.value()));
        }
        return digestOf(tuples);
    }

    private static String digestOf(List<String> tuples) {
        try {
            List<String> sorted = new ArrayList<>(tuples);
            sorted.sort(null);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String t : sorted) {
                sha.update(t.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            }
            return sorted.size() + ":" + HexFormat.of().formatHex(sha.digest());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> headers(ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> map = new HashMap<>();
        for (Header h : record.headers()) {
            map.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        return map;
    }

    private static void assertSameBytes(String what, byte[] expected, byte[] actual) {
        if (!Arrays.equals(expected, actual)) {
            throw new AssertionError(what + " differs: reference " + hex(expected) + " / native " + hex(actual));
        }
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }

    /** Decodes an output value (Confluent header + Avro record of four non-null... nullable longs/timestamp). */
    private static final class OutputBid {
        static String decode(byte[] value) {
            // 0x00, 4-byte id, then four union-encoded fields: index (zigzag long) then the long.
            int[] pos = {5};
            long[] fields = new long[4];
            for (int f = 0; f < 4; f++) {
                long branch = readLong(value, pos);
                fields[f] = branch == 0 ? Long.MIN_VALUE : readLong(value, pos);
            }
            return fields[0] + "|" + fields[1] + "|" + fields[2] + "|" + fields[3];
        }

        private static long readLong(byte[] b, int[] pos) {
            long n = 0;
            int shift = 0;
            while (true) {
                int x = b[pos[0]++] & 0xff;
                n |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    break;
                }
                shift += 7;
            }
            return (n >>> 1) ^ -(n & 1);
        }
    }
}
