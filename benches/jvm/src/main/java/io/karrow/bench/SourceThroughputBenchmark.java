package io.karrow.bench;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Source throughput of the {@code kafka-native} connector against the stock path, over a real broker
 * (issue 3, part 7): Confluent-Avro Nexmark bids are produced once to a new topic (default 2,000,000
 * bids, 2 partitions), then the same Flink SQL job, {@code INSERT INTO <blackhole> SELECT * FROM
 * bids} (parallelism 2, bounded at the latest offsets), runs in one local MiniCluster in this JVM
 * with three source configurations:
 *
 * <ol>
 *   <li>{@code stock}: {@code 'connector' = 'kafka'} + {@code avro-confluent-reference} (flink-avro's
 *       registry-aware path, what {@code avro-confluent} runs);
 *   <li>{@code format}: {@code 'connector' = 'kafka'} + {@code avro-confluent-native} (the format
 *       swap: one native call per record, on the task thread);
 *   <li>{@code native}: {@code 'connector' = 'kafka-native'} + {@code avro-confluent-native} (one
 *       native call per fetched batch, on the fetcher thread).
 * </ol>
 *
 * <p>Each round runs all three, in an order rotated per round so none always runs on the warmest
 * JVM; each configuration keeps its best job net runtime over the rounds. Prints rows/s and the ratio
 * of each to {@code stock}. Afterwards every configuration's {@code COUNT(*)} and {@code SUM(price)}
 * are checked in batch mode against each other and the number produced (exit status 1 otherwise).
 * Needs a running broker and registry: see {@code benches/run-source-bench.sh}.
 */
public final class SourceThroughputBenchmark {

    private static final String[] LABELS = {"stock", "format", "native"};
    private static final String[] CONNECTORS = {"kafka", "kafka", "kafka-native"};
    private static final String[] FORMATS = {"avro-confluent-reference", "avro-confluent-native", "avro-confluent-native"};

    private SourceThroughputBenchmark() {}

