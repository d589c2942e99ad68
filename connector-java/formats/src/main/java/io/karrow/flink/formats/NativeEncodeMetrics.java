package io.karrow.flink.formats;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

import java.util.Map;
import java.util.WeakHashMap;

/**
 * What native encoding did, in the group {@code karrow} under the metric group it is given: a
 * per-record format's ({@code SerializationSchema} context: the sink writer's {@code user} group),
 * the {@code kafka-native} sink's batch encoder (the writer's group: the batch-encoding Kafka
 * writer's or the native producer's).
 *
 * <ul>
 *   <li>{@code numRecordsEncoded}: in batches, rows encoded (a row's key and value count once); per
 *       record, {@code serialize} calls (a key schema and a value schema count one each);
 *   <li>{@code numBytesEncoded}: bytes of the encoded keys and values;
 *   <li>{@code nativeEncodeTimeNanos}: time spent inside native encode calls;
 *   <li>{@code numBatches} and {@code batchSize} (histogram of rows per native call): only where rows
 *       are encoded in batches (registered on the first batch).
 * </ul>
 * One instance per metric group: the key and value schemas of one writer, and a second {@code open},
 * share it. A metric group belongs to one subtask, whose task thread alone updates it, so the
 * counters are plain {@link SimpleCounter}s (no atomic per record).
 */
public final class NativeEncodeMetrics {

    /** The metric group's name, as the source's metrics. */
    public static final String GROUP = "karrow";

    private static final Map<MetricGroup, NativeEncodeMetrics> BY_GROUP = new WeakHashMap<>();

    private final MetricGroup group;
    private final Counter records;
    private final Counter bytes;
    private final Counter nanos;
    private Counter batches;
    private Histogram batchSize;

    private NativeEncodeMetrics(MetricGroup group) {
        this.group = group;
        this.records = group.counter("numRecordsEncoded", new SimpleCounter());
        this.bytes = group.counter("numBytesEncoded", new SimpleCounter());
        this.nanos = group.counter("nativeEncodeTimeNanos", new SimpleCounter());
    }

    /** The metrics under {@code parent} (its {@code karrow} group), made on first use. */
    public static NativeEncodeMetrics of(MetricGroup parent) {
        MetricGroup group = parent.addGroup(GROUP);
        synchronized (BY_GROUP) {
            return BY_GROUP.computeIfAbsent(group, NativeEncodeMetrics::new);
        }
    }

    /** One row encoded by one native call of {@code nanos}, giving {@code bytes} bytes. */
    public void recordOne(long bytes, long nanos) {
        this.records.inc();
        this.bytes.inc(bytes);
        this.nanos.inc(nanos);
    }

    /**
     * A batch of {@code rows} rows encoded by native calls of {@code nanos} in all, giving {@code
     * bytes} bytes of keys and values.
     */
    public void recordBatch(int rows, long bytes, long nanos) {
        synchronized (this) {
            if (batches == null) {
                batches = group.counter("numBatches", new SimpleCounter());
                batchSize = group.histogram("batchSize", new DescriptiveStatisticsHistogram(1024));
            }
            batches.inc();
            batchSize.update(rows);
        }
        this.records.inc(rows);
        this.bytes.inc(bytes);
        this.nanos.inc(nanos);
    }
}
