package io.karrow.flink.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/** What the Flink SQL integration tests share: a table environment, bounded query results as multisets, error text. */
public final class SqlTestSupport {

    private SqlTestSupport() {}

    /** A streaming table environment on the test's MiniCluster with parallelism 2. */
    public static StreamTableEnvironment tableEnv() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return StreamTableEnvironment.create(env);
    }

    /** Runs a bounded query and returns its rows as a multiset (row -> how many times it came). */
    public static Map<Row, Integer> collect(StreamTableEnvironment tEnv, String query) throws Exception {
        Map<Row, Integer> multiset = new HashMap<>();
        try (CloseableIterator<Row> rows = tEnv.executeSql(query).collect()) {
            while (rows.hasNext()) {
                multiset.merge(rows.next(), 1, Integer::sum);
            }
        }
        return multiset;
    }

    /**
     * Names the jobs {@code tEnv} runs from now on {@code prefix-<uuid>} ({@code pipeline.name}) and
     * returns the name, under which {@link CollectedMetrics} keeps their counters.
     */
    public static String nameNextJobs(StreamTableEnvironment tEnv, String prefix) {
        String job = prefix + "-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", job);
        return job;
    }

    /**
     * Runs {@code query} as its own job over a table whose native value format sits behind a stock
     * connector (Flink's {@code kafka}) and asserts from its metrics ({@code NativeDecodeMetrics})
     * that the format decoded {@code values} values natively into every row the query gave (the query
     * must emit each source row once: no filter, no key format of karrow's).
     */
    public static Map<Row, Integer> collectDecodedPerRecord(StreamTableEnvironment tEnv, String query, long values)
            throws Exception {
        String job = nameNextJobs(tEnv, "per-record");
        Map<Row, Integer> rows = collect(tEnv, query);
        assertThat(CollectedMetrics.sum(job, "karrow", "numRowsDecodedNatively"))
                .as("rows the native format decoded per record: %s", query).isEqualTo(size(rows));
        assertThat(CollectedMetrics.sum(job, "karrow", "numValuesDecodedNatively"))
                .as("values the native format decoded per record: %s", query).isEqualTo(values);
        return rows;
    }

    /**
     * Runs {@code query} as its own job over a {@code kafka-native} table of a topic of {@code records}
     * records and asserts from its metrics that the source decoded every one of them (tombstones and
     * skipped values too) in native batches.
     */
    public static Map<Row, Integer> collectDecodedInBatches(StreamTableEnvironment tEnv, String query, long records)
            throws Exception {
        String job = nameNextJobs(tEnv, "batched");
        Map<Row, Integer> rows = collect(tEnv, query);
        assertThat(CollectedMetrics.sum(job, "karrow", "numRecordsDecoded"))
                .as("records the kafka-native source decoded: %s", query).isEqualTo(records);
        assertThat(CollectedMetrics.sum(job, "karrow", "numNativeBatches"))
                .as("native decode batches: %s", query).isPositive();
        return rows;
    }

    /** The number of elements of a multiset. */
    public static int size(Map<?, Integer> multiset) {
        return multiset.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The messages of {@code t} and all its causes, joined, for asserting on what a user would read. */
    public static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getMessage()).append(" | ");
        }
        return s.toString();
    }
}