    /** Command-line options, all with defaults. */
    static final class Options {
        long records = 2_000_000;
        String bootstrap = "127.0.0.1:9092";
        String registry = "http://127.0.0.1:8081";
        String topic = "source-bench-" + System.currentTimeMillis();
        int partitions = 2;
        int parallelism = 2;
        int rounds = 5;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (name.equals("-h") || name.equals("--help")) {
                    System.out.println("usage: SourceThroughputBenchmark [--records N] [--bootstrap HOST:PORT]"
                            + " [--registry URL] [--topic NAME] [--partitions N] [--parallelism N] [--rounds N]");
                    System.exit(0);
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + name);
                }
                String value = args[++i];
                switch (name) {
                    case "--records" -> o.records = Long.parseLong(value.replace("_", "").replace(",", ""));
                    case "--bootstrap" -> o.bootstrap = value;
                    case "--registry" -> o.registry = value;
                    case "--topic" -> o.topic = value;
                    case "--partitions" -> o.partitions = Integer.parseInt(value);
                    case "--parallelism" -> o.parallelism = Integer.parseInt(value);
                    case "--rounds" -> o.rounds = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (o.records < 1 || o.partitions < 1 || o.parallelism < 1 || o.rounds < 1) {
                throw new IllegalArgumentException("--records, --partitions, --parallelism and --rounds must be >= 1");
            }
            return o;
        }
    }

    /** Runs the benchmark; see the class comment. */
    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        long started = System.nanoTime();
        System.out.printf(Locale.ROOT,
                "karrow source benchmark: %,d Nexmark bids -> topic %s (%d partitions), Flink parallelism %d, %d rounds%n",
                o.records, o.topic, o.partitions, o.parallelism, o.rounds);

        createTopic(o);
        int schemaId = SchemaRegistration.register(o.registry, o.topic + "-value", NexmarkBids.WRITER_SCHEMA);
        double produceSeconds = produce(o, schemaId);
        System.out.printf(Locale.ROOT, "produced %,d records in %.2f s (%,.0f records/s), schema id %d%n",
                o.records, produceSeconds, o.records / produceSeconds, schemaId);

        TableEnvironment streaming = tableEnvironment(o, false);
        TableEnvironment batch = tableEnvironment(o, true);
        for (int c = 0; c < LABELS.length; c++) {
            createSourceTable(streaming, o, c);
            createSourceTable(batch, o, c);
        }
        streaming.executeSql("CREATE TEMPORARY TABLE sink (" + NexmarkBids.COLUMNS_DDL + ") WITH ('connector' = 'blackhole')");

        double[] best = new double[LABELS.length];
        Arrays.fill(best, Double.MAX_VALUE);
        for (int round = 1; round <= o.rounds; round++) {
            StringBuilder line = new StringBuilder("round " + round + ":");
            for (int k = 0; k < LABELS.length; k++) {
                int c = (k + round - 1) % LABELS.length;
                double seconds = timeBlackholeInsert(streaming, c);
                best[c] = Math.min(best[c], seconds);
                line.append(String.format(Locale.ROOT, "  %s %.2f s (%,.0f rows/s)", LABELS[c], seconds, o.records / seconds));
            }
            System.out.println(line);
        }

        // Every configuration read every record: COUNT(*) and SUM(price) agree with each other and the producer.
        Row[] checks = new Row[LABELS.length];
        boolean ok = true;
        for (int c = 0; c < LABELS.length; c++) {
            checks[c] = check(batch, c);
            ok &= (Long) checks[c].getField(0) == o.records && checks[c].equals(checks[0]);
        }

        System.out.println();
        System.out.printf(Locale.ROOT, "%-52s %12s %9s %14s %9s%n", "source", "records", "best s", "rows/s", "vs stock");
        for (int c = 0; c < LABELS.length; c++) {
            System.out.printf(Locale.ROOT, "%-52s %,12d %9.2f %,14.0f %8.2fx%n",
                    LABELS[c] + " (" + CONNECTORS[c] + " + " + FORMATS[c] + ")",
                    (Long) checks[c].getField(0), best[c], o.records / best[c], best[0] / best[c]);
        }
        for (int c = 0; c < LABELS.length; c++) {
            System.out.printf("check %-6s COUNT(*), SUM(price): %s%n", LABELS[c], checks[c]);
        }
        System.out.println("all sources read every record: " + (ok ? "yes" : "no"));
        System.out.printf(Locale.ROOT, "benchmark took %.1f s%n", (System.nanoTime() - started) / 1e9);
        System.exit(ok ? 0 : 1);
    }

    private static void createTopic(Options o) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap);
        try (Admin admin = Admin.create(props)) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(o.topic)) {
                admin.createTopics(Set.of(new NewTopic(o.topic, o.partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Writes the bids, partition {@code i % partitions} for bid {@code i}; returns the seconds taken. */
    private static double produce(Options o, int schemaId) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
        AtomicReference<Exception> failure = new AtomicReference<>();
        NexmarkBids.Generator bids = new NexmarkBids.Generator(schemaId, 7L);
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 0; i < o.records && failure.get() == null; i++) {
                producer.send(new ProducerRecord<>(o.topic, (int) (i % o.partitions), null, bids.next()),
                        (metadata, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            }
                        });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("producing bids failed", failure.get());
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static TableEnvironment tableEnvironment(Options o, boolean batchMode) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, o.parallelism);
        EnvironmentSettings.Builder settings = EnvironmentSettings.newInstance().withConfiguration(conf);
        return TableEnvironment.create((batchMode ? settings.inBatchMode() : settings.inStreamingMode()).build());
    }

    /** The bids table read through configuration {@code c}, bounded at the offsets of job start. */
    private static void createSourceTable(TableEnvironment env, Options o, int c) {
        String format = FORMATS[c];
        env.executeSql("CREATE TEMPORARY TABLE " + table(c) + " (" + NexmarkBids.COLUMNS_DDL + ") WITH ("
                + "'connector' = '" + CONNECTORS[c] + "', "
                + "'topic' = '" + o.topic + "', "
                + "'properties.bootstrap.servers' = '" + o.bootstrap + "', "
                + "'properties.group.id' = 'karrow-source-bench', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + "'value.format' = '" + format + "', "
                + "'value." + format + ".url' = '" + o.registry + "')");
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
