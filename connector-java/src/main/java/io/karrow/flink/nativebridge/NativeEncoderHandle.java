package io.karrow.flink.nativebridge;

/**
 * Sole owner of one native encoder handle (Avro, or JSON with or without Confluent framing), with the
 * writer schema id it registered ({@code -1} when it writes no header). The handle's lifetime (idempotent close, {@link java.lang.ref.Cleaner} when dropped unclosed) is {@link
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
     * Opens a native Avro encoder, which registers its writer schema under the configured subject.
     *
     * @throws KarrowNativeException if the configuration is invalid or the registry fails
     */
    public static NativeEncoderHandle openAvroEncoder(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        NativeHandle handle =
                NativeHandle.own(KarrowNative.avroEncoderOpen(configJson), KarrowNative::avroEncoderClose, "encoder");
        try {
            return new NativeEncoderHandle(handle, KarrowNative.avroEncoderSchemaId(handle.get()));
        } catch (KarrowNativeException | RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /**
     * Opens a native JSON encoder; with a {@code confluent} section in the configuration ({@code
     * json-confluent-native}) it registers its writer schema under the configured subject.
     *
     * @throws KarrowNativeException if the configuration is invalid or the registry fails
     */
    public static NativeEncoderHandle openJsonEncoder(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        NativeHandle handle = NativeHandle.own(
                KarrowNative.jsonEncoderOpen(configJson), KarrowNative::jsonEncoderClose, "JSON encoder");
        try {
            return new NativeEncoderHandle(handle, KarrowNative.jsonEncoderSchemaId(handle.get()));
        } catch (KarrowNativeException | RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /**
     * Opens a native Protobuf encoder ({@code protobuf-native}); it writes no schema id.
     *
     * @throws KarrowNativeException if the configuration or the descriptors are invalid
     */
    public static NativeEncoderHandle openProtobufEncoder(String configJson, byte[] descriptorSet)
            throws KarrowNativeException {
        NativeLibraryLoader.load();
        NativeHandle handle = NativeHandle.own(
                KarrowNative.protobufEncoderOpen(configJson, descriptorSet),
                KarrowNative::protobufEncoderClose,
                "Protobuf encoder");
        return new NativeEncoderHandle(handle, -1);
    }

    /**
     * The raw handle for a native call.
     *
     * @throws IllegalStateException if the handle was closed
     */
    public long get() {
        return handle.get();
    }

    /** The registered writer schema id written in every header, or {@code -1} for unframed JSON. */
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
