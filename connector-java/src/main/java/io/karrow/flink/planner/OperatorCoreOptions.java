package io.karrow.flink.planner;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The session options of karrow's operator core. All are read when a statement is optimized, so a
 * {@code SET} before a statement applies to it ({@code SET 'karrow.operator-core.enabled' =
 * 'false';} in the SQL client or gateway, {@code tableEnv.getConfig().set(...)} in a Table API
 * program).
 */
public final class OperatorCoreOptions {

    /** Whether karrow replaces parts of a plan at all (off by default). */
    public static final ConfigOption<Boolean> ENABLED = ConfigOptions.key("karrow.operator-core.enabled")
            .booleanType()
            .defaultValue(false)
            .withDescription("Whether karrow's operator core replaces the stateless middle of plans over"
                    + " 'kafka-native' tables with native execution. 'false' (the default until the fused"
                    + " runtime has passed the whole parity, savepoint, failover and watermark suites;"
                    + " see docs/operator-core.md) plans every statement exactly as Flink does.");

    /**
     * Whether a stateless, insert-only Calc directly over a {@code kafka-native} scan is fused into
     * the scan (the source then emits only the surviving, projected rows).
     */
    public static final ConfigOption<Boolean> CALC_FUSION_ENABLED =
            ConfigOptions.key("karrow.operator-core.calc-fusion.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Whether a Calc (filter and projections) directly over a 'kafka-native'"
                            + " scan runs natively inside the scan.");

    /**
     * Whether a {@code kafka-native} sink whose input is a fused scan is fused too (decode, Calc and
     * encode in one native call per fetched batch). Needs {@link #CALC_FUSION_ENABLED}.
     */
    public static final ConfigOption<Boolean> SINK_FUSION_ENABLED =
            ConfigOptions.key("karrow.operator-core.sink-fusion.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Whether a 'kafka-native' sink directly over a fused scan is fused into it"
                            + " (records are encoded natively with the fetched batch; no rows in between).");

    /**
     * Whether a Calc over a scan with a pushed-down watermark strategy is fused (its strategy then
     * generated again over the Calc's rows; a filtering Calc emits watermark rows for the rows it
     * drops). On by default (it applies only while the operator core itself is on); see
     * docs/operator-core.md, "Watermarks today".
     */
    public static final ConfigOption<Boolean> WATERMARKED_SCANS_ENABLED =
            ConfigOptions.key("karrow.operator-core.watermarked-scans.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Whether a Calc over a 'kafka-native' scan with a WATERMARK is fused (the"
                            + " watermark strategy is generated again over the Calc's rows; rows the Calc's filter"
                            + " drops still reach the watermark generator).");

    private OperatorCoreOptions() {}
}
