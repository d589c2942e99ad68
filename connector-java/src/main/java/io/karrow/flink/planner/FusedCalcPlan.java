package io.karrow.flink.planner;

import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Objects;

/**
 * What a fused {@code kafka-native} scan runs after decoding: the operator plan
 * ({@code docs/operator-plan.md}) of the Calc it absorbed, and the row type it then produces (the
 * Calc's output type).
 */
public final class FusedCalcPlan implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String json;
    private final RowType outputType;
    private final String digest;
    private final boolean encodes;

    /**
     * A plan.
     *
     * @param json the plan's contract JSON
     * @param outputType the row type the fused scan produces
     * @param digest the Calc's own terms (its {@code where} and {@code select}) for {@code EXPLAIN}
     */
    public FusedCalcPlan(String json, RowType outputType, String digest) {
        this(json, outputType, digest, false);
    }

    private FusedCalcPlan(String json, RowType outputType, String digest, boolean encodes) {
        this.json = Objects.requireNonNull(json);
        this.outputType = Objects.requireNonNull(outputType);
        this.digest = Objects.requireNonNull(digest);
        this.encodes = encodes;
    }

    /**
     * This plan with the sink's encode stage ({@code planWithEncodeStage}, this plan's JSON with its
     * {@code "encode"} member): full fusion, the scan then emits encoded batches, not rows.
     */
    public FusedCalcPlan withEncodeStage(String planWithEncodeStage) {
        return new FusedCalcPlan(planWithEncodeStage, outputType, digest, true);
    }

    /**
     * Whether the plan has the sink's encode stage: the scan runs decode, Calc and encode per fetched
     * batch and emits one encoded batch per split and batch ({@code EncodedBatchRow}).
     */
    public boolean encodes() {
        return encodes;
    }

    /** The plan's contract JSON. */
    public String json() {
        return json;
    }

    /** The row type the fused scan produces. */
    public RowType outputType() {
        return outputType;
    }

    /** How {@code EXPLAIN} names the plan. */
    public String digest() {
        return digest;
    }
}
