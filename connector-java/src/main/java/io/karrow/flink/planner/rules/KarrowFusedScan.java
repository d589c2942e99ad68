package io.karrow.flink.planner.rules;

import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalTableSourceScan;
import org.apache.flink.table.planner.plan.schema.TableSourceTable;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.hint.RelHint;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code kafka-native} scan that runs a Calc natively after decoding: its table source is a copy
 * of the scan's carrying the Calc's operator plan, and its row type is the Calc's output type.
 *
 * <p>It is a {@link StreamPhysicalTableSourceScan} (every planner rule, metadata handler and plan
 * check treats it as one) and translates to Flink's own table-source exec node, so the source
 * operator keeps the stock name, uid and position in the stream graph. Compiled into a plan
 * ({@code COMPILE PLAN}), it translates to the original scan's exec node instead: compiled plans
 * are always the stock plan (see {@link KarrowFusedCalc}).
 */
final class KarrowFusedScan extends StreamPhysicalTableSourceScan {

    private final StreamPhysicalTableSourceScan original;
    private final String fusedCalc;
    /** Full fusion: the sink whose encoders the scan also runs (EXPLAIN), else null. */
    private final @Nullable String fusedSink;

    KarrowFusedScan(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            List<RelHint> hints,
            TableSourceTable table,
            StreamPhysicalTableSourceScan original,
            String fusedCalc) {
        this(cluster, traitSet, hints, table, original, fusedCalc, null);
    }

    private KarrowFusedScan(
            RelOptCluster cluster,
            RelTraitSet traitSet,
            List<RelHint> hints,
            TableSourceTable table,
            StreamPhysicalTableSourceScan original,
            String fusedCalc,
            @Nullable String fusedSink) {
        super(cluster, traitSet, hints, table, original.eventTimeSnapshotRequired());
        this.original = original;
        this.fusedCalc = fusedCalc;
        this.fusedSink = fusedSink;
    }

    /**
     * This scan fully fused with the sink {@code sink}: its table is {@code table} (whose source runs
     * the plan with the sink's encode stage), its plan hint names that plan ({@code planJson}).
     */
    KarrowFusedScan fullyFused(TableSourceTable table, String planJson, String sink) {
        List<RelHint> hints = new ArrayList<>();
        for (RelHint hint : getHints()) {
            if (!CalcFusion.PLAN_HINT.equals(hint.hintName)) {
                hints.add(hint);
            }
        }
        return new KarrowFusedScan(getCluster(), getTraitSet(), CalcFusion.withPlanHint(hints, planJson), table,
                original, fusedCalc, sink);
    }

    /** Flink's plan writers accept physical nodes by this prefix and print the rest ("KarrowFusedScan"). */
    @Override
    public String getRelTypeName() {
        return "StreamPhysicalKarrowFusedScan";
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return super.explainTerms(pw).item("fusedCalc", fusedCalc).itemIf("fusedSink", fusedSink, fusedSink != null);
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        return new KarrowFusedScan(getCluster(), traitSet, getHints(), tableSourceTable(), original, fusedCalc, fusedSink);
    }

    @Override
    public RelNode copy(TableSourceTable table) {
        return new KarrowFusedScan(getCluster(), getTraitSet(), getHints(), table, original, fusedCalc, fusedSink);
    }

    @Override
    public ExecNode<?> translateToExecNode(boolean isCompiled) {
        return isCompiled ? original.translateToExecNode(true) : super.translateToExecNode(false);
    }
}
