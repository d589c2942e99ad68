package io.karrow.flink.nativebridge;

/**
 * The native entry points of {@code karrow-native}, exactly as listed in {@code docs/jni-contract.md}.
 *
 * <p>They are generic: {@link #open} opens a session of a {@link SessionKind} and returns its handle,
 * and every other call takes a handle and is answered by the session behind it (a kind that does not
 * answer a call fails with a clear message). A closed, stale or forged handle fails; it never reaches
 * another session. Java code does not call these directly but through {@link NativeHandle}, {@link
 * NativeEncoderHandle}, {@link DirectRecordBuffers}, the batch codecs, {@link NativeFetchSession} and {@link
 * NativeProducerSession}.
 *
 * <p>Call {@link NativeLibraryLoader#load()} before the first call. Every method throws {@link
 * KarrowNativeException} (constructed by native code) on failure; none of them returns a partial
 * result.
 */
public final class KarrowNative {

    private KarrowNative() {}

    /**
     * Opens a session of kind {@code kind} ({@link SessionKind#code()}) from its JSON configuration
     * (see the contract) and the kind's bytes: the serialized {@code FileDescriptorSet} of the Protobuf
     * kinds, {@code null} for the others.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link #close(long)}
     */
    public static native long open(int kind, String configJson, byte[] bytes) throws KarrowNativeException;

    /**
     * Frees the session; the handle must not be used again. Closing {@code 0} is a no-op; closing a
     * handle twice fails (and frees nothing).
     */
    public static native void close(long handle) throws KarrowNativeException;

    /**
     * What is live in native code: for each kind code {@code k}, the open handles at {@code 2k} and
     * the bytes of buffers their sessions retain at {@code 2k + 1}. Read through {@link NativeStats}.
     */
    public static native long[] stats() throws KarrowNativeException;

    /** The schema id the session writes in every header ({@code -1} when it writes none). */
    public static native int schemaId(long handle) throws KarrowNativeException;

    /**
     * Decodes one Kafka value, {@code inLength} bytes of direct memory at {@code inAddress} ({@code
     * inLength} {@code -1}: a null value, a tombstone, which the format decides about as in {@link
     * #decodeBatch}), into its rows, written to the direct buffer of {@code outCapacity} bytes at {@code outAddress}
     * when they fit: the row-list layout read by {@link RowListLayout} for kinds whose value may give
     * several rows (JSON), the {@code BinaryRowData} image alone for kinds whose value gives at most
     * one (Avro, Protobuf). Returns the length (when that exceeds {@code outCapacity} nothing was
     * written: grow the buffer and call again), or {@code -1} when the value gives no row. Only
     * primitives cross the boundary; {@link DirectRecordBuffers} makes the call.
     */
    public static native int decodeOneDirect(
            long handle, long inAddress, int inLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /**
     * Decodes {@code count} values laid out back to back at {@code dataAddress} (direct memory), with
     * one native-order int32 length per value at {@code lengthsAddress} ({@code -1} = null value).
     * Returns the rows of all values in order in the row-list layout (never null); {@code valueRowEnds}
     * (length at least {@code count}) receives at {@code i} the number of rows of values {@code 0..i}.
     * A failing value throws with its index as the record index.
     */
    public static native byte[] decodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)
            throws KarrowNativeException;

    /**
     * Encodes the image of one Flink {@code BinaryRowData} of the physical row type ({@code inLength}
     * bytes of direct memory at {@code inAddress}) into one Kafka value, written to the direct buffer of
     * {@code outCapacity} bytes at {@code outAddress} when it fits. Returns the value's length (when
     * that exceeds {@code outCapacity} nothing was written: grow the buffer and call again). {@link
     * DirectRecordBuffers} makes the call.
     */
    public static native int encodeOneDirect(
            long handle, long inAddress, int inLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /**
     * Encodes {@code count} row images laid out as for {@link #decodeBatch} (no nulls). Returns all
     * values concatenated; {@code offsets} (length {@code count + 1}) receives where value {@code i}
     * starts, and the end. A failing row throws with its index as the record index.
     */
    public static native byte[] encodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] offsets)
            throws KarrowNativeException;

    /**
     * Runs a request off the per-record and per-batch paths (JSON text with an {@code "op"}, e.g. a
     * fetch assignment change) and returns the reply (JSON text).
     */
    public static native String control(long handle, String request) throws KarrowNativeException;

    /**
     * Wakes the session's blocking call (a fetch {@link #poll}) from another thread: the one call
     * that may overlap another call on the same handle (never a {@link #close}).
     */
    public static native void wake(long handle) throws KarrowNativeException;

    /**
     * Does one round of the session's work (fetch: one Fetch request per leader) and writes its
     * summary, exactly {@code summaryLongs} little-endian longs, to the direct buffer at {@code
     * summaryAddress}.
     */
    public static native void poll(long handle, long summaryAddress, int summaryLongs) throws KarrowNativeException;

    /**
     * Copies the parts of the last poll into the direct buffers at {@code addresses} (one per part, in
     * the kind's order), which the caller sized from the poll's summary.
     */
    public static native void copyOut(long handle, long[] addresses) throws KarrowNativeException;

    /**
     * Hands the session {@code count} items laid out in the direct buffers at {@code addresses},
     * {@code lengths[i]} bytes each (one per part, in the kind's order; the native producer's parts
     * are the metadata, keys, values and headers of {@link EncodedRecords}): the mirror of {@link
     * #copyOut}.
     */
    public static native void copyIn(long handle, long[] addresses, int[] lengths, int count)
            throws KarrowNativeException;

    /**
     * Full fusion: a kind-8 session whose plan has an encode stage decodes the {@code count} values
     * at {@code dataAddress} (lengths at {@code lengthsAddress}, as for {@link #decodeBatch}), runs its
     * Calc and encodes the kept rows with the sink's formats, in one call. Returns the handle of a new
     * encoded batch (kind 10) the caller owns ({@link NativeEncodedBatch}).
     */
    public static native long runBatch(long handle, long dataAddress, long lengthsAddress, int count)
            throws KarrowNativeException;

    /**
     * Appends the records of the encoded batch {@code batch} to the native producer {@code producer}
     * (once); returns the records appended. A batch carrying its fetched batch's failure appends its
     * records and then fails with that value's error (its index as the record index).
     */
    public static native int handOver(long batch, long producer) throws KarrowNativeException;
}
