package io.karrow.flink.connector.kafka;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The {@code kafka-native} source's own metrics, in the group {@code karrow} under the source
 * reader's metric group (next to the stock {@code KafkaSourceReader} metrics, which keep working).
 *
 * <ul>
 *   <li>{@code numRecordsDecoded}: Kafka records decoded (all paths);
 *   <li>{@code numBytesDecoded}: value bytes decoded;
 *   <li>{@code numBatches}: decode batches (one per split per poll);
 *   <li>{@code numNativeBatches}: of those, decoded by one native call;
 *   <li>{@code decodeTimeNanos}: time spent decoding on the fetcher thread (native call and row
 *       assembly);
 *   <li>{@code nativeDecodeTimeNanos}: time spent inside native batch decode calls;
 *   <li>{@code numRecordsFetchedNatively}: records read by the native fetch ({@code 'scan.fetch-mode' =
 *       'native'}), 0 when Kafka's Java consumer fetches;
 *   <li>{@code numFusedBatches}: of the native batches, those that also ran a fused Calc (karrow's
 *       operator core: decode and Calc in one native call);
 *   <li>{@code numFusedRowsEmitted}: the rows those calls kept and emitted (the Calc's output);
 *   <li>{@code numFusedRecordsEncoded}: of the fused batches, the records fully fused calls encoded
 *       with the sink's formats (full fusion: emitted as encoded batches, not rows);
 *   <li>{@code batchSize}: histogram of records per batch.
 * </ul>
 * Written by the fetcher thread only.
 */
final class KafkaNativeSourceMetrics {

    static final String GROUP = "karrow";

    final Counter recordsDecoded;
    final Counter bytesDecoded;
    final Counter batches;
    final Counter nativeBatches;
    final Counter decodeTimeNanos;
    final Counter nativeDecodeTimeNanos;
    final Counter recordsFetchedNatively;
    final Counter fusedBatches;
    final Counter fusedRowsEmitted;
    final Counter fusedRecordsEncoded;
    final Histogram batchSize;

    KafkaNativeSourceMetrics(MetricGroup readerGroup) {
        MetricGroup group = readerGroup.addGroup(GROUP);
        recordsDecoded = group.counter("numRecordsDecoded", new ThreadSafeSimpleCounter());
        bytesDecoded = group.counter("numBytesDecoded", new ThreadSafeSimpleCounter());
        batches = group.counter("numBatches", new ThreadSafeSimpleCounter());
        nativeBatches = group.counter("numNativeBatches", new ThreadSafeSimpleCounter());
        decodeTimeNanos = group.counter("decodeTimeNanos", new ThreadSafeSimpleCounter());
        nativeDecodeTimeNanos = group.counter("nativeDecodeTimeNanos", new ThreadSafeSimpleCounter());
        recordsFetchedNatively = group.counter("numRecordsFetchedNatively", new ThreadSafeSimpleCounter());
        fusedBatches = group.counter("numFusedBatches", new ThreadSafeSimpleCounter());
        fusedRowsEmitted = group.counter("numFusedRowsEmitted", new ThreadSafeSimpleCounter());
        fusedRecordsEncoded = group.counter("numFusedRecordsEncoded", new ThreadSafeSimpleCounter());
        batchSize = group.histogram("batchSize", new DescriptiveStatisticsHistogram(1024));
    }
}
