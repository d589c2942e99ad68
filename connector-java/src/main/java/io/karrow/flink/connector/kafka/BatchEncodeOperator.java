package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.serialization.RuntimeContextInitializationContextAdapters;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;

/**
 * Buffers the rows of a {@code kafka-native} sink and encodes them in batches ({@link
 * KafkaRecordBatchEncoder}), emitting one {@link PreEncodedRecord} per row, in order, to Flink's
 * {@code KafkaSink} downstream.
 *
 * <p>The buffer is flushed when it holds {@code maxRows} rows or {@code maxBytes} bytes of row
 * images, before every checkpoint barrier ({@link #prepareSnapshotPreBarrier}: every row received
 * before the barrier reaches the Kafka writer before the writer flushes or pre-commits for that
 * checkpoint, so no delivery guarantee is weakened and the operator has no state), at end of input,
 * and by a processing-time timer every {@code flushIntervalMillis} so latency stays bounded.
 */
public final class BatchEncodeOperator extends AbstractStreamOperator<PreEncodedRecord>
        implements OneInputStreamOperator<RowData, PreEncodedRecord>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final KafkaRecordEncoderSpec spec;
    private final int maxRows;
    private final long maxBytes;
    private final long flushIntervalMillis;

    private transient KafkaRecordBatchEncoder encoder;
    private transient StreamRecord<PreEncodedRecord> reuse;

    BatchEncodeOperator(KafkaRecordEncoderSpec spec, int maxRows, long maxBytes, long flushIntervalMillis) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1, got " + maxRows);
        }
        this.spec = spec;
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
        this.flushIntervalMillis = flushIntervalMillis;
    }

    @Override
    public void open() throws Exception {
        super.open();
        encoder = KafkaRecordBatchEncoder.open(
                spec,
                RuntimeContextInitializationContextAdapters.serializationAdapter(
                        getRuntimeContext(), metricGroup -> metricGroup.addGroup("user")),
                getMetricGroup());
        reuse = new StreamRecord<>(null);
        if (flushIntervalMillis > 0) {
            scheduleFlush();
        }
    }

    private void scheduleFlush() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + flushIntervalMillis, this::onFlushTimer);
    }

    private void onFlushTimer(long timestamp) throws Exception {
        flush();
        scheduleFlush();
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        encoder.add(element.getValue());
        if (encoder.size() >= maxRows || encoder.bufferedBytes() >= maxBytes) {
            flush();
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        flush();
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    private void flush() throws Exception {
        if (encoder != null && encoder.size() > 0) {
            encoder.flush(record -> output.collect(reuse.replace(record)));
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (encoder != null) {
                encoder.close();
                encoder = null;
            }
        } finally {
            super.close();
        }
    }
}
