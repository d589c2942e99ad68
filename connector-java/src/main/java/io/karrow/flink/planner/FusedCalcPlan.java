package io.karrow.flink.planner;

import io.karrow.flink.nativebridge.JsonText;

import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Locale;
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
    /** The plan's session locale (the planner JVM's default locale, as a language tag). */
    private final String locale;

    /**
     * A plan.
     *
     * @param json the plan's contract JSON
     * @param outputType the row type the fused scan produces
     * @param digest the Calc's own terms (its {@code where} and {@code select}) for {@code EXPLAIN}
     * @param locale the locale the plan's session names ({@code "session": {"locale": ...}})
     */
    public FusedCalcPlan(String json, RowType outputType, String digest, String locale) {
        this(json, outputType, digest, false, locale);
    }

    private FusedCalcPlan(String json, RowType outputType, String digest, boolean encodes, String locale) {
        this.json = Objects.requireNonNull(json);
        this.outputType = Objects.requireNonNull(outputType);
        this.digest = Objects.requireNonNull(digest);
        this.encodes = encodes;
        this.locale = Objects.requireNonNull(locale);
    }

    /**
     * This plan with the sink's encode stage ({@code planWithEncodeStage}, this plan's JSON with its
     * {@code "encode"} member): full fusion, the scan then emits encoded batches, not rows.
     */
    public FusedCalcPlan withEncodeStage(String planWithEncodeStage) {
        return new FusedCalcPlan(planWithEncodeStage, outputType, digest, true, locale);
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

    /** The locale the plan was planned with (the planner JVM's default locale, a language tag). */
    public String locale() {
        return locale;
    }

    /**
     * The plan's JSON as it runs in this JVM: {@code UPPER}/{@code LOWER} follow the default locale
     * of the JVM that runs them (Flink's generated code calls {@code String.toUpperCase()} on the
     * TaskManager), so when this JVM's default locale differs from the planner's, the session
     * names this JVM's. The native side then accepts the plan under it or refuses to open it (a
     * case mapping in a locale with language-specific rules): never the planner's rules on a
     * TaskManager whose own differ.
     */
    public String jsonForThisJvm() {
        return jsonWithLocale(Locale.getDefault().toLanguageTag());
    }

    /** The plan's JSON with its session locale replaced by {@code tag} (itself when they are equal). */
    String jsonWithLocale(String tag) {
        if (tag.equals(locale)) {
            return json;
        }
        String member = member(locale);
        int at = json.indexOf(member);
        if (at < 0 || json.indexOf(member, at + 1) >= 0) {
            throw new IllegalStateException("The fused plan does not name its session locale " + locale
                    + " exactly once: " + json);
        }
        return json.substring(0, at) + member(tag) + json.substring(at + member.length());
    }

    private static String member(String tag) {
        return JsonText.appendString(new StringBuilder("\"locale\":"), tag).append('}').toString();
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
