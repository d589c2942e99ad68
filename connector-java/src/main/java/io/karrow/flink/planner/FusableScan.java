package io.karrow.flink.planner;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;

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

    /**
     * Why this (fused) source cannot also run a sink's encoders (full fusion), whose carriers cross
     * only chained edges — e.g. its own parallelism, which the sink would not share — or null when
     * it can.
     */
    @Nullable String whyNotFullyFusable();

    /**
     * The type of what this source emits when its plan has a sink's encode stage (full fusion: one
     * carrier of encoded records per split and fetched batch, a type that only crosses chained
     * edges), or null when it emits rows.
     */
    @Nullable TypeInformation<RowData> carrierType();

    /** The plan this (fused) source runs, or null for an unfused one. */
    @Nullable FusedCalcPlan fusedPlan();

    /** A copy of this source that runs {@code plan} and produces its output rows. */
    DynamicTableSource withFusedPlan(FusedCalcPlan plan);
}
