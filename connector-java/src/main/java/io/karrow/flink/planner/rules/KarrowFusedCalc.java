package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusableScan;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexProgram;

import javax.annotation.Nullable;

/**
 * The place of a Calc whose work a {@link KarrowFusedScan} does: an identity Calc over the fused
 * scan, which runs as a chained pass-through operator with the Calc's uid.
 *
 * <p>It exists so that the fused job's stream graph has the stock job's shape: plain SQL jobs have
 * no uids ({@code table.exec.uid.generation} = {@code PLAN_ONLY}), so savepoints map state by
 * operator hashes computed from the graph's topology, and dropping the Calc's node would move every
 * stateful operator after it. Compiled ({@code COMPILE PLAN}) it translates to the original Calc's
 * exec node, and the fused scan to the original scan's, so a compiled plan is the stock plan and
 * {@code EXECUTE PLAN} (which does not optimize) runs the job unfused.
 */
final class KarrowFusedCalc extends StreamPhysicalCalc {

    private final StreamPhysicalCalc original;

    KarrowFusedCalc(RelOptCluster cluster, RelTraitSet traitSet, RelNode input, RexProgram program,
            RelDataType rowType, StreamPhysicalCalc original) {
        super(cluster, traitSet, input, program, rowType);
        this.original = original;
    }

    /** The identity Calc over {@code fusedScan}, in the place of {@code original}. */
    static KarrowFusedCalc over(KarrowFusedScan fusedScan, StreamPhysicalCalc original) {
        RexProgram identity = RexProgram.createIdentity(fusedScan.getRowType());
        return new KarrowFusedCalc(original.getCluster(), original.getTraitSet(), fusedScan, identity,
                original.getRowType(), original);
    }

    @Override
    public Calc copy(RelTraitSet traitSet, RelNode input, RexProgram program) {
        return new KarrowFusedCalc(getCluster(), traitSet, input, program, getRowType(), original);
    }

    /** Flink's plan writers accept physical nodes by this prefix and print the rest ("KarrowFusedCalc"). */
    @Override
    public String getRelTypeName() {
        return "StreamPhysicalKarrowFusedCalc";
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return super.explainTerms(pw).item("computedBy", "KarrowFusedScan");
    }

    /** The fully fused scan's carrier type, when this Calc's scan also runs a sink's encoders; else null. */
    private @Nullable TypeInformation<RowData> carrierType() {
        if (getInput() instanceof KarrowFusedScan
                && ((KarrowFusedScan) getInput()).tableSourceTable().tableSource() instanceof FusableScan) {
            return ((FusableScan) ((KarrowFusedScan) getInput()).tableSourceTable().tableSource()).carrierType();
        }
        return null;
    }

    @Override
    public ExecNode<?> translateToExecNode(boolean isCompiled) {
        if (isCompiled) {
            return original.translateToExecNode(true);
        }
        TableConfig config = ShortcutUtils.unwrapTableConfig(this);
        return new FusedCalcExecNode(config, InputProperty.DEFAULT,
                FlinkTypeFactory.toLogicalRowType(getRowType()), getRelDetailedDescription(), carrierType());
    }
}
