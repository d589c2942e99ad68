package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusableScan;
import io.karrow.flink.planner.FusableSink;
import io.karrow.flink.planner.FusedCalcPlan;
import io.karrow.flink.planner.OptimizationScope;

import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalSink;
import org.apache.flink.table.planner.plan.schema.TableSourceTable;

import org.apache.calcite.rel.RelNode;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Full fusion: a {@code kafka-native} sink directly over a {@link KarrowFusedCalc}, whose scan then
 * decodes, runs the Calc and encodes keys and values in one native call per fetched batch and
 * emits the encoded records (one carrier per split and batch), which the sink's writer hands to its
 * native producer.
 *
 * <p>The sink's own reasons (formats, metadata, partitioner, produce mode, what Flink would put
 * between the Calc and the sink) and the scan's (what would keep it from chaining with the sink)
 * are checked; a sink that passes gets the plan's encode stage ({@code docs/operator-plan.md}),
 * which the native check (the Rust side, the single authority) accepts or declines with its reason.
 * An accepted plan replaces the scan's: the scan's source runs it, {@code EXPLAIN} shows the scan's
 * {@code fusedSink}. The sink and the Calc slot stay where they are (same uids, names and
 * parallelism), chained to the source: the carriers cross only chained edges (their type refuses
 * serialization, so a job where they would not chain fails loudly rather than run unfused).
 */
final class SinkFusion {

    private final OptimizationScope scope;

    SinkFusion(OptimizationScope scope) {
        this.scope = scope;
    }

    /** {@code root} with every sink that can be fully fused fused; every candidate is reported. */
    RelNode rewrite(RelNode root) {
        List<RelNode> inputs = root.getInputs();
        List<RelNode> visited = new ArrayList<>(inputs.size());
        boolean changed = false;
        for (RelNode input : inputs) {
            RelNode v = rewrite(input);
            changed |= v != input;
            visited.add(v);
        }
        RelNode node = changed ? root.copy(root.getTraitSet(), visited) : root;
        if (node instanceof StreamPhysicalSink && ((StreamPhysicalSink) node).getInput() instanceof KarrowFusedCalc) {
            StreamPhysicalSink sink = (StreamPhysicalSink) node;
            if (sink.tableSink() instanceof FusableSink) {
                String segment = "the kafka-native sink "
                        + sink.contextResolvedTable().getIdentifier().asSummaryString() + " over a fused Calc";
                try {
                    return tryFuse(sink, (FusableSink) sink.tableSink(), (KarrowFusedCalc) sink.getInput(), segment);
                } catch (RuntimeException | LinkageError | AssertionError e) {
                    // Never fail the statement: the sink stays Flink's, with the reason.
                    scope.declined(segment, "internal error: " + e);
                    return node;
                }
            }
        }
        return node;
    }

    private RelNode tryFuse(StreamPhysicalSink sink, FusableSink fusable, KarrowFusedCalc calc, String segment) {
        String own = fusable.whyNotFusable();
        if (own != null) {
            scope.declined(segment, own);
            return sink;
        }
        if (!(calc.getInput() instanceof KarrowFusedScan)
                || !(((KarrowFusedScan) calc.getInput()).tableSourceTable().tableSource() instanceof FusableScan)) {
            scope.declined(segment, "internal error: the fused Calc's scan carries no plan");
            return sink;
        }
        KarrowFusedScan scan = (KarrowFusedScan) calc.getInput();
        FusableScan source = (FusableScan) scan.tableSourceTable().tableSource();
        FusedCalcPlan plan = source.fusedPlan();
        if (plan == null) {
            scope.declined(segment, "internal error: the fused Calc's scan carries no plan");
            return sink;
        }
        String scanReason = source.whyNotFullyFusable();
        if (scanReason != null) {
            scope.declined(segment, scanReason);
            return sink;
        }
        String stage;
        try {
            stage = fusable.encodeStageJson();
        } catch (Exception e) {
            scope.declined(segment, "the sink's encoders cannot be described: " + e.getMessage());
            return sink;
        }
        String json = withEncodeStage(plan.json(), stage);
        String notRunnable = scope.whyNotRunnable(json);
        if (notRunnable != null) {
            scope.declined(segment, notRunnable);
            return sink;
        }
        TableSourceTable table = scan.tableSourceTable();
        DynamicTableSource fullyFused = source.withFusedPlan(plan.withEncodeStage(json));
        TableSourceTable fusedTable = table.replace(fullyFused, scan.getRowType(), table.abilitySpecs());
        String sinkName = sink.contextResolvedTable().getIdentifier().asSummaryString();
        KarrowFusedScan fusedScan = scan.fullyFused(fusedTable, json, sinkName);
        RelNode fusedCalc = calc.copy(calc.getTraitSet(), List.of(fusedScan));
        scope.fused(segment, "plan " + CalcFusion.planId(json));
        return sink.copy(sink.getTraitSet(), List.of(fusedCalc));
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
