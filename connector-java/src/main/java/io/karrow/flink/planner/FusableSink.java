package io.karrow.flink.planner;

import javax.annotation.Nullable;

/**
 * A table sink that could encode a fused scan's rows natively with the fetched batch (full fusion):
 * the {@code kafka-native} sink. The planner sees sinks only through this interface.
 */
public interface FusableSink {

    /**
     * Why this sink, as configured and as planned (writable metadata applied), cannot encode natively
     * in a fused pipeline — its value or key format, metadata columns, partitioner — or null when it can.
     */
    @Nullable String whyNotFusable();
}
