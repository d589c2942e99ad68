package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.size;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The native fetch ({@code 'scan.fetch-mode' = 'native'}) against Kafka's own consumer over a real
 * broker, where the Fetch protocol itself matters: transactions under both isolation levels, every
 * startup and bounded mode, offsets deleted by retention (reset as the consumer resets them), and
 * batches compressed with each of Kafka's codecs.
 * Each query runs on the stock {@code kafka} connector and on {@code kafka-native} with the native
 * fetch, with {@code json-native} (one native decode per fetch) and {@code raw} (a per-record
 * format) values, and the rows must be equal. The native job's {@code karrow} metrics must show that
 * the native fetch read every row's record ({@code numRecordsFetchedNatively}) and, for {@code
 * json-native}, that the values decoded in native batches, so a fallback to Kafka's consumer cannot pass.
 */
class KafkaNativeFetchITCase {

    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    /** Reports to {@link CollectedMetrics}, so the native fetch is seen to engage. */
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    @BeforeAll
    static void setUp() {
        KafkaTestSupport.requireBroker();
    }

    private static byte[] json(int n, String tag) {
        return ("{\"n\":" + n + ",\"tag\":\"" + tag + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static String ddl(String table, String connector, String topic, String format, String options) {
        String columns = format.equals("raw") ? "(v STRING" : "(n INT, tag STRING";
        return "CREATE TABLE " + table + " " + columns + ", `partition` INT METADATA VIRTUAL,"
                + " `offset` BIGINT METADATA VIRTUAL)"
                + " WITH ('connector' = '" + connector + "', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'properties.group.id' = 'karrow-fetch-it',"
                + "'value.format' = '" + format + "'"
                + (connector.equals("kafka-native") ? ", 'scan.fetch-mode' = 'native'" : "")
                + options + ")";
    }

    /** The rows of {@code options} through the stock connector, checked equal for the native fetch (both formats). */
    private static Map<Row, Integer> sameRows(String topic, String options) throws Exception {
        StreamTableEnvironment tEnv = tableEnv();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<Row, Integer> stock = null;
        for (String format : new String[] {"json-native", "raw"}) {
            String t = format.equals("raw") ? "r" : "j";
            tEnv.executeSql(ddl("stock_" + t + suffix, "kafka", topic, format.equals("raw") ? "raw" : "json", options));
            tEnv.executeSql(ddl("fetched_" + t + suffix, "kafka-native", topic, format, options));
            tEnv.getConfig().set("pipeline.name", "stock-" + t + suffix);
            Map<Row, Integer> expected = collect(tEnv, "SELECT * FROM stock_" + t + suffix);
            String job = "fetched-" + t + suffix;
            tEnv.getConfig().set("pipeline.name", job);
            assertThat(collect(tEnv, "SELECT * FROM fetched_" + t + suffix))
                    .as("%s rows with%s", format, options)
                    .isEqualTo(expected);
            // One row per record: the native fetch read every record the rows came from.
            assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsFetchedNatively"))
                    .as("records fetched natively (%s, %s)", format, options)
                    .isEqualTo(size(expected));
            if (format.equals("json-native") && size(expected) > 0) {
                assertThat(CollectedMetrics.sum(job, "karrow", "numNativeBatches"))
                        .as("native decode batches (%s)", options)
                        .isPositive();
            }
            if (format.equals("json-native")) {
                stock = expected;
            }
        }
        return stock;
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "karrow-fetch-it-" + UUID.randomUUID());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        return producer;
    }

    @Test
    void readCommittedDropsAbortedTransactionsExactlyAsKafkasConsumer() throws Exception {
        String topic = createTopic("fetch-txn", 2);
        try (KafkaProducer<byte[], byte[]> tx = transactionalProducer();
                KafkaProducer<byte[], byte[]> plain = producer()) {
            int n = 0;
            for (int round = 0; round < 6; round++) {
                tx.beginTransaction();
                for (int i = 0; i < 150; i++, n++) {
                    tx.send(new ProducerRecord<>(topic, n % 2, null, json(n, round % 3 == 1 ? "aborted" : "committed")));
                    if (i % 50 == 0) {
                        // Non-transactional records interleave with the open transaction.
                        plain.send(new ProducerRecord<>(topic, n % 2, null, json(n, "plain"))).get();
                    }
                }
                // Every record reaches the log before the transaction ends (an abort drops unsent ones).
                tx.flush();
                if (round % 3 == 1) {
                    tx.abortTransaction();
                } else {
                    tx.commitTransaction();
                }
            }
        }
        String bounded = ", 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'";
        Map<Row, Integer> committed =
                sameRows(topic, bounded + ", 'properties.isolation.level' = 'read_committed'");
        Map<Row, Integer> uncommitted = sameRows(topic, bounded);
        assertThat(size(committed)).isEqualTo(4 * 150 + 18);
        assertThat(size(uncommitted)).isEqualTo(6 * 150 + 18);
        assertThat(committed.keySet()).noneMatch(r -> "aborted".equals(r.getField(1)));
    }

    @Test
    void everyStartupAndBoundedModeGivesKafkasRows() throws Exception {
        String topic = createTopic("fetch-modes", 3);
        // Recent timestamps: older ones would fall to the broker's time-based retention.
        long base = System.currentTimeMillis() - 600_000L;
        long middle = base + 300;
        try (KafkaProducer<byte[], byte[]> p = producer()) {
            for (int n = 0; n < 600; n++) {
                p.send(new ProducerRecord<>(topic, n % 3, base + n, null, json(n, "t"))).get();
            }
        }
        // Committed offsets for the group-offsets mode: partition 0 at 50, 1 at 120; 2 has none (reset to earliest).
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "karrow-fetch-it");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            consumer.commitSync(Map.of(
                    new TopicPartition(topic, 0), new OffsetAndMetadata(50),
                    new TopicPartition(topic, 1), new OffsetAndMetadata(120)));
        }
        String latest = ", 'scan.bounded.mode' = 'latest-offset'";
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'earliest-offset'" + latest))).isEqualTo(600);
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'specific-offsets',"
                + " 'scan.startup.specific-offsets' = 'partition:0,offset:10;partition:1,offset:0;partition:2,offset:199'"
                + ", 'scan.bounded.mode' = 'specific-offsets',"
                + " 'scan.bounded.specific-offsets' = 'partition:0,offset:40;partition:1,offset:0;partition:2,offset:200'")))
                .isEqualTo(31);
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp-millis' = '"
                + middle + "'" + latest))).isEqualTo(300);
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'timestamp',"
                + " 'scan.bounded.timestamp-millis' = '" + middle + "'"))).isEqualTo(300);
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'group-offsets',"
                + " 'properties.auto.offset.reset' = 'earliest'" + latest))).isEqualTo(600 - 50 - 120);
    }

    @Test
    void offsetsDeletedByRetentionAreResetAsKafkasConsumerResetsThem() throws Exception {
        String topic = createTopic("fetch-deleted", 1);
        try (KafkaProducer<byte[], byte[]> p = producer()) {
            for (int n = 0; n < 100; n++) {
                p.send(new ProducerRecord<>(topic, 0, null, json(n, "d")));
            }
            p.flush();
        }
        try (Admin admin = KafkaTestSupport.admin()) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(60)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        // Offset 10 is below the log start (60): Kafka's consumer resets to 'earliest', Flink's
        // default for specific offsets.
        Map<Row, Integer> rows = sameRows(topic, ", 'scan.startup.mode' = 'specific-offsets',"
                + " 'scan.startup.specific-offsets' = 'partition:0,offset:10', 'scan.bounded.mode' = 'latest-offset'");
        assertThat(size(rows)).isEqualTo(40);
    }

    /** Batches compressed by Kafka's Java producer with each codec read as Kafka's consumer reads them. */
    @ParameterizedTest(name = "compression.type = {0}")
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void compressedBatchesGiveKafkasRows(String codec) throws Exception {
        String topic = createTopic("fetch-" + codec, 2);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int n = 0; n < 3_000; n++) {
                sent.add(producer.send(new ProducerRecord<>(topic, n % 2, null, json(n, codec + "-" + (n % 7)))));
            }
            producer.flush();
            // A send that failed (e.g. timed out on a loaded machine) fails here, not as missing rows.
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'")))
                .isEqualTo(3_000);
        // Starting inside a compressed batch skips its records before the starting offset.
        assertThat(size(sameRows(topic, ", 'scan.startup.mode' = 'specific-offsets',"
                + " 'scan.startup.specific-offsets' = 'partition:0,offset:7;partition:1,offset:1201',"
                + " 'scan.bounded.mode' = 'latest-offset'"))).isEqualTo(3_000 - 7 - 1_201);
    }
}
