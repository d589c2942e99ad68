package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectValueBuffer;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;

/**
 * Encodes a batch of Flink {@code BinaryRowData} images, laid out in a {@link DirectValueBuffer}
 * (no nulls), into Kafka message bytes in one call. Not thread-safe; the owner closes it.
 */
public interface ValueBatchEncoder extends AutoCloseable {

    /** The row type whose {@code BinaryRowData} images this encoder takes. */
    RowType rowType();

    /**
     * Whether the images may hold NULL map keys because the format handles them (JSON's {@code
     * map-null-key.mode}); when {@code false} (Avro) callers reject such rows before building images.
     */
    default boolean acceptsNullMapKeys() {
        return false;
    }

    /**
     * Whether the images of rows that carry what a binary image loses (sub-millisecond nanos of a
     * compact timestamp, a lone surrogate in a string) must be marked images that keep it, because
     * the stock format reads it (JSON; Protobuf, whose map keys hash as Java strings); see {@code
     * io.karrow.flink.rows.BinaryRowImages}.
     */
    default boolean keepsJavaDetail() {
        return false;
    }

    /**
     * Encodes the first {@code count} row images of {@code rowImages}.
     *
     * @param offsets receives, at {@code [0, count]}, where message {@code i} starts in the returned
     *     array; message {@code i} spans {@code [offsets[i], offsets[i + 1])}; length at least {@code
     *     count + 1}
     * @return all messages concatenated
     * @throws io.karrow.flink.nativebridge.KarrowNativeException when a row cannot be encoded; its
     *     record index names the failing row when known
     */
    byte[] encode(DirectValueBuffer rowImages, int count, int[] offsets) throws IOException;

    /** Frees the encoder's resources; later calls fail. */
    @Override
    void close();
}
