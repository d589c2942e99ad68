package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.registry.RegistryEncoderConfig;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code avro-confluent-native} encoding format: validates the physical row type at planning
 * (with Flink's messages) and creates {@link AvroConfluentNativeSerializationSchema} instances.
 */
public class AvroConfluentNativeEncodingFormat implements EncodingFormat<SerializationSchema<RowData>> {

    private final RegistryEncoderConfig config;

    /** Creates the format for the given registry settings and resolved subject. */
    public AvroConfluentNativeEncodingFormat(RegistryEncoderConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public SerializationSchema<RowData> createRuntimeEncoder(DynamicTableSink.Context context, DataType physicalDataType) {
        RowType rowType = (RowType) physicalDataType.getLogicalType();
        AvroTypeSupport.validate(rowType);
        return new AvroConfluentNativeSerializationSchema(rowType, config);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    /** The registry settings and subject of this format. */
    public RegistryEncoderConfig getConfig() {
        return config;
    }
}
