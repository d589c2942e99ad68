package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.NativeSerializationSchema;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.nativebridge.SessionKind;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Serializes Flink rows into Confluent-framed Avro Kafka values in native code, byte for byte what
 * Flink's {@code avro-confluent} writes: {@code 0x00}, the 4-byte big-endian id of the writer schema,
 * the Avro binary datum.
 *
 * <p>{@link #open} opens one native encoder, which registers the writer schema (derived from the row
 * type the way Flink derives it, or the {@code schema} option) under the subject once; a registry
 * that is down fails {@code open} with a message naming the URL and the subject. {@link #serialize}
 * hands the row's {@code BinaryRowData} image (see {@link BinaryRowImages}) to {@code
 * KarrowNative.encodeOneDirect}.
 *
 * <p>Encoder lifetime: see {@link NativeSerializationSchema}.
 */
public class AvroConfluentNativeSerializationSchema extends NativeSerializationSchema<RegistryEncoderConfig> {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows (key or value)
     * @param config registry settings and the resolved subject
     */
    public AvroConfluentNativeSerializationSchema(RowType rowType, RegistryEncoderConfig config) {
        super(rowType, config);
    }

    @Override
    public String encoderConfigJson() throws IOException {
        return config.toConfigJson(rowType);
    }

    /** Opens an encoder, registering the writer schema; a registry failure names subject and URL. */
    @Override
    protected NativeEncoderHandle openNativeEncoder() throws IOException {
        try {
            return NativeEncoderHandle.open(SessionKind.AVRO_ENCODER, config.toConfigJson(rowType), null);
        } catch (KarrowNativeException e) {
            throw new IOException(
                    "Could not open the avro-confluent-native encoder: registering the writer schema under subject '"
                            + config.getSubject() + "' at schema registry " + config.getRegistry().getUrl()
                            + " failed: " + e.getMessage(),
                    e);
        }
    }


    /**
     * flink-avro puts each map key's Java string ({@code StringData.toString()}) into a {@code
     * HashMap}, so a lone surrogate in a key takes part in the key's hash and equality (the map's
     * order and which keys are one), where a binary image holds {@code '?'}; and Avro writes a
     * float's raw bits, NaN payloads inside arrays and maps included, which {@code BinaryArrayWriter}
     * drops. Such rows reach native code as marked images. Their timestamps' sub-millisecond nanos
     * are kept there too, and dropped by the encoder as flink-avro drops them.
     */
    @Override
    protected boolean keepsJavaDetail() {
        return true;
    }

    /** NULL map keys are rejected before native code, as Avro maps cannot hold them. */
    @Override
    protected boolean handlesNullMapKeys() {
        return false;
    }

    /**
     * Values the Avro schema cannot hold (a NULL in a NOT NULL column, a NULL map key) fail with the
     * native error naming the field as the cause.
     */
    @Override
    protected RuntimeException serializeFailure(RowData row, Exception cause) {
        if (cause instanceof IOException) {
            return new UncheckedIOException(
                    "Failed to serialize row with avro-confluent-native.", (IOException) cause);
        }
        return (RuntimeException) cause;
    }

    /** The resolved subject the writer schema is registered under. */
    public String subject() {
        return config.getSubject();
    }
}
