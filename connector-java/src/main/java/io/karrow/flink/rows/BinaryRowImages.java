package io.karrow.flink.rows;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns any {@link RowData} of one row type into a contiguous {@link BinaryRowData} image: a {@code
 * byte[]} holding exactly the row's bytes, as the native encoders take it.
 *
 * <p>A {@code BinaryRowData} of the right arity is used as it is: its heap array directly when the
 * row is the whole of one heap segment, otherwise its bytes are copied into a reused array (reused
 * while images keep the same size). Every other row class is written by a reused {@link
 * RowDataSerializer}, which converts nested generic values to their binary forms. Not thread-safe;
 * the returned array is valid until the next call.
 */
public final class BinaryRowImages {

    private final int arity;
    private final RowDataSerializer serializer;
    private final NullMapKeyCheck nullMapKeys;
    private byte[] scratch = new byte[0];

    /** Creates a converter for rows of {@code rowType}. */
    public BinaryRowImages(RowType rowType) {
        this.arity = rowType.getFieldCount();
        this.serializer = new RowDataSerializer(rowType);
        this.nullMapKeys = new NullMapKeyCheck(rowType);
    }

    /**
     * The image of {@code row}; the array may be reused by the next call.
     *
     * @throws IllegalArgumentException if a row that is not binary has a NULL map key (Flink fails
     *     there too)
     */
    public byte[] image(RowData row) {
        if (row instanceof BinaryRowData && row.getArity() == arity) {
            return bytesOf((BinaryRowData) row);
        }
        nullMapKeys.check(row);
        return bytesOf(serializer.toBinaryRow(row));
    }

    private byte[] bytesOf(BinaryRowData row) {
        MemorySegment[] segments = row.getSegments();
        int size = row.getSizeInBytes();
        if (segments.length == 1 && !segments[0].isOffHeap() && row.getOffset() == 0) {
            byte[] heap = segments[0].getArray();
            if (heap.length == size) {
                return heap;
            }
        }
        if (scratch.length != size) {
            scratch = new byte[size];
        }
        BinarySegmentUtils.copyToBytes(segments, row.getOffset(), scratch, 0, size);
        return scratch;
    }
}
