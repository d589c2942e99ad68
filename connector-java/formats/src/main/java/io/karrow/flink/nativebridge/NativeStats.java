package io.karrow.flink.nativebridge;

/**
 * A snapshot of what is live in native code ({@link KarrowNative#stats}): open handles per {@link
 * SessionKind} and the bytes of buffers their sessions retain. The soak and fault tests assert that
 * everything a job opened was released.
 */
public final class NativeStats {

    private final long[] values;

    private NativeStats(long[] values) {
        this.values = values;
    }

    /**
     * Takes a snapshot.
     *
     * @throws KarrowNativeException if the native library cannot report
     */
    public static NativeStats snapshot() throws KarrowNativeException {
        NativeLibraryLoader.load();
        long[] values = KarrowNative.stats();
        if (values.length < 2 * SessionKind.CODES) {
            throw new IllegalStateException("native stats have " + values.length + " entries, expected "
                    + 2 * SessionKind.CODES + ": is the library from another build?");
        }
        return new NativeStats(values);
    }

    /** Open handles of {@code kind}. */
    public long liveHandles(SessionKind kind) {
        return values[2 * kind.code()];
    }

    /** Bytes of buffers the open sessions of {@code kind} retain. */
    public long retainedBytes(SessionKind kind) {
        return values[2 * kind.code() + 1];
    }

    /** Open handles of every kind. */
    public long liveHandles() {
        long sum = 0;
        for (SessionKind kind : SessionKind.values()) {
            sum += liveHandles(kind);
        }
        return sum;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("NativeStats{");
        for (SessionKind kind : SessionKind.values()) {
            if (liveHandles(kind) != 0) {
                out.append(kind).append('=').append(liveHandles(kind)).append(" (")
                        .append(retainedBytes(kind)).append(" bytes) ");
            }
        }
        return out.append('}').toString();
    }
}
