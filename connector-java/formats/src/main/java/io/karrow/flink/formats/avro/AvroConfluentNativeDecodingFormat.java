package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.registry.RegistryDecoderConfig;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.format.ProjectableDecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code avro-confluent-native} decoding format: validates the (projected) physical row type at
 * planning and creates {@link AvroConfluentNativeDeserializationSchema} instances.
 */
public class AvroConfluentNativeDecodingFormat implements ProjectableDecodingFormat<DeserializationSchema<RowData>> {

    private final RegistryDecoderConfig config;
    private final boolean emitGenericRows;

    /**
     * Creates the format.
     *
     * @param config registry settings
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public AvroConfluentNativeDecodingFormat(RegistryDecoderConfig config, boolean emitGenericRows) {
        this.config = Objects.requireNonNull(config, "config");
        this.emitGenericRows = emitGenericRows;
    }

    @Override
    public DeserializationSchema<RowData> createRuntimeDecoder(
            DynamicTableSource.Context context, DataType physicalDataType, int[][] projections) {
        DataType producedDataType = Projection.of(projections).project(physicalDataType);
        RowType rowType = (RowType) producedDataType.getLogicalType();
        AvroTypeSupport.validate(rowType);
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        return new AvroConfluentNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }
}
