package io.karrow.flink.testutils;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Shared plumbing of the integration tests that need a real Kafka broker ({@code
 * -Dkarrow.kafka.bootstrap}, started by {@code tests/services/kafka.sh start}) and a Flink MiniCluster.
 */
public final class KafkaTestSupport {

    private KafkaTestSupport() {}

    /** The broker address: the system property {@code karrow.kafka.bootstrap}, else {@code 127.0.0.1:9092}. */
    public static String bootstrap() {
        return System.getProperty("karrow.kafka.bootstrap", "127.0.0.1:9092");
    }

    /**
     * The broker formatted with the old transaction protocol ({@code transaction.version=1}): the
     * system property {@code karrow.kafka.bootstrap.tv1}, or {@code null} when none runs.
     */
    public static String bootstrapTv1() {
        String b = System.getProperty("karrow.kafka.bootstrap.tv1", "");
        return b.isBlank() ? null : b;
    }

    /** Fails (rather than skips) when no broker answers at {@link #bootstrap()}: CI must start it. */
    public static void requireBroker() {
        try (Admin admin = admin()) {
            admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("No Kafka broker at " + bootstrap()
                    + " (start it with tests/services/kafka.sh start, or set -Dkarrow.kafka.bootstrap)", e);
        }
    }

    /** A new admin client for {@link #bootstrap()} (10 s request timeout, 30 s API timeout); the caller closes it. */
    public static Admin admin() {
        return admin(bootstrap());
    }

