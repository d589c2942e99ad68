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

    /**
     * The operator plan's encode stage for this sink ({@code docs/operator-plan.md}, "Encode stage"):
     * its value (and key) format over the columns of the row it consumes, with each encoder's
     * configuration as its native encoder session takes it. Asked only when {@link #whyNotFusable()}
     * is null.
     *
     * @throws Exception when an encoder cannot be described (its format refuses the row type)
     */
    String encodeStageJson() throws Exception;
}
