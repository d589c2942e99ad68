package io.karrow.flink.formats.protobuf;

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
 * The {@code protobuf-confluent-native} decoding format: checks that every column type can be read
 * from some Protobuf field ({@link ProtobufConfluentRowTypes#validateReadable}; the columns are matched
 * against each writer schema when its id is first met) and creates {@link
 * ProtobufNativeDeserializationSchema} instances with the Confluent settings. Top-level projection is
 * supported (columns are matched by name).
 */
public class ProtobufConfluentNativeDecodingFormat
        implements ProjectableDecodingFormat<DeserializationSchema<RowData>> {

    private final ProtobufConfig config;
    private final boolean emitGenericRows;

    /**
     * Creates the format.
     *
     * @param config the registry settings and the options
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public ProtobufConfluentNativeDecodingFormat(ProtobufConfig config, boolean emitGenericRows) {
        this.config = Objects.requireNonNull(config, "config");
        this.emitGenericRows = emitGenericRows;
    }

    @Override
    public DeserializationSchema<RowData> createRuntimeDecoder(
            DynamicTableSource.Context context, DataType physicalDataType, int[][] projections) {
        DataType producedDataType = Projection.of(projections).project(physicalDataType);
        RowType rowType = (RowType) producedDataType.getLogicalType();
        ProtobufConfluentRowTypes.validateReadable(rowType);
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        return new ProtobufNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }
}
