package io.karrow.flink.planner;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.SessionKind;

import javax.annotation.Nullable;

import java.util.function.Function;

/**
 * Asks the native operator core whether it runs a plan exactly. The Rust side is the one authority
 * on what it supports (every expression, type and option; {@code karrow_operators::decline_reason});
 * the Java serializer only declines what it cannot write down at all.
 *
 * <p>The question goes to one checker session (operator session kind 8 opened with {@code {}},
 * {@code docs/jni-contract.md}) kept for the life of the JVM, as {@code control
 * {"op":"decline_reason","plan":...}}; calls are serialized (one handle, one thread at a time). When
 * the native library cannot be loaded or the call fails, the answer is a reason (the plan stays
 * Flink's), never a silent yes.
 */
public final class NativePlanCheck {

    private static volatile @Nullable Function<String, String> testOverride;

    private static @Nullable NativeHandle checker;

    private NativePlanCheck() {}

    /** Null when the native operator core runs {@code planJson} exactly, else the reason it does not. */
    public static @Nullable String whyNotRunnable(String planJson) {
        Function<String, String> override = testOverride;
        if (override != null) {
            return override.apply(planJson);
        }
        return askNative(planJson);
    }

    private static synchronized @Nullable String askNative(String planJson) {
        try {
            if (checker == null || checker.isClosed()) {
                checker = NativeHandle.open(SessionKind.OPERATOR_ROWS, "{}", null);
            }
            String reply = KarrowNative.control(checker.get(), "{\"op\":\"decline_reason\",\"plan\":" + planJson + "}");
            if (reply == null || reply.equals("null")) {
                return null;
            }
            return JsonText.parseString(reply);
        } catch (Exception | LinkageError e) {
            return "the native operator core could not check the plan: " + e;
        }
    }

    /**
     * Replaces the native answer, for planning tests that decide it themselves; null restores it.
     * Never used outside tests.
     */
    static void overrideForTests(@Nullable Function<String, String> check) {
        testOverride = check;
    }
}
