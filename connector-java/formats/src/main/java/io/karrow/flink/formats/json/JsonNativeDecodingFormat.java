package io.karrow.flink.formats.json;

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
 * The {@code json-native} (and {@code json-confluent-native}) decoding format: checks the (projected)
 * physical row type with Flink's messages and creates {@link JsonNativeDeserializationSchema} instances. Top-level projection is
 * supported (fields are matched by name); nested projection is not.
 */
public class JsonNativeDecodingFormat implements ProjectableDecodingFormat<DeserializationSchema<RowData>> {

    private final JsonDecoderConfig config;
    private final boolean emitGenericRows;

    /**
     * Creates the format.
     *
     * @param config the validated decode options
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public JsonNativeDecodingFormat(JsonDecoderConfig config, boolean emitGenericRows) {
        this.config = Objects.requireNonNull(config, "config");
        this.emitGenericRows = emitGenericRows;
    }

    @Override
    public DeserializationSchema<RowData> createRuntimeDecoder(
            DynamicTableSource.Context context, DataType physicalDataType, int[][] projections) {
        DataType producedDataType = Projection.of(projections).project(physicalDataType);
        RowType rowType = (RowType) producedDataType.getLogicalType();
        // Same order as Flink: the type information first, then the converter check.
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        JsonTypeSupport.validateForDecoding(rowType);
        return new JsonNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    /** The decode options of this format. */
    public JsonDecoderConfig getConfig() {
        return config;
    }
}
