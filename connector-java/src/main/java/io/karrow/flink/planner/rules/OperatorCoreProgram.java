package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.OperatorCoreOptions;
import io.karrow.flink.planner.OptimizationScope;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import org.apache.calcite.rel.RelNode;

/**
 * karrow's stage of the stream optimizer, run after Flink's last one ({@code physical_rewrite}), on
 * each optimized block: the physical plan is final then, with changelog modes and mini-batch
 * intervals inferred. It reads the session's options each time, so a {@code SET} applies to the
 * next statement.
 */
final class OperatorCoreProgram implements FlinkOptimizeProgram<StreamOptimizeContext> {

    /** The program's name in the optimizer's chain. */
    static final String NAME = "karrow_operator_core";

    private final OptimizationScope scope;

    /** A program for one block of the optimization {@code scope} describes. */
    OperatorCoreProgram(OptimizationScope scope) {
        this.scope = scope;
    }

    @Override
    public RelNode optimize(RelNode root, StreamOptimizeContext context) {
        TableConfig config = ShortcutUtils.unwrapTableConfig(root);
        if (!config.get(OperatorCoreOptions.ENABLED) || !config.get(OperatorCoreOptions.CALC_FUSION_ENABLED)) {
            return root;
        }
        RelNode fused = new CalcFusion(config, scope).rewrite(root);
        if (config.get(OperatorCoreOptions.SINK_FUSION_ENABLED)) {
            fused = new SinkFusion(scope).rewrite(fused);
        }
        return fused;
    }
}
