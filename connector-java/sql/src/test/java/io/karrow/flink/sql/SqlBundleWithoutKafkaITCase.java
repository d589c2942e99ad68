package io.karrow.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeLibraryLoader;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The sql bundle in a {@code lib/} that has no Kafka connector at all (its own failsafe execution,
 * without {@code flink-sql-connector-kafka}): every factory in the bundle's services file still loads,
 * so Flink's filesystem connector lists formats and {@code json} and {@code json-native} work there;
 * a {@code kafka-native} table fails with a message naming what to add. The filesystem connector
 * opens formats with an unregistered metric group, so {@code json-native} is shown to engage by the
 * native library loading with its INSERT (not with {@code json}'s, which runs first in this JVM) and by
 * a malformed line failing its read in native code.
 */
class SqlBundleWithoutKafkaITCase {

    @Test
    void factoriesLoadAndFormatsWorkWithoutAnyKafkaConnector(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Class.forName(
                        "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory"))
                .isInstanceOf(ClassNotFoundException.class);
        List<String> identifiers = new ArrayList<>();
        for (Factory factory : ServiceLoader.load(Factory.class, getClass().getClassLoader())) {
            identifiers.add(factory.factoryIdentifier());
        }
        assertThat(identifiers).contains("filesystem", "json", "json-native", "kafka-native");

        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("parallelism.default", "1");
        assertThat(NativeLibraryLoader.isLoaded()).as("no karrow code ran yet").isFalse();
        for (String format : List.of("json", "json-native")) {
            String table = format.replace('-', '_');
            env.executeSql("CREATE TABLE " + table + " (id INT, name STRING) WITH ('connector' = 'filesystem',"
                    + " 'path' = '" + dir.resolve(table).toUri() + "', 'format' = '" + format + "')");
            env.executeSql("INSERT INTO " + table + " VALUES (1, 'one'), (2, CAST(NULL AS STRING))").await();
            assertThat(collect(env, "SELECT * FROM " + table))
                    .containsExactlyInAnyOrder(Row.of(1, "one"), Row.of(2, null));
            assertThat(NativeLibraryLoader.isLoaded()).as("the native library is loaded after " + format)
                    .isEqualTo(format.equals("json-native"));
        }
        Files.writeString(Files.createDirectories(dir.resolve("malformed")).resolve("part-0.json"), "{\"id\": x}\n");
        env.executeSql("CREATE TABLE malformed (id INT) WITH ('connector' = 'filesystem',"
                + " 'path' = '" + dir.resolve("malformed").toUri() + "', 'format' = 'json-native')");
        assertThatThrownBy(() -> collect(env, "SELECT * FROM malformed"))
                .as("json-native reads in native code")
                .hasStackTraceContaining(KarrowNativeException.class.getName());

        env.executeSql("CREATE TABLE k (id INT) WITH ('connector' = 'kafka-native', 'topic' = 't',"
                + " 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json-native')");
        assertThatThrownBy(() -> env.executeSql("SELECT * FROM k").collect().close())
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining("needs Flink's Kafka connector on the class path");
    }

    private static List<Row> collect(TableEnvironment env, String query) throws Exception {
        return CollectionUtil.iteratorToList(env.executeSql(query).collect());
    }
}
