package io.karrow.flink.nativebridge;

import java.lang.ref.Cleaner;

/**
 * Sole owner of one native session handle (a decoder, an encoder through {@link NativeEncoderHandle},
 * a fetch session): the one place on the Java side that opens and frees native sessions.
 *
 * <p>{@link #close()} frees the native session and is idempotent. If the owner is dropped without
 * being closed (Flink's {@code DeserializationSchema} and {@code SerializationSchema} have no close
 * hook), a {@link Cleaner} frees it once this object becomes unreachable. Not thread-safe: use one
 * instance per parallel deserializer, serializer or split reader, and do not close it while another
 * thread calls native code with it.
 */
public final class NativeHandle implements AutoCloseable {

    private static final Cleaner CLEANER = Cleaner.create();

    private final Releaser releaser;
    private final Cleaner.Cleanable cleanable;
    private final SessionKind kind;

    private NativeHandle(long handle, SessionKind kind) {
        this.releaser = new Releaser(handle);
        this.cleanable = CLEANER.register(this, releaser);
        this.kind = kind;
    }

    /**
     * Opens a native session of {@code kind} from its JSON configuration (see {@code
     * docs/jni-contract.md}) and the kind's bytes ({@code null} unless the kind takes some).
     *
     * @throws KarrowNativeException if the configuration is invalid, or opening fails (a registry
     *     that is down, for the encoders that register a schema)
     */
    public static NativeHandle open(SessionKind kind, String configJson, byte[] bytes) throws KarrowNativeException {
        NativeLibraryLoader.load();
        long handle = KarrowNative.open(kind.code(), configJson, bytes);
        if (handle == 0) {
            throw new KarrowNativeException(
                    "karrow-native returned a null " + kind.description() + " handle", KarrowNativeException.UNKNOWN,
                    KarrowNativeException.UNKNOWN);
        }
        return new NativeHandle(handle, kind);
    }

    /**
     * Takes ownership of {@code handle}, a session of {@code kind} that a native call created (an
     * encoded batch from {@link KarrowNative#runBatch}).
     */
    static NativeHandle adopt(long handle, SessionKind kind) throws KarrowNativeException {
        if (handle == 0) {
            throw new KarrowNativeException(
                    "karrow-native returned a null " + kind.description() + " handle", KarrowNativeException.UNKNOWN,
                    KarrowNativeException.UNKNOWN);
        }
        return new NativeHandle(handle, kind);
    }

    /** The kind of session this handle names. */
    public SessionKind kind() {
        return kind;
    }

    /**
     * The raw handle for a native call.
     *
     * @throws IllegalStateException if the handle was closed
     */
    public long get() {
        long handle = releaser.handle;
        if (handle == 0) {
            throw new IllegalStateException("The native " + kind.description() + " handle is already closed");
        }
        return handle;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return releaser.handle == 0;
    }

    /** Frees the native session; later calls do nothing. */
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
                try {
                    KarrowNative.close(h);
                } catch (KarrowNativeException e) {
                    // Only a handle this owner did not open can fail here: a bug, not a runtime condition.
                    throw new IllegalStateException("Closing native handle " + Long.toHexString(h) + " failed", e);
                }
            }
        }
    }
}
