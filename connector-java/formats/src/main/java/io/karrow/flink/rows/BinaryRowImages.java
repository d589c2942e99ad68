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
 *
 * <p>For a format whose stock writer reads what a Java row holds beyond the binary layout (JSON:
 * sub-millisecond nanos of compact timestamps, lone surrogates in strings; Avro and Protobuf: lone
 * surrogates in map keys, NaN payloads of FLOAT / DOUBLE elements in arrays and maps), a row that is
 * not binary and carries such a detail is written as a marked image instead ({@link
 * JavaDetailImages}).
 */
public final class BinaryRowImages {

    private final int arity;
    private final RowDataSerializer serializer;
    private final NullMapKeyCheck nullMapKeys;
    private final JavaDetailImages javaDetail;
    private byte[] scratch = new byte[0];

    /** Creates a converter for rows of {@code rowType} that rejects NULL map keys (Avro cannot hold them). */
    public BinaryRowImages(RowType rowType) {
        this(rowType, true);
    }

    /**
     * Creates a converter for rows of {@code rowType}.
     *
     * @param rejectNullMapKeys whether a row that is not binary and has a NULL map key is rejected
     *     (Avro); {@code false} keeps such keys as NULL in the image, for formats that handle them
     *     (JSON's {@code map-null-key.mode})
     */
    public BinaryRowImages(RowType rowType, boolean rejectNullMapKeys) {
        this(rowType, rejectNullMapKeys, false);
    }

    /**
     * Creates a converter for rows of {@code rowType}.
     *
     * @param rejectNullMapKeys see {@link #BinaryRowImages(RowType, boolean)}
     * @param keepJavaDetail whether a row that is not binary and carries sub-millisecond nanos in a
     *     compact timestamp, a lone surrogate in a string or a NaN payload in an array or map gets a
     *     marked image that keeps them (for the JSON, Protobuf and Avro encoders, which read the mark;
     *     see {@link JavaDetailImages})
     */
    public BinaryRowImages(RowType rowType, boolean rejectNullMapKeys, boolean keepJavaDetail) {
        this.arity = rowType.getFieldCount();
        this.serializer = new RowDataSerializer(rowType);
        this.nullMapKeys = rejectNullMapKeys ? new NullMapKeyCheck(rowType) : null;
        this.javaDetail = keepJavaDetail ? new JavaDetailImages(rowType) : null;
    }

    /**
     * The image of {@code row}; the array may be reused by the next call.
     *
     * @throws IllegalArgumentException if NULL map keys are rejected and a row that is not binary has
     *     one (Flink's Avro writer fails there too)
     */
    public byte[] image(RowData row) {
        if (row instanceof BinaryRowData && row.getArity() == arity) {
            return bytesOf((BinaryRowData) row);
        }
        if (nullMapKeys != null) {
            nullMapKeys.check(row);
        }
        if (javaDetail != null && javaDetail.carriesDetail(row)) {
            return bytesOf(javaDetail.marked(row));
        }
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
