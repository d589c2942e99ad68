package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeHandle;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Decodes a batch of Confluent-framed Avro values with one {@code KarrowNative.avroDecodeBatch}
 * call; each row is a {@link BinaryRowData} view over the one image array the call returns. A value
 * yields one row, a null value (tombstone) none.
 *
 * <p>Owns one native decoder handle. Not thread-safe.
 */
public final class AvroConfluentNativeBatchDecoder implements ValueBatchDecoder {

    private final NativeHandle decoder;
    private final int arity;
    private int[] rowOffsets = new int[0];

    /**
     * Creates a batch decoder that takes ownership of {@code decoder}.
     *
     * @param decoder an open native Avro decoder for {@code rowType}
     * @param rowType the physical row type of the value
     */
    public AvroConfluentNativeBatchDecoder(NativeHandle decoder, RowType rowType) {
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
        if (rowOffsets.length < count + 1) {
            rowOffsets = new int[Math.max(count + 1, rowOffsets.length * 2)];
        }
        int[] offsets = rowOffsets;
        byte[] images = KarrowNative.avroDecodeBatch(
                decoder.get(), values.dataAddress(), values.lengthsAddress(), count, offsets);
        // One segment array for all rows of the batch (pointTo(segment, ...) would allocate one
        // per row); rows never modify it.
        MemorySegment[] segments = {MemorySegmentFactory.wrap(images)};
        RowData[] rows = new RowData[count];
        int[] valueRowEnds = new int[count];
        int rowCount = 0;
        for (int i = 0; i < count; i++) {
            int start = offsets[i];
            int size = offsets[i + 1] - start;
            if (size > 0) {
                BinaryRowData row = new BinaryRowData(arity);
                row.pointTo(segments, start, size);
                rows[rowCount++] = row;
            }
            valueRowEnds[i] = rowCount;
        }
        return new DecodedValues(rows, valueRowEnds);
    }

    @Override
    public void close() {
        decoder.close();
    }
}
