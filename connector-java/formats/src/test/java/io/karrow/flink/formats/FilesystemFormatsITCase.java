package io.karrow.flink.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeLibraryLoader;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * karrow-formats alone, as a user who wants {@code json-native} with Flink's filesystem connector has
 * it: no Flink Kafka connector and no Kafka client on the class path (asserted). Flink's filesystem
 * factory lists format factories through a raw {@link ServiceLoader}, so one factory in this jar's
 * services file that could not load would break every format there, the stock {@code json} too.
 *
 * <p>The same rows are written through {@code json} and {@code json-native} (parallelism 1, so one
 * file each): the files must hold the same bytes; each directory read back through both formats must
 * give the same rows. Flink's filesystem connector opens formats with an unregistered metric group,
 * so karrow's metrics cannot show the native paths engaging here; instead the native library must be
 * loaded by the {@code json-native} INSERT and not before (the stock statements run first in this
 * JVM), and a malformed line read through {@code json-native} must fail in native code (a {@link
 * KarrowNativeException} among the causes; Flink's {@code json} fails in Jackson).
 */
class FilesystemFormatsITCase {

    private static final String COLUMNS = "id BIGINT, name STRING, price DOUBLE, ratio FLOAT, ok BOOLEAN,"
            + " amount DECIMAL(10, 2), ts TIMESTAMP(3), d DATE, tags ARRAY<STRING>,"
            + " attrs MAP<STRING, INT>, inner_row ROW<a INT, b STRING>";

    private static final String ROWS = "VALUES"
            + " (CAST(1 AS BIGINT), 'alpha', 1.5E0, CAST(0.25 AS FLOAT), TRUE, CAST(12.34 AS DECIMAL(10, 2)),"
            + "   TIMESTAMP '2026-12-01 10:11:12.123', DATE '2026-12-01', ARRAY['x', 'y'], MAP['k', 1],"
            + "   ROW(7, 'seven')),"
            + " (CAST(2 AS BIGINT), CAST(NULL AS STRING), -0.0E0, CAST(123456.78 AS FLOAT), FALSE,"
            + "   CAST(-0.01 AS DECIMAL(10, 2)), TIMESTAMP '1970-01-01 00:00:00.000', DATE '1969-12-31',"
            + "   ARRAY[CAST(NULL AS STRING)], MAP['a', CAST(NULL AS INT)], ROW(CAST(NULL AS INT), 'n')),"
            + " (CAST(-9223372036854775808 AS BIGINT), 'uni\u00e9\u4e2d \"q\" \\ tab\t', 1.0E300, CAST(NULL AS FLOAT),"
            + "   CAST(NULL AS BOOLEAN), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS TIMESTAMP(3)),"
            + "   CAST(NULL AS DATE), CAST(NULL AS ARRAY<STRING>), CAST(NULL AS MAP<STRING, INT>),"
            + "   CAST(NULL AS ROW<a INT, b STRING>))";

    @Test
    void formatsWorkWithTheFilesystemConnectorAndNoKafka(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Class.forName("org.apache.kafka.clients.consumer.KafkaConsumer"))
                .as("Kafka's client must not be on this test's class path")
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName(
                        "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory"))
                .as("Flink's Kafka connector must not be on this test's class path")
                .isInstanceOf(ClassNotFoundException.class);
        assertThat(listedFactories()).contains("json", "json-native", "json-confluent-native",
                "avro-confluent-native", "protobuf-native", "protobuf-confluent-native");

        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("parallelism.default", "1");
        Path stockDir = dir.resolve("stock");
        Path nativeDir = dir.resolve("native");
        env.executeSql(table("stock_out", stockDir, "json"));
        env.executeSql("INSERT INTO stock_out " + ROWS).await();
        List<Row> stockRead = collect(env, "SELECT * FROM stock_out");
        assertThat(stockRead).hasSize(3);
        assertThat(NativeLibraryLoader.isLoaded()).as("no karrow code ran for the stock format").isFalse();

        env.executeSql(table("native_out", nativeDir, "json-native"));
        env.executeSql("INSERT INTO native_out " + ROWS).await();
        assertThat(NativeLibraryLoader.isLoaded()).as("json-native engaged the native library").isTrue();
        assertThat(contents(nativeDir)).isEqualTo(contents(stockDir));

        env.executeSql(table("stock_as_native", stockDir, "json-native"));
        env.executeSql(table("native_as_stock", nativeDir, "json"));
        assertThat(collect(env, "SELECT * FROM stock_as_native")).containsExactlyInAnyOrderElementsOf(stockRead);
        assertThat(collect(env, "SELECT * FROM native_out")).containsExactlyInAnyOrderElementsOf(stockRead);
        assertThat(collect(env, "SELECT * FROM native_as_stock")).containsExactlyInAnyOrderElementsOf(stockRead);
        assertReadFailsInNativeCode(env, dir.resolve("malformed"));
    }

    /**
     * A {@code json-native} table over a file whose line is not JSON fails the read with the native
     * decoder's error: the read path is karrow's, not a silent fallback to Flink's {@code json}.
     */
    static void assertReadFailsInNativeCode(TableEnvironment env, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("part-0.json"), "{\"id\": not json}\n");
        env.executeSql("CREATE TABLE malformed (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '"
                + dir.toUri() + "', 'format' = 'json-native')");
        assertThatThrownBy(() -> collect(env, "SELECT * FROM malformed"))
                .hasStackTraceContaining("Failed to deserialize JSON")
                .hasStackTraceContaining(KarrowNativeException.class.getName());
    }

    private static String table(String name, Path path, String format) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'filesystem', 'path' = '"
                + path.toUri() + "', 'format' = '" + format + "')";
    }

    /** Identifiers of every table factory a raw ServiceLoader lists, as Flink's filesystem factory lists them. */
    private static List<String> listedFactories() {
        List<String> identifiers = new ArrayList<>();
        for (Factory factory : ServiceLoader.load(Factory.class, FilesystemFormatsITCase.class.getClassLoader())) {
            identifiers.add(factory.factoryIdentifier());
        }
        return identifiers;
    }

    private static List<Row> collect(TableEnvironment env, String query) throws Exception {
        return CollectionUtil.iteratorToList(env.executeSql(query).collect());
    }

    /** The data files under {@code dir} (hidden and in-progress files left out), concatenated by name. */
    private static String contents(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            StringBuilder out = new StringBuilder();
            List<Path> data = files.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .sorted()
                    .toList();
            assertThat(data).as("data files in " + dir).hasSize(1);
            data.forEach(p -> {
                try {
                    out.append(new String(Files.readAllBytes(p), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            return out.toString();
        }
    }
}