    /** As {@link #admin()}, for the broker at {@code bootstrap}. */
    public static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(p);
    }

    /** Creates the topic {@code prefix-<8 random hex chars>} with replication factor 1 and returns its name. */
    public static String createTopic(String prefix, int partitions) throws Exception {
        return createTopic(bootstrap(), prefix, partitions);
    }

    /** As {@link #createTopic(String, int)}, on the broker at {@code bootstrap}. */
    public static String createTopic(String bootstrap, String prefix, int partitions) throws Exception {
        String topic = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            awaitLeaders(admin, topic, partitions);
        }
        return topic;
    }

    /**
     * Waits until the leader of every partition of a new topic serves it (answers ListOffsets).
     * CreateTopics returns before the leader has made its partitions: a produce request arriving in
     * between fails retriably while the next batch, sent behind it, is appended; an idempotent
     * producer's retry of the first batch is then out of order and its records expire (seen here
     * with Kafka's Java producer and zstd: 489 of 3,000 records lost).
     */
    private static void awaitLeaders(Admin admin, String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * A new {@code byte[]} key and value producer for {@link #bootstrap()}; the caller closes it. Test
     * input must arrive whole and in order even on a loaded 2-core machine: one request in flight
     * (order kept across retries) instead of idempotence (whose sequence checks failed under load
     * with OutOfOrderSequenceException and dropped records), and a generous delivery timeout. A send
     * that fails makes the next {@code flush()} or {@code close()} throw, so lost input stops the test
     * where it happened.
     */
    public static KafkaProducer<byte[], byte[]> producer() {
        return producer(bootstrap());
    }

    /** As {@link #producer()}, for the broker at {@code bootstrap}. */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        return new CheckedProducer(p);
    }

    /** A producer that remembers the first failed send and throws it from {@code flush()} and {@code close()}. */
    private static final class CheckedProducer extends KafkaProducer<byte[], byte[]> {

        private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

        CheckedProducer(Properties properties) {
            super(properties);
        }

        @Override
        public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
            return send(record, null);
        }

        @Override
        public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            return super.send(record, (metadata, exception) -> {
                if (exception != null) {
                    firstFailure.compareAndSet(null, exception);
                }
                if (callback != null) {
                    callback.onCompletion(metadata, exception);
                }
            });
        }

        @Override
        public void flush() {
            super.flush();
            throwIfAnySendFailed();
        }

        @Override
        public void close() {
            super.close();
            throwIfAnySendFailed();
        }

        private void throwIfAnySendFailed() {
            Exception failure = firstFailure.get();
            if (failure != null) {
                throw new IllegalStateException("test input was not fully written to Kafka", failure);
            }
        }
    }

    /** A MiniCluster extension of one TaskManager with {@code slots} slots, for {@code @RegisterExtension}. */
    public static MiniClusterExtension miniCluster(int slots) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .build());
    }

    /** A new one-partition topic holding {@code values} in order (null keys); returns its name. */
    public static String topicWith(String prefix, List<byte[]> values) throws Exception {
        String topic = createTopic(prefix, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (byte[] value : values) {
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            producer.flush();
        }
        return topic;
    }

    /**
     * A {@code CREATE TABLE} over the whole of {@code topic} on {@link #bootstrap()} with one value
     * {@code format}: consumer group {@code groupId}, read from the earliest offset and, for a
     * {@code source}, bounded at the latest offset.
     */
    public static String topicTableDdl(String table, String columns, String connector, String format, String topic,
            String groupId, boolean source) {
        return "CREATE TABLE " + table + " " + columns + " WITH ("
                + "'connector' = '" + connector + "', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + bootstrap() + "',"
                + "'properties.group.id' = '" + groupId + "',"
                + "'scan.startup.mode' = 'earliest-offset',"
                + (source ? "'scan.bounded.mode' = 'latest-offset'," : "")
                + "'format' = '" + format + "')";
    }

    /** The values of every record of {@code topic} as UTF-8 text, partition by partition in offset order. */
    public static List<String> valueTexts(String topic) {
        List<String> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(topic, false)) {
            out.add(new String(record.value(), StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * The records as a multiset of {@code "<key hex> -> <value text>"} ({@code null} for a null key or
     * value), the value rendered by {@code valueText}: what two sinks' output topics are compared by.
     */
    public static Map<String, Integer> keyValueMultiset(
            List<ConsumerRecord<byte[], byte[]>> records, Function<byte[], String> valueText) {
        Map<String, Integer> multiset = new HashMap<>();
        HexFormat hex = HexFormat.of();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String key = r.key() == null ? "null" : hex.formatHex(r.key());
            String value = r.value() == null ? "null" : valueText.apply(r.value());
            multiset.merge(key + " -> " + value, 1, Integer::sum);
        }
        return multiset;
    }

    /**
     * A MiniCluster extension of one TaskManager with {@code slots} slots that reports its jobs'
     * counters to {@link CollectedMetrics}, so a test can assert that a native path engaged.
     */
    public static MiniClusterExtension miniClusterWithMetrics(int slots) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .setConfiguration(CollectedMetrics.configuration())
                .build());
    }

    /**
     * All records of every partition of {@code topic}, partition by partition in offset order, up to
     * the end offsets at the time of the call ({@code read_committed} skips aborted transactions).
     */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, boolean readCommitted) {
        return readAll(bootstrap(), topic, readCommitted);
    }

    /**
     * The {@code read_committed} end offset of {@code partition}, once it has caught up with the
     * high watermark (at most 10 s). A broker answers EndTxn before it writes the commit markers
     * to the partitions, so right after a commit the last stable offset can still be behind; a
     * transaction that stays open leaves it behind, and its value then is taken as it is.
     */
    private static long stableEnd(
            Properties committed, KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition) {
        Properties uncommitted = new Properties();
        uncommitted.putAll(committed);
        uncommitted.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        long high;
        try (KafkaConsumer<byte[], byte[]> watermark = new KafkaConsumer<>(uncommitted)) {
            high = watermark.endOffsets(List.of(partition)).get(partition);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long stable = consumer.endOffsets(List.of(partition)).get(partition);
            if (stable >= high || System.nanoTime() > deadline) {
                return stable;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return stable;
            }
        }
    }

    /**
     * A {@code read_committed} consumer of every partition of {@code topic} at the broker at
     * {@code bootstrap}, assigned and positioned at the beginning; the caller polls and closes it.
     */
    public static KafkaConsumer<byte[], byte[]> committedFromStart(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(topic, info.partition())).collect(Collectors.toList());
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    /** As {@link #readAll(String, boolean)}, from the broker at {@code bootstrap}. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, boolean readCommitted) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition))
                    .collect(Collectors.toList());
            for (TopicPartition partition : partitions) {
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                long end = readCommitted
                        ? stableEnd(p, consumer, partition)
                        : consumer.endOffsets(List.of(partition)).get(partition);
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (consumer.position(partition) < end) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("timed out reading " + partition + " at "
                                + consumer.position(partition) + " of " + end);
                    }
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                        records.add(record);
                    }
                }
            }
        }
        return records;
    }
}
