package io.karrow.flink.planner;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What karrow's program knows about the optimization it runs in: how often the statements being
 * optimized read each {@code kafka-native} table, the native side's answers so far, and which
 * decisions it already reported (Flink optimizes a block more than once for plans with several
 * sinks; each plan is checked and each decision logged once).
 */
public final class OptimizationScope {

    private final Map<String, Integer> tableReads;
    private final Set<String> reported = new HashSet<>();
    private final Map<String, Optional<String>> checked = new HashMap<>();

    OptimizationScope(Map<String, Integer> tableReads) {
        this.tableReads = Map.copyOf(tableReads);
    }

    /** How often the statements read {@code table} (its summary identifier); at least 1. */
    public int reads(String table) {
        return Math.max(1, tableReads.getOrDefault(table, 1));
    }

    /** {@link NativePlanCheck#whyNotRunnable}, asked once per plan and optimization. */
    public synchronized @Nullable String whyNotRunnable(String planJson) {
        return checked.computeIfAbsent(planJson, json -> Optional.ofNullable(NativePlanCheck.whyNotRunnable(json)))
                .orElse(null);
    }

    /** Reports a replaced segment, once per optimization. */
    public synchronized void fused(String segment, String detail) {
        if (reported.add("fused " + segment + detail)) {
            FusionDecisions.fused(segment, detail);
        }
    }

    /** Reports a segment left to Flink, once per optimization. */
    public synchronized void declined(String segment, String reason) {
        if (reported.add("declined " + segment + reason)) {
            FusionDecisions.declined(segment, reason);
        }
    }
}
