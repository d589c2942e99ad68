package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.RowListLayout;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Decodes a batch of values with one native {@link KarrowNative#decodeBatch} call, for every format:
 * the call returns the rows of all values in the row-list layout (a value gives 0..n rows: Avro 0..1,
 * JSON any number, Protobuf 0..1), and each row is a {@link BinaryRowData} view over that one array.
 *
 * <p>Owns one native decoder handle. Not thread-safe.
 */
public final class NativeBatchDecoder implements ValueBatchDecoder {

    private final NativeHandle decoder;
    private final int arity;

    /**
     * Creates a batch decoder that takes ownership of {@code decoder}.
     *
     * @param decoder an open native decoder for {@code rowType}
     * @param rowType the physical row type of the value
     */
    public NativeBatchDecoder(NativeHandle decoder, RowType rowType) {
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.arity = rowType.getFieldCount();
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
