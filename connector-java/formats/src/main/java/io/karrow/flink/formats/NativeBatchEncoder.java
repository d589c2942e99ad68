package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeEncoderHandle;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Encodes a batch of row images with one native {@link KarrowNative#encodeBatch} call, for every
 * format's encoder. Owns one native encoder handle. Not thread-safe.
 */
public final class NativeBatchEncoder implements ValueBatchEncoder {

    private final NativeEncoderHandle encoder;
    private final RowType rowType;
    private final boolean acceptsNullMapKeys;
    private final boolean keepsJavaDetail;

    /**
     * Creates a batch encoder that takes ownership of {@code encoder}.
     *
     * @param encoder an open native encoder for {@code rowType}
     * @param rowType the physical row type of the encoded rows
     * @param acceptsNullMapKeys whether the native encoder handles NULL map keys itself (JSON's
     *     {@code map-null-key.mode}); see {@link ValueBatchEncoder#acceptsNullMapKeys()}
     */
    public NativeBatchEncoder(NativeEncoderHandle encoder, RowType rowType, boolean acceptsNullMapKeys) {
        this(encoder, rowType, acceptsNullMapKeys, false);
    }

    /**
     * Creates a batch encoder that takes ownership of {@code encoder}.
     *
     * @param keepsJavaDetail whether the native encoder reads marked images; see {@link
     *     ValueBatchEncoder#keepsJavaDetail()}
     */
    public NativeBatchEncoder(
            NativeEncoderHandle encoder, RowType rowType, boolean acceptsNullMapKeys, boolean keepsJavaDetail) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.acceptsNullMapKeys = acceptsNullMapKeys;
        this.keepsJavaDetail = keepsJavaDetail;
    }

    @Override
    public RowType rowType() {
        return rowType;
    }

    @Override
    public boolean acceptsNullMapKeys() {
        return acceptsNullMapKeys;
    }

    @Override
    public boolean keepsJavaDetail() {
        return keepsJavaDetail;
    }

    @Override
    public byte[] encode(DirectValueBuffer rowImages, int count, int[] offsets) throws IOException {
        if (count < 0 || count > rowImages.count()) {
            throw new IllegalArgumentException("count " + count + " outside [0, " + rowImages.count() + "]");
        }
        if (offsets.length < count + 1) {
            throw new IllegalArgumentException("offsets has " + offsets.length + " slots, needs " + (count + 1));
        }
        if (count == 0) {
            offsets[0] = 0;
            return new byte[0];
        }
        return KarrowNative.encodeBatch(
                encoder.get(), rowImages.dataAddress(), rowImages.lengthsAddress(), count, offsets);
    }

    /** The registered writer schema id written in every header, or {@code -1} when the format has none. */
    public int schemaId() {
        return encoder.schemaId();
    }

    @Override
    public void close() {
        encoder.close();
    }
}
