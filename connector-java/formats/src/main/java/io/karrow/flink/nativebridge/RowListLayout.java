package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Reads the "row list" layout that native decoders returning 0..n rows per value produce (see {@code
 * docs/jni-contract.md}): an int32 row count {@code n}, then {@code n + 1} int32 offsets into the
 * whole array (row {@code i} spans {@code [off[i], off[i + 1])}), then the {@code BinaryRowData}
 * images; all little-endian. The views of one layout share one segment array.
 */
public final class RowListLayout {

    private RowListLayout() {}

    /** Number of rows in {@code layout}. */
    public static int rowCount(byte[] layout) {
        MemorySegment segment = MemorySegmentFactory.wrap(layout);
        return checkedCount(segment, layout.length);
    }

    /**
     * Creates one {@link BinaryRowData} view of arity {@code arity} per row of {@code layout}, written
     * to {@code out} from {@code at}; the views share {@code layout}.
     *
     * @return the number of rows written
     * @throws IllegalArgumentException if the layout is malformed or {@code out} is too short
     */
    public static int views(byte[] layout, int arity, RowData[] out, int at) {
        MemorySegment segment = MemorySegmentFactory.wrap(layout);
        int count = checkedCount(segment, layout.length);
        if (out.length - at < count) {
            throw new IllegalArgumentException("room for " + (out.length - at) + " rows, the layout has " + count);
        }
        // One segment array for all views (pointTo(segment, ...) would allocate one per row);
        // rows never modify it.
        MemorySegment[] segments = {segment};
        int start = segment.getIntLittleEndian(4);
        for (int i = 0; i < count; i++) {
            int end = segment.getIntLittleEndian(8 + 4 * i);
            if (start < headerSize(count) || end < start || end > layout.length) {
                throw new IllegalArgumentException(
                        "row " + i + " spans [" + start + ", " + end + ") of a " + layout.length + "-byte row list");
            }
            BinaryRowData row = new BinaryRowData(arity);
            row.pointTo(segments, start, end - start);
            out[at + i] = row;
            start = end;
        }
        return count;
    }

    private static int checkedCount(MemorySegment segment, int length) {
        if (length < 8) {
            throw new IllegalArgumentException("A row list has at least 8 bytes, got " + length);
        }
        int count = segment.getIntLittleEndian(0);
        if (count < 0 || headerSize(count) > length) {
            throw new IllegalArgumentException("Row count " + count + " does not fit a " + length + "-byte row list");
        }
        return count;
    }

    private static long headerSize(int count) {
        return 4L * ((long) count + 2);
    }
}
