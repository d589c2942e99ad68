package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;

/**
 * A reusable off-heap buffer of Kafka values laid out as {@code KarrowNative.decodeBatch}
 * expects: the values back to back at {@link #dataAddress()} and one native-order int32 length per
 * value at {@link #lengthsAddress()} ({@code -1} for a null value).
 *
 * <p>The buffers grow (doubling) and are kept across {@link #clear()} calls, so a steady stream of
 * batches allocates nothing. Not thread-safe. Memory is released by {@link #close()} (or by the
 * garbage collector, since it is backed by direct byte buffers).
 */
public final class DirectValueBuffer implements AutoCloseable {

    private static final int MIN_DATA_CAPACITY = 64 * 1024;
    private static final int MIN_VALUE_CAPACITY = 512;

    private MemorySegment data;
    private MemorySegment lengths;
    private int count;
    private int dataSize;

    /** Creates an empty buffer; memory is allocated on the first {@link #add(byte[])}. */
    public DirectValueBuffer() {}

    /** Forgets all values, keeping the memory for the next batch. */
    public void clear() {
        count = 0;
        dataSize = 0;
    }

    /** Appends one value; {@code null} is recorded as length {@code -1} and takes no data bytes. */
    public void add(byte[] value) {
        ensureValueCapacity(count + 1);
        if (value == null) {
            lengths.putInt(count * Integer.BYTES, -1);
        } else {
            ensureDataCapacity((long) dataSize + value.length);
            data.put(dataSize, value, 0, value.length);
            lengths.putInt(count * Integer.BYTES, value.length);
            dataSize += value.length;
        }
        count++;
    }

    /**
     * Makes room for {@code count} values of {@code dataSize} bytes in all that native code writes
     * straight into {@link #dataAddress()} and {@link #lengthsAddress()}, replacing the contents.
     */
    public void prepareForNativeWrite(int count, int dataSize) {
        clear();
        ensureValueCapacity(Math.max(count, 1));
        ensureDataCapacity(Math.max(dataSize, 1));
        this.count = count;
        this.dataSize = dataSize;
    }

    /** Copies of the values, in order ({@code null} for a null value). */
    public byte[][] copyValues() {
        byte[][] out = new byte[count][];
        int at = 0;
        for (int i = 0; i < count; i++) {
            int length = lengths.getInt(i * Integer.BYTES);
            if (length >= 0) {
                out[i] = new byte[length];
                data.get(at, out[i], 0, length);
                at += length;
            }
        }
        return out;
    }

    /** The length of value {@code index} ({@code -1} for a null value). */
    public int length(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("value " + index + " of " + count);
        }
        return lengths.getInt(index * Integer.BYTES);
    }

    /** Number of values added since the last {@link #clear()}. */
    public int count() {
        return count;
    }

    /** Total number of value bytes added since the last {@link #clear()}. */
    public int dataSize() {
        return dataSize;
    }

    /** Address of the first value byte; valid until the next {@link #add(byte[])} or {@link #close()}. */
    public long dataAddress() {
        ensureDataCapacity(1);
        return data.getAddress();
    }

    /** Address of the first int32 length; valid until the next {@link #add(byte[])} or {@link #close()}. */
    public long lengthsAddress() {
        ensureValueCapacity(1);
        return lengths.getAddress();
    }

    private void ensureDataCapacity(long needed) {
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("A value batch cannot exceed 2 GiB, needed " + needed + " bytes");
        }
        if (data != null && data.size() >= needed) {
            return;
        }
        int capacity = Math.max(MIN_DATA_CAPACITY, data == null ? 0 : data.size());
        while (capacity < needed) {
            capacity = (int) Math.min(Integer.MAX_VALUE - 8L, capacity * 2L);
        }
        MemorySegment grown = MemorySegmentFactory.allocateUnpooledOffHeapMemory(capacity);
        if (data != null) {
            data.copyTo(0, grown, 0, dataSize);
            data.free();
        }
        data = grown;
    }

    private void ensureValueCapacity(int values) {
        long needed = (long) values * Integer.BYTES;
        if (lengths != null && lengths.size() >= needed) {
            return;
        }
        int capacity = Math.max(MIN_VALUE_CAPACITY * Integer.BYTES, lengths == null ? 0 : lengths.size());
        while (capacity < needed) {
            capacity *= 2;
        }
        MemorySegment grown = MemorySegmentFactory.allocateUnpooledOffHeapMemory(capacity);
        if (lengths != null) {
            lengths.copyTo(0, grown, 0, count * Integer.BYTES);
            lengths.free();
        }
        lengths = grown;
    }

    /** Releases the off-heap memory; the buffer may be reused afterwards (it reallocates). */
    @Override
    public void close() {
        if (data != null) {
            data.free();
            data = null;
        }
        if (lengths != null) {
            lengths.free();
            lengths = null;
        }
        clear();
    }
}
