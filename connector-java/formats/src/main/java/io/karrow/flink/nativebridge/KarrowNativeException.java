package io.karrow.flink.nativebridge;

import java.io.IOException;

/**
 * A failure reported by native code: bad bytes, an unknown schema id, an unreachable registry, an
 * invalid configuration or a caught panic.
 *
 * <p>Native code constructs it through {@link #KarrowNativeException(String, int, int)}; keep that
 * constructor's signature stable (see {@code docs/jni-contract.md}).
 */
public class KarrowNativeException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Value of {@link #getRecordIndex()} and {@link #getSchemaId()} when they are not known. */
    public static final int UNKNOWN = -1;

    private final int recordIndex;
    private final int schemaId;

    /**
     * Creates the exception; called from JNI.
     *
     * @param message what failed; names the schema id whenever one was read
     * @param recordIndex index of the failing record inside a batch, or {@code -1}
     * @param schemaId the registry schema id of the failing record, or {@code -1}
     */
    public KarrowNativeException(String message, int recordIndex, int schemaId) {
        super(message);
        this.recordIndex = recordIndex;
        this.schemaId = schemaId;
    }

    /** Index of the failing record inside the decoded batch, or {@code -1} if unknown. */
    public int getRecordIndex() {
        return recordIndex;
    }

    /** Registry schema id of the failing record, or {@code -1} if unknown. */
    public int getSchemaId() {
        return schemaId;
    }
}
