package io.karrow.flink.formats.json;

import io.karrow.flink.formats.NativeEncodingFormat;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code json-native} (and {@code json-confluent-native}) encoding format: checks the physical row
 * type with Flink's messages and creates {@link JsonNativeSerializationSchema} instances.
 */
public class JsonNativeEncodingFormat extends NativeEncodingFormat<JsonEncoderConfig> {

    /** Creates the format for the given validated encode options. */
    public JsonNativeEncodingFormat(JsonEncoderConfig config) {
        super(config);
    }

    @Override
    protected SerializationSchema<RowData> createEncoder(RowType rowType) {
        JsonTypeSupport.validateForEncoding(rowType);
        return new JsonNativeSerializationSchema(rowType, config);
    }
}
