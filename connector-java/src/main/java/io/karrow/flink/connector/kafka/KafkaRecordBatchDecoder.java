package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.NativeDeserializationSchema;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncodedBatch;
import io.karrow.flink.nativebridge.NativeHandle;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the records one poll fetched for one split into {@link DecodedKafkaRecord}s, on the
 * fetcher thread.
 *
 * <p>When the value format is batch-capable ({@link BatchDeserializationSchema}, e.g. {@code
 * avro-confluent-native} or {@code json-native}) all values are copied into one reused {@link
 * DirectValueBuffer} and decoded by one native call, each value yielding 0..n rows; otherwise
 * (stock formats such as {@code avro-confluent} or {@code json}) the format's own {@code
 * deserialize(byte[], Collector)} runs per record. Keys always use the key format per record. Rows
 * are then assembled with key and metadata columns exactly as the stock {@code kafka} source does
 * (spec §5.2).
 *
 * <p>A record that cannot be decoded becomes a failed {@link DecodedKafkaRecord} naming its topic,
 * partition and offset; the records before it keep their rows, the records after it are dropped
 * (the job fails when the failed record is emitted, exactly where the stock source fails).
 *
 * <p>Owned by one {@link KafkaNativeSplitReader}; not thread-safe.
 */
final class KafkaRecordBatchDecoder implements AutoCloseable {

    private final @Nullable DeserializationSchema<RowData> keyDeserialization;
    private final DeserializationSchema<RowData> valueDeserialization;
    private final KafkaRowAssembler assembler;
    private final KafkaNativeSourceMetrics metrics;
    private final @Nullable ValueBatchDecoder batchDecoder;
    private final DirectValueBuffer values;
    /** Whether the batch decoder also runs a fused Calc (its rows are the Calc's output). */
    private final boolean fused;
    /** Full fusion: the session running decode, Calc and the sink's encoders per batch (else null). */
    private final @Nullable NativeHandle encodeSession;
    /** Full fusion: the arity of the Calc's output rows the encoded batches stand for. */
    private final int encodedArity;

    private final ListCollector keyRows = new ListCollector();
    private final ListCollector valueRows = new ListCollector();
    private final List<RowData> produced = new ArrayList<>();

    KafkaRecordBatchDecoder(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            KafkaNativeSourceMetrics metrics) throws IOException {
        this(keyDeserialization, valueDeserialization, assembler, metrics, null, null, 0);
    }

    private KafkaRecordBatchDecoder(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            KafkaNativeSourceMetrics metrics,
            @Nullable ValueBatchDecoder fusedDecoder,
            @Nullable NativeHandle encodeSession,
            int encodedArity) throws IOException {
        this.keyDeserialization = keyDeserialization;
        this.valueDeserialization = valueDeserialization;
        this.assembler = assembler;
        this.metrics = metrics;
        this.fused = fusedDecoder != null;
        this.encodeSession = encodeSession;
        this.encodedArity = encodedArity;
        if (encodeSession != null) {
            this.batchDecoder = null;
            this.values = new DirectValueBuffer();
        } else if (fusedDecoder != null) {
            this.batchDecoder = fusedDecoder;
            this.values = new DirectValueBuffer();
        } else if (valueDeserialization instanceof BatchDeserializationSchema) {
            this.batchDecoder = ((BatchDeserializationSchema) valueDeserialization).createBatchDecoder();
            this.values = new DirectValueBuffer();
        } else {
            this.batchDecoder = null;
            this.values = null;
        }
    }

    /**
     * A decoder of a fused scan (no key format, pass-through rows): {@code fusedDecoder} decodes each
     * batch and runs the fused Calc on it, so the rows are the Calc's output rows. Takes ownership of
     * {@code fusedDecoder}.
     */
    static KafkaRecordBatchDecoder fused(
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            KafkaNativeSourceMetrics metrics,
            ValueBatchDecoder fusedDecoder) throws IOException {
        if (!assembler.isPassThrough()) {
            fusedDecoder.close();
            throw new IllegalArgumentException("a fused scan emits the Calc's rows as they are");
        }
        return new KafkaRecordBatchDecoder(null, valueDeserialization, assembler, metrics, fusedDecoder, null, 0);
    }

    /**
     * A decoder of a fully fused scan (full fusion: no key format, pass-through rows): {@code session}
     * (an operator session whose plan has the sink's encode stage) decodes each batch, runs the Calc
     * and encodes the kept rows with the sink's formats; {@link #decode} then yields, per run of
     * records of one split, one record carrying an {@link EncodedBatchRow}. Takes ownership of
     * {@code session}.
     */
    static KafkaRecordBatchDecoder fullyFused(
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            KafkaNativeSourceMetrics metrics,
            NativeHandle session,
            int arity) throws IOException {
        if (!assembler.isPassThrough()) {
            session.close();
            throw new IllegalArgumentException("a fully fused scan emits the Calc's rows as they are");
        }
        return new KafkaRecordBatchDecoder(null, valueDeserialization, assembler, metrics, null, session, arity);
    }

