package io.karrow.flink.formats.json;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code json-native} (and {@code json-confluent-native}) encoding format: checks the physical row
 * type with Flink's messages and creates {@link JsonNativeSerializationSchema} instances.
 */
public class JsonNativeEncodingFormat implements EncodingFormat<SerializationSchema<RowData>> {

    private final JsonEncoderConfig config;

    /** Creates the format for the given validated encode options. */
    public JsonNativeEncodingFormat(JsonEncoderConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public SerializationSchema<RowData> createRuntimeEncoder(DynamicTableSink.Context context, DataType physicalDataType) {
        RowType rowType = (RowType) physicalDataType.getLogicalType();
        JsonTypeSupport.validateForEncoding(rowType);
        return new JsonNativeSerializationSchema(rowType, config);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    /** The encode options of this format. */
    public JsonEncoderConfig getConfig() {
        return config;
    }
}
