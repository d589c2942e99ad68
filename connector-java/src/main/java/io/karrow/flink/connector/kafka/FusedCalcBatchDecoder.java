package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.NativeBatchDecoder;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.NativeSessionConfig;
import io.karrow.flink.nativebridge.SessionKind;
import io.karrow.flink.planner.FusedCalcPlan;
import io.karrow.flink.planner.OperatorCoreOptions;

import java.io.IOException;
import java.util.Locale;
import java.util.Objects;

/**
 * The batch decoder of a fused {@code kafka-native} scan: one native operator session (kind 8 with
 * its own value decoder, {@code docs/jni-contract.md}) decodes a fetched batch of values and runs
 * the fused Calc's plan on the rows in the same call; only the rows the Calc keeps, projected, come
 * back ({@link DecodedValues} of the Calc's output type, per value its 0..n output rows). The batch
 * call and its row-list layout are the unfused decoder's ({@link NativeBatchDecoder}), over the
 * operator session instead of a format's decoder.
 *
 * <p>Decode failures follow the value format's {@code ignore-parse-errors} inside the native decoder,
 * exactly as the unfused batch decoder; a row the Calc fails on (Flink's generated code would throw:
 * a failing CAST, an integer division by zero) fails the call with the index of the value the row
 * came from and Flink's exception class and message.
 */
final class FusedCalcBatchDecoder {

    private FusedCalcBatchDecoder() {}

    /**
     * Opens the session for {@code plan} decoding with the value format's {@code decoder}; the
     * returned decoder owns it. Not thread-safe.
     */
    static ValueBatchDecoder open(FusedCalcPlan plan, NativeSessionConfig decoder) throws IOException {
        return new NativeBatchDecoder(openSession(plan, decoder), plan.outputType());
    }

    /**
     * Opens the operator session for {@code plan} with the value format's {@code decoder}; for a plan
     * with an encode stage ({@link FusedCalcPlan#encodes()}) it answers {@code runBatch} (full
     * fusion). The caller owns the session.
     */
    static NativeHandle openSession(FusedCalcPlan plan, NativeSessionConfig decoder) throws IOException {
        Objects.requireNonNull(plan, "plan");
        // UPPER/LOWER follow the default locale of the JVM running them, as Flink's generated code
        // does on the TaskManager: the session names this JVM's locale, and a plan the native side
        // does not run under it fails here, naming both locales.
        String here = Locale.getDefault().toLanguageTag();
        String config = "{\"plan\":" + plan.jsonForThisJvm() + ",\"decoder\":{\"kind\":" + decoder.kind().code()
                + ",\"config\":" + decoder.configJson() + "}}";
        try {
            return NativeHandle.open(SessionKind.OPERATOR_ROWS, config, decoder.bytes());
        } catch (IOException | RuntimeException e) {
            if (here.equals(plan.locale())) {
                throw e;
            }
            throw new IOException("The fused Calc (" + plan.digest() + ") was planned in the default locale "
                    + plan.locale() + ", but this TaskManager's default locale is " + here + ", and the native"
                    + " operator core does not run it there: " + e.getMessage() + ". Start the TaskManagers in the"
                    + " planner's locale (-Duser.language/-Duser.country), or plan the job with '"
                    + OperatorCoreOptions.ENABLED.key() + "' = 'false'.", e);
        }
    }
}
