package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static io.karrow.flink.testutils.SqlTestSupport.collect;
import static io.karrow.flink.testutils.SqlTestSupport.size;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The consumer fetch metrics of the native fetch, as a MiniCluster's metric reporter sees them: under
 * Kafka's names in {@code KafkaSourceReader.KafkaConsumer}, where Flink's Kafka source registers the
 * Java consumer's. The same bounded read runs through the stock {@code kafka} connector and through
 * {@code kafka-native} with {@code 'scan.fetch-mode' = 'native'}: both report every name; the records
 * consumed are the same count on both sides (every record, fetched natively: the Java consumer the
 * native reader keeps fetches nothing, so these can only come from the native fetch); the native
 * bytes consumed are the job's {@code numBytesIn}; fetches were counted and timed.
 */
class KafkaNativeConsumerMetricsITCase {

    private static final int RECORDS = 2_000;
    private static final List<String> NAMES = List.of("records-lag-max", "fetch-rate", "fetch-total",
            "fetch-latency-avg", "fetch-latency-max", "bytes-consumed-rate", "bytes-consumed-total",
            "records-consumed-rate", "records-consumed-total");

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = KafkaTestSupport.miniClusterWithMetrics(2);

    private static String topic;
    /** The key and value bytes of the records written. */
    private static long recordBytes;

    @BeforeAll
    static void setUp() throws Exception {
        KafkaTestSupport.requireBroker();
        topic = createTopic("consumer-metrics", 2);
        try (KafkaProducer<byte[], byte[]> p = producer()) {
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8);
                recordBytes += key.length + value.length;
                p.send(new ProducerRecord<>(topic, i % 2, key, value));
            }
            p.flush();
        }
    }

    private static Map<Row, Integer> read(String job, boolean nativeFetch) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("pipeline.name", job);
        tEnv.executeSql("CREATE TABLE t (n INT, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL)"
                + " WITH ('connector' = '" + (nativeFetch ? "kafka-native" : "kafka") + "', 'topic' = '" + topic + "',"
                + " 'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "',"
                + " 'properties.group.id' = 'karrow-consumer-metrics-it',"
                + " 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',"
                + " 'value.format' = '" + (nativeFetch ? "json-native" : "json") + "'"
                + (nativeFetch ? ", 'scan.fetch-mode' = 'native'" : "") + ")");
        return collect(tEnv, "SELECT * FROM t");
    }

    private static double total(String job, String name) {
        double sum = 0;
        for (Object value : CollectedMetrics.gauges(job, "KafkaConsumer", name)) {
            sum += ((Number) value).doubleValue();
        }
        return sum;
    }

    @Test
    void theNativeFetchReportsKafkasConsumerFetchMetrics() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String stockJob = "consumer-metrics-stock-" + suffix;
        String nativeJob = "consumer-metrics-native-" + suffix;
        Map<Row, Integer> stock = read(stockJob, false);
        Map<Row, Integer> fetched = read(nativeJob, true);
        assertThat(size(stock)).isEqualTo(RECORDS);
        assertThat(fetched).isEqualTo(stock);
        assertThat(CollectedMetrics.sum(nativeJob, "karrow", "numRecordsFetchedNatively")).isEqualTo(RECORDS);
        for (String name : NAMES) {
            // One per reader (parallelism 2), on both sides: the names are Kafka's own.
            assertThat(CollectedMetrics.gauges(stockJob, "KafkaConsumer", name)).as("stock %s", name).isNotEmpty();
            List<Object> values = CollectedMetrics.gauges(nativeJob, "KafkaConsumer", name);
            assertThat(values).as("native %s", name).hasSize(2).allSatisfy(v -> assertThat(v).isInstanceOf(Double.class));
        }
        assertThat(total(nativeJob, "records-consumed-total")).isEqualTo(RECORDS);
        assertThat(total(nativeJob, "records-consumed-total")).isEqualTo(total(stockJob, "records-consumed-total"));
        // The records' key and value bytes, as numBytesIn counts them natively.
        assertThat(total(nativeJob, "bytes-consumed-total")).isEqualTo((double) recordBytes);
        assertThat(total(nativeJob, "fetch-total")).isGreaterThanOrEqualTo(2);
        for (Object max : CollectedMetrics.gauges(nativeJob, "KafkaConsumer", "fetch-latency-max")) {
            assertThat((Double) max).as("a fetch takes time").isPositive();
        }
    }
}
