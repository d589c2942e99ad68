package io.karrow.flink.connector.kafka.sink;

import io.karrow.flink.nativebridge.EncodedRecords;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.MetricGroup;

import java.io.IOException;
import java.io.Serializable;

/**
 * How the elements a native sink writer receives reach the native producer as {@link
 * EncodedRecords}: table rows are buffered and encoded in batches by the table's formats ({@code
 * RowDataRecordFeed}); a fused pipeline's batches arrive encoded and go over as they are ({@link
 * EncodedBatchFeed}).
 *
 * @param <IN> the sink's input type
 */
public interface NativeRecordFeed<IN> extends Serializable {

    /**
     * Opens the feed of one writer (the formats' encoders, buffers); {@code metricGroup} is the
     * writer's, where the feed's encode metrics go ({@code NativeEncodeMetrics}).
     */
    Feeder<IN> open(SerializationSchema.InitializationContext context, MetricGroup metricGroup) throws Exception;

    /** One writer's feed. Not thread-safe. */
    interface Feeder<IN> extends AutoCloseable {

        /**
         * Takes one element: buffers it, or (a batch being full, or the element a batch) hands
         * records to {@code producer}. Returns the records handed over by this call.
         */
        int write(IN element, NativeProducerSession producer) throws IOException;

        /** Hands everything buffered to {@code producer}; returns the records handed over. */
        int flush(NativeProducerSession producer) throws IOException;

        /** Key, value and header bytes handed over so far (the {@code numBytesOut} metric). */
        long bytesOut();

        @Override
        void close();
    }
}
