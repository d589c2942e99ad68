package io.karrow.flink.formats.protobuf;

import com.google.protobuf.Descriptors.Descriptor;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code protobuf-native} encoding format: checks the physical row type against the message with
 * Flink's messages and creates {@link ProtobufNativeSerializationSchema} instances.
 */
public class ProtobufNativeEncodingFormat implements EncodingFormat<SerializationSchema<RowData>> {

    private final Descriptor message;
    private final ProtobufConfig config;

    /**
     * Creates the format.
     *
     * @param message the message descriptor, for validation while planning
     * @param config the message's serialized descriptors and the options
     */
    public ProtobufNativeEncodingFormat(Descriptor message, ProtobufConfig config) {
        this.message = Objects.requireNonNull(message, "message");
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public SerializationSchema<RowData> createRuntimeEncoder(
            DynamicTableSink.Context context, DataType physicalDataType) {
        RowType rowType = (RowType) physicalDataType.getLogicalType();
        ProtobufSchemaValidation.validate(message, rowType);
        return new ProtobufNativeSerializationSchema(rowType, config);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }
}
