package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.FusableScan;
import io.karrow.flink.planner.FusedCalcPlan;
import io.karrow.flink.planner.OperatorCoreOptions;
import io.karrow.flink.planner.OptimizationScope;
import io.karrow.flink.planner.plan.OperatorPlan;
import io.karrow.flink.planner.plan.PlanExpr;
import io.karrow.flink.planner.plan.PlanSerializationException;

import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.abilities.source.ReadingMetadataSpec;
import org.apache.flink.table.planner.plan.abilities.source.SourceAbilityContext;
import org.apache.flink.table.planner.plan.abilities.source.SourceAbilitySpec;
import org.apache.flink.table.planner.plan.abilities.source.SourceWatermarkSpec;
import org.apache.flink.table.planner.plan.abilities.source.WatermarkPushDownSpec;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalTableSourceScan;
import org.apache.flink.table.planner.plan.schema.TableSourceTable;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.planner.utils.ShortcutUtils;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.hint.RelHint;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexProgram;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Source fusion: a stateless, insert-only {@code StreamPhysicalCalc} directly over a
 * {@code kafka-native} scan becomes {@link KarrowFusedCalc} over {@link KarrowFusedScan}, whose
 * source runs the Calc's projections and condition natively on each fetched batch. All or nothing:
 * anything it cannot run exactly — a node, an expression, a type, a source option — leaves the Calc
 * and the scan to Flink, with one log line naming the reason ({@code FusionDecisions}).
 */
final class CalcFusion {

    private static final Logger LOG = LoggerFactory.getLogger(CalcFusion.class);

    private final TableConfig config;

    /** The optimization this runs in: table reads, decisions already reported. */
    private final OptimizationScope scope;

    CalcFusion(TableConfig config, OptimizationScope scope) {
        this.config = config;
        this.scope = scope;
    }

    /** {@code root} with every fusable Calc-over-scan fused. */
    RelNode rewrite(RelNode root) {
        return visit(root);
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
        String digest = TermsWriter.termsOf(calc);
        String segment = "Calc(" + digest + ") over the kafka-native scan of "
                + table.contextResolvedTable().getIdentifier().asSummaryString();
        try {
            String reason = whyNotFusable(calc, scan);
            if (reason != null) {
                scope.declined(segment, reason);
                return calc;
            }
            RowType input = FlinkTypeFactory.toLogicalRowType(scan.getRowType());
            RowType output = FlinkTypeFactory.toLogicalRowType(calc.getRowType());
            OperatorPlan plan = planOf(calc, input, output, watermarkColumns(watermarkSpec(scan), calc.getProgram()));
            String json = plan.toJson();
            String locale = plan.locale();
            String notRunnable = scope.whyNotRunnable(json); // NativePlanCheck: the native side decides
            if (notRunnable != null) {
                scope.declined(segment, notRunnable);
                return calc;
            }
            DynamicTableSource fused = ((FusableScan) scan.tableSource())
                    .withFusedPlan(new FusedCalcPlan(json, output, digest, locale));
            WatermarkPushDownSpec watermark = watermarkSpec(scan);
            if (watermark != null) {
                // The scan's watermark generator reads the scan's rows; the fused source emits the
                // Calc's, so the same strategy is generated again over the Calc's row type (the
                // generator's columns moved where the Calc projects them: whyNotFusable checked it).
                RexProgram program = calc.getProgram();
                WatermarkPushDownSpec moved = watermark.copy(
                        remap(watermark.getWatermarkExpr(), program),
                        watermark.getRowtimeExpr().map(e -> remap(e, program)).orElse(null),
                        output);
                moved.apply(fused, new SourceAbilityContext(ShortcutUtils.unwrapContext(calc),
                        ShortcutUtils.unwrapTypeFactory(calc), output));
            }
            TableSourceTable fusedTable = table.replace(fused, calc.getRowType(), table.abilitySpecs());
            KarrowFusedScan fusedScan = new KarrowFusedScan(
                    scan.getCluster(), scan.getTraitSet(), withPlanHint(scan.getHints(), json), fusedTable, scan, digest);
            scope.fused(segment, "plan " + planId(json));
            return KarrowFusedCalc.over(fusedScan, calc);
        } catch (PlanSerializationException e) {
            scope.declined(segment, e.getMessage());
            return calc;
        } catch (RuntimeException | LinkageError | AssertionError e) {
            LOG.warn("karrow operator core: planning the fusion of {} failed", segment, e);
            scope.declined(segment, "internal error: " + e);
            return calc;
        }
    }

