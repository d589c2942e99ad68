package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Flink's {@code upsert-kafka} connector with karrow's native formats as key and value formats,
 * against the stock formats, in one job on a real broker (parallelism 2, exactly-once, 3-partition
 * topics): two updating queries (an aggregation with a two-column key, whose rows are updated; an
 * aggregation over an aggregation, whose keys are also deleted) write the same changelog through
 * {@code json} / {@code json-native} and {@code avro-confluent-reference} / {@code
 * avro-confluent-native}. For every key the sequence of values (tombstones included) must be the
 * same bytes on both sides, hence also the changelog collapsed per key; the native side must have
 * run its native serializer ({@code karrow.numRecordsEncoded}). The input is a VALUES table (one
 * source subtask), so each key's changelog has one order. Needs {@code -Dkarrow.kafka.bootstrap}.
 */
class UpsertKafkaNativeFormatsITCase {

    private static final int ROWS = 600;

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    /** Stock and native format of a family. */
    private static String[] formats(String family) {
        return switch (family) {
            case "json" -> new String[] {"json", "json-native"};
            case "avro" -> new String[] {"avro-confluent-reference", "avro-confluent-native"};
            default -> throw new IllegalArgumentException(family);
        };
    }

    /**
     * Deterministic rows with every column kind the queries aggregate, some NULLs: a bounded sequence
     * read by one source subtask, its columns computed from the row number. (A VALUES list would do,
     * but Flink plans each of its rows as a Calc of its own, and 600 of them exhaust the
     * MiniCluster's network buffers.)
     */
    private static void createSource(StreamTableEnvironment tEnv) {
        tEnv.executeSql("CREATE TEMPORARY TABLE seq (id BIGINT) WITH ('connector' = 'datagen',"
                + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '" + (ROWS - 1) + "',"
                + " 'scan.parallelism' = '1')");
        tEnv.executeSql("CREATE TEMPORARY VIEW src (k, grp, amount, ts, label, score) AS SELECT"
                + " id % 53,"
                + " CONCAT('g', CAST(id % 3 AS STRING)),"
                + " CAST(CAST(id % 997 * 100 + id % 100 AS DECIMAL(12, 0)) / 100 AS DECIMAL(10, 2)),"
                + " TIMESTAMPADD(SECOND, CAST(id * 7 % 5000 AS INT), TIMESTAMP '2025-01-01 00:00:00.000'),"
                + " CASE WHEN id % 7 = 0 THEN CAST(NULL AS STRING)"
                + " ELSE CONCAT('label-', CAST(id * 31 % 101 AS STRING), '-é') END,"
                + " CAST(id % 11 - 5 AS DOUBLE) + 0.25"
                + " FROM seq");
    }

