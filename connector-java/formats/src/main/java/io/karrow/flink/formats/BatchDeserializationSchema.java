package io.karrow.flink.formats;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;

import java.io.IOException;

/**
 * A {@link DeserializationSchema} that can also decode many Kafka values in one call.
 *
 * <p>Connectors that fetch records in batches (the {@code kafka-native} source) check for this
 * interface and, when present, decode a whole fetched batch with a {@link ValueBatchDecoder}
 * instead of calling {@link DeserializationSchema#deserialize(byte[])} per record. Both paths
 * must produce the same rows.
 */
public interface BatchDeserializationSchema extends DeserializationSchema<RowData> {

    /**
     * Opens a new batch decoder owned by the caller, who must close it. Each decoder is used by one
     * thread at a time.
     */
    ValueBatchDecoder createBatchDecoder() throws IOException;
}
