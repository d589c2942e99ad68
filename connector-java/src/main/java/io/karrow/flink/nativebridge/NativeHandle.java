package io.karrow.flink.nativebridge;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * Sole owner of one native handle (a decoder, a JSON encoder, or through {@link NativeEncoderHandle}
 * an Avro encoder): the one place on the Java side that frees native objects.
 *
 * <p>{@link #close()} frees the native object and is idempotent. If the owner is dropped without
 * being closed (Flink's {@code DeserializationSchema} and {@code SerializationSchema} have no close
 * hook), a {@link Cleaner} frees it once this object becomes unreachable. Not thread-safe: use one
 * instance per parallel deserializer or serializer.
 */
public final class NativeHandle implements AutoCloseable {

    private static final Cleaner CLEANER = Cleaner.create();

    private final Releaser releaser;
    private final Cleaner.Cleanable cleanable;

    private final String what;

    private NativeHandle(long handle, LongConsumer close, String what) {
        this.releaser = new Releaser(handle, close);
        this.cleanable = CLEANER.register(this, releaser);
        this.what = what;
    }

    /**
     * Takes ownership of a handle that {@code close} frees.
     *
     * @throws KarrowNativeException if the handle is 0 (native code failed without throwing)
     */
    static NativeHandle own(long handle, LongConsumer close, String what) throws KarrowNativeException {
        if (handle == 0) {
            throw new KarrowNativeException(
                    "karrow-native returned a null " + what + " handle", KarrowNativeException.UNKNOWN,
                    KarrowNativeException.UNKNOWN);
        }
        return new NativeHandle(handle, close, what);
    }

    /**
     * Opens a native Avro decoder for the given contract configuration.
     *
     * @throws KarrowNativeException if the configuration is invalid
     */
    public static NativeHandle openAvroDecoder(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        return own(KarrowNative.avroDecoderOpen(configJson), KarrowNative::avroDecoderClose, "decoder");
    }

    /**
     * Opens a native fetch session ({@code kafka-native} with {@code 'scan.fetch-mode' = 'native'}).
     *
     * @throws KarrowNativeException if the configuration is invalid
     */
    public static NativeHandle openFetchSession(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        return own(KarrowNative.fetchOpen(configJson), KarrowNative::fetchClose, "fetch session");
    }

    /**
     * Opens a native JSON decoder ({@code json-native}) for the given contract configuration.
     *
     * @throws KarrowNativeException if the configuration is invalid
     */
    public static NativeHandle openJsonDecoder(String configJson) throws KarrowNativeException {
        NativeLibraryLoader.load();
        return own(KarrowNative.jsonDecoderOpen(configJson), KarrowNative::jsonDecoderClose, "JSON decoder");
    }

    /**
     * Opens a native Protobuf decoder ({@code protobuf-native}) for the given contract configuration
     * and serialized descriptor set.
     *
     * @throws KarrowNativeException if the configuration or the descriptors are invalid
     */
    public static NativeHandle openProtobufDecoder(String configJson, byte[] descriptorSet)
            throws KarrowNativeException {
        NativeLibraryLoader.load();
        return own(
                KarrowNative.protobufDecoderOpen(configJson, descriptorSet),
                KarrowNative::protobufDecoderClose,
                "Protobuf decoder");
    }

    /**
     * The raw handle for a native call.
     *
     * @throws IllegalStateException if the handle was closed
     */
    public long get() {
        long handle = releaser.handle;
        if (handle == 0) {
            throw new IllegalStateException("The native " + what + " handle is already closed");
        }
        return handle;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return releaser.handle == 0;
    }

    /** Frees the native object; later calls do nothing. */
    @Override
    public void close() {
        cleanable.clean();
    }

    /** Frees the handle; must not reference the owning {@link NativeHandle}. */
    private static final class Releaser implements Runnable {
        private final LongConsumer close;
        private volatile long handle;

        Releaser(long handle, LongConsumer close) {
            this.handle = handle;
            this.close = close;
        }

        @Override
        public void run() {
            long h = handle;
            handle = 0;
            if (h != 0) {
                close.accept(h);
            }
        }
    }
}
