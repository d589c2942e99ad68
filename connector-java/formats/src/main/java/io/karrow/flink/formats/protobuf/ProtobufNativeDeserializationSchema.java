package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.NativeDeserializationSchema;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeSessionConfig;
import io.karrow.flink.nativebridge.SessionKind;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;

/**
 * Deserializes Protobuf Kafka values into Flink rows in native code, with the semantics of Flink's
 * {@code protobuf} format: one message per value, parsed as protobuf-java's generated class parses it
 * (malformed bytes, missing required fields and invalid proto3 UTF-8 fail), then read column by column
 * as flink-protobuf's generated converter reads it (absent fields NULL or their defaults, see {@code
 * docs/parity/protobuf.md}).
 *
 * <p>A value that cannot be decoded fails with an {@link IOException} "Failed to deserialize PB
 * object." whose cause is the native error, or yields no row under {@code ignore-parse-errors}; a null
 * value counts as such a value, a zero-length value is an empty message. Rows are {@link
 * BinaryRowData} views (or {@code GenericRowData} copies when the consumer needs them).
 *
 * <p>Decoder lifetime: see {@link NativeDeserializationSchema}.
 */
public class ProtobufNativeDeserializationSchema extends NativeDeserializationSchema<ProtobufConfig> {

    private static final long serialVersionUID = 1L;

    private static final String FAILURE = "Failed to deserialize PB object.";

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the value
     * @param producedType type information of the produced rows
     * @param config the message's descriptors and the options
     * @param emitGenericRows whether to emit {@code GenericRowData} instead of {@code BinaryRowData}
     */
    public ProtobufNativeDeserializationSchema(
            RowType rowType, TypeInformation<RowData> producedType, ProtobufConfig config, boolean emitGenericRows) {
        super(rowType, producedType, config, emitGenericRows);
    }

    @Override
    protected NativeSessionConfig decoderSession() throws IOException {
        return new NativeSessionConfig(SessionKind.PROTOBUF_DECODER, config.configJson(rowType), config.descriptorSet());
    }

    /**
     * Decodes one value into its row, or {@code null} when it is skipped under ignore-parse-errors (or,
     * for {@code protobuf-confluent-native}, when it is a tombstone).
     */
    @Override
    public RowData deserialize(byte[] message) throws IOException {
        byte[] image;
        try {
            image = decodeOne(message);
        } catch (KarrowNativeException e) {
            throw new IOException(FAILURE, e);
        }
        if (image == null) {
            return null;
        }
        BinaryRowData row = new BinaryRowData(rowType.getFieldCount());
        row.pointTo(MemorySegmentFactory.wrap(image), 0, image.length);
        return produced(row);
    }
}
