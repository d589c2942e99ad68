package io.karrow.flink.formats.json;

import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeEncoderHandle;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Encodes a batch of row images into JSON values with one {@code KarrowNative.jsonEncodeBatch} call
 * (Confluent-framed for {@code json-confluent-native}). NULL map keys are handled by the native
 * encoder ({@code map-null-key.mode}). Owns one native encoder handle. Not thread-safe.
 */
public final class JsonNativeBatchEncoder implements ValueBatchEncoder {

    private final NativeEncoderHandle encoder;
    private final RowType rowType;

    /**
     * Creates a batch encoder that takes ownership of {@code encoder}.
     *
     * @param encoder an open native JSON encoder for {@code rowType}
     * @param rowType the physical row type of the encoded rows
     */
    public JsonNativeBatchEncoder(NativeEncoderHandle encoder, RowType rowType) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.rowType = Objects.requireNonNull(rowType, "rowType");
    }

    @Override
    public RowType rowType() {
        return rowType;
    }

    @Override
    public boolean acceptsNullMapKeys() {
        return true;
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
        return KarrowNative.jsonEncodeBatch(
                encoder.get(), rowImages.dataAddress(), rowImages.lengthsAddress(), count, offsets);
    }

    /** The registered writer schema id written in every header, or {@code -1} for plain JSON. */
    public int schemaId() {
        return encoder.schemaId();
    }

    @Override
    public void close() {
        encoder.close();
    }
}
