package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.NativeDecodingFormat;

import com.google.protobuf.Descriptors.Descriptor;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code protobuf-native} decoding format: checks the (projected) physical row type against the
 * message with Flink's messages and creates {@link ProtobufNativeDeserializationSchema} instances.
 * Top-level projection is supported (columns are matched by name); nested projection is not.
 */
public class ProtobufNativeDecodingFormat extends NativeDecodingFormat<ProtobufConfig> {

    private final Descriptor message;

    /**
     * Creates the format.
     *
     * @param message the message descriptor, for validation while planning
     * @param config the message's serialized descriptors and the options
     * @param emitGenericRows whether produced rows must be {@code GenericRowData}
     */
    public ProtobufNativeDecodingFormat(Descriptor message, ProtobufConfig config, boolean emitGenericRows) {
        super(config, emitGenericRows);
        this.message = Objects.requireNonNull(message, "message");
    }

    @Override
    protected DeserializationSchema<RowData> createDecoder(
            DynamicTableSource.Context context, DataType producedDataType, RowType rowType) {
        ProtobufSchemaValidation.validate(message, rowType);
        TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        return new ProtobufNativeDeserializationSchema(rowType, producedType, config, emitGenericRows);
    }
}
