package io.karrow.flink.formats;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;

import java.util.Map;
import java.util.WeakHashMap;

/**
 * What a native format's per-record decoding did ({@code DeserializationSchema#deserialize}, as any
 * connector calls it: Flink's {@code kafka} and {@code filesystem} connectors), in the group {@code
 * karrow} under the metric group of the schema's {@code open} context (Flink's Kafka source: the
 * reader's {@code deserializer} group). The twin of {@link NativeEncodeMetrics}; the {@code
 * kafka-native} source's batches count in its own metrics, not here.
 *
 * <ul>
 *   <li>{@code numValuesDecodedNatively}: values that native code decoded, one per call (a key
 *       schema and a value schema count one each), also those that gave no row (a tombstone, a value
 *       skipped under {@code ignore-parse-errors}); not those that failed;
 *   <li>{@code numRowsDecodedNatively}: the rows those values gave (a JSON top-level array gives
 *       several);
 *   <li>{@code nativeValueDecodeTimeNanos}: time spent inside those native calls.
 * </ul>
 * One instance per metric group: the key and value schemas of one reader, and a second {@code open},
 * share it. A metric group belongs to one subtask, whose reading thread alone decodes, so the
 * counters are plain {@link SimpleCounter}s.
 */
public final class NativeDecodeMetrics {

    private static final Map<MetricGroup, NativeDecodeMetrics> BY_GROUP = new WeakHashMap<>();

    private final Counter values;
    private final Counter rows;
    private final Counter nanos;

    private NativeDecodeMetrics(MetricGroup group) {
        this.values = group.counter("numValuesDecodedNatively", new SimpleCounter());
        this.rows = group.counter("numRowsDecodedNatively", new SimpleCounter());
        this.nanos = group.counter("nativeValueDecodeTimeNanos", new SimpleCounter());
    }

    /** The metrics under {@code parent} (its {@code karrow} group), made on first use. */
    public static NativeDecodeMetrics of(MetricGroup parent) {
        MetricGroup group = parent.addGroup(NativeEncodeMetrics.GROUP);
        synchronized (BY_GROUP) {
            return BY_GROUP.computeIfAbsent(group, NativeDecodeMetrics::new);
        }
    }

    /** One value decoded by one native call of {@code nanos}. */
    public void recordValue(long nanos) {
        this.values.inc();
        this.nanos.inc(nanos);
    }

    /** One row emitted from a natively decoded value. */
    public void recordRow() {
        this.rows.inc();
    }
}
