package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.NativeDecodingFormat;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code avro-confluent-native} decoding format: validates the (projected) physical row type at
 * planning and creates {@link AvroConfluentNativeDeserializationSchema} instances.
 */
public class AvroConfluentNativeDecodingFormat extends NativeDecodingFormat<RegistryDecoderConfig> {

    /**
     * Creates the format.
     *
     * @param config registry settings
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public AvroConfluentNativeDecodingFormat(RegistryDecoderConfig config, boolean emitGenericRows) {
        super(config, emitGenericRows);
    }

    @Override
    protected DeserializationSchema<RowData> createDecoder(
            DynamicTableSource.Context context, DataType producedDataType, RowType rowType) {
        AvroTypeSupport.validate(rowType);
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        return new AvroConfluentNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }
}
