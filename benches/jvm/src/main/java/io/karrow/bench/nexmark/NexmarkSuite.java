package io.karrow.bench.nexmark;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.logical.RowType;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The Nexmark suite over Kafka, stock Flink against karrow ({@code benches/nexmark/README.md}).
 *
 * <p>Per format family: writes the events to a topic once, then for every round (the first {@code
 * --warmup} rounds are not counted) and every query runs the query twice in one long-lived
 * MiniCluster, stock and karrow, the order alternating between rounds, each exactly-once into a
 * fresh output topic, and compares the two outputs. Prints one line per query and round, then the
 * table per family (median over the counted rounds), writes {@code results.json} and {@code
 * index.html} to {@code --out}. Exits with status 1 when any output differs or any job failed.
 */
public final class NexmarkSuite {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final SuiteOptions o;
    private final MiniCluster cluster;
    private final Path sideInput;
    private final long stamp = System.currentTimeMillis();
    private final List<String> topics = new ArrayList<>();
    private final Results results;

    private NexmarkSuite(SuiteOptions o, MiniCluster cluster, Path sideInput, List<QuerySpec> queries) {
        this.o = o;
        this.cluster = cluster;
        this.sideInput = sideInput;
        this.results = new Results(o, queries);
    }

    /** Runs the suite; see the class comment and {@link SuiteOptions#USAGE}. */
    public static void main(String[] args) throws Exception {
        SuiteOptions o = SuiteOptions.parse(args);
        List<QuerySpec> queries = loadQueries(o);
        Path work = Files.createTempDirectory("karrow-nexmark");
        Path sideInput = work.resolve("side_input.txt");
        SideInputTableFactory.write(sideInput, o.sideInputRows);
        System.out.printf(Locale.ROOT, "nexmark: %,d events per format (%s), queries %s, %d warm-up + %d rounds, "
                        + "%d partitions, parallelism %d, checkpoints every %d ms, exactly-once%n",
                o.events, o.families.stream().map(Family::label).collect(Collectors.joining(",")),
                queries.stream().map(QuerySpec::name).collect(Collectors.joining(",")), o.warmup, o.rounds,
                o.partitions, o.parallelism, o.checkpointMillis);
        int status;
        try (MiniCluster cluster = startCluster(o, work.resolve("checkpoints"))) {
            NexmarkSuite suite = new NexmarkSuite(o, cluster, sideInput, queries);
            try {
                suite.run(queries);
            } finally {
                suite.cleanUp();
            }
            status = suite.finish();
        }
        System.exit(status);
    }

    private static List<QuerySpec> loadQueries(SuiteOptions o) throws Exception {
        List<QuerySpec> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(o.sqlDir.resolve("queries"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("q\\d+\\.sql")).toList()) {
                all.add(QuerySpec.load(f));
            }
        }
        all.sort((a, b) -> Integer.compare(a.number(), b.number()));
        if (o.queries.isEmpty()) {
            return all;
        }
        List<QuerySpec> picked = new ArrayList<>();
        for (String name : o.queries) {
            picked.add(all.stream().filter(q -> q.name().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no query " + name + " in " + o.sqlDir)));
        }
        return picked;
    }

    private static MiniCluster startCluster(SuiteOptions o, Path checkpoints) throws Exception {
        Configuration conf = new Configuration();
        // Checkpoints on the file system, as a production job keeps them: the JobManager's memory
        // storage refuses state over 5 MiB, which the stateful queries' heap state exceeds at
        // 1,000,000 events (q4, q7 and q9 failed both sides with "Exceeded checkpoint tolerable
        // failure threshold" before).
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.setString("metrics.reporter.nexmark.factory.class", MetricsCollector.Factory.class.getName());
        conf.setString("restart-strategy.type", "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("128m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("128m"));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(o.parallelism)
                .build());
        cluster.start();
        return cluster;
    }

    private void run(List<QuerySpec> queries) throws Exception {
        for (Family family : o.families) {
            String eventTopic = topic("nexmark-" + family.label() + "-events");
            EventGenerator generator = new EventGenerator(o.seed, o.baseTime, o.eventRate, family.millis());
            EventTopic.Written w = EventTopic.write(family, o.bootstrap, o.registry, eventTopic, o.partitions, o.events,
                    generator);
            results.written(family, w);
            System.out.printf(Locale.ROOT, "%s: wrote %,d events (%,d persons, %,d auctions, %,d bids; %,.0f bytes"
                            + " per event) to %s in %.1f s (%,.0f events/s)%n",
                    family.label(), w.events(), w.persons(), w.auctions(), w.bids(), (double) w.bytes() / w.events(),
                    eventTopic, w.seconds(), w.events() / w.seconds());
            for (int round = 0; round < o.warmup + o.rounds; round++) {
                for (QuerySpec q : queries) {
                    Side[] order = round % 2 == 0 ? new Side[] {Side.STOCK, Side.KARROW} : new Side[] {Side.KARROW, Side.STOCK};
                    Map<Side, JobRun> runs = new EnumMap<>(Side.class);
                    for (Side side : order) {
                        runs.put(side, runJob(family, side, q, round, eventTopic));
                    }
                    Comparison c = Comparisons.compare(o, q, runs.get(Side.STOCK), runs.get(Side.KARROW));
                    results.add(runs.get(Side.STOCK), runs.get(Side.KARROW), c, round >= o.warmup);
                    System.out.println(Results.line(o, round, runs.get(Side.STOCK), runs.get(Side.KARROW), c));
                    for (String d : c.differences()) {
                        System.out.println("    " + d);
                    }
                    if (!o.keepTopics) {
                        deleteTopics(List.of(runs.get(Side.STOCK).outputTopic(), runs.get(Side.KARROW).outputTopic()));
                    }
                }
            }
            if (!o.keepTopics) {
                deleteTopics(List.of(eventTopic));
            }
        }
    }

