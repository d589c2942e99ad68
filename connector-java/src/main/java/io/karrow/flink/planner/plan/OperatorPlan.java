package io.karrow.flink.planner.plan;

import io.karrow.flink.nativebridge.JsonText;

import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Objects;

/**
 * The plan of one fused segment, version 1 of {@code docs/operator-plan.md}: the row the scan
 * produces, an optional filter (a row passes when it is TRUE), one projection per output column,
 * the output row type as Flink planned it, and the session settings the expressions depend on.
 */
public final class OperatorPlan {

    /** The contract version this class writes. */
    public static final int VERSION = 1;

    private final RowType input;
    private final @Nullable PlanExpr filter;
    private final List<PlanExpr> projections;
    private final RowType output;
    private final String timeZone;
    private final String locale;
    private final List<Integer> watermarkColumns;

    /**
     * A plan.
     *
     * @param timeZone {@code table.local-time-zone} as the session resolves it, normalized (a zone
     *     whose rules are a fixed offset is written as that offset: {@code Etc/UTC} as {@code Z})
     * @param locale the JVM's default locale as a language tag ({@code Locale.getDefault()}: what
     *     {@code UPPER}/{@code LOWER} follow for non-ASCII text)
     */
    public OperatorPlan(RowType input, @Nullable PlanExpr filter, List<PlanExpr> projections, RowType output,
            String timeZone, String locale) {
        this(input, filter, projections, output, timeZone, locale, List.of());
    }

    /**
     * A plan with watermark rows ({@code docs/operator-plan.md}, "Watermark rows"): for every row
     * the filter drops, the fused source also emits a row of the output type with only {@code
     * watermarkColumns} set (output columns that project an input column unchanged: what the scan's
     * watermark generator reads), which the operator in the Calc's place drops after the generator
     * saw it.
     */
    public OperatorPlan(RowType input, @Nullable PlanExpr filter, List<PlanExpr> projections, RowType output,
            String timeZone, String locale, List<Integer> watermarkColumns) {
        if (projections.size() != output.getFieldCount()) {
            throw new IllegalArgumentException(projections.size() + " projections for " + output.getFieldCount()
                    + " output columns");
        }
        this.input = Objects.requireNonNull(input);
        this.filter = filter;
        this.projections = List.copyOf(projections);
        this.output = Objects.requireNonNull(output);
        this.timeZone = Objects.requireNonNull(timeZone);
        this.locale = Objects.requireNonNull(locale);
        this.watermarkColumns = List.copyOf(watermarkColumns);
    }

    /** The session's locale (a language tag). */
    public String locale() {
        return locale;
    }

    /** The contract JSON of this plan. */
    public String toJson() throws PlanSerializationException {
        StringBuilder out = new StringBuilder(512);
        out.append("{\"version\":").append(VERSION).append(",\"input\":");
        PlanExpr.appendType(out, input);
        out.append(",\"filter\":");
        if (filter == null) {
            out.append("null");
        } else {
            filter.appendJson(out);
        }
        out.append(",\"projections\":[");
        for (int i = 0; i < projections.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            projections.get(i).appendJson(out);
        }
        out.append("],\"output\":");
        PlanExpr.appendType(out, output);
        if (!watermarkColumns.isEmpty()) {
            out.append(",\"watermark_columns\":[");
            for (int i = 0; i < watermarkColumns.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(watermarkColumns.get(i).intValue());
            }
            out.append(']');
        }
        out.append(",\"session\":{\"time_zone\":");
        JsonText.appendString(out, timeZone);
        out.append(",\"locale\":");
        JsonText.appendString(out, locale);
        return out.append("}}").toString();
    }
}
