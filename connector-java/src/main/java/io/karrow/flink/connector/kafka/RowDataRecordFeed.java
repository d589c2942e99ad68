package io.karrow.flink.connector.kafka;

import io.karrow.flink.connector.kafka.sink.NativeRecordFeed;
import io.karrow.flink.nativebridge.EncodedRecords;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;

import java.io.IOException;

/**
 * The feed of the {@code kafka-native} table sink in native produce mode: rows are buffered by a
 * {@link KafkaRecordBatchEncoder} (projected as Flink's {@code DynamicKafkaRecordSerializationSchema}
 * projects them), encoded with one native call per batch for the values (and the keys) and written
 * straight into an {@link EncodedRecords} batch, which goes to the native producer in one call. No
 * Java object is made per record.
 */
final class RowDataRecordFeed implements NativeRecordFeed<RowData> {

    private static final long serialVersionUID = 1L;

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
        return new Feeder<>() {
            private long bytes;

            @Override
            public int write(RowData row, NativeProducerSession producer) throws IOException {
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