    private static String sink(String name, String topic, String columns, String format, String subjectPrefix) {
        String registryOptions = format.startsWith("avro-confluent")
                ? String.format(Locale.ROOT,
                        "'key.%1$s.url' = '%2$s', 'key.%1$s.subject' = '%3$s-key', "
                                + "'value.%1$s.url' = '%2$s', 'value.%1$s.subject' = '%3$s-value', ",
                        format, ENV.registry().url(), subjectPrefix)
                : "";
        return "CREATE TEMPORARY TABLE " + name + " (" + columns + ") WITH ("
                + "'connector' = 'upsert-kafka', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + KafkaTestSupport.bootstrap() + "', "
                + "'key.format' = '" + format + "', "
                + "'value.format' = '" + format + "', "
                + registryOptions
                + "'sink.delivery-guarantee' = 'exactly-once', "
                + "'sink.transactional-id-prefix' = '" + topic + "', "
                + "'properties.transaction.timeout.ms' = '600000')";
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json", "avro"})
    void nativeKeyAndValueFormatsWriteTheStockChangelog(String family) throws Exception {
        String[] format = formats(family);
        String jobName = "upsert-native-formats-" + family;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("pipeline.name", jobName);
        createSource(tEnv);

        String updatesColumns = "k BIGINT, grp STRING, n BIGINT, total DECIMAL(38, 2), last_ts TIMESTAMP(3), "
                + "label STRING, score DOUBLE, PRIMARY KEY (k, grp) NOT ENFORCED";
        String updates = "SELECT k % 17, grp, COUNT(*), SUM(amount), MAX(ts), MAX(label), MIN(score) FROM src "
                + "GROUP BY k % 17, grp";
        String deletesColumns = "n BIGINT, keys BIGINT, PRIMARY KEY (n) NOT ENFORCED";
        String deletes = "SELECT n, COUNT(*) FROM (SELECT k, COUNT(*) AS n FROM src GROUP BY k) GROUP BY n";

        Map<String, String> topics = new HashMap<>();
        StatementSet set = tEnv.createStatementSet();
        for (int side = 0; side < 2; side++) {
            for (String query : List.of("updates", "deletes")) {
                String topic = KafkaTestSupport.createTopic("upsert-" + family + "-" + query + "-" + side, 3);
                topics.put(query + side, topic);
                String table = query + "_" + side;
                tEnv.executeSql(sink(table, topic, query.equals("updates") ? updatesColumns : deletesColumns,
                        format[side], "upsert-" + family + "-" + query));
                set.addInsertSql("INSERT INTO " + table + " " + (query.equals("updates") ? updates : deletes));
            }
        }
        set.execute().await();

        long nativeRecords = 0;
        long nativeBytes = 0;
        for (String query : List.of("updates", "deletes")) {
            Map<Key, List<Value>> stock = changelogPerKey(KafkaTestSupport.readAll(topics.get(query + 0), true));
            Map<Key, List<Value>> nativeSide = changelogPerKey(KafkaTestSupport.readAll(topics.get(query + 1), true));
            assertThat(stock).as("%s %s: a changelog to compare", family, query).isNotEmpty();
            assertThat(nativeSide).as("%s %s: each key's changelog, native key and value formats against %s",
                    family, query, format[0]).isEqualTo(stock);
            long updated = stock.values().stream().filter(l -> l.size() > 1).count();
            long deleted = stock.values().stream().filter(l -> l.get(l.size() - 1).bytes() == null).count();
            assertThat(updated).as("%s %s: keys updated", family, query).isPositive();
            if (query.equals("deletes")) {
                assertThat(deleted).as("%s %s: keys deleted (tombstones)", family, query).isPositive();
            }
            nativeRecords += nativeSide.values().stream().mapToLong(List::size).sum();
            for (ConsumerRecord<byte[], byte[]> r : KafkaTestSupport.readAll(topics.get(query + 1), true)) {
                nativeBytes += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
            }
        }
        // Every record the native sinks wrote serialized its key natively (and its value, unless a tombstone).
        assertThat(CollectedMetrics.sum(jobName, "karrow", "numRecordsEncoded"))
                .as("native per-record serializations").isGreaterThanOrEqualTo(nativeRecords);
        assertThat(CollectedMetrics.sum(jobName, "karrow", "numBytesEncoded"))
                .as("bytes of the keys and values the native serializers wrote").isGreaterThanOrEqualTo(nativeBytes);
        assertThat(CollectedMetrics.sum(jobName, "karrow", "nativeEncodeTimeNanos"))
                .as("time inside native encode calls").isPositive();
    }

    /** A key's bytes, compared by content. */
    private record Key(ByteBuffer bytes) {}

    /** A value's bytes (null for a tombstone), compared by content. */
    private record Value(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Value v && java.util.Arrays.equals(bytes, v.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return bytes == null ? "tombstone" : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Per key, its values in offset order (a key lives in one partition). */
    private static Map<Key, List<Value>> changelogPerKey(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<Key, List<Value>> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            out.computeIfAbsent(new Key(ByteBuffer.wrap(Objects.requireNonNull(r.key(), "upsert-kafka writes keys"))),
                    k -> new ArrayList<>()).add(new Value(r.value()));
        }
        return out;
    }
}
