package io.karrow.flink.nativebridge;

/**
 * Sole owner of one native encoder handle (Avro, JSON or Protobuf, with or without Confluent
 * framing), with the writer schema id it registered ({@code -1} when it writes no header). The
 * handle's lifetime (idempotent close, {@link java.lang.ref.Cleaner} when dropped unclosed) is {@link
 * NativeHandle}'s. Not thread-safe: use one instance per parallel serializer.
 */
public final class NativeEncoderHandle implements AutoCloseable {

    private final NativeHandle handle;
    private final int schemaId;

    private NativeEncoderHandle(NativeHandle handle, int schemaId) {
        this.handle = handle;
        this.schemaId = schemaId;
    }

    /**
     * Opens a native encoder of {@code kind}; a Confluent encoder registers its writer schema under
     * the configured subject here.
     *
     * @throws KarrowNativeException if the configuration is invalid or the registry fails
     */
    public static NativeEncoderHandle open(SessionKind kind, String configJson, byte[] bytes)
            throws KarrowNativeException {
        NativeHandle handle = NativeHandle.open(kind, configJson, bytes);
        try {
            return new NativeEncoderHandle(handle, KarrowNative.schemaId(handle.get()));
        } catch (KarrowNativeException | RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /**
     * The raw handle for a native call.
     *
     * @throws IllegalStateException if the handle was closed
     */
    public long get() {
        return handle.get();
    }

    /** The registered writer schema id written in every header, or {@code -1} for unframed values. */
    public int schemaId() {
        return schemaId;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /** Frees the native encoder; later calls do nothing. */
    @Override
    public void close() {
        handle.close();
    }
}
