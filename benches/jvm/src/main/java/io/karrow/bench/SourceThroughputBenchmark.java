package io.karrow.bench;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Source throughput of the {@code kafka-native} connector against the stock path, over a real broker
 * (issue 3, part 7): Confluent-Avro Nexmark bids are produced once to a new topic (default 2,000,000
 * bids, 2 partitions), then the same Flink SQL job, {@code INSERT INTO <blackhole> SELECT * FROM
 * bids} (parallelism 2, bounded at the latest offsets), runs in one local MiniCluster in this JVM
 * with four source configurations:
 *
 * <ol>
 *   <li>{@code stock}: {@code 'connector' = 'kafka'} + {@code avro-confluent-reference} (flink-avro's
 *       registry-aware path, what {@code avro-confluent} runs);
 *   <li>{@code format}: {@code 'connector' = 'kafka'} + {@code avro-confluent-native} (the format
 *       swap: one native call per record, on the task thread);
 *   <li>{@code native}: {@code 'connector' = 'kafka-native'} + {@code avro-confluent-native} (one
 *       native call per fetched batch, on the fetcher thread);
 *   <li>{@code fetch}: the same with {@code 'scan.fetch-mode' = 'native'} (Kafka's Fetch protocol
 *       read natively instead of by Kafka's Java consumer).
 * </ol>
 *
 * <p>With {@code --format json} the bids are written as flink-json writes them and the four
 * configurations are {@code kafka} + {@code json}, {@code kafka} + {@code json-native}, {@code
 * kafka-native} + {@code json-native}, and the same with the native fetch; with {@code --format
 * protobuf} the bids are {@code karrow.test.Bid} messages ({@code date_time} as epoch milliseconds)
 * read with {@code protobuf} and {@code protobuf-native}.
 *
 * <p>Each round runs all four, in an order rotated per round so none always runs on the warmest
 * JVM; each configuration keeps its best job net runtime over the rounds. Prints rows/s and the ratio
 * of each to {@code stock}. Afterwards every configuration's {@code COUNT(*)} and {@code SUM(price)}
 * are checked in batch mode against each other and the number produced (exit status 1 otherwise).
 * Needs a running broker and registry: see {@code benches/run-source-bench.sh}.
 */
public final class SourceThroughputBenchmark {

    private static final String[] LABELS = {"stock", "format", "native", "fetch"};
    private static final String[] CONNECTORS = {"kafka", "kafka", "kafka-native", "kafka-native"};
    private static final String[] CONNECTOR_OPTIONS = {"", "", "", ", 'scan.fetch-mode' = 'native'"};
    private static final String[] AVRO_FORMATS = {
        "avro-confluent-reference", "avro-confluent-native", "avro-confluent-native", "avro-confluent-native"
    };
    private static final String[] JSON_FORMATS = {"json", "json-native", "json-native", "json-native"};
    private static final String[] PROTOBUF_FORMATS = {
        "protobuf", "protobuf-native", "protobuf-native", "protobuf-native"
    };

    private SourceThroughputBenchmark() {}

    /** Runs the benchmark; see the class comment. */
    public static void main(String[] args) throws Exception {
        JobOptions o = JobOptions.parse(args, "SourceThroughputBenchmark", 2_000_000L, "source-bench-", 5);
        String[] formats = switch (o.format) {
            case "json" -> JSON_FORMATS;
            case "protobuf" -> PROTOBUF_FORMATS;
            default -> AVRO_FORMATS;
        };
        if (o.only != null && !Arrays.asList(LABELS).contains(o.only)) {
            throw new IllegalArgumentException("--only must be one of " + Arrays.toString(LABELS) + ", got " + o.only);
        }
        long started = System.nanoTime();
        System.out.printf(Locale.ROOT,
                "karrow source benchmark: %,d Nexmark bids -> topic %s (%d partitions), Flink parallelism %d, %d rounds%n",
                o.records, o.topic, o.partitions, o.parallelism, o.rounds);

        BidTopics.create(o.bootstrap, o.topic, o.partitions);
        int schemaId = SchemaRegistration.register(o.registry, o.topic + "-value", NexmarkBids.WRITER_SCHEMA);
        BidTopics.Produced produced = BidTopics.produce(o, schemaId);
        double produceSeconds = produced.seconds();
        System.out.printf(Locale.ROOT, "produced %,d records in %.2f s (%,.0f records/s), schema id %d%n",
                o.records, produceSeconds, o.records / produceSeconds, schemaId);

        TableEnvironment streaming = tableEnvironment(o, false);
        TableEnvironment batch = tableEnvironment(o, true);
        for (int c = 0; c < LABELS.length; c++) {
            createSourceTable(streaming, o, c, formats[c]);
            createSourceTable(batch, o, c, formats[c]);
        }
        streaming.executeSql("CREATE TEMPORARY TABLE sink (" + columns(o) + ") WITH ('connector' = 'blackhole')");

        double[] best = new double[LABELS.length];
        Arrays.fill(best, Double.MAX_VALUE);
        for (int round = 1; round <= o.rounds; round++) {
            StringBuilder line = new StringBuilder("round " + round + ":");
            for (int k = 0; k < LABELS.length; k++) {
                int c = (k + round - 1) % LABELS.length;
                if (!selected(o, c)) {
                    continue;
                }
                double seconds = timeBlackholeInsert(streaming, c);
                best[c] = Math.min(best[c], seconds);
                line.append(String.format(Locale.ROOT, "  %s %.2f s (%,.0f rows/s)", LABELS[c], seconds, o.records / seconds));
            }
            System.out.println(line);
        }

        // Every configuration read every record: COUNT(*) and SUM(price) agree with each other and the producer.
        Row[] checks = new Row[LABELS.length];
        boolean ok = true;
        Row reference = null;
        for (int c = 0; c < LABELS.length; c++) {
            if (!selected(o, c)) {
                continue;
            }
            checks[c] = check(batch, c);
            reference = reference == null ? checks[c] : reference;
            ok &= (Long) checks[c].getField(0) == o.records && checks[c].equals(reference);
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "%-52s %12s %9s %14s %9s%n", "source", "records", "best s", "rows/s", "vs stock");
        for (int c = 0; c < LABELS.length; c++) {
            if (!selected(o, c)) {
                continue;
            }
            System.out.printf(Locale.ROOT, "%-52s %,12d %9.2f %,14.0f %8.2fx%n",
                    LABELS[c] + " (" + CONNECTORS[c] + " + " + formats[c] + (c == 3 ? ", native fetch" : "") + ")",
                    (Long) checks[c].getField(0), best[c], o.records / best[c],
                    selected(o, 0) ? best[0] / best[c] : Double.NaN);
        }
        for (int c = 0; c < LABELS.length; c++) {
            if (!selected(o, c)) {
                continue;
            }
            System.out.printf("check %-6s COUNT(*), SUM(price): %s%n", LABELS[c], checks[c]);
        }
        System.out.println("all sources read every record: " + (ok ? "yes" : "no"));
        System.out.printf(Locale.ROOT, "benchmark took %.1f s%n", (System.nanoTime() - started) / 1e9);
        System.exit(ok ? 0 : 1);
    }


    /** Whether configuration {@code c} runs ({@code --only} picks one by label). */
    private static boolean selected(JobOptions o, int c) {
        return o.only == null || o.only.equals(LABELS[c]);
    }

    private static TableEnvironment tableEnvironment(JobOptions o, boolean batchMode) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, o.parallelism);
        EnvironmentSettings.Builder settings = EnvironmentSettings.newInstance().withConfiguration(conf);
        return TableEnvironment.create((batchMode ? settings.inBatchMode() : settings.inStreamingMode()).build());
    }

    /** The bids table read through configuration {@code c}, bounded at the offsets of job start. */
    private static void createSourceTable(TableEnvironment env, JobOptions o, int c, String format) {
        String formatOption = "";
        if (format.startsWith("avro")) {
            formatOption = ", 'value." + format + ".url' = '" + o.registry + "'";
        } else if (format.startsWith("protobuf")) {
            formatOption = ", 'value." + format + ".message-class-name' = '" + ProtobufMessages.BID_CLASS + "'";
        }
        env.executeSql("CREATE TEMPORARY TABLE " + table(c) + " (" + columns(o) + ") WITH ("
                + "'connector' = '" + CONNECTORS[c] + "', "
                + "'topic' = '" + o.topic + "', "
                + "'properties.bootstrap.servers' = '" + o.bootstrap + "', "
                + "'properties.group.id' = 'karrow-source-bench', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + "'value.format' = '" + format + "'" + formatOption + CONNECTOR_OPTIONS[c]
                + o.sourceOptions.stream().map(option -> ", " + option).collect(Collectors.joining()) + ")");
    }

    /** The bids' columns: {@code date_time} is a TIMESTAMP(3), or epoch milliseconds in Protobuf. */
    private static String columns(JobOptions o) {
        return o.format.equals("protobuf") ? ProtobufMessages.BID_COLUMNS_DDL : NexmarkBids.COLUMNS_DDL;
    }

    private static String table(int c) {
        return "bids_" + LABELS[c];
    }

    /** Runs {@code INSERT INTO sink SELECT * FROM <table>} and returns the job's net runtime in seconds. */
    private static double timeBlackholeInsert(TableEnvironment env, int c) throws Exception {
        TableResult result = env.executeSql("INSERT INTO sink SELECT * FROM " + table(c));
        JobExecutionResult job = result.getJobClient().orElseThrow().getJobExecutionResult().get();
        return job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0;
    }

    /** {@code COUNT(*)} and {@code SUM(price)} of configuration {@code c}'s rows (batch mode). */
    private static Row check(TableEnvironment env, int c) throws Exception {
        try (CloseableIterator<Row> rows = env.executeSql("SELECT COUNT(*), SUM(price) FROM " + table(c)).collect()) {
            Row row = rows.next();
            if (rows.hasNext()) {
                throw new IllegalStateException("check query returned more than one row");
            }
            return row;
        }
    }
}
