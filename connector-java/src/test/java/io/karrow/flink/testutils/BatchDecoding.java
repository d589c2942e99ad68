package io.karrow.flink.testutils;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;

import java.util.List;

/**
 * Decodes a list of values through a native format's batch API ({@code
 * BatchDeserializationSchema.createBatchDecoder()} over a {@link DirectValueBuffer}), the way the
 * {@code kafka-native} source does, and reports one result per value: a batch that fails at value k
 * (the exception's record index) gives an error for k, the values before k are decoded again as a
 * batch of their own, and decoding continues after k.
 */
public final class BatchDecoding {

    /** Receives the result of each value, in order. */
    public interface ValueResults {
        /** The rows of the next value (views over native memory, valid until the next call: copy them). */
        void rows(List<RowData> rows);

        /** The next value failed with {@code error}. */
        void failed(Throwable error);

        /** Called before each native call over the values {@code [start, end)}. */
        default void beforeBatch(int start, int end) {}
    }

    private BatchDecoding() {}

    /** Decodes {@code values}, {@code batchSize} per native call, reporting each to {@code results}. */
    public static void decodeAll(
            DeserializationSchema<RowData> schema, List<byte[]> values, int batchSize, ValueResults results)
            throws Exception {
        if (!(schema instanceof BatchDeserializationSchema)) {
            throw new AssertionError(schema.getClass() + " does not implement BatchDeserializationSchema");
        }
        try (ValueBatchDecoder decoder = ((BatchDeserializationSchema) schema).createBatchDecoder();
             DirectValueBuffer buffer = new DirectValueBuffer()) {
            int start = 0;
            while (start < values.size()) {
                int end = Math.min(values.size(), start + batchSize);
                fill(buffer, values, start, end);
                results.beforeBatch(start, end);
                try {
                    report(decoder.decode(buffer, end - start), end - start, results);
                    start = end;
                } catch (Throwable t) {
                    int index = t instanceof KarrowNativeException ? ((KarrowNativeException) t).getRecordIndex() : -1;
                    if (index < 0 || index >= end - start) {
                        throw new AssertionError("batch [" + start + ", " + end + ") failed without a valid record index ("
                                + index + "): " + SqlTestSupport.messages(t), t);
                    }
                    if (index > 0) {
                        fill(buffer, values, start, start + index);
                        try {
                            report(decoder.decode(buffer, index), index, results);
                        } catch (Throwable again) {
                            throw new AssertionError("batch [" + start + ", " + (start + index) + ") before the failing value "
                                    + (start + index) + " failed again: " + SqlTestSupport.messages(again), again);
                        }
                    }
                    results.failed(t);
                    start += index + 1;
                }
            }
        }
    }

    private static void fill(DirectValueBuffer buffer, List<byte[]> values, int start, int end) {
        buffer.clear();
        for (int i = start; i < end; i++) {
            buffer.add(values.get(i));
        }
    }

    private static void report(DecodedValues decoded, int count, ValueResults results) {
        if (decoded.valueCount() != count) {
            throw new AssertionError("batch of " + count + " values gave " + decoded.valueCount() + " value entries");
        }
        for (int v = 0; v < count; v++) {
            results.rows(decoded.rowsOf(v));
        }
    }
}
