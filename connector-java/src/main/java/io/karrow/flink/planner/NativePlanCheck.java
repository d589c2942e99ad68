package io.karrow.flink.planner;

import javax.annotation.Nullable;

import java.util.function.Function;

/**
 * Asks the native operator core whether it runs a plan exactly. The Rust side is the one authority
 * on what it supports (every expression, type and option); the Java serializer only declines what it
 * cannot write down at all.
 *
 * <p>NATIVE CHECK PLUG-IN POINT: the {@code exprs} side adds a planning-time JNI call ("is this plan
 * runnable? -> null or the reason") to {@code KarrowNative}. Until that call is in main,
 * {@link #whyNotRunnable} answers with {@link #NO_NATIVE_OPERATOR_CORE} for every plan, so the
 * planner declines every segment and no job can be planned onto a runtime that does not exist.
 */
public final class NativePlanCheck {

    /** The answer while karrow-native has no operator core. */
    static final String NO_NATIVE_OPERATOR_CORE =
            "this karrow-native build has no operator core (no planning-time plan check)";

    private static volatile @Nullable Function<String, String> testOverride;

    private NativePlanCheck() {}

    /** Null when the native operator core runs {@code planJson} exactly, else the reason it does not. */
    public static @Nullable String whyNotRunnable(String planJson) {
        Function<String, String> override = testOverride;
        if (override != null) {
            return override.apply(planJson);
        }
        return NO_NATIVE_OPERATOR_CORE;
    }

    /**
     * Replaces the native answer, for planning tests that run before the native check exists; null
     * restores it. Never used outside tests.
     */
    static void overrideForTests(@Nullable Function<String, String> check) {
        testOverride = check;
    }
}
