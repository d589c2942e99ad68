package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectRecordBuffers;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeEncoderHandle;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;

/**
 * What every native format's {@code SerializationSchema} shares: the row type and format
 * configuration (which make up equality), the lifetime of the per-instance native encoder, the
 * per-record path (the row's {@code BinaryRowData} image handed to one native call) and the batch
 * encoder of the {@code kafka-native} sink.
 *
 * <p>Handle lifetime: {@link #open} opens one native encoder per instance (closing the one from an
 * earlier {@code open}); Flink 2.2's {@code SerializationSchema} has no close hook, so the encoder is
 * freed by a {@link java.lang.ref.Cleaner} when this instance becomes unreachable, or explicitly
 * through {@link #close()}. An instance is not thread-safe; Flink uses one per parallel writer.
 *
 * @param <C> the format's (serializable) encode configuration
 */
public abstract class NativeSerializationSchema<C extends Serializable>
        implements BatchSerializationSchema, AutoCloseable {

    private static final long serialVersionUID = 1L;

    /** The physical row type of the serialized rows (key or value). */
    protected final RowType rowType;

    /** The format's encode configuration. */
    protected final C config;

    private transient NativeEncoderHandle encoder;
    private transient BinaryRowImages images;
    private transient DirectRecordBuffers recordBuffers;
    private transient NativeEncodeMetrics metrics;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the serialized rows
     * @param config the format's encode configuration
     */
    protected NativeSerializationSchema(RowType rowType, C config) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Opens a new native encoder of this format for {@link #rowType} and {@link #config}
     * (registering a writer schema where the format does), failing with the format's message.
     */
    protected abstract NativeEncoderHandle openNativeEncoder() throws IOException;

    /**
     * The configuration JSON the format's native encoder session opens with ({@code
     * docs/jni-contract.md}, "configJson"): what a fully fused pipeline's encode stage carries, so
     * its encoder opens exactly as this one ({@code docs/operator-plan.md}, "Encode stage"). Parts of
     * it depend on the JVM that renders it (JSON's {@code java_feature_version}): a runtime renders it
     * again where its encoder runs.
     *
     * @throws IOException if a truststore the configuration names cannot be read
     */
    public abstract String encoderConfigJson() throws IOException;

    /**
     * Whether native code handles NULL map keys itself (JSON's {@code map-null-key.mode}, Protobuf's
     * defaults); otherwise rows with one are rejected before the native call (Avro).
     */
    protected abstract boolean handlesNullMapKeys();

    /**
     * Whether the stock format writes what a Java row holds beyond its binary image (sub-millisecond
     * nanos of a compact timestamp, a lone surrogate in a string), so such rows must reach native code
     * as marked images that keep it ({@link BinaryRowImages#BinaryRowImages(RowType, boolean,
     * boolean)}). {@code false} unless a format says otherwise.
     */
    protected boolean keepsJavaDetail() {
        return false;
    }

    /** The exception {@link #serialize} throws when a row cannot be encoded, worded as the stock format. */
    protected abstract RuntimeException serializeFailure(RowData row, Exception cause);

    /**
     * Loads the native library and opens an encoder, replacing any encoder of an earlier call.
     * Registers {@link NativeEncodeMetrics} ({@code karrow.numRecordsEncoded}, {@code numBytesEncoded},
     * {@code nativeEncodeTimeNanos}) in the context's metric group, so a job shows that the
     * per-record native path ran (the batched path of the {@code kafka-native} sink counts in its own
     * group).
     */
    @Override
    public void open(InitializationContext context) throws Exception {
        MetricGroup group = context == null ? null : context.getMetricGroup();
        metrics = group == null ? null : NativeEncodeMetrics.of(group);
        openEncoder();
    }

    private void openEncoder() throws IOException {
        close();
        encoder = openNativeEncoder();
        images = new BinaryRowImages(rowType, !handlesNullMapKeys(), keepsJavaDetail());
        recordBuffers = new DirectRecordBuffers();
    }

    /** Encodes one row into one Kafka value; a null row gives a null value. */
    @Override
    public byte[] serialize(RowData row) {
        if (row == null) {
            return null;
        }
        try {
            if (encoder == null) {
                openEncoder();
            }
            byte[] image = images.image(row);
            long start = metrics == null ? 0 : System.nanoTime();
            byte[] value = recordBuffers.call(encoder.get(), image, KarrowNative::encodeOneDirect);
            if (value == null) {
                throw new IllegalStateException("the native encoder gave no value");
            }
            if (metrics != null) {
                metrics.recordOne(value.length, System.nanoTime() - start);
            }
            return value;
        } catch (IOException | RuntimeException e) {
            throw serializeFailure(row, e);
        }
    }

    /**
     * Opens a batch encoder with its own native encoder handle; used by the batched {@code
     * kafka-native} sink instead of {@link #serialize}. The caller owns and closes it.
     */
    @Override
    public ValueBatchEncoder createBatchEncoder() throws IOException {
        return new NativeBatchEncoder(openNativeEncoder(), rowType, handlesNullMapKeys(), keepsJavaDetail());
    }

    /** The writer schema id registered at {@link #open}; {@code -1} before it or for formats without one. */
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
        if (recordBuffers != null) {
            recordBuffers.close();
            recordBuffers = null;
        }
    }

    /** The encode configuration. */
    public C getConfig() {
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
        NativeSerializationSchema<?> that = (NativeSerializationSchema<?>) o;
        return rowType.equals(that.rowType) && config.equals(that.config);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rowType, config);
    }
}
