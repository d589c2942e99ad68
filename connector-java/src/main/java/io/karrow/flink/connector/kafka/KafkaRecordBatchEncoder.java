package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.NativeEncodeMetrics;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.EncodedRecords;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.rows.BinaryRowImages;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import org.apache.kafka.common.header.Header;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Buffers consumed sink rows and encodes them with one batch call per buffer for the values (and for
 * the keys when the key format is batch-capable too): into {@link PreEncodedRecord}s for Flink's
 * {@code KafkaSink} ({@link #flush(Consumer)}), or straight into an {@link EncodedRecords} batch for
 * the native producer ({@link #flushInto}, no object per record).
 *
 * <p>{@link #add} copies what it needs from the row at once (the key and value {@code BinaryRowData}
 * images into direct memory, the metadata as immutable values, the row image for a partitioner), so
 * upstream operators may reuse their row objects. Rows are projected exactly as Flink's {@code
 * DynamicKafkaRecordSerializationSchema} projects them: the key row has kind INSERT; in upsert mode
 * DELETE and UPDATE_BEFORE rows are tombstones (no value) and other values are re-kinded to INSERT.
 * A key format that is not batch-capable is called per row in {@link #add}.
 *
 * <p>When a row cannot be encoded, the records of the rows before it are emitted first (as the
 * stock sink would have sent them) and the error is thrown. Not thread-safe.
 */
final class KafkaRecordBatchEncoder implements AutoCloseable {

    private final KafkaRecordEncoderSpec spec;
    private final ValueBatchEncoder valueEncoder;
    private final @Nullable ValueBatchEncoder keyEncoder;
    private final @Nullable SerializationSchema<RowData> perRecordKeySerialization;
    private final BinaryRowImages valueImages;
    private final @Nullable BinaryRowImages keyImages;
    private final @Nullable BinaryRowImages consumedImages;
    private final RowData.FieldGetter[] keyGetters;
    private final RowData.FieldGetter[] valueGetters;
    private final boolean valueIsWholeRow;
    private final int topicPos;
    private final int headersPos;
    private final int timestampPos;

    private final DirectValueBuffer valueBuffer = new DirectValueBuffer();
    private final DirectValueBuffer keyBuffer = new DirectValueBuffer();
    private int[] valueOffsets = new int[0];
    private int[] keyOffsets = new int[0];

    private final NativeEncodeMetrics metrics;

    // Per buffered row.
    private int count;
    private String[] topics = new String[0];
    private byte[][] keys = new byte[0][];
    private boolean[] tombstones = new boolean[0];
    private Long[] timestamps = new Long[0];
    private Object[] headers = new Object[0];
    private byte[][] rowImages = new byte[0][];

    private KafkaRecordBatchEncoder(
            KafkaRecordEncoderSpec spec,
            ValueBatchEncoder valueEncoder,
            @Nullable ValueBatchEncoder keyEncoder,
            @Nullable SerializationSchema<RowData> perRecordKeySerialization,
            NativeEncodeMetrics metrics) {
        this.spec = spec;
        this.metrics = metrics;
        this.valueEncoder = valueEncoder;
        this.keyEncoder = keyEncoder;
        this.perRecordKeySerialization = perRecordKeySerialization;
        this.valueImages = new BinaryRowImages(
                valueEncoder.rowType(), !valueEncoder.acceptsNullMapKeys(), valueEncoder.keepsJavaDetail());
        this.keyImages = keyEncoder == null
                ? null
                : new BinaryRowImages(
                        keyEncoder.rowType(), !keyEncoder.acceptsNullMapKeys(), keyEncoder.keepsJavaDetail());
        this.consumedImages = spec.keepRowImage ? new BinaryRowImages(spec.consumedRowType) : null;
        this.keyGetters = getters(spec, spec.keyProjection);
        this.valueGetters = getters(spec, spec.valueProjection);
        this.valueIsWholeRow = isIdentity(spec.valueProjection)
                && spec.valueProjection.length == spec.consumedRowType.getFieldCount();
        this.topicPos = spec.position(KafkaWritableMetadata.TOPIC);
        this.headersPos = spec.position(KafkaWritableMetadata.HEADERS);
        this.timestampPos = spec.position(KafkaWritableMetadata.TIMESTAMP);
    }

    /**
     * Opens the value format's batch encoder and the key format's (batch encoder, or the schema
     * itself opened with {@code context} when it is not batch-capable).
     */
    static KafkaRecordBatchEncoder open(
            KafkaRecordEncoderSpec spec, SerializationSchema.InitializationContext context, MetricGroup metricGroup)
            throws Exception {
        ValueBatchEncoder valueEncoder = spec.valueSerialization.createBatchEncoder();
        ValueBatchEncoder keyEncoder = null;
        SerializationSchema<RowData> perRecordKey = null;
        try {
            if (spec.keySerialization instanceof BatchSerializationSchema) {
                keyEncoder = ((BatchSerializationSchema) spec.keySerialization).createBatchEncoder();
            } else if (spec.keySerialization != null) {
                spec.keySerialization.open(context);
                perRecordKey = spec.keySerialization;
            }
        } catch (Exception e) {
            valueEncoder.close();
            throw e;
        }
        return new KafkaRecordBatchEncoder(
                spec, valueEncoder, keyEncoder, perRecordKey, NativeEncodeMetrics.of(metricGroup));
    }

    /** Number of buffered rows. */
    int size() {
        return count;
    }

    /** Bytes of row images buffered in direct memory. */
    long bufferedBytes() {
        return (long) valueBuffer.dataSize() + keyBuffer.dataSize();
    }

    /** Buffers one consumed row, copying everything the record needs. */
    void add(RowData row) {
        ensureCapacity(count + 1);
        RowKind kind = row.getRowKind();
        if (spec.keySerialization != null) {
            RowData keyRow = project(row, RowKind.INSERT, keyGetters);
            if (keyImages != null) {
                keyBuffer.add(keyImages.image(keyRow));
            } else {
                keys[count] = perRecordKeySerialization.serialize(keyRow);
            }
        }
        boolean tombstone = spec.upsertMode && (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE);
        tombstones[count] = tombstone;
        if (!tombstone) {
            RowData valueRow;
            if (spec.upsertMode) {
                valueRow = project(row, RowKind.INSERT, valueGetters);
            } else if (valueIsWholeRow) {
                valueRow = row;
            } else {
                valueRow = project(row, kind, valueGetters);
            }
            valueBuffer.add(valueImages.image(valueRow));
        }
        topics[count] = KafkaWritableMetadata.readTopic(row, topicPos);
        headers[count] = KafkaWritableMetadata.readHeaders(row, headersPos);
        timestamps[count] = KafkaWritableMetadata.readTimestamp(row, timestampPos);
        if (consumedImages != null) {
            byte[] image = consumedImages.image(row);
            rowImages[count] = Arrays.copyOf(image, image.length);
        }
        count++;
    }

    /**
     * Encodes every buffered row and hands the records to {@code out} in input order, then empties
     * the buffer (also when encoding fails).
     */
    void flush(Consumer<PreEncodedRecord> out) throws IOException {
        flushWith(rows -> emit(rows, out));
    }

    /**
     * Encodes every buffered row and appends the records to {@code out} in input order (topic index
     * 0: the native producer writes one topic; partition and, without a {@code timestamp} column,
     * the timestamp left to the producer), then empties the buffer (also when encoding fails).
     */
    void flushInto(EncodedRecords out) throws IOException {
        flushWith(rows -> emitInto(rows, out));
    }

    /** Encodes the first {@code rows} buffered rows and hands them on. */
    private interface Emitter {
        void emit(int rows) throws IOException;
    }

    private void flushWith(Emitter emitter) throws IOException {
        if (count == 0) {
            return;
        }
        try {
            emitter.emit(count);
        } catch (RowEncodeException e) {
            if (e.row > 0) {
                emitter.emit(e.row);
            }
            throw new IOException("Failed to serialize the " + e.what + " of a row for Kafka (row " + e.row
                    + " of a batch of " + count + "): " + e.getCause().getMessage(), e.getCause());
        } finally {
            clear();
        }
    }

    /** The encoded values (and keys, when batch-encoded) of the first {@code rows} buffered rows. */
    private static final class Encoded {
        byte[] values;
        byte[] keys;
    }

    private Encoded encode(int rows) throws IOException {
        int valueCount = 0;
        for (int i = 0; i < rows; i++) {
            if (!tombstones[i]) {
                valueCount++;
            }
        }
        valueOffsets = ensureOffsets(valueOffsets, valueCount);
        long start = System.nanoTime();
        byte[] values;
        try {
            values = valueEncoder.encode(valueBuffer, valueCount, valueOffsets);
        } catch (KarrowNativeException e) {
            throw new RowEncodeException("value", rowOfValue(e.getRecordIndex()), e);
        }
        byte[] encodedKeys = null;
        if (keyEncoder != null) {
            keyOffsets = ensureOffsets(keyOffsets, rows);
            try {
                encodedKeys = keyEncoder.encode(keyBuffer, rows, keyOffsets);
            } catch (KarrowNativeException e) {
                throw new RowEncodeException("key", e.getRecordIndex() < 0 ? 0 : e.getRecordIndex(), e);
            }
        }
        long bytes = valueOffsets[valueCount] - valueOffsets[0];
        if (encodedKeys != null) {
            bytes += keyOffsets[rows] - keyOffsets[0];
        }
        metrics.recordBatch(rows, bytes, System.nanoTime() - start);
        Encoded encoded = new Encoded();
        encoded.values = values;
        encoded.keys = encodedKeys;
        return encoded;
    }

    private void emitInto(int rows, EncodedRecords out) throws IOException {
        Encoded encoded = encode(rows);
        int v = 0;
        for (int i = 0; i < rows; i++) {
            byte[] key = encoded.keys != null ? encoded.keys : keys[i];
            int keyOffset = encoded.keys != null ? keyOffsets[i] : 0;
            int keyLength = encoded.keys != null ? keyOffsets[i + 1] - keyOffsets[i] : key == null ? 0 : key.length;
            byte[] value = null;
            int valueOffset = 0;
            int valueLength = 0;
            if (!tombstones[i]) {
                value = encoded.values;
                valueOffset = valueOffsets[v];
                valueLength = valueOffsets[v + 1] - valueOffsets[v];
                v++;
            }
            @SuppressWarnings("unchecked")
            List<Header> rowHeaders = (List<Header>) headers[i];
            Long timestamp = timestamps[i];
            out.add(EncodedRecords.ANY_PARTITION, 0, key, keyOffset, keyLength, value, valueOffset, valueLength,
                    rowHeaders, timestamp == null ? EncodedRecords.NO_TIMESTAMP : timestamp);
        }
    }

    private void emit(int rows, Consumer<PreEncodedRecord> out) throws IOException {
        Encoded encoded = encode(rows);
        byte[] values = encoded.values;
        byte[] encodedKeys = encoded.keys;
        int v = 0;
        for (int i = 0; i < rows; i++) {
            byte[] key = encodedKeys != null
                    ? Arrays.copyOfRange(encodedKeys, keyOffsets[i], keyOffsets[i + 1])
                    : keys[i];
            byte[] value = null;
            if (!tombstones[i]) {
                value = Arrays.copyOfRange(values, valueOffsets[v], valueOffsets[v + 1]);
                v++;
            }
            @SuppressWarnings("unchecked")
            List<Header> rowHeaders = (List<Header>) headers[i];
            out.accept(new PreEncodedRecord(topics[i], key, value, timestamps[i], rowHeaders, rowImages[i]));
        }
    }

    /** The buffered row holding value {@code valueIndex} (tombstones hold none), 0 when unknown. */
    private int rowOfValue(int valueIndex) {
        if (valueIndex < 0) {
            return 0;
        }
        int v = -1;
        for (int i = 0; i < count; i++) {
            if (!tombstones[i] && ++v == valueIndex) {
                return i;
            }
        }
        return 0;
    }

    private void clear() {
        Arrays.fill(topics, 0, count, null);
        Arrays.fill(keys, 0, count, null);
        Arrays.fill(timestamps, 0, count, null);
        Arrays.fill(headers, 0, count, null);
        Arrays.fill(rowImages, 0, count, null);
        count = 0;
        valueBuffer.clear();
        keyBuffer.clear();
    }

    private void ensureCapacity(int rows) {
        if (topics.length >= rows) {
            return;
        }
        int capacity = Math.max(rows, Math.max(64, topics.length * 2));
        topics = Arrays.copyOf(topics, capacity);
        keys = Arrays.copyOf(keys, capacity);
        tombstones = Arrays.copyOf(tombstones, capacity);
        timestamps = Arrays.copyOf(timestamps, capacity);
        headers = Arrays.copyOf(headers, capacity);
        rowImages = Arrays.copyOf(rowImages, capacity);
    }

    private static int[] ensureOffsets(int[] offsets, int count) {
        return offsets.length >= count + 1 ? offsets : new int[Math.max(count + 1, offsets.length * 2)];
    }

    private static RowData project(RowData row, RowKind kind, RowData.FieldGetter[] getters) {
        GenericRowData projected = new GenericRowData(kind, getters.length);
        for (int i = 0; i < getters.length; i++) {
            projected.setField(i, getters[i].getFieldOrNull(row));
        }
        return projected;
    }

    private static RowData.FieldGetter[] getters(KafkaRecordEncoderSpec spec, int[] projection) {
        return Arrays.stream(projection)
                .mapToObj(pos -> RowData.createFieldGetter(spec.physicalTypes[pos], pos))
                .toArray(RowData.FieldGetter[]::new);
    }

    private static boolean isIdentity(int[] projection) {
        for (int i = 0; i < projection.length; i++) {
            if (projection[i] != i) {
                return false;
            }
        }
        return true;
    }

    /** Frees the encoders and the direct buffers; buffered rows are dropped. */
    @Override
    public void close() {
        clear();
        try {
            valueEncoder.close();
        } finally {
            try {
                if (keyEncoder != null) {
                    keyEncoder.close();
                }
            } finally {
                valueBuffer.close();
                keyBuffer.close();
            }
        }
    }

    /** A failure to encode the row at index {@code row} of the buffer. */
    private static final class RowEncodeException extends IOException {
        private static final long serialVersionUID = 1L;
        final String what;
        final int row;

        RowEncodeException(String what, int row, KarrowNativeException cause) {
            super(cause);
            this.what = what;
            this.row = row;
        }
    }
}
