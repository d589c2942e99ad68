package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeEncoderHandle;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Encodes a batch of row images into Confluent-framed Avro values with one {@code
 * KarrowNative.avroEncodeBatch} call. Owns one native encoder handle. Not thread-safe.
 */
public final class AvroConfluentNativeBatchEncoder implements ValueBatchEncoder {

    private final NativeEncoderHandle encoder;
    private final RowType rowType;

    /**
     * Creates a batch encoder that takes ownership of {@code encoder}.
     *
     * @param encoder an open native Avro encoder for {@code rowType}
     * @param rowType the physical row type of the encoded rows
     */
    public AvroConfluentNativeBatchEncoder(NativeEncoderHandle encoder, RowType rowType) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.rowType = Objects.requireNonNull(rowType, "rowType");
    }

    @Override
    public RowType rowType() {
        return rowType;
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
        return KarrowNative.avroEncodeBatch(
                encoder.get(), rowImages.dataAddress(), rowImages.lengthsAddress(), count, offsets);
    }

    /** The registered writer schema id written in every header. */
    public int schemaId() {
        return encoder.schemaId();
    }

    @Override
    public void close() {
        encoder.close();
    }
}
