package io.karrow.bench.nexmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The command line of {@link NexmarkSuite}; see {@code benches/nexmark/README.md}. */
final class SuiteOptions {
    String bootstrap = "127.0.0.1:9092";
    String registry = "http://127.0.0.1:8081";
    Path sqlDir = Path.of("benches/nexmark/sql");
    Path out;
    long events = 1_000_000;
    List<Family> families = new ArrayList<>(List.of(Family.JSON, Family.AVRO, Family.PROTOBUF));
    /** Query names; empty: every query file. */
    List<String> queries = new ArrayList<>();
    int rounds = 3;
    int warmup = 1;
    int partitions = 4;
    int parallelism = 2;
    long checkpointMillis = 1000;
    double eventRate = 1000;
    long seed = 42;
    long baseTime = 1_735_725_600_000L; // 2025-01-01T10:00:00Z
    int sideInputRows = 10_000;
    long jobTimeoutSeconds = 1800;
    /** Only compare, print no throughput figures (the CI run). */
    boolean checkOnly;
    /** Keep the topics of the run instead of deleting them. */
    boolean keepTopics;
    final List<String> karrowSourceOptions = new ArrayList<>();
    final List<String> karrowSinkOptions = new ArrayList<>();
    final List<String> karrowUpsertSinkOptions = new ArrayList<>();
    /** The connector of karrow's sinks for updating queries. */
    String karrowUpsertConnector = "upsert-kafka";
    final Map<String, String> karrowConfig = new LinkedHashMap<>();
    final Map<String, String> stockConfig = new LinkedHashMap<>();
    /** Extra engagement probes: name -> {@code metric:KEY} or {@code plan:TEXT}. */
    final Map<String, String> probes = new LinkedHashMap<>();

    static final String USAGE = String.join("\n",
            "usage: NexmarkSuite [--events N] [--formats json,avro,protobuf] [--queries q0,q1,...] [--rounds N]",
            "         [--warmup N] [--partitions N] [--parallelism N] [--checkpoint-ms N] [--event-rate N] [--seed N]",
            "         [--karrow-source-option K=V]... [--karrow-sink-option K=V]... [--karrow-upsert-sink-option K=V]...",
            "         [--karrow-upsert-connector NAME] [--karrow-config K=V]...",
            "         [--stock-config K=V]... [--probe NAME=metric:KEY|plan:TEXT]... [--check-only] [--keep-topics]",
            "         [--out DIR] [--sql DIR] [--bootstrap HOST:PORT] [--registry URL] [--job-timeout-s N]");

    private static String tableOption(String flag, String value) {
        String[] kv = keyValue(flag, value);
        return "'" + kv[0] + "' = '" + kv[1] + "'";
    }

    private static String[] keyValue(String flag, String value) {
        int eq = value.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(flag + " takes KEY=VALUE, got " + value);
        }
        return new String[] {value.substring(0, eq), value.substring(eq + 1)};
    }

    static SuiteOptions parse(String[] args) {
        SuiteOptions o = new SuiteOptions();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            switch (name) {
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    System.exit(0);
                }
                case "--check-only" -> {
                    o.checkOnly = true;
                    continue;
                }
                case "--keep-topics" -> {
                    o.keepTopics = true;
                    continue;
                }
                default -> { }
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + name);
            }
            String v = args[++i];
            switch (name) {
                case "--bootstrap" -> o.bootstrap = v;
                case "--registry" -> o.registry = v;
                case "--sql" -> o.sqlDir = Path.of(v);
                case "--out" -> o.out = Path.of(v);
                case "--events" -> o.events = Long.parseLong(v.replace("_", "").replace(",", ""));
                case "--formats" -> {
                    o.families.clear();
                    for (String f : v.split(",")) {
                        o.families.add(Family.parse(f));
                    }
                }
                case "--queries" -> {
                    o.queries.clear();
                    if (!v.equals("all")) {
                        for (String q : v.split(",")) {
                            o.queries.add(q.trim());
                        }
                    }
                }
                case "--rounds" -> o.rounds = Integer.parseInt(v);
                case "--warmup" -> o.warmup = Integer.parseInt(v);
                case "--partitions" -> o.partitions = Integer.parseInt(v);
                case "--parallelism" -> o.parallelism = Integer.parseInt(v);
                case "--checkpoint-ms" -> o.checkpointMillis = Long.parseLong(v);
                case "--event-rate" -> o.eventRate = Double.parseDouble(v);
                case "--seed" -> o.seed = Long.parseLong(v);
                case "--job-timeout-s" -> o.jobTimeoutSeconds = Long.parseLong(v);
                case "--karrow-source-option" -> o.karrowSourceOptions.add(tableOption(name, v));
                case "--karrow-sink-option" -> o.karrowSinkOptions.add(tableOption(name, v));
                case "--karrow-upsert-sink-option" -> o.karrowUpsertSinkOptions.add(tableOption(name, v));
                case "--karrow-upsert-connector" -> o.karrowUpsertConnector = v;
                case "--karrow-config" -> {
                    String[] kv = keyValue(name, v);
                    o.karrowConfig.put(kv[0], kv[1]);
                }
                case "--stock-config" -> {
                    String[] kv = keyValue(name, v);
                    o.stockConfig.put(kv[0], kv[1]);
                }
                case "--probe" -> {
                    String[] kv = keyValue(name, v);
                    if (!kv[1].startsWith("metric:") && !kv[1].startsWith("plan:")) {
                        throw new IllegalArgumentException("--probe NAME=metric:KEY or NAME=plan:TEXT, got " + v);
                    }
                    o.probes.put(kv[0], kv[1]);
                }
                default -> throw new IllegalArgumentException("unknown option " + name + "\n" + USAGE);
            }
        }
        if (o.events < 1 || o.rounds < 1 || o.warmup < 0 || o.partitions < 1 || o.parallelism < 1) {
            throw new IllegalArgumentException("--events, --rounds, --partitions, --parallelism must be >= 1, --warmup >= 0");
        }
        return o;
    }
}
