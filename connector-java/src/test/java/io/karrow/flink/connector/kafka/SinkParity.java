package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.CollectedMetrics;
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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

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
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sink parity harness: one Flink job reads Confluent-Avro bids and writes the same {@code INSERT}
 * through any number of sinks (the stock {@code kafka} connector with the oracle format, {@code
 * kafka-native} with Kafka's producer or with native produce), then the output topics are compared
 * byte for byte with the stock sink's. The job asserts in its plan that every {@code kafka-native}
 * sink ran the batched or the native path it was asked for, and from the {@code
 * karrow.numRecordsProducedNatively} counters that the native producer wrote every record of the
 * native sinks (the cluster must report to {@link CollectedMetrics}).
 */
final class SinkParity {

    /** Bids written to the input topic. */
    static final int BIDS = 20_000;
    static final String NATIVE = "avro-confluent-native";
    static final String ORACLE = "avro-confluent-reference";
    static final String QUERY =
            " SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids WHERE price > 1000";
    /** Writable metadata: {@code timestamp} and {@code headers} (a null header value is dropped, as Flink drops it). */
    static final String METADATA_COLUMNS =
            ", ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', hdrs MAP<STRING, BYTES> METADATA FROM 'headers'";
    /**
     * The base of the written {@code timestamp} metadata: an hour ago, so the broker's retention
     * ({@code log.retention.hours}, 7 days) never deletes the output before it is read.
     */
    static final long TIMESTAMP_BASE = (System.currentTimeMillis() / 1000 - 3600) * 1000;
    static final String METADATA_QUERY = " SELECT auction, bidder, price * 100 AS price_cents, date_time,"
            + " TO_TIMESTAMP_LTZ(" + TIMESTAMP_BASE + " + auction, 3) AS ts,"
            + " MAP['channel', CAST(channel AS BYTES), 'none', CAST(NULL AS BYTES)] AS hdrs"
            + " FROM bids WHERE price > 1000";
    static final String NATIVE_PRODUCE = "'sink.produce-mode' = 'native',";

    private SinkParity() {}

    /** {@code sink.delivery-guarantee} = exactly-once with a fresh transactional id prefix ({@code %s}: the table). */
    static String exactlyOnce() {
        return "'sink.delivery-guarantee' = 'exactly-once',"
                + "'sink.transactional-id-prefix' = 'karrow-it-" + UUID.randomUUID().toString().substring(0, 8) + "-%s',"
                + "'properties.transaction.timeout.ms' = '600000',";
    }

    /** One Flink job: the bids source and any number of sinks, run as one statement set. */
    static final class Job {
        final String bootstrap;
        final DevRegistry registry;
        final int partitions;
        final String input;
        final int expected;
        final String expectedDigest;
        final StreamTableEnvironment tEnv;
        final StreamExecutionEnvironment env;
        final StatementSet statements;
        final String name = "sink-parity-" + UUID.randomUUID();
        private int sinks;
        private int batchSinks;
        private int nativeProduceSinks;
        private final List<String> nativeTopics = new ArrayList<>();
        private boolean failureInjected;

        Job(String bootstrap, DevRegistry registry, int partitions, int parallelism) throws Exception {
            this.bootstrap = bootstrap;
            this.registry = registry;
            this.partitions = partitions;
            this.input = KafkaTestSupport.createTopic(bootstrap, "bids-in", partitions);
            Bids bids = produceBids(bootstrap, registry, input);
            this.expected = bids.selected;
            this.expectedDigest = bids.digest;
            Configuration config = new Configuration();
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
            config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
            env = StreamExecutionEnvironment.getExecutionEnvironment(config);
            env.setParallelism(parallelism);
            tEnv = StreamTableEnvironment.create(env);
            tEnv.getConfig().set("pipeline.name", name);
            tEnv.createTemporarySystemFunction("fail_once", FailOnce.class);
            tEnv.executeSql("CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,"
                    + " url STRING, date_time TIMESTAMP(3), extra STRING) WITH ("
                    + "'connector' = 'kafka', 'topic' = '" + input + "',"
                    + "'properties.bootstrap.servers' = '" + bootstrap + "',"
                    + "'properties.group.id' = 'karrow-sink-parity',"
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
            return declare("'connector' = '" + connector + "',", connector, format, options, keyed, metadataColumns, query);
        }

        /**
         * As {@link #sink}, with the sink of {@code connector} behind {@link FailingCommitTableFactory}:
         * its committer fails once, at its first commit (before it, or after it with {@link
         * FailingCommitSink.Injection#afterCommit}), and the job fails over; {@code label} names the
         * {@link FailingCommitSink.Injection} that records it.
         */
        String sinkWithFailingCommitter(String connector, String format, String options, String query, String label)
                throws Exception {
            failureInjected = true;
            String wrapper = "'connector' = '" + FailingCommitTableFactory.IDENTIFIER + "',"
                    + "'" + FailingCommitTableFactory.DELEGATE.key() + "' = '" + connector + "',"
                    + "'" + FailingCommitTableFactory.LABEL.key() + "' = '" + label + "',";
            return declare(wrapper, connector, format, options, false, "", query);
        }

        private String declare(
                String connectorOptions,
                String connector,
                String format,
                String options,
                boolean keyed,
                String metadataColumns,
                String query)
                throws Exception {
            String table = "out_" + (sinks++);
            String topic = KafkaTestSupport.createTopic(bootstrap, "bids-out-" + connector + "-" + table, partitions);
            String key = keyed
                    ? "'key.format' = '" + format + "', 'key." + format + ".url' = '" + registry.url() + "',"
                            + "'key.fields' = 'auction',"
                    : "";
            tEnv.executeSql("CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price_cents BIGINT,"
                    + " date_time TIMESTAMP(3)" + metadataColumns + ") WITH ("
                    + connectorOptions + "'topic' = '" + topic + "',"
                    + "'properties.bootstrap.servers' = '" + bootstrap + "',"
                    + options.replace("%s", table) + key
                    + "'value.format' = '" + format + "',"
                    + "'value." + format + ".url' = '" + registry.url() + "')");
            statements.addInsertSql("INSERT INTO " + table + query);
            failureInjected |= query.contains("fail_once");
            if (connector.equals("kafka-native")) {
                nativeTopics.add(topic);
                if (options.contains(NATIVE_PRODUCE)) {
                    nativeProduceSinks++;
                } else {
                    batchSinks++;
                }
            }
            return topic;
        }

        void run(long checkpointMillis) throws Exception {
            if (checkpointMillis > 0) {
                env.enableCheckpointing(checkpointMillis);
            }
            // Every kafka-native sink must run the path it was asked for, never the stock fallback.
            String plan = statements.explain(ExplainDetail.JSON_EXECUTION_PLAN);
            assertThat(count(plan, "\"type\" : \"" + KafkaNativeDynamicSink.BATCH_ENCODE_SINK_NAME + ": Writer\""))
                    .as("batch encoding writers in the plan").isEqualTo(batchSinks);
            assertThat(count(plan, "\"type\" : \"" + KafkaNativeDynamicSink.NATIVE_SINK_NAME + ": Writer\""))
                    .as("native produce writers in the plan").isEqualTo(nativeProduceSinks);
            long start = System.nanoTime();
            statements.execute().await(5, TimeUnit.MINUTES);
            System.out.printf("SinkParity: job with %d sinks took %d ms%n",
                    sinks, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            // Native produce ran: the broker acknowledged every output record of every native
            // sink to the native producer (more only where a failure made the job write again).
            long produced = CollectedMetrics.sum(name, "karrow", "numRecordsProducedNatively");
            long wanted = (long) nativeProduceSinks * expected;
            if (failureInjected) {
                assertThat(produced).as("records produced natively").isGreaterThanOrEqualTo(wanted);
            } else {
                assertThat(produced).as("records produced natively").isEqualTo(wanted);
            }
            assertEncodeMetrics();
        }

        /**
         * The kafka-native sinks' encode metrics ({@code NativeEncodeMetrics}): one row encoded per
         * output record, the bytes of the keys and values now on their topics, native time spent, at
         * least one batch per sink. Exact only without an injected failure (a restart encodes again).
         */
        private void assertEncodeMetrics() {
            if (nativeTopics.isEmpty()) {
                return;
            }
            long records = CollectedMetrics.sum(name, "karrow", "numRecordsEncoded");
            long bytes = CollectedMetrics.sum(name, "karrow", "numBytesEncoded");
            assertThat(CollectedMetrics.sum(name, "karrow", "nativeEncodeTimeNanos")).as("native encode time").isPositive();
            assertThat(CollectedMetrics.sum(name, "karrow", "numBatches")).as("encode batches")
                    .isGreaterThanOrEqualTo(nativeTopics.size());
            if (failureInjected) {
                assertThat(records).as("rows encoded").isGreaterThanOrEqualTo((long) nativeTopics.size() * expected);
                return;
            }
            assertThat(records).as("rows encoded").isEqualTo((long) nativeTopics.size() * expected);
            long onTopics = 0;
            for (String topic : nativeTopics) {
                for (ConsumerRecord<byte[], byte[]> r : read(topic, false)) {
                    onTopics += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
                }
            }
            assertThat(bytes).as("key and value bytes encoded").isEqualTo(onTopics);
        }

        /** Every record of {@code topic}. */
        List<ConsumerRecord<byte[], byte[]>> read(String topic, boolean readCommitted) {
            return KafkaTestSupport.readAll(bootstrap, topic, readCommitted);
        }
    }

    private static int count(String text, String needle) {
        return text.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
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
            // Several sinks share the source and this filter may be evaluated once per sink.
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

    record Bids(int selected, String digest) {}

    /**
     * Writes {@link #BIDS} Confluent-Avro bids to the topic, partitioned by auction; returns how
     * many have price > 1000 and the digest of their expected (auction, bidder, price_cents,
     * date_time) tuples.
     */
    static Bids produceBids(String bootstrap, DevRegistry registry, String topic) throws Exception {
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(topic + "-value", corpus.writers().get(0).toString());
        Random random = new Random(corpus.seed());
        int partitions;
        try (Admin admin = KafkaTestSupport.admin(bootstrap)) {
            partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
        }
        List<String> tuples = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer(bootstrap)) {
            for (int i = 0; i < BIDS; i++) {
                GenericRecord bid = AvroCorpora.bid(random, i, corpus.writers().get(0));
                long price = (Long) bid.get("price");
                if (price > 1000) {
                    tuples.add(bid.get("auction") + "|" + bid.get("bidder") + "|" + price * 100 + "|" + bid.get("date_time"));
                }
                // One input partition per auction: a key is read by one source subtask, in order,
                // so each sink writes its records in that order (the per-key order compared).
                int partition = (int) Math.floorMod((Long) bid.get("auction"), (long) partitions);
                producer.send(new ProducerRecord<>(topic, partition, null,
                        ConfluentAvroEncoder.encode(id, corpus.writers().get(0), bid)));
            }
            producer.flush();
        }
        return new Bids(tuples.size(), digestOf(tuples));
    }

    /** Same records in the same order: key, value and (when {@code withMetadata}) timestamp and headers. */
    static void assertSameRecordByRecord(
            int expected,
            List<ConsumerRecord<byte[], byte[]>> reference,
            List<ConsumerRecord<byte[], byte[]>> actual,
            boolean keyed,
            boolean withMetadata) {
        assertThat(reference).hasSize(expected);
        assertThat(actual).hasSize(expected);
        for (int i = 0; i < expected; i++) {
            ConsumerRecord<byte[], byte[]> r = reference.get(i);
            ConsumerRecord<byte[], byte[]> a = actual.get(i);
            assertSameBytes("value of record " + i, r.value(), a.value());
            assertSameBytes("key of record " + i, r.key(), a.key());
            if (withMetadata) {
                assertThat(a.timestamp()).as("timestamp of record %d", i).isEqualTo(r.timestamp());
                assertThat(headers(a)).as("headers of record %d", i).isEqualTo(headers(r));
            }
        }
        if (keyed) {
            assertThat(actual.get(0).key()).isNotNull();
        } else {
            assertThat(actual.get(0).key()).isNull();
        }
    }

    /**
     * Same multiset of records: (partition when {@code withPartition}, key, value, and when {@code
     * withMetadata} timestamp and headers); and, with the partition, each partition's records of one
     * key in the same order.
     */
    static void assertSameMultiset(
            int expected,
            List<ConsumerRecord<byte[], byte[]>> reference,
            List<ConsumerRecord<byte[], byte[]>> actual,
            boolean withPartition,
            boolean withMetadata) {
        assertThat(reference).hasSize(expected);
        assertThat(actual).hasSize(expected);
        assertThat(multiset(actual, withPartition, withMetadata))
                .isEqualTo(multiset(reference, withPartition, withMetadata));
        if (withPartition) {
            assertThat(perKeyOrder(actual)).isEqualTo(perKeyOrder(reference));
        }
    }

    private static Map<String, Integer> multiset(
            List<ConsumerRecord<byte[], byte[]>> records, boolean withPartition, boolean withMetadata) {
        Map<String, Integer> counts = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String entry = (withPartition ? r.partition() + "/" : "") + hex(r.key()) + "/" + hex(r.value())
                    + (withMetadata ? "/" + r.timestamp() + "/" + new TreeMap<>(headers(r)) : "");
            counts.merge(entry, 1, Integer::sum);
        }
        return counts;
    }

    /** Per (partition, key): the values in offset order (one subtask writes a key, so its order is kept). */
    private static Map<String, List<String>> perKeyOrder(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<String, List<String>> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (r.key() != null) {
                out.computeIfAbsent(r.partition() + "/" + hex(r.key()), k -> new ArrayList<>()).add(hex(r.value()));
            }
        }
        return out;
    }

    /** Order-independent digest of the decoded (auction, bidder, price_cents, date_time) tuples. */
    static String digest(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> tuples = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            tuples.add(OutputBid.decode(r.value()));
        }
        return digestOf(tuples);
    }

    static String digestOf(List<String> tuples) {
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

    static Map<String, String> headers(ConsumerRecord<byte[], byte[]> record) {
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

    static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }

    /** Decodes an output value (Confluent header + Avro record of four nullable longs / timestamp). */
    static final class OutputBid {
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
