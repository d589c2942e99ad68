package io.karrow.bench.nexmark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Everything the suite measured and compared, and its three renderings: one line per query and
 * round, the table per family, {@code results.json}. Throughput is input events per second to
 * completion: the topic's event count over the job's net runtime; CPU is process CPU time per input
 * event (all threads of the JVM that runs the MiniCluster, the submitting thread's planning left
 * out). Per query the median over the counted rounds; the ratio is karrow over stock.
 */
final class Results {

    record Entry(JobRun stock, JobRun karrow, Comparison comparison, boolean counted) {}

    /** One row of the table. */
    record Row(Family family, QuerySpec query, double stockSeconds, double karrowSeconds, double stockCpu,
            double karrowCpu, long events, String verdict, String output, Set<String> karrowPaths,
            Set<String> stockPaths, String error) {

        double stockRate() {
            return events / stockSeconds;
        }

        double karrowRate() {
            return events / karrowSeconds;
        }

        double ratio() {
            return stockSeconds / karrowSeconds;
        }

        /** CPU per event, µs. */
        double stockCpuPerEvent() {
            return stockCpu / events * 1e6;
        }

        double karrowCpuPerEvent() {
            return karrowCpu / events * 1e6;
        }

        boolean measured() {
            return Double.isFinite(stockSeconds) && Double.isFinite(karrowSeconds);
        }
    }

    final SuiteOptions options;
    final List<QuerySpec> queries;
    final Map<Family, EventTopic.Written> written = new EnumMap<>(Family.class);
    final List<Entry> entries = new ArrayList<>();

    Results(SuiteOptions options, List<QuerySpec> queries) {
        this.options = options;
        this.queries = queries;
    }

    void written(Family family, EventTopic.Written w) {
        written.put(family, w);
    }

    EventTopic.Written written(Family family) {
        return written.get(family);
    }

    void add(JobRun stock, JobRun karrow, Comparison comparison, boolean counted) {
        entries.add(new Entry(stock, karrow, comparison, counted));
    }

    /** Any difference, any job that failed, or a karrow path seen on the stock side. */
    boolean failed() {
        for (Entry e : entries) {
            Comparison.Verdict v = e.comparison().verdict();
            if ((v != Comparison.Verdict.EQUAL && v != Comparison.Verdict.NOT_COMPARABLE) || !e.stock().ok() || !e.karrow().ok()
                    || !e.stock().engagedPaths().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    static String line(SuiteOptions o, int round, JobRun s, JobRun k, Comparison c) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-8s %-4s %s", s.family().label(), s.query().name(),
                round < o.warmup ? "warm-up" : "round " + (round - o.warmup + 1)));
        for (JobRun r : List.of(s, k)) {
            b.append("  ").append(r.side().label()).append(' ');
            if (!r.ok()) {
                b.append("FAILED");
            } else if (o.checkOnly) {
                b.append("ok");
            } else {
                b.append(String.format(Locale.ROOT, "%.2f s", r.seconds()));
            }
        }
        if (!o.checkOnly && s.ok() && k.ok()) {
            b.append(String.format(Locale.ROOT, "  %.2fx", s.seconds() / k.seconds()));
        }
        b.append("  ").append(verdict(c)).append(" (").append(c.detail()).append(')');
        if (k.ok()) {
            b.append("  karrow: ").append(k.engagedPaths().isEmpty() ? "NO NATIVE PATH" : String.join(" ", k.engagedPaths()));
        }
        if (s.ok() && !s.engagedPaths().isEmpty()) {
            b.append("  STOCK RAN KARROW PATHS: ").append(String.join(" ", s.engagedPaths()));
        }
        for (JobRun r : List.of(s, k)) {
            if (!r.ok()) {
                b.append("\n    ").append(r.side().label()).append(" failed: ").append(r.error());
            }
        }
        return b.toString();
    }

    static String verdict(Comparison c) {
        return switch (c.verdict()) {
            case EQUAL -> "equal";
            case DIFFERENT -> "DIFFERENT";
            case NOT_COMPARED -> "not compared";
            case NOT_COMPARABLE -> "not comparable";
        };
    }

