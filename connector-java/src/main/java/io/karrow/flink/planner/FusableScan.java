package io.karrow.flink.planner;

import org.apache.flink.table.connector.source.DynamicTableSource;

import javax.annotation.Nullable;

/**
 * A table source whose runtime can run a Calc's {@link FusedCalcPlan} on each fetched batch: the
 * {@code kafka-native} source. The planner rule sees sources only through this interface.
 */
public interface FusableScan {

    /**
     * Why this source, as configured and as planned so far (push-downs applied), cannot run a fused
     * plan exactly — its key format, metadata columns, value format, watermark — or null when it can.
     */
    @Nullable String whyNotFusable();

    /** The plan this (fused) source runs, or null for an unfused one. */
    @Nullable FusedCalcPlan fusedPlan();

    /** A copy of this source that runs {@code plan} and produces its output rows. */
    DynamicTableSource withFusedPlan(FusedCalcPlan plan);
}
