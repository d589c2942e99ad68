package io.karrow.flink.testutils;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counters of the jobs a test MiniCluster ran, by job name, so a test can assert that a native path
 * engaged (e.g. {@code karrow.numRecordsEncoded}). A metric reporter ({@link Factory}, registered in
 * {@code META-INF/services}); a cluster uses it when its configuration comes from {@link
 * #configuration()}. In karrow-formats' test-jar, which the connector's and the sql bundle's tests
 * use too.
 */
public final class CollectedMetrics implements MetricReporter {

    private static final Map<String, List<Entry>> BY_JOB_NAME = new ConcurrentHashMap<>();

    private record Entry(String scope, String name, Counter counter) {}

    private static final Map<String, List<GaugeEntry>> GAUGES_BY_JOB_NAME = new ConcurrentHashMap<>();

    private record GaugeEntry(String scope, String name, Gauge<?> gauge) {}

    /** The reporter's factory. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new CollectedMetrics();
        }
    }

    /** A cluster configuration that reports to this collector. */
    public static Configuration configuration() {
        Configuration conf = new Configuration();
        conf.setString("metrics.reporter.collected.factory.class", Factory.class.getName());
        return conf;
    }

    /** The sum over all subtasks of the counters named {@code name} in a group named {@code group} of job {@code jobName}. */
    public static long sum(String jobName, String group, String name) {
        long sum = 0;
        for (Entry e : BY_JOB_NAME.getOrDefault(jobName, List.of())) {
            if (e.name().equals(name) && (e.scope().endsWith("." + group) || e.scope().contains("." + group + "."))) {
                sum += e.counter().getCount();
            }
        }
        return sum;
    }

    /**
     * The current values of the gauges named {@code name} in a group named {@code group} of job {@code
     * jobName}, one per subtask that registered one (read now: a gauge of a finished job reads what its
     * metric holds).
     */
    public static List<Object> gauges(String jobName, String group, String name) {
        List<Object> out = new ArrayList<>();
        List<GaugeEntry> entries = GAUGES_BY_JOB_NAME.getOrDefault(jobName, List.of());
        synchronized (entries) {
            for (GaugeEntry e : entries) {
                if (e.name().equals(name) && (e.scope().endsWith("." + group) || e.scope().contains("." + group + "."))) {
                    out.add(e.gauge().getValue());
                }
            }
        }
        return out;
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        String job = group.getAllVariables().get("<job_name>");
        if (metric instanceof Counter counter && job != null) {
            BY_JOB_NAME.computeIfAbsent(job, j -> java.util.Collections.synchronizedList(new ArrayList<>()))
                    .add(new Entry(String.join(".", group.getScopeComponents()), metricName, counter));
        } else if (metric instanceof Gauge<?> gauge && job != null) {
            GAUGES_BY_JOB_NAME.computeIfAbsent(job, j -> java.util.Collections.synchronizedList(new ArrayList<>()))
                    .add(new GaugeEntry(String.join(".", group.getScopeComponents()), metricName, gauge));
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // Kept: tests read the counters after the job has finished.
    }
}
