package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;

/**
 * The reused off-heap input and output of a per-record native call ({@code decodeOneDirect}, {@code
 * encodeOneDirect} of {@link KarrowNative}): the input (a Kafka value, or a row image) is copied
 * into direct memory, the native call reads it and writes its result (a row image or row-list
 * layout, or a Kafka value) into direct memory, and the result is copied into a new heap array.
 *
 * <p>Only primitives cross the JNI boundary, so a record costs one native call and no JNI array
 * calls (a {@code byte[]} argument and result cost more than decoding a small message). The buffers
 * grow (doubling) and are kept; memory is released by {@link #close()} or by the garbage collector.
 * Not thread-safe: one instance per decoder.
 */
public final class DirectRecordBuffers implements AutoCloseable {

    private static final int MIN_CAPACITY = 4096;

    /** A per-record direct entry point: {@code KarrowNative::decodeOneDirect} or {@code KarrowNative::encodeOneDirect}. */
    @FunctionalInterface
    public interface Call {
        /**
         * Reads {@code inLength} bytes at {@code inAddress} ({@code -1}: a null value) and writes its
         * result at {@code outAddress}
         * when it fits in {@code outCapacity} bytes; returns the result's length (more than {@code
         * outCapacity}: nothing was written), or {@code -1} for no result.
         */
        int call(long handle, long inAddress, int inLength, long outAddress, int outCapacity)
                throws KarrowNativeException;
    }

    private MemorySegment in;
    private MemorySegment out;

    /** Creates the buffers; memory is allocated on first use. */
    public DirectRecordBuffers() {}

    /**
     * Runs {@code call} with native handle {@code handle} on {@code input} ({@code null}, a null
     * Kafka value, is passed as length {@code -1}: native code decides what it gives).
     *
     * @return the call's result on the heap, or {@code null} when it reports none
     */
    public byte[] call(long handle, byte[] input, Call call) throws KarrowNativeException {
        int inLength = input == null ? -1 : input.length;
        in = ensure(in, Math.max(inLength, 0));
        if (input != null) {
            in.put(0, input, 0, input.length);
        }
        out = ensure(out, MIN_CAPACITY);
        int length = call.call(handle, in.getAddress(), inLength, out.getAddress(), (int) out.size());
        if (length < 0) {
            return null;
        }
        if (length > out.size()) {
            out = ensure(out, length);
            length = call.call(handle, in.getAddress(), inLength, out.getAddress(), (int) out.size());
            if (length < 0 || length > out.size()) {
                throw new IllegalStateException("the native call gave " + length + " bytes after asking for "
                        + out.size());
            }
        }
        byte[] layout = new byte[length];
        out.get(0, layout, 0, length);
        return layout;
    }

    private static MemorySegment ensure(MemorySegment segment, long needed) {
        if (segment != null && segment.size() >= needed) {
            return segment;
        }
        long capacity = Math.max(MIN_CAPACITY, segment == null ? 0 : segment.size());
        while (capacity < needed) {
            capacity *= 2;
        }
        if (capacity > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(needed + " bytes are too large for a native call");
        }
        if (segment != null) {
            segment.free();
        }
        return MemorySegmentFactory.allocateUnpooledOffHeapMemory((int) capacity);
    }

    /** Releases the off-heap memory; the buffers may be reused afterwards (they reallocate). */
    @Override
    public void close() {
        if (in != null) {
            in.free();
            in = null;
        }
        if (out != null) {
            out.free();
            out = null;
        }
    }
}
