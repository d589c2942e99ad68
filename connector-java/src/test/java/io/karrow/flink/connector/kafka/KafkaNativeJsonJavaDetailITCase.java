package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.valueTexts;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * The pass-through job of issue #23: Flink's {@code kafka} + {@code json} source hands the sink
 * {@code GenericRowData} that keep every fraction digit of a TIMESTAMP(3) / TIMESTAMP_LTZ(3) and
 * lone surrogates read from {@code "\uD83D"} escapes (except inside maps, which the chain's record
 * copy turns binary), and flink-json writes them back unchanged. The
 * same source into {@code kafka-native} + {@code json-native} (the batched sink path) must write the
 * same bytes. The test can fail: the stock output is checked to hold such digits and escapes, and
 * the native sink's {@code numRecordsEncoded} to count every record.
 */
class KafkaNativeJsonJavaDetailITCase {

    private static final int RECORDS = 300;
    private static final String COLUMNS =
            "(id BIGINT, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3), s STRING, m MAP<STRING, TIMESTAMP(3)>, a ARRAY<STRING>)";

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withoutRegistry(2);

    private static String ddl(String table, String connector, String format, String topic, boolean source) {
        return KafkaTestSupport.topicTableDdl(table, COLUMNS, connector, format, topic, "karrow-java-detail-it", source);
    }

    private static String value(int n) {
        String fraction = String.format("%09d", (n * 7_919_113L) % 1_000_000_000L);
        return "{\"id\":" + n + ",\"ts\":\"2020-01-0" + (1 + n % 9) + " 12:34:56." + fraction + "\","
                + "\"lt\":\"1999-12-31 23:59:59." + fraction.substring(0, 1 + n % 9) + "Z\","
                + "\"s\":\"a\\uD83Db" + (n % 3 == 0 ? "\\uDE00" : "\\uD83D\\uDE00") + "\","
                + "\"m\":{\"k\\uDBFF" + n + "\":\"1970-01-01 00:00:00.00000" + (n % 10) + "\",\"x\":null},"
                + "\"a\":[\"\\uD800x\",null,\"plain\"]}";
    }

    private static StreamTableEnvironment tableEnv(String jobName) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("pipeline.name", jobName);
        return tEnv;
    }

    @Test
    void stockJsonSourceIntoTheNativeSinkWritesFlinkJsonsBytes() throws Exception {
        String in = createTopic("java-detail-in", 1);
        String outStock = createTopic("java-detail-stock", 1);
        String outNative = createTopic("java-detail-native", 1);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer()) {
            for (int n = 0; n < RECORDS; n++) {
                producer.send(new ProducerRecord<>(in, value(n).getBytes(StandardCharsets.UTF_8)));
            }
        }
        String s = UUID.randomUUID().toString().substring(0, 8);
        String stockJob = "java-detail-stock-" + s;
        String nativeJob = "java-detail-native-" + s;
        StreamTableEnvironment stock = tableEnv(stockJob);
        stock.executeSql(ddl("src", "kafka", "json", in, true));
        stock.executeSql(ddl("dst", "kafka", "json", outStock, false));
        stock.executeSql("INSERT INTO dst SELECT * FROM src").await();
        StreamTableEnvironment karrow = tableEnv(nativeJob);
        karrow.executeSql(ddl("src", "kafka", "json", in, true));
        karrow.executeSql(ddl("dst", "kafka-native", "json-native", outNative, false));
        karrow.executeSql("INSERT INTO dst SELECT * FROM src").await();

        List<String> expected = valueTexts(outStock);
        assertThat(expected).hasSize(RECORDS);
        // The stock job kept what a binary row would drop: nanos of a TIMESTAMP(3), lone surrogates
        // (top level and in arrays). Maps are not kept: the chain's copy of each record
        // (MapDataSerializer.copy) turns a GenericMapData into a BinaryMapData, so the native sink
        // gets binary maps inside generic rows, as the stock sink does.
        assertThat(expected.get(1)).contains("12:34:56.007919113").contains("a\\uD83Db\\uD83D\\uDE00")
                .contains("\"\\uD800x\"").contains("\"k?1\":\"1970-01-01 00:00:00\"");
        assertThat(valueTexts(outNative)).as("kafka-native + json-native values").containsExactlyElementsOf(expected);
        assertThat(CollectedMetrics.sum(nativeJob, "karrow", "numRecordsEncoded")).isEqualTo(RECORDS);
    }
}
