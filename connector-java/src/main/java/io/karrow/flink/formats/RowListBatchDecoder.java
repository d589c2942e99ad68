package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.RowListLayout;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Decodes a batch of values with one native call of a format whose values decode into the row-list
 * layout (JSON: 0..n rows per value; Protobuf: 0..1); each row is a {@link BinaryRowData} view over
 * the one array the call returns.
 *
 * <p>Owns one native decoder handle. Not thread-safe.
 */
public final class RowListBatchDecoder implements ValueBatchDecoder {

    /** A format's native batch decode entry point, e.g. {@code KarrowNative::jsonDecodeBatch}. */
    @FunctionalInterface
    public interface BatchCall {
        /** Decodes {@code count} values into the row-list layout, filling {@code valueRowEnds}. */
        byte[] decode(long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)
                throws KarrowNativeException;
    }

    private final NativeHandle decoder;
    private final int arity;
    private final BatchCall call;

    /**
     * Creates a batch decoder that takes ownership of {@code decoder}.
     *
     * @param decoder an open native decoder for {@code rowType}
     * @param rowType the physical row type of the value
     * @param call the format's batch decode entry point
     */
    public RowListBatchDecoder(NativeHandle decoder, RowType rowType, BatchCall call) {
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.arity = rowType.getFieldCount();
        this.call = Objects.requireNonNull(call, "call");
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
        byte[] layout = call.decode(
                decoder.get(), values.dataAddress(), values.lengthsAddress(), count, valueRowEnds);
        RowData[] rows = new RowData[RowListLayout.rowCount(layout)];
        RowListLayout.views(layout, arity, rows, 0);
        return new DecodedValues(rows, valueRowEnds);
    }

    @Override
    public void close() {
        decoder.close();
    }
}