    private String topic(String prefix) {
        String t = prefix + "-" + stamp;
        topics.add(t);
        return t;
    }

    private void deleteTopics(List<String> names) {
        try {
            EventTopic.delete(o.bootstrap, EventTopic.existing(o.bootstrap, names));
            topics.removeAll(names);
        } catch (Exception e) {
            System.out.println("warning: could not delete topics " + names + ": " + e.getMessage());
        }
    }

    private void cleanUp() {
        if (!o.keepTopics && !topics.isEmpty()) {
            deleteTopics(new ArrayList<>(topics));
        }
    }

    /** Runs one query on one side into a fresh output topic. */
    private JobRun runJob(Family family, Side side, QuerySpec q, int round, String eventTopic) {
        String outTopic = topic("nexmark-" + family.label() + "-" + q.name() + "-" + side.label() + "-r" + round);
        Map<String, Boolean> engaged = new LinkedHashMap<>();
        RowType sinkType = null;
        try {
            EventTopic.create(o.bootstrap, outTopic, o.partitions);
            StreamTableEnvironment tEnv = tableEnvironment(side);
            String jobName = family.label() + "-" + q.name() + "-" + side.label() + "-r" + round;
            tEnv.getConfig().set("pipeline.name", jobName);
            for (String ddl : QuerySpec.statements(read(family.sourceDdl))) {
                tEnv.executeSql(substitute(ddl, Sides.source(o, family, side, eventTopic)));
            }
            for (String view : QuerySpec.statements(read(family.viewsDdl))) {
                tEnv.executeSql(view);
            }
            List<String> statements = q.statements();
            for (String s : statements.subList(0, statements.size() - 1)) {
                String with = s.startsWith("CREATE TABLE " + q.sinkTable() + " ") ? Sides.sink(o, family, side, q, outTopic) : "";
                tEnv.executeSql(substitute(s, with));
            }
            sinkType = (RowType) tEnv.from(q.sinkTable()).getResolvedSchema().toPhysicalRowDataType().getLogicalType();
            String insert = statements.get(statements.size() - 1);
            String plan = tEnv.explainSql(insert);
            long cpuBefore = processCpuNanos();
            long threadBefore = THREADS.getCurrentThreadCpuTime();
            TableResult result = tEnv.executeSql(insert);
            long planning = THREADS.getCurrentThreadCpuTime() - threadBefore;
            JobClient job = result.getJobClient().orElseThrow();
            JobExecutionResult done;
            try {
                done = job.getJobExecutionResult().get(o.jobTimeoutSeconds, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                job.cancel().get(60, TimeUnit.SECONDS);
                throw new IllegalStateException("did not finish within " + o.jobTimeoutSeconds + " s");
            }
            long cpu = processCpuNanos() - cpuBefore - planning;
            Map<String, Long> metrics = MetricsCollector.take(job.getJobID().toString());
            OutputTopic.Digest digest = OutputTopic.digest(o.bootstrap, outTopic, q.updating());
            engaged.putAll(Engagement.evaluate(o, q, plan, metrics, results.written(family).events()));
            return new JobRun(family, q, side, round, outTopic, sinkType, done.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0,
                    cpu / 1e9, digest, engaged, metrics, null);
        } catch (Exception e) {
            return new JobRun(family, q, side, round, outTopic, sinkType, Double.NaN, Double.NaN, null, engaged, Map.of(),
                    rootMessage(e));
        }
    }

    private StreamTableEnvironment tableEnvironment(Side side) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, o.parallelism);
        TestStreamEnvironment env = new TestStreamEnvironment(cluster, conf, o.parallelism, List.of(), List.of());
        env.enableCheckpointing(o.checkpointMillis);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // A fixed-offset zone: q12's processing-time windows and the Protobuf family's conversions do
        // not depend on the machine, and the operator core runs only fixed-offset zones natively.
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        (side == Side.STOCK ? o.stockConfig : o.karrowConfig).forEach((k, v) -> tEnv.getConfig().set(k, v));
        return tEnv;
    }

    private String read(String file) throws Exception {
        return Files.readString(o.sqlDir.resolve(file), StandardCharsets.UTF_8);
    }

    private String substitute(String sql, String with) {
        return sql.replace("${WITH}", with).replace("${SIDE_INPUT}", sideInput.toString());
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getClass().getSimpleName() + ": " + root.getMessage();
        return m.replace('\n', ' ');
    }

    private int finish() throws Exception {
        System.out.println();
        System.out.print(results.table());
        if (o.out != null) {
            Files.createDirectories(o.out);
            Files.writeString(o.out.resolve("results.json"), results.json(), StandardCharsets.UTF_8);
            Files.writeString(o.out.resolve("index.html"), Report.html(results), StandardCharsets.UTF_8);
            System.out.println("wrote " + o.out.resolve("results.json") + " and " + o.out.resolve("index.html"));
        }
        return results.failed() ? 1 : 0;
    }
}
