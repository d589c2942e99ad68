package io.karrow.flink.formats.json;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.NativeBatchEncoder;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Serializes Flink rows into JSON Kafka values in native code, byte for byte what Flink's {@code
 * json} format writes: one compact UTF-8 JSON object per row, fields in declared order.
 *
 * <p>{@link #serialize} hands the row's {@code BinaryRowData} image (see {@link BinaryRowImages}; NULL
 * map keys are kept and handled by {@code map-null-key.mode} natively) to {@code
 * KarrowNative.jsonEncodeOne}. A row that cannot be written fails as in Flink, with a {@link
 * RuntimeException} "Could not serialize row '&lt;row&gt;'." whose cause is the native error.
 *
 * <p>With Confluent settings ({@code json-confluent-native}, {@link JsonEncoderConfig#confluent()})
 * opening the encoder registers the writer schema (the {@code schema} option, or the JSON Schema
 * derived from the row type) under the subject, with schema type JSON, and every value is {@code
 * 0x00}, the registered id (big-endian), then exactly the JSON {@code json-native} writes; a registry
 * that is down fails {@code open} with a message naming the URL and the subject.
 *
 * <p>Handle lifetime: Flink 2.2's {@code SerializationSchema} has no close hook, so the encoder is
 * freed by a {@link java.lang.ref.Cleaner} when this instance becomes unreachable, or explicitly
 * through {@link #close()}; a later {@code open} replaces it. An instance is not thread-safe; Flink
 * uses one per parallel writer.
 */
public class JsonNativeSerializationSchema implements BatchSerializationSchema, AutoCloseable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final JsonEncoderConfig config;

    private transient NativeEncoderHandle encoder;
    private transient BinaryRowImages images;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows (key or value)
     * @param config the encode options
     */
    public JsonNativeSerializationSchema(RowType rowType, JsonEncoderConfig config) {
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
        JsonConfluentConfig confluent = config.confluent();
        try {
            return NativeEncoderHandle.openJsonEncoder(config.configJson(rowType));
        } catch (KarrowNativeException e) {
            if (confluent == null) {
                throw e;
            }
            throw new IOException(
                    "Could not open the json-confluent-native encoder: registering the writer schema under subject '"
                            + confluent.subject() + "' at schema registry " + confluent.registry().getUrl()
                            + " failed: " + e.getMessage(),
                    e);
        }
    }

    /** Encodes one row into one JSON value; a null row gives a null value. */
    @Override
    public byte[] serialize(RowData row) {
        if (row == null) {
            return null;
        }
        try {
            if (encoder == null) {
                openEncoder();
            }
            return KarrowNative.jsonEncodeOne(encoder.get(), images.image(row));
        } catch (IOException | RuntimeException e) {
            throw new RuntimeException(String.format("Could not serialize row '%s'.", row), e);
        }
    }

    /**
     * Opens a batch encoder with its own native encoder handle; used by the batched {@code
     * kafka-native} sink instead of {@link #serialize}. The caller owns and closes it.
     */
    @Override
    public ValueBatchEncoder createBatchEncoder() throws IOException {
        return new NativeBatchEncoder(openNativeEncoder(), rowType, KarrowNative::jsonEncodeBatch, true);
    }

    /**
     * The writer schema id registered at {@link #open} ({@code json-confluent-native}); {@code -1}
     * before it, and always for plain JSON.
     */
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

    /** The encode options. */
    public JsonEncoderConfig getConfig() {
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
        JsonNativeSerializationSchema that = (JsonNativeSerializationSchema) o;
        return rowType.equals(that.rowType) && config.equals(that.config);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rowType, config);
    }
}
