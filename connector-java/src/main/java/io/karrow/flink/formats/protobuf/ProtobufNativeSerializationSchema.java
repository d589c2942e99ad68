package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.NativeBatchEncoder;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.util.Objects;

/**
 * Serializes Flink rows into Protobuf Kafka values in native code, byte for byte what Flink's {@code
 * protobuf} format writes (protobuf-java's serialization of the message its generated code builds:
 * field-number order, packed repeated scalars where the schema says so, map entries in {@code
 * java.util.HashMap} order, NULL inside arrays and maps replaced by defaults).
 *
 * <p>Handle lifetime: Flink 2.2's {@code SerializationSchema} has no close hook, so the encoder is
 * freed by a {@link java.lang.ref.Cleaner} when this instance becomes unreachable, or explicitly
 * through {@link #close()}; a later {@code open} replaces it. An instance is not thread-safe; Flink
 * uses one per parallel writer.
 */
public class ProtobufNativeSerializationSchema implements BatchSerializationSchema, AutoCloseable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final ProtobufConfig config;

    private transient NativeEncoderHandle encoder;
    private transient BinaryRowImages images;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows
     * @param config the message's descriptors and the options
     */
    public ProtobufNativeSerializationSchema(RowType rowType, ProtobufConfig config) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Loads the native library and opens an encoder, replacing any encoder of an earlier call. */
    @Override
    public void open(InitializationContext context) throws Exception {
        openEncoder();
    }

    private void openEncoder() throws IOException {
        close();
        encoder = openNativeEncoder();
        images = new BinaryRowImages(rowType, false);
    }

    private NativeEncoderHandle openNativeEncoder() throws IOException {
        ProtobufConfluentConfig confluent = config.confluent();
        try {
            return NativeEncoderHandle.openProtobufEncoder(config.configJson(rowType), config.descriptorSet());
        } catch (KarrowNativeException e) {
            if (confluent == null) {
                throw e;
            }
            throw new IOException("Could not open the protobuf-confluent-native encoder for subject '"
                    + confluent.subject() + "' at schema registry " + confluent.registry().getUrl() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Encodes one row into one Protobuf value; a failure is a {@link FlinkRuntimeException}. */
    @Override
    public byte[] serialize(RowData row) {
        try {
            if (encoder == null) {
                openEncoder();
            }
            return KarrowNative.protobufEncodeOne(encoder.get(), images.image(row));
        } catch (IOException | RuntimeException e) {
            throw new FlinkRuntimeException(e);
        }
    }

    /**
     * Opens a batch encoder with its own native encoder handle; used by the batched {@code
     * kafka-native} sink instead of {@link #serialize}. The caller owns and closes it.
     */
    @Override
    public ValueBatchEncoder createBatchEncoder() throws IOException {
        return new NativeBatchEncoder(openNativeEncoder(), rowType, KarrowNative::protobufEncodeBatch, true);
    }

    /** Frees the native encoder now; the next {@code open} or {@code serialize} opens a new one. */
    @Override
    public void close() {
        if (encoder != null) {
            encoder.close();
            encoder = null;
        }
    }

    /** The message's descriptors and the options. */
    public ProtobufConfig getConfig() {
        return config;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        ProtobufNativeSerializationSchema that = (ProtobufNativeSerializationSchema) o;
        return rowType.equals(that.rowType) && config.equals(that.config);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rowType, config);
    }
}
