package io.karrow.flink.planner;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.planner.loader.PlannerModule;

import org.junit.jupiter.api.Test;

/**
 * karrow's planner rules link against Flink's planner internals, so they run only on the planner
 * versions they are built and tested against. This test fails when the build moves to another
 * planner (the flink.version of the pom) until the rules are checked against it and the version is
 * added to {@link PlannerHook#SUPPORTED_PLANNER_VERSIONS}.
 */
class PlannerVersionPinTest {

    @Test
    void thePlannerOfTheBuildIsOneTheRulesSupport() throws Exception {
        ClassLoader plannerLoader = PlannerModule.getInstance().getSubmoduleClassLoader();
        assertThat(PlannerHook.plannerVersion(plannerLoader)).isEqualTo("2.2.0");
        assertThat(PlannerHook.SUPPORTED_PLANNER_VERSIONS).containsExactly("2.2.0");
        assertThat(PlannerHook.unsupportedVersionReason("2.2.0")).isNull();
    }

    @Test
    void anyOtherPlannerIsRefusedWithTheReason() {
        assertThat(PlannerHook.unsupportedVersionReason("2.2.1")).isEqualTo(
                "karrow's planner rules are built and tested for Flink [2.2.0], but the planner is Flink 2.2.1");
        assertThat(PlannerHook.unsupportedVersionReason("2.3.0")).isNotNull();
        assertThat(PlannerHook.unsupportedVersionReason(null)).isEqualTo(
                "karrow's planner rules are built and tested for Flink [2.2.0], but the planner is of an unknown version");
    }
}
