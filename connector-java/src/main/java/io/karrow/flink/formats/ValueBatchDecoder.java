package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectValueBuffer;

import org.apache.flink.table.data.RowData;

import java.io.IOException;

/**
 * Decodes a batch of Kafka values, laid out in a {@link DirectValueBuffer}, into Flink rows in one
 * call. Not thread-safe; the owner closes it.
 */
public interface ValueBatchDecoder extends AutoCloseable {

    /**
     * Decodes the first {@code count} values of {@code values}.
     *
     * @return an array of length {@code count} whose entry {@code i} is the row of value {@code i},
     *     or {@code null} when the value yields no row (a tombstone)
     * @throws io.karrow.flink.nativebridge.KarrowNativeException when a value cannot be decoded;
     *     its record index names the first failing value when known
     */
    RowData[] decode(DirectValueBuffer values, int count) throws IOException;

    /** Frees the decoder's resources; later calls fail. */
    @Override
    void close();
}