    /** Whether values are decoded by one native call per batch (else per record by the format). */
    boolean isBatched() {
        return batchDecoder != null || encodeSession != null;
    }

    /** Whether this decoder emits encoded batches (full fusion), not rows. */
    boolean isFullyFused() {
        return encodeSession != null;
    }

    /** Decodes {@code records} (one split, in offset order) into as many decoded records, or fewer after a failure. */
    List<DecodedKafkaRecord> decode(List<ConsumerRecord<byte[], byte[]>> records) {
        if (isBatched()) {
            values.clear();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                values.add(record.value());
            }
        }
        return decode(records, values);
    }

    /**
     * Decodes {@code records} whose values a native fetch already laid out in {@code laidOut}, one per
     * record in the same order (the records themselves carry no value bytes then, unless the value
     * format is not batch-capable).
     */
    List<DecodedKafkaRecord> decode(List<ConsumerRecord<byte[], byte[]>> records, DirectValueBuffer laidOut) {
        if (encodeSession != null) {
            return encode(records, laidOut);
        }
        int count = records.size();
        List<DecodedKafkaRecord> out = new ArrayList<>(count);
        if (count == 0) {
            return out;
        }
        long start = System.nanoTime();
        long bytes = 0;
        DecodedValues batchRows = null;
        int failedAt = count;
        IOException batchFailure = null;
        if (batchDecoder != null) {
            DirectValueBuffer values = laidOut;
            bytes = values.dataSize();
            try {
                batchRows = batchDecoder.decode(values, count);
            } catch (IOException e) {
                int index = recordIndex(e, count);
                failedAt = index >= 0 ? index : 0;
                batchFailure = index >= 0
                        ? e
                        : new IOException("Decoding the batch of " + count + " values at offsets "
                                + records.get(0).offset() + ".." + records.get(count - 1).offset() + " failed: "
                                + e.getMessage(), e);
                // The values before the failing one may fail too: a fused Calc runs only once the
                // whole batch has decoded, so a row it fails on can come from an earlier record than
                // the value that did not decode. The stock source fails at the earlier record.
                while (true) {
                    try {
                        batchRows = decodePrefix(values, failedAt);
                        break;
                    } catch (IOException earlier) {
                        int at = recordIndex(earlier, failedAt);
                        if (at < 0) {
                            throw new IllegalStateException(
                                    "Values before the failing record did not decode again", earlier);
                        }
                        failedAt = at;
                        batchFailure = earlier;
                    }
                }
            }
            metrics.nativeBatches.inc();
            metrics.nativeDecodeTimeNanos.inc(System.nanoTime() - start);
            if (fused) {
                metrics.fusedBatches.inc();
                metrics.fusedRowsEmitted.inc(keptRows(batchRows));
            }
        }
        for (int i = 0; i < count; i++) {
            ConsumerRecord<byte[], byte[]> record = records.get(i);
            try {
                out.add(decodeOne(record, i == failedAt ? batchFailure : null, batchRows, i));
            } catch (Exception e) {
                out.add(DecodedKafkaRecord.failed(record, failure(record, e)));
                break;
            }
            if (batchDecoder == null && record.value() != null) {
                bytes += record.value().length;
            }
        }
        metrics.recordsDecoded.inc(out.size());
        metrics.bytesDecoded.inc(bytes);
        metrics.batches.inc();
        metrics.batchSize.update(count);
        metrics.decodeTimeNanos.inc(System.nanoTime() - start);
        return out;
    }

    /**
     * Full fusion: per run of consecutive records of one split, one native call decodes their values,
     * runs the Calc and encodes the kept rows; the run becomes one decoded record, the run's last
     * record carrying the {@link EncodedBatchRow} (so the emitter advances the split's offset past the
     * run, exactly as after emitting the run's rows one by one). A run whose batch carries a value's
     * failure is carried by that value's record instead (the records after it are dropped, the job
     * fails when the sink hands the batch over, after appending the records before it), and the runs
     * after it are dropped, as the per-row decoder drops the records after a failed one.
     */
    private List<DecodedKafkaRecord> encode(List<ConsumerRecord<byte[], byte[]>> records, DirectValueBuffer laidOut) {
        int count = records.size();
        List<DecodedKafkaRecord> out = new ArrayList<>();
        if (count == 0) {
            return out;
        }
        long start = System.nanoTime();
        long dataOffset = 0;
        int from = 0;
        int through = 0;
        while (from < count) {
            ConsumerRecord<byte[], byte[]> first = records.get(from);
            int to = from;
            long runBytes = 0;
            while (to < count && records.get(to).partition() == first.partition()
                    && records.get(to).topic().equals(first.topic())) {
                runBytes += Math.max(laidOut.length(to), 0);
                to++;
            }
            NativeEncodedBatch batch;
            try {
                batch = NativeEncodedBatch.run(encodeSession, laidOut, dataOffset, from, to);
            } catch (KarrowNativeException e) {
                out.add(DecodedKafkaRecord.failed(first, new IOException("The fully fused pipeline failed on the "
                        + (to - from) + " records at topic '" + first.topic() + "', partition " + first.partition()
                        + ", offsets " + first.offset() + ".." + records.get(to - 1).offset() + ": " + e.getMessage(),
                        e)));
                through = to;
                break;
            }
            int failed = batch.failedValue();
            ConsumerRecord<byte[], byte[]> carrier = records.get(failed >= 0 ? from + failed : to - 1);
            out.add(DecodedKafkaRecord.of(carrier, new EncodedBatchRow(batch, encodedArity, first.topic(),
                    first.partition(), failed >= 0 ? carrier.offset() : -1)));
            metrics.fusedRecordsEncoded.inc(batch.records());
            metrics.nativeBatches.inc();
            metrics.fusedBatches.inc();
            metrics.batches.inc();
            metrics.batchSize.update(to - from);
            metrics.bytesDecoded.inc(runBytes);
            if (failed >= 0) {
                through = from + failed + 1;
                break;
            }
            through = to;
            dataOffset += runBytes;
            from = to;
        }
        long took = System.nanoTime() - start;
        metrics.recordsDecoded.inc(through);
        metrics.nativeDecodeTimeNanos.inc(took);
        metrics.decodeTimeNanos.inc(took);
        return out;
    }

    /**
     * The Calc's output rows of a fused batch, without its watermark rows (row kind {@code DELETE}:
     * they stand for rows the filter dropped, for the source's watermark generator, and the operator
     * in the Calc's place drops them).
     */
    private static long keptRows(DecodedValues rows) {
        long kept = 0;
        for (int r = 0; r < rows.rowCount(); r++) {
            if (rows.row(r).getRowKind() != RowKind.DELETE) {
                kept++;
            }
        }
        return kept;
    }

    /**
     * Re-decodes the values before a failing one, so they are emitted as the stock source would; a
     * failure names a record of the prefix (see the caller).
     */
    private DecodedValues decodePrefix(DirectValueBuffer values, int length) throws IOException {
        if (length == 0) {
            return DecodedValues.empty();
        }
        return batchDecoder.decode(values, length);
    }

    /** The index of the record a native failure names, if it is one of the first {@code count}; else -1. */
    private static int recordIndex(IOException e, int count) {
        int index = e instanceof KarrowNativeException ? ((KarrowNativeException) e).getRecordIndex() : -1;
        return index >= 0 && index < count ? index : -1;
    }

    private DecodedKafkaRecord decodeOne(
            ConsumerRecord<byte[], byte[]> record, @Nullable IOException valueFailure, @Nullable DecodedValues batchRows,
            int index)
            throws Exception {
        // Key first, as the stock source does (so a bad key is reported before a bad value).
        keyRows.rows.clear();
        if (keyDeserialization != null) {
            keyDeserialization.deserialize(record.key(), keyRows);
        }
        if (valueFailure != null) {
            throw valueFailure;
        }
        valueRows.rows.clear();
        if (batchRows != null) {
            for (int r = batchRows.rowStart(index); r < batchRows.rowEnd(index); r++) {
                valueRows.rows.add(batchRows.row(r));
            }
        } else {
            valueDeserialization.deserialize(record.value(), valueRows);
        }
        if (assembler.isPassThrough()) {
            return DecodedKafkaRecord.of(record, valueRows.rows);
        }
        produced.clear();
        for (RowData valueRow : valueRows.rows) {
            assembler.assemble(record, keyRows.rows, valueRow, produced);
        }
        return DecodedKafkaRecord.of(record, produced);
    }

    private static IOException failure(ConsumerRecord<byte[], byte[]> record, Exception cause) {
        return new IOException("Failed to deserialize the Kafka record at topic '" + record.topic() + "', partition "
                + record.partition() + ", offset " + record.offset() + ": " + cause.getMessage(), cause);
    }

    /**
     * Frees the batch decoder (or the fully fused session) and its buffer, and the key and value
     * schemas' own native decoders: a native format's schema opens one when it is opened (see {@link
     * KafkaRecordDecoderSpec#open}); it has no close hook in Flink's API, so without this its decoder
     * would live until the garbage collector ran its cleaner, after the split reader was gone.
     */
    @Override
    public void close() {
        try {
            if (batchDecoder != null) {
                batchDecoder.close();
                values.close();
            }
            if (encodeSession != null) {
                encodeSession.close();
                values.close();
            }
        } finally {
            closeSchema(keyDeserialization);
            closeSchema(valueDeserialization);
        }
    }

    /** Frees the native decoder of a native format's schema (a no-op for other schemas). */
    private static void closeSchema(@Nullable DeserializationSchema<RowData> schema) {
        if (schema instanceof NativeDeserializationSchema) {
            ((NativeDeserializationSchema<?>) schema).close();
        }
    }

    /** Collects rows into a reused list. */
    private static final class ListCollector implements Collector<RowData> {
        final List<RowData> rows = new ArrayList<>();

        @Override
        public void collect(RowData record) {
            rows.add(record);
        }

        @Override
        public void close() {}
    }
}
