package io.karrow.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.nativebridge.NativeLibraryLoader;
import io.karrow.flink.testutils.CollectedMetrics;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

/**
 * The sql bundle as a cluster's {@code lib/} holds it: this module's shaded jar next to Flink's
 * {@code flink-sql-connector-kafka} (Kafka's client relocated inside it) and {@code flink-json}, with
 * neither karrow's unshaded jars nor an unrelocated Kafka client on the class path (asserted). A
 * {@code kafka-native} sink with {@code json-native} writes to a real broker
 * ({@code -Dkarrow.kafka.bootstrap}); the topic is read back through the stock {@code kafka} + {@code
 * json} and through {@code kafka-native} + {@code json-native} with the native fetch: the same rows.
 * The jobs' {@code karrow} metrics ({@link CollectedMetrics}) show that the native paths engaged: the sink
 * encoded every row natively, the native source fetched every record natively and decoded it in
 * native batches, so a fallback to Kafka's consumer or to flink-json cannot pass.
 */
class SqlBundleITCase {

    private static final String BOOTSTRAP = System.getProperty("karrow.kafka.bootstrap", "127.0.0.1:9092");

    private static final String COLUMNS = "id BIGINT, name STRING, price DOUBLE, tags ARRAY<STRING>,"
            + " inner_row ROW<a INT, b STRING>";

    @Test
    void kafkaNativeAndNativeFormatsRunFromTheBundleNextToFlinksSqlKafkaJar() throws Exception {
        assertThatThrownBy(() -> Class.forName("org.apache.kafka.clients.consumer.KafkaConsumer"))
                .as("only the relocated Kafka client of flink-sql-connector-kafka is on the class path")
                .isInstanceOf(ClassNotFoundException.class);
        Class.forName("org.apache.flink.kafka.shaded.org.apache.kafka.clients.consumer.KafkaConsumer");
        assertThat(NativeLibraryLoader.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                .as("karrow's classes come from the shaded bundle")
                .contains("karrow-sql-connector-kafka");

        String topic = "sql-bundle-" + UUID.randomUUID();
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.newInstance().inStreamingMode()
                .withConfiguration(CollectedMetrics.configuration()).build());
        env.getConfig().set("parallelism.default", "1");
        String sinkJob = "sql-bundle-sink-" + topic;
        env.getConfig().set("pipeline.name", sinkJob);
        env.executeSql(table("native_out", topic, "kafka-native", "json-native", ""));
        String insert = "INSERT INTO native_out SELECT CAST(n AS BIGINT), 'name-' || CAST(n AS STRING),"
                + " n * 1.5E0, ARRAY['t', CAST(n AS STRING)], ROW(n, CAST(NULL AS STRING))"
                + " FROM (VALUES (1), (2), (3), (4), (5)) AS t(n)";
        assertThat(env.explainSql(insert, ExplainDetail.JSON_EXECUTION_PLAN))
                .as("the kafka-native sink runs its batch-encoding writer, not the stock one")
                .contains("\"type\" : \"KafkaNativeBatchEncode");
        env.executeSql(insert).await();
        assertThat(NativeLibraryLoader.isLoaded()).as("the native sink engaged the native library").isTrue();
        assertThat(CollectedMetrics.sum(sinkJob, "karrow", "numRecordsEncoded"))
                .as("rows the kafka-native sink encoded natively").isEqualTo(5);

        String bounded = "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',";
        env.executeSql(table("stock_in", topic, "kafka", "json", bounded));
        env.executeSql(table("native_in", topic, "kafka-native", "json-native",
                bounded + " 'scan.fetch-mode' = 'native',"));
        List<Row> stock = collect(env, "SELECT * FROM stock_in");
        assertThat(stock).hasSize(5);
        String sourceJob = "sql-bundle-native-fetch-" + topic;
        env.getConfig().set("pipeline.name", sourceJob);
        assertThat(collect(env, "SELECT * FROM native_in")).containsExactlyInAnyOrderElementsOf(stock);
        assertThat(CollectedMetrics.sum(sourceJob, "karrow", "numRecordsFetchedNatively"))
                .as("records the native fetch read").isEqualTo(5);
        assertThat(CollectedMetrics.sum(sourceJob, "karrow", "numRecordsDecoded"))
                .as("records the kafka-native source decoded").isEqualTo(5);
        assertThat(CollectedMetrics.sum(sourceJob, "karrow", "numNativeBatches"))
                .as("native decode batches").isPositive();
    }

    private static String table(String name, String topic, String connector, String format, String extra) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = '" + connector + "', " + extra
                + " 'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + " 'properties.group.id' = 'sql-bundle', 'format' = '" + format + "')";
    }

    private static List<Row> collect(TableEnvironment env, String query) throws Exception {
        return CollectionUtil.iteratorToList(env.executeSql(query).collect());
    }
}
