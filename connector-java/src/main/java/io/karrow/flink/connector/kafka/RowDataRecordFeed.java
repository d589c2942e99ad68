package io.karrow.flink.connector.kafka;

import io.karrow.flink.connector.kafka.sink.NativeRecordFeed;
import io.karrow.flink.nativebridge.EncodedRecords;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeEncodedBatch;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.table.data.RowData;

import java.io.IOException;

/**
 * The feed of the {@code kafka-native} table sink in native produce mode: rows are buffered by a
 * {@link KafkaRecordBatchEncoder} (projected as Flink's {@code DynamicKafkaRecordSerializationSchema}
 * projects them), encoded with one native call per batch for the values (and the keys) and written
 * straight into an {@link EncodedRecords} batch, which goes to the native producer in one call. No
 * Java object is made per record.
 *
 * <p>Full fusion: an {@link EncodedBatchRow} (the encoded records of one fetched batch, emitted by
 * a fully fused {@code kafka-native} source through the chained Calc slot) is not a row: what was
 * buffered before it is flushed, then its batch is handed to the producer natively in one call
 * ({@link NativeProducerSession#handOver}) and freed, on every path. Its records are counted in
 * {@code karrow.numRecordsProducedFused}; they never pass the encoder (whose metrics count the rows
 * of the per-row path only).
 */
final class RowDataRecordFeed implements NativeRecordFeed<RowData> {

    private static final long serialVersionUID = 1L;

    /** The writer's metric group of karrow's metrics (as the writer's own). */
    static final String METRIC_GROUP = "karrow";

    /** Records of fully fused batches handed to the native producer. */
    static final String RECORDS_PRODUCED_FUSED = "numRecordsProducedFused";

    private final KafkaRecordEncoderSpec spec;
    private final int maxRows;
    private final long maxBytes;

    RowDataRecordFeed(KafkaRecordEncoderSpec spec, int maxRows, long maxBytes) {
        this.spec = spec;
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
    }

    @Override
    public Feeder<RowData> open(SerializationSchema.InitializationContext context, MetricGroup metricGroup)
            throws Exception {
        KafkaRecordBatchEncoder encoder = KafkaRecordBatchEncoder.open(spec, context, metricGroup);
        EncodedRecords records = new EncodedRecords();
        Counter producedFused =
                metricGroup.addGroup(METRIC_GROUP).counter(RECORDS_PRODUCED_FUSED, new ThreadSafeSimpleCounter());
        return new Feeder<>() {
            private long bytes;

            @Override
            public int write(RowData row, NativeProducerSession producer) throws IOException {
                if (row instanceof EncodedBatchRow) {
                    return flush(producer) + handOver((EncodedBatchRow) row, producer);
                }
                encoder.add(row);
                if (encoder.size() >= maxRows || encoder.bufferedBytes() >= maxBytes) {
                    return flush(producer);
                }
                return 0;
            }

            @Override
            public int flush(NativeProducerSession producer) throws IOException {
                if (encoder.size() == 0) {
                    return 0;
                }
                records.clear();
                IOException failure = null;
                try {
                    encoder.flushInto(records);
                } catch (IOException e) {
                    failure = e;
                }
                // The rows encoded before a failing one are sent, as the stock sink sends them.
                producer.send(records);
                bytes += records.recordBytes();
                if (failure != null) {
                    throw failure;
                }
                return records.count();
            }

            private int handOver(EncodedBatchRow carrier, NativeProducerSession producer) throws IOException {
                try (NativeEncodedBatch batch = carrier.take()) {
                    int handed;
                    try {
                        handed = producer.handOver(batch);
                    } catch (KarrowNativeException e) {
                        // A batch carrying a record's failure appended the records before it (what
                        // the stock job produced when it failed at that record); the job fails here.
                        throw new IOException(carrier.failedOffset() >= 0
                                ? "The fully fused pipeline failed on the Kafka record at " + carrier.where()
                                        + ", offset " + carrier.failedOffset() + ": " + e.getMessage()
                                : "Handing the encoded records of " + carrier.where() + " to the native producer"
                                        + " failed: " + e.getMessage(), e);
                    }
                    producedFused.inc(handed);
                    bytes += batch.recordBytes();
                    return handed;
                }
            }

            @Override
            public long bytesOut() {
                return bytes;
            }

            @Override
            public void close() {
                try {
                    encoder.close();
                } finally {
                    records.close();
                }
            }
        };
    }
}
