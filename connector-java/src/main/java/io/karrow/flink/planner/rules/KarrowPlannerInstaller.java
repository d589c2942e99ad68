package io.karrow.flink.planner.rules;

import io.karrow.flink.planner.OperatorCoreInstaller;

import org.apache.flink.table.api.PlannerConfig;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.calcite.CalciteConfig$;

/** Wraps a session's planner configuration in {@link KarrowCalciteConfig} (see {@code PlannerHook}). */
public final class KarrowPlannerInstaller implements OperatorCoreInstaller {

    /** Instantiated reflectively by {@code PlannerHook}. */
    public KarrowPlannerInstaller() {}

    @Override
    public void install(TableConfig config) {
        PlannerConfig current = config.getPlannerConfig();
        if (current.getClass().getName().equals(KarrowCalciteConfig.class.getName())) {
            return; // installed, possibly by another copy of karrow
        }
        CalciteConfig base;
        if (current instanceof CalciteConfig) {
            base = (CalciteConfig) current;
        } else if (current == PlannerConfig.EMPTY_CONFIG) {
            base = CalciteConfig$.MODULE$.DEFAULT();
        } else {
            throw new IllegalStateException("the session has its own planner configuration ("
                    + current.getClass().getName() + "), which karrow does not replace");
        }
        config.setPlannerConfig(new KarrowCalciteConfig(base, config));
    }
}
