package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.NativeEncodingFormat;

import com.google.protobuf.Descriptors.Descriptor;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.Objects;

/**
 * The {@code protobuf-native} encoding format: checks the physical row type against the message with
 * Flink's messages and creates {@link ProtobufNativeSerializationSchema} instances.
 */
public class ProtobufNativeEncodingFormat extends NativeEncodingFormat<ProtobufConfig> {

    private final Descriptor message;

    /**
     * Creates the format.
     *
     * @param message the message descriptor, for validation while planning
     * @param config the message's serialized descriptors and the options
     */
    public ProtobufNativeEncodingFormat(Descriptor message, ProtobufConfig config) {
        super(config);
        this.message = Objects.requireNonNull(message, "message");
    }

    @Override
    protected SerializationSchema<RowData> createEncoder(RowType rowType) {
        ProtobufSchemaValidation.validate(message, rowType);
        return new ProtobufNativeSerializationSchema(rowType, config);
    }
}
