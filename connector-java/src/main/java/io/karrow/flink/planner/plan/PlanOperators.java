package io.karrow.flink.planner.plan;

import java.util.Set;

/**
 * The operator names of the plan contract ({@code docs/operator-plan.md}): a closed set that grows
 * only when the Java serializer and the Rust engine both implement a new name.
 */
public final class PlanOperators {

    private PlanOperators() {}

    /** Every name the contract defines. */
    public static final Set<String> ALL = Set.of(
            // arithmetic
            "PLUS", "MINUS", "TIMES", "DIVIDE", "MOD", "NEGATE",
            // comparison
            "EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUAL", "GREATER_THAN",
            "GREATER_THAN_OR_EQUAL", "IS_DISTINCT_FROM", "IS_NOT_DISTINCT_FROM",
            // logic
            "AND", "OR", "NOT", "IS_NULL", "IS_NOT_NULL", "IS_TRUE", "IS_NOT_TRUE", "IS_FALSE", "IS_NOT_FALSE",
            // conditional
            "CASE", "COALESCE", "NULLIF", "IF",
            // conversion
            "CAST", "TRY_CAST",
            // string
            "LOWER", "UPPER", "CHAR_LENGTH", "SUBSTRING", "CONCAT", "TRIM", "LIKE", "SPLIT_INDEX",
            "REGEXP_EXTRACT", "REGEXP",
            // temporal
            "HOUR", "MINUTE", "SECOND", "EXTRACT", "DATE_FORMAT", "TO_TIMESTAMP_LTZ");
}
