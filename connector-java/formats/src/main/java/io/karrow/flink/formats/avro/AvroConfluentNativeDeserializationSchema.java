package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.NativeDeserializationSchema;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.NativeSessionConfig;
import io.karrow.flink.nativebridge.SessionKind;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;

/**
 * Deserializes Confluent-framed Avro Kafka values into Flink rows in native code.
 *
 * <p>Each value is decoded by {@code karrow-native} into the image of a {@link BinaryRowData} of the
 * physical row type (row kind INSERT), which is wrapped without per-field Java objects. When the
 * consumer needs {@code GenericRowData} (Flink's Kafka connector with a key format or metadata
 * columns), the top-level fields are copied into one.
 *
 * <p>Decoder lifetime: see {@link NativeDeserializationSchema}.
 */
public class AvroConfluentNativeDeserializationSchema extends NativeDeserializationSchema<RegistryDecoderConfig> {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the value
     * @param producedType type information of the produced rows
     * @param config registry settings
     * @param emitGenericRows whether to emit {@code GenericRowData} instead of {@code BinaryRowData}
     */
    public AvroConfluentNativeDeserializationSchema(
            RowType rowType, TypeInformation<RowData> producedType, RegistryDecoderConfig config, boolean emitGenericRows) {
        super(rowType, producedType, config, emitGenericRows);
    }

    @Override
    protected NativeSessionConfig decoderSession() throws IOException {
        return new NativeSessionConfig(SessionKind.AVRO_DECODER, config.toConfigJson(rowType), null);
    }

    /**
     * Decodes one Kafka value. A null value (tombstone) yields no row, like Flink's {@code
     * avro-confluent}; every malformed value fails with a {@link
     * io.karrow.flink.nativebridge.KarrowNativeException} naming the schema id.
     */
    @Override
    public RowData deserialize(byte[] message) throws IOException {
        byte[] image = decodeOne(message);
        if (image == null) {
            return null;
        }
        BinaryRowData row = new BinaryRowData(rowType.getFieldCount());
        row.pointTo(MemorySegmentFactory.wrap(image), 0, image.length);
        return produced(row);
    }
}
