package io.karrow.flink.formats;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;

import java.io.IOException;

/**
 * A {@link SerializationSchema} that can also encode many rows in one call.
 *
 * <p>Connectors that buffer rows (the {@code kafka-native} sink) check for this interface and, when
 * present, encode a whole buffer with a {@link ValueBatchEncoder} instead of calling {@link
 * SerializationSchema#serialize(Object)} per row. Both paths must produce the same bytes.
 */
public interface BatchSerializationSchema extends SerializationSchema<RowData> {

    /**
     * Opens a new batch encoder owned by the caller, who must close it. Each encoder is used by one
     * thread at a time.
     */
    ValueBatchEncoder createBatchEncoder() throws IOException;
}
