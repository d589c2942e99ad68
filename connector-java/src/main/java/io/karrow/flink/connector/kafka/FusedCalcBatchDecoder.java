package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.NativeSessionConfig;
import io.karrow.flink.nativebridge.RowListLayout;
import io.karrow.flink.nativebridge.SessionKind;
import io.karrow.flink.planner.FusedCalcPlan;

import org.apache.flink.table.data.RowData;

import java.io.IOException;
import java.util.Objects;

/**
 * The batch decoder of a fused {@code kafka-native} scan: one native operator session (kind 8 with
 * its own value decoder, {@code docs/jni-contract.md}) decodes a fetched batch of values and runs
 * the fused Calc's plan on the rows in the same call; only the rows the Calc keeps, projected, come
 * back ({@link DecodedValues} of the Calc's output type, per value its 0..n output rows).
 *
 * <p>Decode failures follow the value format's {@code ignore-parse-errors} inside the native decoder,
 * exactly as the unfused batch decoder; a row the Calc fails on (Flink's generated code would throw:
 * a failing CAST, an integer division by zero) fails the call with the index of the value the row
 * came from and Flink's exception class and message. Owns its native session. Not thread-safe.
 */
final class FusedCalcBatchDecoder implements ValueBatchDecoder {

    private final NativeHandle session;
    private final int arity;

    /** Opens the session for {@code plan} decoding with the value format's {@code decoder}. */
    FusedCalcBatchDecoder(FusedCalcPlan plan, NativeSessionConfig decoder) throws IOException {
        Objects.requireNonNull(plan, "plan");
        String config = "{\"plan\":" + plan.json() + ",\"decoder\":{\"kind\":" + decoder.kind().code()
                + ",\"config\":" + decoder.configJson() + "}}";
        this.session = NativeHandle.open(SessionKind.OPERATOR_ROWS, config, decoder.bytes());
        this.arity = plan.outputType().getFieldCount();
    }

    @Override
    public DecodedValues decode(DirectValueBuffer values, int count) throws IOException {
        if (count < 0 || count > values.count()) {
            throw new IllegalArgumentException("count " + count + " outside [0, " + values.count() + "]");
        }
        if (count == 0) {
            return DecodedValues.empty();
        }
        int[] valueRowEnds = new int[count];
        byte[] layout = KarrowNative.decodeBatch(
                session.get(), values.dataAddress(), values.lengthsAddress(), count, valueRowEnds);
        RowData[] rows = new RowData[RowListLayout.rowCount(layout)];
        RowListLayout.views(layout, arity, rows, 0);
        return new DecodedValues(rows, valueRowEnds);
    }

    @Override
    public void close() {
        session.close();
    }
}
