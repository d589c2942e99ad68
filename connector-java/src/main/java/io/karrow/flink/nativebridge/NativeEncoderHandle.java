package io.karrow.flink.nativebridge;

import java.lang.ref.Cleaner;

/**
 * Sole owner of one native Avro encoder handle (the encoder-side sibling of {@link NativeHandle}).
 *
 * <p>{@link #close()} frees the encoder and is idempotent. Flink 2.2's {@code SerializationSchema}
 * has no close hook, so if the owner is dropped without being closed a {@link Cleaner} frees the
 * encoder once this object becomes unreachable. Not thread-safe: use one instance per parallel
 * serializer.
 */
public final class NativeEncoderHandle implements AutoCloseable {

    private static final Cleaner CLEANER = Cleaner.create();

    private final Releaser releaser;
    private final Cleaner.Cleanable cleanable;
    private final int schemaId;

    private NativeEncoderHandle(long handle, int schemaId) {
        this.releaser = new Releaser(handle);
        this.cleanable = CLEANER.register(this, releaser);
        this.schemaId = schemaId;
    }

    /**
     * Opens a native Avro encoder, which registers its writer schema under the configured subject.
     *
     * @throws KarrowNativeException if the configuration is invalid or the registry fails
     */
    public static NativeEncoderHandle openAvroEncoder(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        long handle = KarrowNative.avroEncoderOpen(configJson);
        if (handle == 0) {
            throw new KarrowNativeException(
                    "karrow-native returned a null encoder handle", KarrowNativeException.UNKNOWN,
                    KarrowNativeException.UNKNOWN);
        }
        int schemaId;
        try {
            schemaId = KarrowNative.avroEncoderSchemaId(handle);
        } catch (KarrowNativeException | RuntimeException e) {
            KarrowNative.avroEncoderClose(handle);
            throw e;
        }
        return new NativeEncoderHandle(handle, schemaId);
    }

    /**
     * The raw handle for a native call.
     *
     * @throws IllegalStateException if the handle was closed
     */
    public long get() {
        long handle = releaser.handle;
        if (handle == 0) {
            throw new IllegalStateException("The native encoder handle is already closed");
        }
        return handle;
    }

    /** The registered writer schema id written in every header. */
    public int schemaId() {
        return schemaId;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return releaser.handle == 0;
    }

    /** Frees the native encoder; later calls do nothing. */
    @Override
    public void close() {
        cleanable.clean();
    }

    /** Frees the handle; must not reference the owning {@link NativeEncoderHandle}. */
    private static final class Releaser implements Runnable {
        private volatile long handle;

        Releaser(long handle) {
            this.handle = handle;
        }

        @Override
        public void run() {
            long h = handle;
            handle = 0;
            if (h != 0) {
                KarrowNative.avroEncoderClose(h);
            }
        }
    }
}
