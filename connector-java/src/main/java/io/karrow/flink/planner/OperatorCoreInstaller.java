package io.karrow.flink.planner;

import org.apache.flink.table.api.TableConfig;

/**
 * Installs karrow's optimizer program into a session's planner configuration. Implemented by the
 * planner-linked {@code io.karrow.flink.planner.rules.KarrowPlannerInstaller}, which
 * {@link PlannerRulesClassLoader} defines next to the planner; this interface is the one type both
 * sides share.
 */
public interface OperatorCoreInstaller {

    /**
     * Makes the stream optimizer of {@code config}'s planner run karrow's program after Flink's own;
     * a no-op when it already does.
     *
     * @throws IllegalStateException when the session's planner configuration is one karrow must not
     *     replace (e.g. a custom {@code PlannerConfig})
     */
    void install(TableConfig config);
}
