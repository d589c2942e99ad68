package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusableSink;
import io.karrow.flink.planner.OptimizationScope;

import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalSink;

import org.apache.calcite.rel.RelNode;

/**
 * Full fusion: a {@code kafka-native} sink directly over a {@link KarrowFusedCalc}, whose scan would
 * then decode, run the Calc and encode keys and values in one native call per fetched batch.
 *
 * <p>Planned up to the last step: the sink's own reasons (formats, metadata, partitioner) are
 * checked and logged; a sink that passes is still declined, because the plan contract has no encode
 * stage and karrow no fused runtime yet. Never changes the plan.
 */
final class SinkFusion {

    /** Why a sink that passes its own checks is not fused (yet). */
    static final String NO_ENCODE_STAGE =
            "full fusion needs the operator plan's encode stage and the fused runtime, which are not built yet";

    private final OptimizationScope scope;

    SinkFusion(OptimizationScope scope) {
        this.scope = scope;
    }

    /** Reports every candidate of {@code root}. */
    void inspect(RelNode root) {
        if (root instanceof StreamPhysicalSink && ((StreamPhysicalSink) root).getInput() instanceof KarrowFusedCalc) {
            StreamPhysicalSink sink = (StreamPhysicalSink) root;
            if (sink.tableSink() instanceof FusableSink) {
                String reason = ((FusableSink) sink.tableSink()).whyNotFusable();
                scope.declined("the kafka-native sink " + sink.contextResolvedTable().getIdentifier().asSummaryString()
                        + " over a fused Calc", reason != null ? reason : NO_ENCODE_STAGE);
            }
        }
        for (RelNode input : root.getInputs()) {
            inspect(input);
        }
    }
}
