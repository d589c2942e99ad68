package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;

/**
 * The encoded records of one fetched batch of a fully fused pipeline (session kind 10, {@code
 * docs/jni-contract.md}): made by a fully fused operator session in one native call ({@link
 * #run}), living natively until a native producer takes them ({@link
 * NativeProducerSession#handOver}). One Java object per fetched batch, none per record. Owns its
 * native handle: {@link #close()} frees the records on every path (handed over or not); a {@link
 * java.lang.ref.Cleaner} frees a batch that was dropped without a close.
 */
public final class NativeEncodedBatch implements AutoCloseable {

    /** Longs of the batch's summary: records, record bytes, the failing value's index (-1: none). */
    private static final int SUMMARY_LONGS = 3;

    private final NativeHandle handle;
    private final int records;
    private final long recordBytes;
    private final int failedValue;

    private NativeEncodedBatch(NativeHandle handle) throws KarrowNativeException {
        this.handle = handle;
        MemorySegment summary = MemorySegmentFactory.allocateUnpooledOffHeapMemory(SUMMARY_LONGS * Long.BYTES);
        try {
            KarrowNative.poll(handle.get(), summary.getAddress(), SUMMARY_LONGS);
            this.records = Math.toIntExact(summary.getLongLittleEndian(0));
            this.recordBytes = summary.getLongLittleEndian(8);
            this.failedValue = Math.toIntExact(summary.getLongLittleEndian(16));
        } finally {
            summary.free();
        }
    }

    /**
     * Runs the values of {@code values} through the fully fused session {@code session} (a kind-8
     * session whose plan has an encode stage).
     *
     * @throws KarrowNativeException when the call fails as a whole (an internal error); a value that
     *     fails is carried by the batch instead ({@link #failedValue()})
     */
    public static NativeEncodedBatch run(NativeHandle session, DirectValueBuffer values) throws KarrowNativeException {
        return run(session, values, 0, 0, values.count());
    }

    /**
     * As {@link #run(NativeHandle, DirectValueBuffer)} over the values {@code from} (inclusive) to
     * {@code to} (exclusive) of {@code values}, whose data starts {@code dataOffset} bytes into the
     * buffer (the lengths of the values before {@code from}, nulls counting 0). {@link
     * #failedValue()} then counts from {@code from}.
     */
    public static NativeEncodedBatch run(NativeHandle session, DirectValueBuffer values, long dataOffset, int from,
            int to) throws KarrowNativeException {
        if (from < 0 || to < from || to > values.count() || dataOffset < 0 || dataOffset > values.dataSize()) {
            throw new IllegalArgumentException("values " + from + ".." + to + " at byte " + dataOffset + " of "
                    + values.count() + " values, " + values.dataSize() + " bytes");
        }
        long batch = KarrowNative.runBatch(session.get(), values.dataAddress() + dataOffset,
                values.lengthsAddress() + (long) from * Integer.BYTES, to - from);
        NativeHandle owned = NativeHandle.adopt(batch, SessionKind.ENCODED_BATCH);
        try {
            return new NativeEncodedBatch(owned);
        } catch (KarrowNativeException | RuntimeException e) {
            owned.close();
            throw e;
        }
    }

    /** Records in the batch. */
    public int records() {
        return records;
    }

    /** Key, value and header bytes of the records. */
    public long recordBytes() {
        return recordBytes;
    }

    /**
     * The index, in the fetched batch, of the value whose failure this batch carries (its records all
     * come from the values before it), or -1.
     */
    public int failedValue() {
        return failedValue;
    }

    /** The raw handle, for {@link NativeProducerSession#handOver}. */
    long handle() {
        return handle.get();
    }

    /** Frees the records (handed over or not); idempotent. */
    @Override
    public void close() {
        handle.close();
    }
}
