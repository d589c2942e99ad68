package io.karrow.flink.formats.json;

import io.karrow.flink.formats.NativeDecodingFormat;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The {@code json-native} (and {@code json-confluent-native}) decoding format: checks the (projected)
 * physical row type with Flink's messages and creates {@link JsonNativeDeserializationSchema} instances. Top-level projection is
 * supported (fields are matched by name); nested projection is not.
 */
public class JsonNativeDecodingFormat extends NativeDecodingFormat<JsonDecoderConfig> {

    /**
     * Creates the format.
     *
     * @param config the validated decode options
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public JsonNativeDecodingFormat(JsonDecoderConfig config, boolean emitGenericRows) {
        super(config, emitGenericRows);
    }

    @Override
    protected DeserializationSchema<RowData> createDecoder(
            DynamicTableSource.Context context, DataType producedDataType, RowType rowType) {
        // Same order as Flink: the type information first, then the converter check.
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        JsonTypeSupport.validateForDecoding(rowType);
        return new JsonNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }
}
