package io.karrow.flink.nativebridge;

/**
 * The native entry points of {@code karrow-native}, exactly as listed in {@code docs/jni-contract.md}.
 *
 * <p>Call {@link NativeLibraryLoader#load()} before the first call. Every method throws {@link
 * KarrowNativeException} (constructed by native code) on failure; none of them returns a partial
 * result.
 */
public final class KarrowNative {

    private KarrowNative() {}

    /**
     * Builds a Confluent Avro decoder from the JSON configuration of the contract.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link
     *     #avroDecoderClose(long)}
     */
    public static native long avroDecoderOpen(String configJson) throws KarrowNativeException;

    /**
     * Decodes one non-null Kafka value, {@code messageLength} bytes in direct memory at {@code
     * messageAddress}, into the image of one Flink {@code BinaryRowData} (row kind INSERT), written to
     * the direct buffer of {@code outCapacity} bytes at {@code outAddress} when it fits. Returns the
     * image's length (when that exceeds {@code outCapacity} nothing was written: grow the buffer and
     * call again). {@link DirectRecordBuffers} makes the call.
     */
    public static native int avroDecodeOneDirect(
            long handle, long messageAddress, int messageLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /**
     * Decodes {@code count} values laid out back to back at {@code dataAddress} (direct memory), with
     * one int32 length per value at {@code lengthsAddress} ({@code -1} = null value). Returns all row
     * images concatenated; {@code rowOffsets} (length {@code count + 1}) receives where row {@code i}
     * starts, and an empty span means "no row".
     */
    public static native byte[] avroDecodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] rowOffsets)
            throws KarrowNativeException;

    /** Frees a decoder; the handle must not be used again. Closing {@code 0} is a no-op. */
    public static native void avroDecoderClose(long handle);

    /**
     * Builds a Confluent Avro encoder from the JSON configuration of the contract (the decoder's
     * object plus {@code "subject"}) and registers its writer schema under that subject, once.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link
     *     #avroEncoderClose(long)}
     * @throws KarrowNativeException if the configuration is invalid or the registry is unreachable or
     *     rejects the schema
     */
    public static native long avroEncoderOpen(String configJson) throws KarrowNativeException;

    /** The registered writer schema id that the encoder writes in every header. */
    public static native int avroEncoderSchemaId(long handle) throws KarrowNativeException;

    /**
     * Encodes the image of one Flink {@code BinaryRowData} of the physical row type ({@code imageLength}
     * bytes in direct memory at {@code imageAddress}) into one Kafka value: {@code 0x00}, the schema id, the Avro datum, written to the direct
     * buffer of {@code outCapacity} bytes at {@code outAddress} when it fits. Returns the value's length
     * (when that exceeds {@code outCapacity} nothing was written: grow the buffer and call again).
     * {@link DirectRecordBuffers} makes the call.
     */
    public static native int avroEncodeOneDirect(
            long handle, long imageAddress, int imageLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /**
     * Encodes {@code count} row images laid out back to back at {@code dataAddress} (direct memory),
     * with one int32 length per image at {@code lengthsAddress} (no nulls). Returns all values
     * concatenated; {@code messageOffsets} (length {@code count + 1}) receives where value {@code i}
     * starts.
     */
    public static native byte[] avroEncodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)
            throws KarrowNativeException;

    /** Frees an encoder; the handle must not be used again. Closing {@code 0} is a no-op. */
    public static native void avroEncoderClose(long handle);

    /**
     * Builds a JSON decoder ({@code json-native}) from the JSON configuration of the contract:
     * {@code {"row_type": ..., "options": {...}}}.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link
     *     #jsonDecoderClose(long)}
     */
    public static native long jsonDecoderOpen(String configJson) throws KarrowNativeException;

    /**
     * Decodes one non-null Kafka value, {@code messageLength} bytes in direct memory at {@code
     * messageAddress}, into its rows (a JSON top-level array gives one row per element) in the row-list
     * layout read by {@link RowListLayout}, written to the direct buffer of {@code outCapacity} bytes at
     * {@code outAddress} when it fits. Returns the layout's length (when that exceeds {@code
     * outCapacity} nothing was written: grow the buffer and call again), or {@code -1} when the value
     * yields no row. Only primitives cross the boundary; {@link DirectRecordBuffers} makes the call.
     */
    public static native int jsonDecodeOneDirect(
            long handle, long messageAddress, int messageLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /**
     * Decodes {@code count} values laid out as for {@link #avroDecodeBatch} ({@code -1} length = null
     * value, no row). Returns the rows of all values in order in the row-list layout (never null);
     * {@code valueRowEnds} (length at least {@code count}) receives at {@code i} the number of rows of
     * values {@code 0..i}. A failing value throws with its index as the record index.
     */
    public static native byte[] jsonDecodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)
            throws KarrowNativeException;

    /** Frees a JSON decoder; the handle must not be used again. Closing {@code 0} is a no-op. */
    public static native void jsonDecoderClose(long handle);

    /**
     * Builds a JSON encoder ({@code json-native}) from the JSON configuration of the contract; with a
     * {@code confluent} section ({@code json-confluent-native}) it registers the writer schema here.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link
     *     #jsonEncoderClose(long)}
     */
    public static native long jsonEncoderOpen(String configJson) throws KarrowNativeException;

    /**
     * The writer schema id a {@code json-confluent-native} encoder registered and writes in every
     * header; {@code -1} for an encoder without Confluent framing ({@code json-native}).
     */
    public static native int jsonEncoderSchemaId(long handle) throws KarrowNativeException;

    /**
     * Encodes the image of one Flink {@code BinaryRowData} of the physical row type ({@code imageLength}
     * bytes in direct memory at {@code imageAddress}) into one JSON Kafka value, written to the direct
     * buffer of {@code outCapacity} bytes at {@code outAddress} when it fits. Returns the value's length
     * (when that exceeds {@code outCapacity} nothing was written: grow the buffer and call again).
     * {@link DirectRecordBuffers} makes the call.
     */
    public static native int jsonEncodeOneDirect(
            long handle, long imageAddress, int imageLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /** Encodes {@code count} row images into JSON values, with the contract of {@link #avroEncodeBatch}. */
    public static native byte[] jsonEncodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)
            throws KarrowNativeException;

    /** Frees a JSON encoder; the handle must not be used again. Closing {@code 0} is a no-op. */
    public static native void jsonEncoderClose(long handle);

    /**
     * Builds a Protobuf decoder ({@code protobuf-native}) from the JSON configuration of the contract
     * ({@code {"row_type": ..., "message": "pkg.Msg", "options": {...}}}) and the serialized {@code
     * FileDescriptorSet} holding the message and every file it depends on.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link
     *     #protobufDecoderClose(long)}
     */
    public static native long protobufDecoderOpen(String configJson, byte[] descriptorSet)
            throws KarrowNativeException;

    /**
     * Decodes one Kafka value (one message) into its row's {@code BinaryRowData} image alone (no
     * row-list header: a message gives at most one row), otherwise with the contract of {@link
     * #jsonDecodeOneDirect}; {@code -1} when the value is skipped under {@code ignore-parse-errors}.
     */
    public static native int protobufDecodeOneDirect(
            long handle, long messageAddress, int messageLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /**
     * Decodes {@code count} values with the contract of {@link #jsonDecodeBatch}; a null value ({@code
     * -1} length) fails, as in Flink, unless {@code ignore-parse-errors} skips it.
     */
    public static native byte[] protobufDecodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)
            throws KarrowNativeException;

    /** Frees a Protobuf decoder; the handle must not be used again. Closing {@code 0} is a no-op. */
    public static native void protobufDecoderClose(long handle);

    /**
     * Builds a Protobuf encoder ({@code protobuf-native}); arguments as for {@link
     * #protobufDecoderOpen}.
     *
     * @return an opaque, non-zero handle that the caller owns and must close with {@link
     *     #protobufEncoderClose(long)}
     */
    public static native long protobufEncoderOpen(String configJson, byte[] descriptorSet)
            throws KarrowNativeException;

    /**
     * Encodes the image of one Flink {@code BinaryRowData} of the physical row type ({@code imageLength}
     * bytes in direct memory at {@code imageAddress}) into one Protobuf Kafka value, written to the direct
     * buffer of {@code outCapacity} bytes at {@code outAddress} when it fits. Returns the value's length
     * (when that exceeds {@code outCapacity} nothing was written: grow the buffer and call again).
     * {@link DirectRecordBuffers} makes the call.
     */
    public static native int protobufEncodeOneDirect(
            long handle, long imageAddress, int imageLength, long outAddress, int outCapacity)
            throws KarrowNativeException;

    /** Encodes {@code count} row images into Protobuf values, with the contract of {@link #avroEncodeBatch}. */
    public static native byte[] protobufEncodeBatch(
            long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)
            throws KarrowNativeException;

    /** Frees a Protobuf encoder; the handle must not be used again. Closing {@code 0} is a no-op. */
    public static native void protobufEncoderClose(long handle);

    // ---- Native fetch of the kafka-native source (docs/jni-contract.md, "Native fetch") ----

    /**
     * Opens a fetch session from its JSON configuration ({@code clientId}, {@code readCommitted},
     * {@code maxWaitMs}, {@code minBytes}, {@code maxBytes}, {@code partitionMaxBytes}).
     *
     * @return an opaque, non-zero handle the caller owns and closes with {@link #fetchClose(long)}
     */
    public static native long fetchOpen(String configJson) throws KarrowNativeException;

    /** Frees a fetch session (closing its connections); closing {@code 0} is a no-op. */
    public static native void fetchClose(long handle);

    /**
     * Assigns (or re-assigns) {@code slot}: {@code topic}-{@code partition}, led by the broker at
     * {@code leader} ({@code host:port}), read from {@code offset} up to {@code stopOffset}
     * (exclusive; {@code Long.MAX_VALUE} when unbounded).
     */
    public static native void fetchAssign(
            long handle, int slot, String topic, int partition, String leader, long offset, long stopOffset)
            throws KarrowNativeException;

    /** Forgets {@code slot}. */
    public static native void fetchUnassign(long handle, int slot) throws KarrowNativeException;

    /** Sets the leader ({@code host:port}) of {@code slot} after a leader change. */
    public static native void fetchSetLeader(long handle, int slot, String leader) throws KarrowNativeException;

    /** Pauses or resumes fetching {@code slot}. */
    public static native void fetchSetPaused(long handle, int slot, boolean paused) throws KarrowNativeException;

    /**
     * Sends one Fetch request per leader and keeps the records of the responses; writes the summary,
     * eight little-endian longs (records, value bytes, key bytes, header bytes, finished slots,
     * leader-changed slots, out-of-range slots, pending records), to the direct buffer at {@code
     * summaryAddress}.
     */
    public static native void fetchPoll(long handle, long summaryAddress) throws KarrowNativeException;

    /**
     * Copies the last poll's records into direct buffers sized from its summary: 40 bytes of metadata
     * per record, the values and their int32 lengths (the batch decoders' layout), keys, headers, then
     * the finished, the leader-changed and the out-of-range slots (int32).
     */
    public static native void fetchCopyOut(
            long handle, long metaAddress, long dataAddress, long lengthsAddress, long keysAddress,
            long headersAddress, long slotsAddress)
            throws KarrowNativeException;
}
