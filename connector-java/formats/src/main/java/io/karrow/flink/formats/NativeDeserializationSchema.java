package io.karrow.flink.formats;

import io.karrow.flink.nativebridge.DirectRecordBuffers;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.nativebridge.NativeSessionConfig;
import io.karrow.flink.rows.BinaryToGenericRows;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;

/**
 * What every native format's {@code DeserializationSchema} shares: the row type, produced type and
 * format configuration (which make up equality), and the lifetime of the per-instance native decoder.
 *
 * <p>Handle lifetime: {@link #open} opens one native decoder per instance (closing the one from an
 * earlier {@code open}). {@code DeserializationSchema} has no close hook, so the decoder is freed by
 * a {@link java.lang.ref.Cleaner} when this instance becomes unreachable, or explicitly through
 * {@link #close()}. An instance is not thread-safe; Flink uses one per parallel reader.
 *
 * @param <C> the format's (serializable) decode configuration
 */
public abstract class NativeDeserializationSchema<C extends Serializable>
        implements BatchDeserializationSchema, AutoCloseable {

    private static final long serialVersionUID = 1L;

    /** The physical row type of the value. */
    protected final RowType rowType;

    /** The format's decode configuration. */
    protected final C config;

    private final TypeInformation<RowData> producedType;
    private final boolean emitGenericRows;

    private transient NativeHandle decoder;
    private transient BinaryToGenericRows toGeneric;
    private transient DirectRecordBuffers recordBuffers;
    private transient NativeDecodeMetrics metrics;

    /**
     * Creates the schema.
     *
     * @param rowType the physical row type of the value
     * @param producedType type information of the produced rows
     * @param config the format's decode configuration
     * @param emitGenericRows whether to emit {@code GenericRowData} instead of {@code BinaryRowData}
     */
    protected NativeDeserializationSchema(
            RowType rowType, TypeInformation<RowData> producedType, C config, boolean emitGenericRows) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.producedType = Objects.requireNonNull(producedType, "producedType");
        this.config = Objects.requireNonNull(config, "config");
        this.emitGenericRows = emitGenericRows;
    }

    /** How a native decoder of this format for {@link #rowType} and {@link #config} is opened. */
    protected abstract NativeSessionConfig decoderSession() throws IOException;

    /** Opens a new native decoder of this format for {@link #rowType} and {@link #config}. */
    protected NativeHandle openNativeDecoder() throws IOException {
        return decoderSession().open();
    }

    /**
     * How this format's batch decoder is opened, for a native session that decodes with it itself
     * (the fused {@code kafka-native} source, whose operator session owns its decoder).
     */
    public NativeSessionConfig batchDecoderSession() throws IOException {
        return decoderSession();
    }

    /**
     * Loads the native library and opens a decoder, replacing any decoder of an earlier call.
     * Registers {@link NativeDecodeMetrics} ({@code karrow.numValuesDecodedNatively}, {@code
     * numRowsDecodedNatively}, {@code nativeValueDecodeTimeNanos}) in the context's metric group, so a
     * job shows that the per-record native path ran.
     */
    @Override
    public void open(InitializationContext context) throws Exception {
        MetricGroup group = context == null ? null : context.getMetricGroup();
        metrics = group == null ? null : NativeDecodeMetrics.of(group);
        openDecoder();
    }

    private void openDecoder() throws IOException {
        close();
        decoder = openNativeDecoder();
        toGeneric = emitGenericRows ? new BinaryToGenericRows(rowType) : null;
    }

    /** The raw handle of this instance's decoder, opened on first use if {@link #open} was not called. */
    protected long decoderHandle() throws IOException {
        if (decoder == null) {
            openDecoder();
        }
        return decoder.get();
    }

    /**
     * Decodes one value with this instance's decoder ({@link KarrowNative#decodeOneDirect}); a null
     * value (a tombstone) is decided by native code as every other value is. Returns what the call
     * wrote (the row image for formats whose value gives at most one row, else a row-list layout),
     * or {@code null} when the value gives no row.
     */
    protected byte[] decodeOne(byte[] message) throws IOException {
        long handle = decoderHandle();
        if (recordBuffers == null) {
            recordBuffers = new DirectRecordBuffers();
        }
        if (metrics == null) {
            return recordBuffers.call(handle, message, KarrowNative::decodeOneDirect);
        }
        long start = System.nanoTime();
        byte[] written = recordBuffers.call(handle, message, KarrowNative::decodeOneDirect);
        metrics.recordValue(System.nanoTime() - start);
        return written;
    }

    /**
     * A decoded row as this schema emits it ({@code GenericRowData} when the consumer needs it);
     * counted as emitted ({@link NativeDecodeMetrics}), so call it once per row given out.
     */
    protected RowData produced(RowData row) {
        if (metrics != null) {
            metrics.recordRow();
        }
        return toGeneric == null ? row : toGeneric.toGeneric(row);
    }

    /**
     * Opens a separate native decoder for batches (used by the {@code kafka-native} source); its rows
     * are always {@link BinaryRowData}. The caller owns and closes it.
     */
    @Override
    public ValueBatchDecoder createBatchDecoder() throws IOException {
        return new NativeBatchDecoder(openNativeDecoder(), rowType);
    }

    /** Frees the native decoder now; the next {@code open} or {@code deserialize} opens a new one. */
    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
            decoder = null;
        }
        if (recordBuffers != null) {
            recordBuffers.close();
            recordBuffers = null;
        }
    }

    @Override
    public boolean isEndOfStream(RowData nextElement) {
        return false;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }

    /** Whether this schema emits {@code GenericRowData} rather than {@code BinaryRowData}. */
    public boolean emitsGenericRows() {
        return emitGenericRows;
    }

    /** The decode configuration. */
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
        NativeDeserializationSchema<?> that = (NativeDeserializationSchema<?>) o;
        return emitGenericRows == that.emitGenericRows
                && rowType.equals(that.rowType)
                && producedType.equals(that.producedType)
                && config.equals(that.config);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rowType, producedType, config, emitGenericRows);
    }
}
