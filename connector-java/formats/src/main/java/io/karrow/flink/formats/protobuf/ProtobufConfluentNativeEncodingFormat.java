package io.karrow.flink.formats.protobuf;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code protobuf-confluent-native} encoding format: without a {@code schema} option, checks that
 * a Protobuf schema can be derived from the row type ({@link ProtobufConfluentRowTypes#validateDerivable});
 * with one, that every column type can map to a Protobuf field (the columns are matched against the
 * schema when the encoder opens). Creates {@link ProtobufNativeSerializationSchema} instances with the
 * Confluent settings.
 */
public class ProtobufConfluentNativeEncodingFormat implements EncodingFormat<SerializationSchema<RowData>> {

    private final ProtobufConfig config;

    /**
     * Creates the format.
     *
     * @param config the registry settings, subject, writer schema and options
     */
    public ProtobufConfluentNativeEncodingFormat(ProtobufConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public SerializationSchema<RowData> createRuntimeEncoder(
            DynamicTableSink.Context context, DataType physicalDataType) {
        RowType rowType = (RowType) physicalDataType.getLogicalType();
        if (config.confluent().registry().getSchema() == null) {
            ProtobufConfluentRowTypes.validateDerivable(rowType);
        } else {
            ProtobufConfluentRowTypes.validateReadable(rowType);
        }
        return new ProtobufNativeSerializationSchema(rowType, config);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }
}
