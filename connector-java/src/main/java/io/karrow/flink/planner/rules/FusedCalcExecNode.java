package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusedCalcSlotOperator;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.common.CommonExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The exec node of a {@link KarrowFusedCalc}: a chained pass-through operator where the Calc's
 * generated operator would be, with the stock Calc's exec-node context (type name and version), so
 * its transformation gets the uid, name and parallelism the stock Calc's would. Never serialized:
 * a compiled plan holds the stock Calc instead.
 */
final class FusedCalcExecNode extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    /** Full fusion: the type of the encoded batches the scan emits, set on its edges (else null). */
    private final @Nullable TypeInformation<RowData> carrierType;

    FusedCalcExecNode(ReadableConfig tableConfig, InputProperty inputProperty, RowType outputType, String description,
            @Nullable TypeInformation<RowData> carrierType) {
        super(ExecNodeContext.newNodeId(),
                ExecNodeContext.newContext(StreamExecCalc.class),
                ExecNodeContext.newPersistedConfig(StreamExecCalc.class, tableConfig),
                List.of(inputProperty),
                outputType,
                description);
        this.carrierType = carrierType;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        Transformation<RowData> input = (Transformation<RowData>) getInputEdges().get(0).translateToPlan(planner);
        if (carrierType != null) {
            // Full fusion: the scan emits encoded batches, not rows. Flink's scan node types its
            // transformation by the row type (overwriting the source's own type), so the slot
            // re-types its input edge here, before anything used that type (else Flink refuses
            // loudly), and forwards the batches with it: chained copies keep them as they are.
            input.setOutputType(carrierType);
        }
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta(CommonExecCalc.CALC_TRANSFORMATION, config),
                FusedCalcSlotOperator.<RowData>factory(),
                carrierType != null ? carrierType : InternalTypeInfo.of(getOutputType()),
                input.getParallelism(),
                false);
    }
}
