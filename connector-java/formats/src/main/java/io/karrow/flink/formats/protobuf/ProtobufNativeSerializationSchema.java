package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.NativeSerializationSchema;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.nativebridge.SessionKind;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;

/**
 * Serializes Flink rows into Protobuf Kafka values in native code, byte for byte what Flink's {@code
 * protobuf} format writes (protobuf-java's serialization of the message its generated code builds:
 * field-number order, packed repeated scalars where the schema says so, map entries in {@code
 * java.util.HashMap} order, NULL inside arrays and maps replaced by defaults).
 *
 * <p>Encoder lifetime: see {@link NativeSerializationSchema}.
 */
public class ProtobufNativeSerializationSchema extends NativeSerializationSchema<ProtobufConfig> {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows
     * @param config the message's descriptors and the options
     */
    public ProtobufNativeSerializationSchema(RowType rowType, ProtobufConfig config) {
        super(rowType, config);
    }

    @Override
    public String encoderConfigJson() throws IOException {
        return config.configJson(rowType);
    }

    /** Opens an encoder; with Confluent settings a registry failure names subject and URL. */
    @Override
    protected NativeEncoderHandle openNativeEncoder() throws IOException {
        ProtobufConfluentConfig confluent = config.confluent();
        try {
            return NativeEncoderHandle.open(SessionKind.PROTOBUF_ENCODER, config.configJson(rowType), config.descriptorSet());
        } catch (KarrowNativeException e) {
            if (confluent == null) {
                throw e;
            }
            throw new IOException("Could not open the protobuf-confluent-native encoder for subject '"
                    + confluent.subject() + "' at schema registry " + confluent.registry().getUrl() + ": "
                    + e.getMessage(), e);
        }
    }


    /** NULL map keys are written as the key type's default, as flink-protobuf writes them. */
    @Override
    protected boolean handlesNullMapKeys() {
        return true;
    }

    /**
     * flink-protobuf puts each map key's Java string ({@code StringData.toString()}) into a {@code
     * HashMap}, so a lone surrogate in a key takes part in the key's hash and equality (the map's
     * order and which keys are one), where a binary image holds {@code '?'}; and protobuf-java writes
     * a float's raw bits, NaN payloads inside arrays and maps included, which {@code
     * BinaryArrayWriter} drops. Such rows reach native code as marked images. No protobuf column
     * holds a timestamp, the other detail they keep.
     */
    @Override
    protected boolean keepsJavaDetail() {
        return true;
    }

    /** A {@link FlinkRuntimeException} around the cause, as flink-protobuf fails. */
    @Override
    protected RuntimeException serializeFailure(RowData row, Exception cause) {
        return new FlinkRuntimeException(cause);
    }
}