    /**
     * {@code hints} plus one naming the fused plan. Flink's scan reuse merges scans of one table by
     * table, push-downs and hints, not by row type: without the hint it would merge fused scans of
     * different plans (or a fused and a plain scan) into one source and feed every reader the
     * first's rows.
     */
    static List<RelHint> withPlanHint(List<RelHint> hints, String planJson) {
        List<RelHint> withPlan = new ArrayList<>(hints);
        withPlan.add(RelHint.builder(PLAN_HINT).hintOption(planId(planJson)).build());
        return withPlan;
    }

    /** The name of the hint a fused scan carries. */
    static final String PLAN_HINT = "KARROW_FUSED_PLAN";

    /** A short identity of a plan: the first 16 hex digits of the SHA-256 of its JSON. */
    static String planId(String planJson) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(planJson.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is a required JVM algorithm", e);
        }
    }

    /** Why the shape, changelog or source of this Calc and scan cannot be fused; null when they can. */
    private @Nullable String whyNotFusable(StreamPhysicalCalc calc, StreamPhysicalTableSourceScan scan) {
        if (!ChangelogPlanUtils.isInsertOnly(calc)) {
            return "the Calc's input is not insert-only";
        }
        if (scan.eventTimeSnapshotRequired()) {
            return "the scan is the versioned side of an event-time temporal join";
        }
        String table = scan.tableSourceTable().contextResolvedTable().getIdentifier().asSummaryString();
        int reads = scope.reads(table);
        if (reads > 1 && config.get(OptimizerConfigOptions.TABLE_OPTIMIZER_REUSE_SUB_PLAN_ENABLED)
                && config.get(OptimizerConfigOptions.TABLE_OPTIMIZER_REUSE_SOURCE_ENABLED)) {
            // Flink's scan reuse gives all of them one source; fused scans would be one source each.
            return "the statement reads the table " + reads + " times, which Flink serves from one source";
        }
        for (SourceAbilitySpec spec : scan.tableSourceTable().abilitySpecs()) {
            if (spec instanceof WatermarkPushDownSpec) {
                if (!config.get(OperatorCoreOptions.WATERMARKED_SCANS_ENABLED)) {
                    return "the scan assigns watermarks and '" + OperatorCoreOptions.WATERMARKED_SCANS_ENABLED.key()
                            + "' is off";
                }
                String reason = whyWatermarkNotMovable((WatermarkPushDownSpec) spec, calc.getProgram());
                if (reason != null) {
                    return reason;
                }
                continue;
            }
            if (spec instanceof SourceWatermarkSpec) {
                return "the scan uses SOURCE_WATERMARK(), which the fused source does not emit";
            }
            if (spec instanceof ReadingMetadataSpec) {
                return "the scan reads metadata columns " + ((ReadingMetadataSpec) spec).getMetadataKeys()
                        + ", which the operator plan does not carry yet";
            }
            return "the scan has push-downs karrow does not fuse: " + scan.tableSourceTable().getSpecDigests();
        }
        return ((FusableScan) scan.tableSource()).whyNotFusable();
    }

    /** The scan's pushed-down watermark strategy, or null. */
    private static @Nullable WatermarkPushDownSpec watermarkSpec(StreamPhysicalTableSourceScan scan) {
        for (SourceAbilitySpec spec : scan.tableSourceTable().abilitySpecs()) {
            if (spec instanceof WatermarkPushDownSpec) {
                return (WatermarkPushDownSpec) spec;
            }
        }
        return null;
    }

    /**
     * Why the scan's watermark generator cannot run over the Calc's output rows instead of the
     * scan's, or null when it can: the Calc must project every column the watermark and rowtime
     * expressions read as it is. (A Calc that filters is fine: Flink's generator also sees the rows
     * the filter drops, so the plan asks for a watermark row per dropped row, {@link
     * #watermarkColumns}.)
     */
    private static @Nullable String whyWatermarkNotMovable(WatermarkPushDownSpec spec, RexProgram program) {
        List<RexNode> expressions = new ArrayList<>();
        expressions.add(spec.getWatermarkExpr());
        spec.getRowtimeExpr().ifPresent(expressions::add);
        for (RexNode expression : expressions) {
            for (int field : RelOptUtil.InputFinder.bits(expression)) {
                if (projectedAt(program, field) < 0) {
                    return "the scan assigns watermarks from column " + field
                            + ", which the Calc does not project as it is";
                }
            }
        }
        return null;
    }

    /**
     * The output columns the scan's watermark generator reads once it runs over the Calc's rows
     * (sorted): the watermark plan's {@code watermark_columns} when the Calc filters, else none (every
     * row is emitted then).
     */
    private static List<Integer> watermarkColumns(@Nullable WatermarkPushDownSpec spec, RexProgram program) {
        if (spec == null || program.getCondition() == null) {
            return List.of();
        }
        java.util.TreeSet<Integer> columns = new java.util.TreeSet<>();
        List<RexNode> expressions = new ArrayList<>();
        expressions.add(spec.getWatermarkExpr());
        spec.getRowtimeExpr().ifPresent(expressions::add);
        for (RexNode expression : expressions) {
            for (int field : RelOptUtil.InputFinder.bits(expression)) {
                int at = projectedAt(program, field);
                if (at < 0) {
                    throw new IllegalStateException("column " + field + " is not projected");
                }
                columns.add(at);
            }
        }
        return List.copyOf(columns);
    }

    /** The first output position where the Calc projects input field {@code field} unchanged, or -1. */
    private static int projectedAt(RexProgram program, int field) {
        List<RexLocalRef> projects = program.getProjectList();
        for (int i = 0; i < projects.size(); i++) {
            RexNode e = program.expandLocalRef(projects.get(i));
            if (e instanceof RexInputRef && ((RexInputRef) e).getIndex() == field) {
                return i;
            }
        }
        return -1;
    }

    /** {@code expression} over the scan's row, rewritten over the Calc's output row. */
    private static RexNode remap(RexNode expression, RexProgram program) {
        return expression.accept(new RexShuttle() {
            @Override
            public RexNode visitInputRef(RexInputRef ref) {
                int at = projectedAt(program, ref.getIndex());
                if (at < 0) {
                    throw new IllegalStateException("column " + ref.getIndex() + " is not projected");
                }
                return new RexInputRef(at, program.getOutputRowType().getFieldList().get(at).getType());
            }
        });
    }

    /** The Calc's condition and projections over the scan's row, as an operator plan. */
    private OperatorPlan planOf(StreamPhysicalCalc calc, RowType input, RowType output, List<Integer> watermarkColumns)
            throws PlanSerializationException {
        RexProgram program = calc.getProgram();
        RexToPlan rex = new RexToPlan(calc.getCluster().getRexBuilder());
        RexLocalRef condition = program.getCondition();
        PlanExpr filter = condition == null ? null : rex.convert(program.expandLocalRef(condition));
        List<PlanExpr> projections = new ArrayList<>(program.getProjectList().size());
        for (RexLocalRef projection : program.getProjectList()) {
            projections.add(rex.convert(program.expandLocalRef(projection)));
        }
        return new OperatorPlan(input, filter, projections, output, config.getLocalTimeZone().normalized().getId(),
                Locale.getDefault().toLanguageTag(), watermarkColumns);
    }
}
