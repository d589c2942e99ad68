package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.NativeDecodingFormat;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code protobuf-confluent-native} decoding format: checks that every column type can be read
 * from some Protobuf field ({@link ProtobufConfluentRowTypes#validateReadable}; the columns are matched
 * against each writer schema when its id is first met) and creates {@link
 * ProtobufNativeDeserializationSchema} instances with the Confluent settings. Top-level projection is
 * supported (columns are matched by name).
 */
public class ProtobufConfluentNativeDecodingFormat extends NativeDecodingFormat<ProtobufConfig> {

    /**
     * Creates the format.
     *
     * @param config the registry settings and the options
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public ProtobufConfluentNativeDecodingFormat(ProtobufConfig config, boolean emitGenericRows) {
        super(config, emitGenericRows);
    }

    @Override
    protected DeserializationSchema<RowData> createDecoder(
            DynamicTableSource.Context context, DataType producedDataType, RowType rowType) {
        ProtobufConfluentRowTypes.validateReadable(rowType);
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        return new ProtobufNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }
}
