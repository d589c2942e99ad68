package io.karrow.flink.testutils;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.HashMap;
import java.util.Map;

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
