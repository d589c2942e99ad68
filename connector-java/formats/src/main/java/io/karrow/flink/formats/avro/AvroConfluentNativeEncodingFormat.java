package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.NativeEncodingFormat;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code avro-confluent-native} encoding format: validates the physical row type at planning
 * (with Flink's messages) and creates {@link AvroConfluentNativeSerializationSchema} instances.
 */
public class AvroConfluentNativeEncodingFormat extends NativeEncodingFormat<RegistryEncoderConfig> {

    /** Creates the format for the given registry settings and resolved subject. */
    public AvroConfluentNativeEncodingFormat(RegistryEncoderConfig config) {
        super(config);
    }

    @Override
    protected SerializationSchema<RowData> createEncoder(RowType rowType) {
        AvroTypeSupport.validate(rowType);
        return new AvroConfluentNativeSerializationSchema(rowType, config);
    }
}
