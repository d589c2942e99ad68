package io.karrow.bench.nexmark;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A metric reporter of the suite's MiniCluster that keeps every counter of every job, so that after
 * a job the suite can read which karrow paths ran (the {@code karrow} metric groups of the
 * connector and formats, the operators' record counts). Configured as {@code
 * metrics.reporter.nexmark.factory.class}; one instance per cluster, the counters kept in this
 * JVM-wide registry by job id.
 */
public final class MetricsCollector implements MetricReporter {

    private static final Map<String, List<Entry>> BY_JOB = new ConcurrentHashMap<>();

    private record Entry(String operator, String scope, String name, Counter counter) {}

    /** The factory named in the cluster configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new MetricsCollector();
        }
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        if (!(metric instanceof Counter counter)) {
            return;
        }
        Map<String, String> variables = group.getAllVariables();
        String job = variables.get("<job_id>");
        if (job == null) {
            return;
        }
        String operator = variables.getOrDefault("<operator_name>", variables.getOrDefault("<task_name>", ""));
        String scope = String.join(".", group.getScopeComponents());
        BY_JOB.computeIfAbsent(job, j -> java.util.Collections.synchronizedList(new ArrayList<>()))
                .add(new Entry(operator, scope, metricName, counter));
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // The counters are kept: the suite reads them after the job has finished.
    }

    /**
     * The counters of {@code jobId} summed over subtasks, keyed {@code <operator>|<name>} for operator
     * metrics and {@code karrow|<name>} for every metric in a {@code karrow} group; then forgotten.
     */
    static Map<String, Long> take(String jobId) {
        List<Entry> entries = BY_JOB.remove(jobId);
        Map<String, Long> sums = new TreeMap<>();
        if (entries == null) {
            return sums;
        }
        synchronized (entries) {
            for (Entry e : entries) {
                long value = e.counter().getCount();
                if (e.scope().endsWith(".karrow") || e.scope().contains(".karrow.")) {
                    sums.merge("karrow|" + e.name(), value, Long::sum);
                }
                sums.merge(e.operator() + "|" + e.name(), value, Long::sum);
            }
        }
        return sums;
    }
}
