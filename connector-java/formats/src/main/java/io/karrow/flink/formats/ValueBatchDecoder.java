package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectValueBuffer;

import java.io.IOException;

/**
 * Decodes a batch of Kafka values, laid out in a {@link DirectValueBuffer}, into Flink rows in one
 * call. Not thread-safe; the owner closes it.
 */
public interface ValueBatchDecoder extends AutoCloseable {

    /**
     * Decodes the first {@code count} values of {@code values}.
     *
     * @return the rows of the {@code count} values, in order; a value may yield no row (a null value
     *     or tombstone) or, for formats such as JSON, several
     * @throws io.karrow.flink.nativebridge.KarrowNativeException when a value cannot be decoded;
     *     its record index names the first failing value when known
     */
    DecodedValues decode(DirectValueBuffer values, int count) throws IOException;

    /** Frees the decoder's resources; later calls fail. */
    @Override
    void close();
}
