package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusableScan;
import io.karrow.flink.planner.FusedCalcPlan;
import io.karrow.flink.planner.FusionDecisions;
import io.karrow.flink.planner.NativePlanCheck;
import io.karrow.flink.planner.plan.OperatorPlan;
import io.karrow.flink.planner.plan.PlanExpr;
import io.karrow.flink.planner.plan.PlanSerializationException;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.abilities.source.ReadingMetadataSpec;
import org.apache.flink.table.planner.plan.abilities.source.SourceAbilitySpec;
import org.apache.flink.table.planner.plan.abilities.source.SourceWatermarkSpec;
import org.apache.flink.table.planner.plan.abilities.source.WatermarkPushDownSpec;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalTableSourceScan;
import org.apache.flink.table.planner.plan.schema.TableSourceTable;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexProgram;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Source fusion: a stateless, insert-only {@code StreamPhysicalCalc} directly over a
 * {@code kafka-native} scan becomes {@link KarrowFusedCalc} over {@link KarrowFusedScan}, whose
 * source runs the Calc's projections and condition natively on each fetched batch. All or nothing:
 * anything it cannot run exactly — a node, an expression, a type, a source option — leaves the Calc
 * and the scan to Flink, with one log line naming the reason ({@link FusionDecisions}).
 */
final class CalcFusion {

    private static final Logger LOG = LoggerFactory.getLogger(CalcFusion.class);

    private final TableConfig config;

    /** How many scans of each digest this tree has (Flink's sub-plan reuse merges equal ones). */
    private final Map<String, Integer> scanDigests = new HashMap<>();

    CalcFusion(TableConfig config) {
        this.config = config;
    }

    /** {@code root} with every fusable Calc-over-scan fused. */
    RelNode rewrite(RelNode root) {
        countScans(root);
        return visit(root);
    }

    private void countScans(RelNode node) {
        if (node instanceof StreamPhysicalTableSourceScan) {
            scanDigests.merge(node.getDigest(), 1, Integer::sum);
        }
        for (RelNode input : node.getInputs()) {
            countScans(input);
        }
    }

    private RelNode visit(RelNode node) {
        List<RelNode> inputs = node.getInputs();
        List<RelNode> visited = new ArrayList<>(inputs.size());
        boolean changed = false;
        for (RelNode input : inputs) {
            RelNode v = visit(input);
            changed |= v != input;
            visited.add(v);
        }
        if (changed) {
            node = node.copy(node.getTraitSet(), visited);
        }
        if (node instanceof StreamPhysicalCalc && !(node instanceof KarrowFusedCalc)) {
            RelNode input = ((StreamPhysicalCalc) node).getInput();
            if (input instanceof StreamPhysicalTableSourceScan && !(input instanceof KarrowFusedScan)
                    && ((StreamPhysicalTableSourceScan) input).tableSource() instanceof FusableScan) {
                return tryFuse((StreamPhysicalCalc) node, (StreamPhysicalTableSourceScan) input);
            }
        }
        return node;
    }

    private RelNode tryFuse(StreamPhysicalCalc calc, StreamPhysicalTableSourceScan scan) {
        TableSourceTable table = scan.tableSourceTable();
        String segment = "Calc over the kafka-native scan of "
                + table.contextResolvedTable().getIdentifier().asSummaryString();
        try {
            String reason = whyNotFusable(calc, scan);
            if (reason != null) {
                FusionDecisions.declined(segment, reason);
                return calc;
            }
            RowType input = FlinkTypeFactory.toLogicalRowType(scan.getRowType());
            RowType output = FlinkTypeFactory.toLogicalRowType(calc.getRowType());
            OperatorPlan plan = planOf(calc, input, output);
            String json = plan.toJson();
            String notRunnable = NativePlanCheck.whyNotRunnable(json);
            if (notRunnable != null) {
                FusionDecisions.declined(segment, notRunnable);
                return calc;
            }
            String digest = TermsWriter.termsOf(calc);
            DynamicTableSource fused = ((FusableScan) scan.tableSource())
                    .withFusedPlan(new FusedCalcPlan(json, output, digest));
            TableSourceTable fusedTable = table.replace(fused, calc.getRowType(), table.abilitySpecs());
            KarrowFusedScan fusedScan = new KarrowFusedScan(
                    scan.getCluster(), scan.getTraitSet(), scan.getHints(), fusedTable, scan, digest);
            FusionDecisions.fused(segment, digest);
            return KarrowFusedCalc.over(fusedScan, calc);
        } catch (PlanSerializationException e) {
            FusionDecisions.declined(segment, e.getMessage());
            return calc;
        } catch (RuntimeException | LinkageError | AssertionError e) {
            LOG.warn("karrow operator core: planning the fusion of {} failed", segment, e);
            FusionDecisions.declined(segment, "internal error: " + e);
            return calc;
        }
    }

    /** Why the shape, changelog or source of this Calc and scan cannot be fused; null when they can. */
    private @Nullable String whyNotFusable(StreamPhysicalCalc calc, StreamPhysicalTableSourceScan scan) {
        if (!ChangelogPlanUtils.isInsertOnly(calc)) {
            return "the Calc's input is not insert-only";
        }
        int readers = scanDigests.getOrDefault(scan.getDigest(), 1);
        if (readers > 1 && config.get(OptimizerConfigOptions.TABLE_OPTIMIZER_REUSE_SUB_PLAN_ENABLED)
                && config.get(OptimizerConfigOptions.TABLE_OPTIMIZER_REUSE_SOURCE_ENABLED)) {
            return "the scan has " + readers + " readers in this plan, which Flink serves from one source";
        }
        for (SourceAbilitySpec spec : scan.tableSourceTable().abilitySpecs()) {
            if (spec instanceof WatermarkPushDownSpec || spec instanceof SourceWatermarkSpec) {
                return "the scan assigns watermarks: the watermark generator must see every record, also"
                        + " those the Calc drops, which the operator plan does not carry yet";
            }
            if (spec instanceof ReadingMetadataSpec) {
                return "the scan reads metadata columns " + ((ReadingMetadataSpec) spec).getMetadataKeys()
                        + ", which the operator plan does not carry yet";
            }
            return "the scan has push-downs karrow does not fuse: " + scan.tableSourceTable().getSpecDigests();
        }
        return ((FusableScan) scan.tableSource()).whyNotFusable();
    }

    /** The Calc's condition and projections over the scan's row, as an operator plan. */
    private OperatorPlan planOf(StreamPhysicalCalc calc, RowType input, RowType output)
            throws PlanSerializationException {
        RexProgram program = calc.getProgram();
        RexToPlan rex = new RexToPlan(calc.getCluster().getRexBuilder());
        RexLocalRef condition = program.getCondition();
        PlanExpr filter = condition == null ? null : rex.convert(program.expandLocalRef(condition));
        List<PlanExpr> projections = new ArrayList<>(program.getProjectList().size());
        for (RexLocalRef projection : program.getProjectList()) {
            projections.add(rex.convert(program.expandLocalRef(projection)));
        }
        return new OperatorPlan(input, filter, projections, output, config.getLocalTimeZone().getId());
    }
}
