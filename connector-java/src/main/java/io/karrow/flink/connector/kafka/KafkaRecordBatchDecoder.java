package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.KarrowNativeException;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
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

    private final ListCollector keyRows = new ListCollector();
    private final ListCollector valueRows = new ListCollector();
    private final List<RowData> produced = new ArrayList<>();

    KafkaRecordBatchDecoder(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            KafkaNativeSourceMetrics metrics) throws IOException {
        this(keyDeserialization, valueDeserialization, assembler, metrics, null);
    }

    private KafkaRecordBatchDecoder(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            KafkaNativeSourceMetrics metrics,
            @Nullable ValueBatchDecoder fusedDecoder) throws IOException {
        this.keyDeserialization = keyDeserialization;
        this.valueDeserialization = valueDeserialization;
        this.assembler = assembler;
        this.metrics = metrics;
        this.fused = fusedDecoder != null;
        if (fusedDecoder != null) {
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
        return new KafkaRecordBatchDecoder(null, valueDeserialization, assembler, metrics, fusedDecoder);
    }

    /** Whether values are decoded by one native call per batch (else per record by the format). */
    boolean isBatched() {
        return batchDecoder != null;
    }

    /** Decodes {@code records} (one split, in offset order) into as many decoded records, or fewer after a failure. */
    List<DecodedKafkaRecord> decode(List<ConsumerRecord<byte[], byte[]>> records) {
        if (batchDecoder != null) {
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
                metrics.fusedRowsEmitted.inc(batchRows.rowCount());
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

    /** Frees the batch decoder and its buffer. */
    @Override
    public void close() {
        if (batchDecoder != null) {
            batchDecoder.close();
            values.close();
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
