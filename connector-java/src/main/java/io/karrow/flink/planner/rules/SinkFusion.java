package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusableScan;
import io.karrow.flink.planner.FusableSink;
import io.karrow.flink.planner.FusedCalcPlan;
import io.karrow.flink.planner.OptimizationScope;

import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalSink;

import org.apache.calcite.rel.RelNode;

import javax.annotation.Nullable;

/**
 * Full fusion: a {@code kafka-native} sink directly over a {@link KarrowFusedCalc}, whose scan would
 * then decode, run the Calc and encode keys and values in one native call per fetched batch.
 *
 * <p>Planned up to the last step: the sink's own reasons (formats, metadata, partitioner, produce
 * mode, what Flink would put between the Calc and the sink) are checked; a sink that passes gets the
 * plan's encode stage ({@code docs/operator-plan.md}), which the native check (the Rust side, the
 * single authority) accepts or declines with its reason. A plan it accepts is still declined: the
 * native pipeline and the hand-over to the native producer exist, but not the Flink runtime that
 * would carry the batches from the fused source to the sink writer. Never changes the plan.
 */
final class SinkFusion {

    /** Why a sink whose encode stage the native side accepts is not fused (yet). */
    static final String NO_RUNTIME =
            "the encode stage runs natively, but full fusion's Flink runtime (the fused source handing its"
                    + " encoded batches to the native sink writer) is not built yet";

    private final OptimizationScope scope;

    SinkFusion(OptimizationScope scope) {
        this.scope = scope;
    }

    /** Reports every candidate of {@code root}. */
    void inspect(RelNode root) {
        if (root instanceof StreamPhysicalSink && ((StreamPhysicalSink) root).getInput() instanceof KarrowFusedCalc) {
            StreamPhysicalSink sink = (StreamPhysicalSink) root;
            if (sink.tableSink() instanceof FusableSink) {
                String reason;
                try {
                    reason = reason((FusableSink) sink.tableSink(), (KarrowFusedCalc) sink.getInput());
                } catch (RuntimeException e) {
                    // Never fail the statement: the sink stays Flink's, with the reason.
                    reason = "internal error: " + e;
                }
                scope.declined("the kafka-native sink " + sink.contextResolvedTable().getIdentifier().asSummaryString()
                        + " over a fused Calc", reason);
            }
        }
        for (RelNode input : root.getInputs()) {
            inspect(input);
        }
    }

    private String reason(FusableSink sink, KarrowFusedCalc calc) {
        String own = sink.whyNotFusable();
        if (own != null) {
            return own;
        }
        FusedCalcPlan plan = scanPlan(calc);
        if (plan == null) {
            return "internal error: the fused Calc's scan carries no plan";
        }
        String stage;
        try {
            stage = sink.encodeStageJson();
        } catch (Exception e) {
            return "the sink's encoders cannot be described: " + e.getMessage();
        }
        String notRunnable = scope.whyNotRunnable(withEncodeStage(plan.json(), stage));
        return notRunnable != null ? notRunnable : NO_RUNTIME;
    }

    private static @Nullable FusedCalcPlan scanPlan(KarrowFusedCalc calc) {
        if (calc.getInput() instanceof KarrowFusedScan) {
            Object source = ((KarrowFusedScan) calc.getInput()).tableSourceTable().tableSource();
            if (source instanceof FusableScan) {
                return ((FusableScan) source).fusedPlan();
            }
        }
        return null;
    }

    /** The plan JSON (an object) with its {@code "encode"} member added. */
    static String withEncodeStage(String planJson, String stageJson) {
        String plan = planJson.trim();
        if (!plan.endsWith("}")) {
            throw new IllegalArgumentException("not a plan object: " + plan);
        }
        return plan.substring(0, plan.length() - 1) + ",\"encode\":" + stageJson + "}";
    }
}
