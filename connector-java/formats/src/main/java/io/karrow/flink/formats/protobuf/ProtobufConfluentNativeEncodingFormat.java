package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.NativeEncodingFormat;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code protobuf-confluent-native} encoding format: without a {@code schema} option, checks that
 * a Protobuf schema can be derived from the row type ({@link ProtobufConfluentRowTypes#validateDerivable});
 * with one, that every column type can map to a Protobuf field (the columns are matched against the
 * schema when the encoder opens). Creates {@link ProtobufNativeSerializationSchema} instances with the
 * Confluent settings.
 */
public class ProtobufConfluentNativeEncodingFormat extends NativeEncodingFormat<ProtobufConfig> {

    /**
     * Creates the format.
     *
     * @param config the registry settings, subject, writer schema and options
     */
    public ProtobufConfluentNativeEncodingFormat(ProtobufConfig config) {
        super(config);
    }

    @Override
    protected SerializationSchema<RowData> createEncoder(RowType rowType) {
        if (config.confluent().registry().getSchema() == null) {
            ProtobufConfluentRowTypes.validateDerivable(rowType);
        } else {
            ProtobufConfluentRowTypes.validateReadable(rowType);
        }
        return new ProtobufNativeSerializationSchema(rowType, config);
    }
}
