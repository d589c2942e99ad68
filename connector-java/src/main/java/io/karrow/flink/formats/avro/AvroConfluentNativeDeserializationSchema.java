package io.karrow.flink.formats.avro;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.KarrowNative;
import io.karrow.flink.nativebridge.NativeHandle;
import io.karrow.flink.rows.BinaryToGenericRows;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.util.Objects;

/**
 * Deserializes Confluent-framed Avro Kafka values into Flink rows in native code.
 *
 * <p>Each value is decoded by {@code karrow-native} into the image of a {@link BinaryRowData} of the
 * physical row type (row kind INSERT), which is wrapped without per-field Java objects. When the
 * consumer needs {@code GenericRowData} (Flink's Kafka connector with a key format or metadata
 * columns), the top-level fields are copied into one.
 *
 * <p>Handle lifetime: {@link #open} opens one native decoder per instance (closing the one from an
 * earlier {@code open}). {@code DeserializationSchema} has no close hook, so the decoder is freed by
 * a {@link java.lang.ref.Cleaner} when this instance becomes unreachable, or explicitly through
 * {@link #close()}. An instance is not thread-safe; Flink uses one per parallel reader.
 */
public class AvroConfluentNativeDeserializationSchema
        implements DeserializationSchema<RowData>, BatchDeserializationSchema, AutoCloseable {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final TypeInformation<RowData> producedType;
    private final RegistryDecoderConfig config;
    private final boolean emitGenericRows;

    private transient NativeHandle decoder;
    private transient BinaryToGenericRows toGeneric;

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
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.producedType = Objects.requireNonNull(producedType, "producedType");
        this.config = Objects.requireNonNull(config, "config");
        this.emitGenericRows = emitGenericRows;
    }

    /** Loads the native library and opens a decoder, replacing any decoder of an earlier call. */
    @Override
    public void open(InitializationContext context) throws Exception {
        openDecoder();
    }

    private void openDecoder() throws IOException {
        close();
        decoder = NativeHandle.openAvroDecoder(config.toConfigJson(rowType));
        toGeneric = emitGenericRows ? new BinaryToGenericRows(rowType) : null;
    }

    /**
     * Decodes one Kafka value. A null value (tombstone) yields no row, like Flink's {@code
     * avro-confluent}; every malformed value fails with a {@link
     * io.karrow.flink.nativebridge.KarrowNativeException} naming the schema id.
     */
    @Override
    public RowData deserialize(byte[] message) throws IOException {
        if (message == null) {
            return null;
        }
        if (decoder == null) {
            openDecoder();
        }
        byte[] image = KarrowNative.avroDecodeOne(decoder.get(), message);
        BinaryRowData row = new BinaryRowData(rowType.getFieldCount());
        row.pointTo(MemorySegmentFactory.wrap(image), 0, image.length);
        return toGeneric == null ? row : toGeneric.toGeneric(row);
    }

    /**
     * Opens a separate native decoder for batches (used by the {@code kafka-native} source); its rows
     * are always {@link BinaryRowData}. The caller owns and closes it.
     */
    @Override
    public ValueBatchDecoder createBatchDecoder() throws IOException {
        return new AvroConfluentNativeBatchDecoder(NativeHandle.openAvroDecoder(config.toConfigJson(rowType)), rowType);
    }

    /** Frees the native decoder now; the next {@code open} or {@code deserialize} opens a new one. */
    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
            decoder = null;
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

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        AvroConfluentNativeDeserializationSchema that = (AvroConfluentNativeDeserializationSchema) o;
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
