package io.karrow.flink.connector.kafka;

import io.karrow.flink.nativebridge.NativeFetchSession;

import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.WindowedCount;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The consumer fetch metrics dashboards watch, for the native fetch, under Kafka's names and in the
 * group Flink's {@code KafkaSourceReader} registers the Java consumer's metrics in ({@code
 * KafkaSourceReader.KafkaConsumer.<name>}): {@code records-lag-max}, {@code fetch-rate}, {@code
 * fetch-total}, {@code fetch-latency-avg}, {@code fetch-latency-max}, {@code bytes-consumed-rate},
 * {@code bytes-consumed-total}, {@code records-consumed-rate}, {@code records-consumed-total}. They are
 * computed with Kafka's own metric classes as Kafka's {@code FetchMetricsManager} defines them (each
 * fetch response's latency in ms into an average, a maximum and a windowed count; bytes and records
 * into meters; the partition lag into a maximum), over {@code metrics.sample.window.ms} × {@code
 * metrics.num.samples} as configured for the consumer. The Java consumer the reader keeps (offsets,
 * metadata, commits) registers its other metrics as Flink's reader would; these names report the
 * native fetch, where the consumer fetches nothing.
 *
 * <p>Bytes are those of the records' keys, values and headers (what {@code numBytesIn} counts
 * natively), where Kafka's consumer counts each record's encoded size with its framing.
 */
final class NativeFetchMetrics implements AutoCloseable {

    /** Kafka's group of these metrics. */
    static final String GROUP = "consumer-fetch-manager-metrics";

    /** The names reported from the native fetch instead of the Java consumer. */
    static final Set<String> NAMES = Set.of("records-lag-max", "fetch-rate", "fetch-total", "fetch-latency-avg",
            "fetch-latency-max", "bytes-consumed-rate", "bytes-consumed-total", "records-consumed-rate",
            "records-consumed-total");

    private final Metrics metrics;
    private final Sensor fetchLatency;
    private final Sensor fetchLatencyMax;
    private final Sensor bytesFetched;
    private final Sensor recordsFetched;
    private final Sensor recordsLag;

    NativeFetchMetrics(Properties props) {
        MetricConfig config = new MetricConfig()
                .samples(intProp(props, CommonClientConfigs.METRICS_NUM_SAMPLES_CONFIG, 2))
                .timeWindow(intProp(props, CommonClientConfigs.METRICS_SAMPLE_WINDOW_MS_CONFIG, 30_000),
                        TimeUnit.MILLISECONDS);
        this.metrics = new Metrics(config);
        this.fetchLatency = metrics.sensor("fetch-latency");
        fetchLatency.add(name("fetch-latency-avg", "The average time taken for a fetch request."), new Avg());
        fetchLatency.add(new Meter(new WindowedCount(),
                name("fetch-rate", "The number of fetch requests per second."),
                name("fetch-total", "The total number of fetch requests.")));
        this.fetchLatencyMax = metrics.sensor("fetch-latency-max");
        fetchLatencyMax.add(name("fetch-latency-max", "The max time taken for any fetch request."), new Max());
        this.bytesFetched = metrics.sensor("bytes-fetched");
        bytesFetched.add(new Meter(
                name("bytes-consumed-rate", "The average number of bytes consumed per second."),
                name("bytes-consumed-total", "The total number of bytes consumed.")));
        this.recordsFetched = metrics.sensor("records-fetched");
        recordsFetched.add(new Meter(
                name("records-consumed-rate", "The average number of records consumed per second."),
                name("records-consumed-total", "The total number of records consumed.")));
        this.recordsLag = metrics.sensor("records-lag");
        recordsLag.add(name("records-lag-max",
                "The maximum lag in terms of number of records for any partition in this window."), new Max());
    }

    private MetricName name(String name, String description) {
        return metrics.metricName(name, GROUP, description);
    }

    /**
     * Registers these metrics in {@code KafkaSourceReader.KafkaConsumer} of {@code readerGroup}, then the
     * other metrics of {@code consumer} there, as Flink's {@code KafkaSourceReaderMetrics} registers a
     * consumer's (by name; where Kafka names several metrics alike, the first one registered is kept, as
     * there).
     */
    void register(MetricGroup readerGroup, KafkaConsumer<?, ?> consumer) {
        MetricGroup group = readerGroup.addGroup(KafkaSourceReaderMetrics.KAFKA_SOURCE_READER_METRIC_GROUP)
                .addGroup(KafkaSourceReaderMetrics.KAFKA_CONSUMER_METRIC_GROUP);
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.metrics().entrySet()) {
            if (NAMES.contains(e.getKey().name())) {
                Metric metric = e.getValue();
                group.gauge(e.getKey().name(), (Gauge<Object>) metric::metricValue);
            }
        }
        Map<MetricName, ? extends Metric> stock = consumer.metrics();
        if (stock != null) {
            stock.forEach((name, metric) -> {
                if (!NAMES.contains(name.name())) {
                    group.gauge(name.name(), (Gauge<Object>) metric::metricValue);
                }
            });
        }
    }

    /** Records one native poll: its fetch responses and latencies, its records and their bytes, the lag. */
    void record(NativeFetchSession fetch, int records, long bytes) {
        long now = System.currentTimeMillis();
        long responses = fetch.fetchResponses();
        if (responses > 0) {
            // Each response's latency in Kafka's consumer; natively, the poll's responses share
            // their mean (the average and the count are the same; the maximum is recorded apart).
            double meanMs = fetch.fetchLatencyMicros() / 1000.0 / responses;
            for (long i = 0; i < responses; i++) {
                fetchLatency.record(meanMs, now);
            }
            fetchLatencyMax.record(fetch.fetchLatencyMaxMicros() / 1000.0, now);
            recordsLag.record(fetch.maxLag(), now);
        }
        if (records > 0) {
            bytesFetched.record(bytes, now);
            recordsFetched.record(records, now);
        }
    }

    @Override
    public void close() {
        metrics.close();
    }

    private static int intProp(Properties props, String key, int fallback) {
        String value = props.getProperty(key);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
