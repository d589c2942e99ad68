package io.karrow.flink.nativebridge;

import java.lang.ref.Cleaner;

/**
 * Sole owner of one native Avro decoder handle.
 *
 * <p>{@link #close()} frees the decoder and is idempotent. If the owner is dropped without being
 * closed (Flink's {@code DeserializationSchema} has no close hook), a {@link Cleaner} frees the
 * decoder once this object becomes unreachable. Not thread-safe: use one instance per parallel
 * deserializer.
 */
public final class NativeHandle implements AutoCloseable {

    private static final Cleaner CLEANER = Cleaner.create();

    private final Releaser releaser;
    private final Cleaner.Cleanable cleanable;

    private NativeHandle(long handle) {
        this.releaser = new Releaser(handle);
        this.cleanable = CLEANER.register(this, releaser);
    }

    /**
     * Opens a native Avro decoder for the given contract configuration.
     *
     * @throws KarrowNativeException if the configuration is invalid
     */
    public static NativeHandle openAvroDecoder(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        long handle = KarrowNative.avroDecoderOpen(configJson);
        if (handle == 0) {
            throw new KarrowNativeException(
                    "karrow-native returned a null decoder handle", KarrowNativeException.UNKNOWN,
                    KarrowNativeException.UNKNOWN);
        }
        return new NativeHandle(handle);
    }

    /**
     * The raw handle for a native call.
     *
     * @throws IllegalStateException if the handle was closed
     */
    public long get() {
        long handle = releaser.handle;
        if (handle == 0) {
            throw new IllegalStateException("The native decoder handle is already closed");
        }
        return handle;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return releaser.handle == 0;
    }

    /** Frees the native decoder; later calls do nothing. */
    @Override
    public void close() {
        cleanable.clean();
    }

    /** Frees the handle; must not reference the owning {@link NativeHandle}. */
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
                KarrowNative.avroDecoderClose(h);
            }
        }
    }
}
