package io.karrow.flink.connector.kafka.sink;

import io.karrow.flink.nativebridge.EncodedRecords;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.MetricGroup;

import java.io.IOException;

/**
 * The feed of a sink whose elements are already encoded record batches ({@link EncodedRecords},
 * e.g. from a fused Kafka-to-Kafka pipeline, `docs/jni-contract.md`, "Native produce"): each batch
 * goes to the native producer as it is, in one native call, with no object per record. The batch
 * is read during {@code write} only, so its owner may clear and refill it afterwards.
 */
public final class EncodedBatchFeed implements NativeRecordFeed<EncodedRecords> {

    private static final long serialVersionUID = 1L;

    @Override
    public Feeder<EncodedRecords> open(SerializationSchema.InitializationContext context, MetricGroup metricGroup) {
        return new Feeder<>() {
            private long bytes;

            @Override
            public int write(EncodedRecords batch, NativeProducerSession producer) throws IOException {
                producer.send(batch);
                bytes += batch.recordBytes();
                return batch.count();
            }

            @Override
            public int flush(NativeProducerSession producer) {
                return 0;
            }

            @Override
            public long bytesOut() {
                return bytes;
            }

            @Override
            public void close() {}
        };
    }
}
