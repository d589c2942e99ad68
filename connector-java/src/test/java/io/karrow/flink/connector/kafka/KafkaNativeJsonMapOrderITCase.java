package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.valueTexts;
import static io.karrow.flink.testutils.SqlTestSupport.tableEnv;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.UUID;

/**
 * A Kafka-to-Kafka pass-through job ({@code INSERT INTO t SELECT * FROM s}) whose values carry
 * multi-entry maps: flink-json's decoder puts the entries into a {@code HashMap} and its encoder
 * writes that map's order, so {@code kafka-native} + {@code json-native} at both ends must write the
 * same bytes as {@code kafka} + {@code json}, not the input order. The input is the cluster test's case
 * (a): {@code datagen} rows (five-entry maps, keys of 100 hex digits) written by {@code kafka} +
 * {@code json}. Run on a MiniCluster with {@code -Dkarrow.native.library}, so this checks the job
 * path; {@code SqlBundleNativeLibraryITCase} checks that the sql bundle packs that library. The
 * native job's {@code karrow} metrics show that both ends ran natively: the source decoded every
 * record in native batches ({@code numRecordsDecoded}, {@code numNativeBatches}) and the sink
 * encoded every record natively ({@code numRecordsEncoded}), so a fallback to flink-json cannot pass.
 */
class KafkaNativeJsonMapOrderITCase {

    private static final int RECORDS = 200;

    /** The cluster test's columns. */
    private static final String COLUMNS = "(id BIGINT, name STRING, qty INT, price DECIMAL(12, 2), flag BOOLEAN,"
            + " ts TIMESTAMP(3), d DATE, tags ARRAY<STRING>, attrs MAP<STRING, INT>, pos ROW<x INT, y STRING>)";

    /** Reports to {@link CollectedMetrics}, so the native decode and encode are seen to engage. */
    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withoutRegistry(2);

    private static String ddl(String table, String connector, String format, String topic, boolean source) {
        return KafkaTestSupport.topicTableDdl(table, COLUMNS, connector, format, topic, "karrow-map-order-it", source);
    }

    @Test
    void datagenInputThroughBothJobsGivesTheSameBytes() throws Exception {
        String in = createTopic("map-order-gen", 1);
        String outStock = createTopic("map-order-gen-stock", 1);
        String outNative = createTopic("map-order-gen-native", 1);
        StreamTableEnvironment tEnv = tableEnv();
        String s = UUID.randomUUID().toString().substring(0, 8);
        tEnv.executeSql("CREATE TABLE gen" + s + " " + COLUMNS + " WITH ('connector' = 'datagen',"
                + " 'number-of-rows' = '" + RECORDS + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',"
                + " 'fields.id.end' = '" + RECORDS + "', 'fields.attrs.length' = '5', 'fields.name.length' = '12',"
                + " 'fields.tags.length' = '2')");
        tEnv.executeSql(ddl("gen_sink" + s, "kafka", "json", in, false));
        tEnv.executeSql("INSERT INTO gen_sink" + s + " SELECT * FROM gen" + s).await();
        List<String> input = valueTexts(in);
        assertThat(input).hasSize(RECORDS);
        passThrough(tEnv, s, in, outStock, outNative, input);
    }

    private static void passThrough(
            StreamTableEnvironment tEnv, String s, String in, String outStock, String outNative, List<String> input)
            throws Exception {
        tEnv.executeSql(ddl("s_stock" + s, "kafka", "json", in, true));
        tEnv.executeSql(ddl("t_stock" + s, "kafka", "json", outStock, false));
        tEnv.executeSql(ddl("s_native" + s, "kafka-native", "json-native", in, true));
        tEnv.executeSql(ddl("t_native" + s, "kafka-native", "json-native", outNative, false));
        tEnv.executeSql("INSERT INTO t_stock" + s + " SELECT * FROM s_stock" + s).await();
        String nativeJob = "map-order-native-" + s;
        tEnv.getConfig().set("pipeline.name", nativeJob);
        tEnv.executeSql("INSERT INTO t_native" + s + " SELECT * FROM s_native" + s).await();

        List<String> stock = valueTexts(outStock);
        assertThat(stock).hasSize(RECORDS);
        // The test can fail: the stock job reorders most maps of five random keys.
        long reordered = 0;
        for (int n = 0; n < RECORDS; n++) {
            reordered += stock.get(n).equals(input.get(n)) ? 0 : 1;
        }
        assertThat(reordered).as("records the stock job reordered").isGreaterThan(RECORDS / 2);
        assertThat(valueTexts(outNative)).as("kafka-native + json-native values").containsExactlyElementsOf(stock);
        // Both ends ran natively. A decoder decodes in native batches for the whole job or never
        // (json-native is batch-capable), so native batches plus every record decoded by the
        // kafka-native source means every record went through the native decode.
        assertThat(CollectedMetrics.sum(nativeJob, "karrow", "numRecordsDecoded"))
                .as("records the kafka-native source decoded").isEqualTo(RECORDS);
        assertThat(CollectedMetrics.sum(nativeJob, "karrow", "numNativeBatches"))
                .as("native decode batches").isPositive();
        assertThat(CollectedMetrics.sum(nativeJob, "karrow", "nativeDecodeTimeNanos"))
                .as("native decode time").isPositive();
        assertThat(CollectedMetrics.sum(nativeJob, "karrow", "numRecordsEncoded"))
                .as("records the kafka-native sink encoded natively").isEqualTo(RECORDS);
    }
}
