package io.karrow.flink.formats.json;

import io.karrow.flink.formats.NativeDeserializationSchema;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeSessionConfig;
import io.karrow.flink.nativebridge.RowListLayout;
import io.karrow.flink.nativebridge.SessionKind;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Deserializes JSON Kafka values into Flink rows in native code, with the semantics of Flink's
 * {@code json} format (its token-stream decoder by default, its tree decoder when {@code
 * decode.json-parser.enabled} is false).
 *
 * <p>A value yields 0..n rows: a JSON object one, a top-level array one per element, a null or empty
 * value none, an unreadable value none under {@code ignore-parse-errors}. Each row is a {@link
 * BinaryRowData} view over the one array the native call returns (row kind INSERT); when the consumer
 * needs {@code GenericRowData} (Flink's Kafka connector with a key format or metadata columns), the
 * top-level fields are copied into one.
 *
 * <p>With Confluent settings ({@code json-confluent-native}, {@link JsonDecoderConfig#confluent()})
 * each value must start with Confluent's 5-byte header ({@code 0x00}, the schema id), which native
 * code checks (and validates against the registry with {@code validate-schema-id}) and removes before
 * the same JSON rules apply; a zero-length value is then too short for the header and fails like a
 * wrong magic byte (skipped under {@code ignore-parse-errors}).
 *
 * <p>Decoder lifetime: see {@link NativeDeserializationSchema}.
 */
public class JsonNativeDeserializationSchema extends NativeDeserializationSchema<JsonDecoderConfig> {

    private static final long serialVersionUID = 1L;

    /**
     * Length of Confluent's header (the magic byte {@code 0x00} and the 4-byte schema id), which
     * native code reads ({@code codecs/src/framing.rs}); the JSON of a framed value starts after it.
     */
    private static final int CONFLUENT_HEADER_LENGTH = 5;

    private transient RowData[] scratch;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the value
     * @param producedType type information of the produced rows
     * @param config the decode options
     * @param emitGenericRows whether to emit {@code GenericRowData} instead of {@code BinaryRowData}
     */
    public JsonNativeDeserializationSchema(
            RowType rowType, TypeInformation<RowData> producedType, JsonDecoderConfig config, boolean emitGenericRows) {
        super(rowType, producedType, config, emitGenericRows);
    }

    @Override
    protected NativeSessionConfig decoderSession() throws IOException {
        return new NativeSessionConfig(SessionKind.JSON_DECODER, config.configJson(rowType), null);
    }

    /**
     * Decodes one Kafka value into its rows, in order. A null or empty value yields none. A value that
     * cannot be decoded fails, as in Flink, with an {@link IOException} "Failed to deserialize JSON
     * '&lt;value&gt;'." whose cause is the native error.
     */
    @Override
    public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
        int count = decode(message);
        for (int i = 0; i < count; i++) {
            RowData row = scratch[i];
            scratch[i] = null;
            out.collect(produced(row));
        }
    }

    /**
     * Decodes a value that holds at most one row, as Flink's {@code json} format does: {@code null}
     * when it yields no row.
     *
     * @throws FlinkRuntimeException if the value holds several rows (a top-level array): use {@link
     *     #deserialize(byte[], Collector)}
     */
    @Override
    public RowData deserialize(byte[] message) throws IOException {
        int count = decode(message);
        if (count > 1) {
            Arrays.fill(scratch, 0, count, null);
            throw new FlinkRuntimeException(
                    "Please invoke DeserializationSchema#deserialize(byte[], Collector<RowData>) instead.");
        }
        if (count == 0) {
            return null;
        }
        RowData row = scratch[0];
        scratch[0] = null;
        return produced(row);
    }

    /** Decodes {@code message} into {@code scratch[0..count)}; returns the row count. */
    private int decode(byte[] message) throws IOException {
        byte[] layout;
        try {
            layout = decodeOne(message);
        } catch (KarrowNativeException e) {
            throw new IOException(failureMessage(message, e), e);
        }
        if (layout == null) {
            return 0;
        }
        int count = RowListLayout.rowCount(layout);
        if (scratch == null || scratch.length < count) {
            scratch = new RowData[count];
        }
        return RowListLayout.views(layout, rowType.getFieldCount(), scratch, 0);
    }

    /**
     * "Failed to deserialize JSON '&lt;value&gt;'." as Flink's {@code json} format says it; for a
     * Confluent-framed value whose header native code read (the exception carries its schema id),
     * the text shown is the JSON after the header, with the schema id.
     */
    private String failureMessage(byte[] message, KarrowNativeException cause) {
        if (message == null) {
            return "Failed to deserialize JSON 'null'.";
        }
        int schemaId = cause.getSchemaId();
        if (config.confluent() != null && schemaId != KarrowNativeException.UNKNOWN
                && message.length >= CONFLUENT_HEADER_LENGTH) {
            String json = new String(message, CONFLUENT_HEADER_LENGTH, message.length - CONFLUENT_HEADER_LENGTH,
                    StandardCharsets.UTF_8);
            return String.format("Failed to deserialize JSON '%s' (Confluent schema id %d).", json, schemaId);
        }
        return String.format("Failed to deserialize JSON '%s'.", new String(message, StandardCharsets.UTF_8));
    }
}
