package io.karrow.bench.nexmark;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The comparison of a Top-N query with {@code ROW_NUMBER} ({@code -- compare: top-n PARTITION RANK
 * ORDER}, q19): Flink ranks rows with equal ORDER values in arrival order, and with parallel sources
 * the arrival order of two tied bids differs between runs, so two correct outputs can differ in
 * which of the tied rows holds which rank, and at the last rank in which of them is shown at all.
 * What a correct output does determine, and what this compares exactly, per PARTITION value of the
 * final (collapsed) state: the set of ranks, the ORDER value at each rank, and for every ORDER value
 * shown the multiset of its rows (every column but RANK) — except for the ORDER value of the last
 * rank of a full top-N, of which only the count is fixed. Applied only when the byte comparison
 * found a difference; the decoded rows come from the stock sink format.
 */
final class TopNComparison {

    private record Ranked(long rank, Object order, String row) {}

    private final int partition;
    private final int rank;
    private final int order;
    private final int n;
    private final RowData.FieldGetter[] getters;

    private TopNComparison(RowType type, String partition, String rank, String order, int n) {
        this.partition = type.getFieldIndex(partition);
        this.rank = type.getFieldIndex(rank);
        this.order = type.getFieldIndex(order);
        if (this.partition < 0 || this.rank < 0 || this.order < 0) {
            throw new IllegalArgumentException("top-n columns " + partition + ", " + rank + ", " + order + " not in " + type);
        }
        this.n = n;
        this.getters = new RowData.FieldGetter[type.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
        }
    }

    /** Parses {@code top-n PARTITION RANK ORDER N}; null when {@code mode} is not a top-n mode. */
    static TopNComparison of(String mode, RowType type) {
        String[] w = mode.trim().split("\\s+");
        if (w.length != 5 || !w[0].equals("top-n")) {
            return null;
        }
        return new TopNComparison(type, w[1], w[2], w[3], Integer.parseInt(w[4]));
    }

    /** The differences between the two final states, empty when they agree as the class comment says. */
    List<String> differences(DeserializationSchema<RowData> decoder, Map<OutputTopic.Bytes, byte[]> stock,
            Map<OutputTopic.Bytes, byte[]> karrow) throws Exception {
        Map<Object, List<Ranked>> s = byPartition(decoder, stock);
        Map<Object, List<Ranked>> k = byPartition(decoder, karrow);
        List<String> out = new ArrayList<>();
        for (Object p : union(s, k)) {
            String why = compare(s.getOrDefault(p, List.of()), k.getOrDefault(p, List.of()));
            if (why != null && out.size() < OutputTopic.MAX_PRINTED) {
                out.add("partition " + p + ": " + why);
            } else if (why != null) {
                out.add("...");
                break;
            }
        }
        return out;
    }

    private static List<Object> union(Map<Object, ?> a, Map<Object, ?> b) {
        List<Object> keys = new ArrayList<>(a.keySet());
        for (Object key : b.keySet()) {
            if (!a.containsKey(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private Map<Object, List<Ranked>> byPartition(DeserializationSchema<RowData> decoder, Map<OutputTopic.Bytes, byte[]> live)
            throws Exception {
        Map<Object, List<Ranked>> out = new HashMap<>();
        for (byte[] value : live.values()) {
            RowData row = decoder.deserialize(value);
            StringBuilder rest = new StringBuilder();
            for (int i = 0; i < getters.length; i++) {
                if (i != rank) {
                    rest.append(getters[i].getFieldOrNull(row)).append('|');
                }
            }
            out.computeIfAbsent(getters[partition].getFieldOrNull(row), x -> new ArrayList<>())
                    .add(new Ranked(((Number) Objects.requireNonNull(getters[rank].getFieldOrNull(row))).longValue(),
                            getters[order].getFieldOrNull(row), rest.toString()));
        }
        return out;
    }

    private String compare(List<Ranked> s, List<Ranked> k) {
        TreeMap<Long, Object> sOrder = new TreeMap<>();
        TreeMap<Long, Object> kOrder = new TreeMap<>();
        s.forEach(r -> sOrder.put(r.rank(), r.order()));
        k.forEach(r -> kOrder.put(r.rank(), r.order()));
        if (!sOrder.equals(kOrder)) {
            return "ranks and their order values differ: stock " + sOrder + ", karrow " + kOrder;
        }
        Object boundary = s.size() >= n ? sOrder.lastEntry().getValue() : null;
        Map<Object, Map<String, Integer>> sRows = rowsByOrder(s, boundary);
        Map<Object, Map<String, Integer>> kRows = rowsByOrder(k, boundary);
        if (!sRows.equals(kRows)) {
            return "rows differ: stock " + sRows + ", karrow " + kRows;
        }
        return null;
    }

    /** Per ORDER value (but the boundary one), the multiset of rows without their rank. */
    private static Map<Object, Map<String, Integer>> rowsByOrder(List<Ranked> rows, Object boundary) {
        Map<Object, Map<String, Integer>> out = new HashMap<>();
        for (Ranked r : rows) {
            if (boundary != null && boundary.equals(r.order())) {
                continue;
            }
            out.computeIfAbsent(r.order(), x -> new HashMap<>()).merge(r.row(), 1, Integer::sum);
        }
        return out;
    }
}
