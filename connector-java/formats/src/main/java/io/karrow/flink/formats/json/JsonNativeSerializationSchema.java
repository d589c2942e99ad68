package io.karrow.flink.formats.json;

import io.karrow.flink.formats.NativeSerializationSchema;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.nativebridge.SessionKind;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;

/**
 * Serializes Flink rows into JSON Kafka values in native code, byte for byte what Flink's {@code
 * json} format writes: one compact UTF-8 JSON object per row, fields in declared order.
 *
 * <p>{@link #serialize} hands the row's {@code BinaryRowData} image (see {@link BinaryRowImages}; NULL
 * map keys are kept and handled by {@code map-null-key.mode} natively) to {@code
 * KarrowNative.encodeOneDirect}. A row that cannot be written fails as in Flink, with a {@link
 * RuntimeException} "Could not serialize row '&lt;row&gt;'." whose cause is the native error.
 *
 * <p>With Confluent settings ({@code json-confluent-native}, {@link JsonEncoderConfig#confluent()})
 * opening the encoder registers the writer schema (the {@code schema} option, or the JSON Schema
 * derived from the row type) under the subject, with schema type JSON, and every value is {@code
 * 0x00}, the registered id (big-endian), then exactly the JSON {@code json-native} writes; a registry
 * that is down fails {@code open} with a message naming the URL and the subject.
 *
 * <p>Encoder lifetime: see {@link NativeSerializationSchema}.
 */
public class JsonNativeSerializationSchema extends NativeSerializationSchema<JsonEncoderConfig> {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows (key or value)
     * @param config the encode options
     */
    public JsonNativeSerializationSchema(RowType rowType, JsonEncoderConfig config) {
        super(rowType, config);
    }

    @Override
    public String encoderConfigJson() throws IOException {
        return config.configJson(rowType);
    }

    /** Opens an encoder; with Confluent settings a registry failure names subject and URL. */
    @Override
    protected NativeEncoderHandle openNativeEncoder() throws IOException {
        JsonConfluentConfig confluent = config.confluent();
        try {
            return NativeEncoderHandle.open(SessionKind.JSON_ENCODER, config.configJson(rowType), null);
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


    /** NULL map keys are handled natively by {@code map-null-key.mode}. */
    @Override
    protected boolean handlesNullMapKeys() {
        return true;
    }

    /**
     * flink-json writes a {@code TimestampData} with every nanosecond it holds and a string as its Java
     * text (a lone surrogate as its escape), where a binary image keeps milliseconds and {@code '?'}.
     */
    @Override
    protected boolean keepsJavaDetail() {
        return true;
    }

    /** "Could not serialize row '&lt;row&gt;'.", as Flink's {@code json} format says it. */
    @Override
    protected RuntimeException serializeFailure(RowData row, Exception cause) {
        return new RuntimeException(String.format("Could not serialize row '%s'.", row), cause);
    }
}