    private static double median(double[] values) {
        double[] v = Arrays.stream(values).filter(Double::isFinite).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The table rows of {@code family}, one per query. */
    List<Row> rows(Family family) {
        List<Row> rows = new ArrayList<>();
        EventTopic.Written w = written.get(family);
        if (w == null) {
            return rows;
        }
        for (QuerySpec q : queries) {
            List<Entry> mine = entries.stream()
                    .filter(e -> e.stock().family() == family && e.stock().query().name().equals(q.name()))
                    .toList();
            if (mine.isEmpty()) {
                continue;
            }
            List<Entry> counted = mine.stream().filter(Entry::counted).toList();
            String verdict = "equal";
            String output = "";
            String error = null;
            Set<String> karrowPaths = null;
            Set<String> stockPaths = new LinkedHashSet<>();
            for (Entry e : mine) {
                if (e.comparison().verdict() == Comparison.Verdict.DIFFERENT) {
                    verdict = "DIFFERENT";
                } else if (e.comparison().verdict() == Comparison.Verdict.NOT_COMPARED && !verdict.equals("DIFFERENT")) {
                    verdict = "not compared";
                } else if (e.comparison().verdict() == Comparison.Verdict.NOT_COMPARABLE && verdict.equals("equal")) {
                    verdict = "not comparable";
                }
                output = e.comparison().detail();
                if (error == null && !e.stock().ok()) {
                    error = "stock: " + e.stock().error();
                }
                if (error == null && !e.karrow().ok()) {
                    error = "karrow: " + e.karrow().error();
                }
                if (e.karrow().ok()) {
                    Set<String> paths = new LinkedHashSet<>(e.karrow().engagedPaths());
                    if (karrowPaths == null) {
                        karrowPaths = paths;
                    } else {
                        karrowPaths.retainAll(paths);
                    }
                }
                if (e.stock().ok()) {
                    stockPaths.addAll(e.stock().engagedPaths());
                }
            }
            rows.add(new Row(family, q,
                    median(counted.stream().mapToDouble(e -> e.stock().seconds()).toArray()),
                    median(counted.stream().mapToDouble(e -> e.karrow().seconds()).toArray()),
                    median(counted.stream().mapToDouble(e -> e.stock().cpuSeconds()).toArray()),
                    median(counted.stream().mapToDouble(e -> e.karrow().cpuSeconds()).toArray()),
                    w.events(), verdict, output, karrowPaths == null ? Set.of() : karrowPaths, stockPaths, error));
        }
        return rows;
    }

    /** The geometric mean of the karrow/stock throughput ratios of the measured rows, or NaN. */
    static double geomean(List<Row> rows, boolean cpu) {
        double sum = 0;
        int n = 0;
        for (Row r : rows) {
            if (r.measured()) {
                sum += Math.log(cpu ? r.stockCpu() / r.karrowCpu() : r.ratio());
                n++;
            }
        }
        return n == 0 ? Double.NaN : Math.exp(sum / n);
    }

    String table() {
        StringBuilder b = new StringBuilder();
        for (Family family : written.keySet()) {
            List<Row> rows = rows(family);
            EventTopic.Written w = written.get(family);
            b.append(String.format(Locale.ROOT, "%s: %,d events (%,.0f bytes per event), %s%n", family.label(), w.events(),
                    (double) w.bytes() / w.events(), options.checkOnly ? "outputs compared"
                            : String.format(Locale.ROOT, "median of %d rounds after %d warm-up", options.rounds, options.warmup)));
            if (options.checkOnly) {
                b.append(String.format(Locale.ROOT, "%-5s %-6s %-13s %-40s %s%n", "query", "sink", "compared", "output",
                        "karrow paths"));
            } else {
                b.append(String.format(Locale.ROOT, "%-5s %-6s %12s %12s %7s %9s %9s %7s  %-13s %-40s %s%n", "query", "sink",
                        "stock ev/s", "karrow ev/s", "ratio", "stock µs", "karrow µs", "cpu", "compared", "output",
                        "karrow paths"));
            }
            for (Row r : rows) {
                String sink = r.query().updating() ? "upsert" : "append";
                String paths = r.karrowPaths().isEmpty() ? "NONE" : String.join(" ", r.karrowPaths());
                if (options.checkOnly) {
                    b.append(String.format(Locale.ROOT, "%-5s %-6s %-13s %-40s %s%n", r.query().name(), sink, r.verdict(),
                            r.output(), paths));
                } else {
                    b.append(String.format(Locale.ROOT, "%-5s %-6s %,12.0f %,12.0f %6.2fx %9.2f %9.2f %6.2fx  %-13s %-40s %s%n",
                            r.query().name(), sink, r.stockRate(), r.karrowRate(), r.ratio(), r.stockCpuPerEvent(),
                            r.karrowCpuPerEvent(), r.stockCpu() / r.karrowCpu(), r.verdict(), r.output(), paths));
                }
                if (r.error() != null) {
                    b.append("      failed: ").append(r.error()).append('\n');
                }
            }
            if (!options.checkOnly) {
                b.append(String.format(Locale.ROOT, "geomean %s: throughput %.2fx, CPU per event %.2fx%n", family.label(),
                        geomean(rows, false), geomean(rows, true)));
            }
            b.append('\n');
        }
        b.append(failed() ? "RESULT: FAILED (an output differed, a job failed or the stock side ran a karrow path)\n"
                : "RESULT: every output equal\n");
        return b.toString();
    }

    String json() throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        ObjectNode opts = root.putObject("options");
        opts.put("events", options.events);
        opts.put("rounds", options.rounds);
        opts.put("warmup", options.warmup);
        opts.put("partitions", options.partitions);
        opts.put("parallelism", options.parallelism);
        opts.put("checkpoint_ms", options.checkpointMillis);
        opts.put("event_rate", options.eventRate);
        opts.put("seed", options.seed);
        opts.put("check_only", options.checkOnly);
        opts.put("karrow_source_options", String.join(", ", options.karrowSourceOptions));
        opts.put("karrow_sink_options", String.join(", ", options.karrowSinkOptions));
        opts.put("karrow_config", options.karrowConfig.toString());
        root.put("failed", failed());
        ArrayNode families = root.putArray("families");
        for (Family family : written.keySet()) {
            ObjectNode f = families.addObject();
            EventTopic.Written w = written.get(family);
            f.put("family", family.label());
            f.put("events", w.events());
            f.put("bytes", w.bytes());
            f.put("stock_source", family.sourceFormat(Side.STOCK));
            f.put("karrow_source", family.sourceFormat(Side.KARROW));
            f.put("stock_sink", family.sinkFormat(Side.STOCK));
            f.put("karrow_sink", family.sinkFormat(Side.KARROW));
            List<Row> rows = rows(family);
            f.put("geomean_ratio", geomean(rows, false));
            f.put("geomean_cpu_ratio", geomean(rows, true));
            ArrayNode qs = f.putArray("queries");
            for (Row r : rows) {
                ObjectNode q = qs.addObject();
                q.put("query", r.query().name());
                q.put("updating", r.query().updating());
                q.put("stock_seconds", r.stockSeconds());
                q.put("karrow_seconds", r.karrowSeconds());
                q.put("stock_events_per_s", r.stockRate());
                q.put("karrow_events_per_s", r.karrowRate());
                q.put("ratio", r.ratio());
                q.put("stock_cpu_us_per_event", r.stockCpuPerEvent());
                q.put("karrow_cpu_us_per_event", r.karrowCpuPerEvent());
                q.put("compared", r.verdict());
                q.put("output", r.output());
                q.put("karrow_paths", String.join(" ", r.karrowPaths()));
                if (r.error() != null) {
                    q.put("error", r.error());
                }
                ArrayNode runs = q.putArray("runs");
                for (Entry e : entries) {
                    if (e.stock().family() != family || !e.stock().query().name().equals(r.query().name())) {
                        continue;
                    }
                    ObjectNode run = runs.addObject();
                    run.put("round", e.stock().round());
                    run.put("counted", e.counted());
                    run.put("stock_seconds", e.stock().seconds());
                    run.put("karrow_seconds", e.karrow().seconds());
                    run.put("stock_cpu_seconds", e.stock().cpuSeconds());
                    run.put("karrow_cpu_seconds", e.karrow().cpuSeconds());
                    run.put("compared", verdict(e.comparison()));
                    ObjectNode karrowMetrics = run.putObject("karrow_metrics");
                    e.karrow().metrics().forEach((k, v) -> {
                        if (k.startsWith("karrow|") || k.startsWith("KafkaNativeBatchEncode: Writer|") || k.contains("Encoded")) {
                            karrowMetrics.put(k, v);
                        }
                    });
                    ArrayNode diffs = run.putArray("differences");
                    e.comparison().differences().forEach(diffs::add);
                }
            }
        }
        return mapper.writeValueAsString(root);
    }
}
