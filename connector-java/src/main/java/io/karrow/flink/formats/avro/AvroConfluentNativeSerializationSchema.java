package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.NativeBatchEncoder;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Serializes Flink rows into Confluent-framed Avro Kafka values in native code, byte for byte what
 * Flink's {@code avro-confluent} writes: {@code 0x00}, the 4-byte big-endian id of the writer schema,
 * the Avro binary datum.
 *
 * <p>{@link #open} opens one native encoder, which registers the writer schema (derived from the row
 * type the way Flink derives it, or the {@code schema} option) under the subject once; a registry
 * that is down fails {@code open} with a message naming the URL and the subject. {@link #serialize}
 * hands the row's {@code BinaryRowData} image (see {@link BinaryRowImages}) to {@code
 * KarrowNative.avroEncodeOne}.
 *
 * <p>Handle lifetime: Flink 2.2's {@code SerializationSchema} has no close hook, so the encoder is
 * freed by a {@link java.lang.ref.Cleaner} when this instance becomes unreachable, or explicitly
 * through {@link #close()}; a later {@code open} replaces it. An instance is not thread-safe; Flink
 * uses one per parallel writer.
 */
public class AvroConfluentNativeSerializationSchema
        implements SerializationSchema<RowData>, BatchSerializationSchema, AutoCloseable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final RegistryEncoderConfig config;

    private transient NativeEncoderHandle encoder;
    private transient BinaryRowImages images;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows (key or value)
     * @param config registry settings and the resolved subject
     */
    public AvroConfluentNativeSerializationSchema(RowType rowType, RegistryEncoderConfig config) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Loads the native library and opens an encoder (registering the writer schema). */
    @Override
    public void open(InitializationContext context) throws Exception {
        openEncoder();
    }

    private void openEncoder() throws IOException {
        close();
        try {
            encoder = NativeEncoderHandle.openAvroEncoder(config.toConfigJson(rowType));
        } catch (KarrowNativeException e) {
            throw new IOException(
                    "Could not open the avro-confluent-native encoder: registering the writer schema under subject '"
                            + config.getSubject() + "' at schema registry " + config.getRegistry().getUrl()
                            + " failed: " + e.getMessage(),
                    e);
        }
        images = new BinaryRowImages(rowType);
    }

    /**
     * Encodes one row. Values the Avro schema cannot hold (a NULL in a NOT NULL column, a NULL map
     * key) fail with a {@link KarrowNativeException} naming the field.
     */
    @Override
    public byte[] serialize(RowData row) {
        if (row == null) {
            return null;
        }
        try {
            if (encoder == null) {
                openEncoder();
            }
            return KarrowNative.avroEncodeOne(encoder.get(), images.image(row));
        } catch (IOException e) {
            throw new UncheckedIOException("Failed to serialize row with avro-confluent-native.", e);
        }
    }

    /**
     * Opens a batch encoder with its own native encoder handle (registering the writer schema like
     * {@link #open}); used by the batched {@code kafka-native} sink instead of {@link #serialize}.
     */
    @Override
    public ValueBatchEncoder createBatchEncoder() throws IOException {
        NativeEncoderHandle handle;
        try {
            handle = NativeEncoderHandle.openAvroEncoder(config.toConfigJson(rowType));
        } catch (KarrowNativeException e) {
            throw new IOException(
                    "Could not open the avro-confluent-native encoder: registering the writer schema under subject '"
                            + config.getSubject() + "' at schema registry " + config.getRegistry().getUrl()
                            + " failed: " + e.getMessage(),
                    e);
        }
        return new NativeBatchEncoder(handle, rowType, KarrowNative::avroEncodeBatch, false);
    }

    /** The writer schema id registered at {@link #open}, or {@code -1} before it. */
    public int schemaId() {
        return encoder == null ? -1 : encoder.schemaId();
    }

    /** Frees the native encoder now; the next {@code open} or {@code serialize} opens a new one. */
    @Override
    public void close() {
        if (encoder != null) {
            encoder.close();
            encoder = null;
        }
    }

    /** The resolved subject the writer schema is registered under. */
    public String subject() {
        return config.getSubject();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        AvroConfluentNativeSerializationSchema that = (AvroConfluentNativeSerializationSchema) o;
        return rowType.equals(that.rowType) && config.equals(that.config);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rowType, config);
    }
}
