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

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The main karrow demo job: writes Nexmark bids as Confluent Avro to Kafka, then reads them with
 * Flink SQL in a local MiniCluster twice, once with the stock path ({@code avro-confluent-reference},
 * flink-avro's registry-aware deserialization) and once with {@code avro-confluent-native}, and
 * reports the throughput of each and whether both read exactly the same rows.
 *
 * <p>Throughput is {@code INSERT INTO <blackhole> SELECT * FROM bids} (source + format), timed by the
 * job's net runtime; identity is checked with an order-independent digest of every column computed
 * by a batch-mode aggregate. Exits with status 1 if the digests differ or a count is short. Needs a
 * running broker and registry: see {@code benches/run-demo.sh}.
 */
public final class KarrowDemo {

    private static final String[] FORMATS = {"avro-confluent-reference", "avro-confluent-native"};
    private static final String[] LABELS = {"stock ", "native"};

    private KarrowDemo() {}

    /** Command-line options, all with defaults. */
    static final class Options {
        long records = 1_000_000;
        String bootstrap = "127.0.0.1:9092";
        String registry = "http://127.0.0.1:8081";
        String topic = "bids-" + System.currentTimeMillis();
        int partitions = 2;
        int parallelism = 2;
        int rounds = 2;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (name.equals("-h") || name.equals("--help")) {
                    System.out.println(
                            "usage: KarrowDemo [--records N] [--bootstrap HOST:PORT] [--registry URL] [--topic NAME]"
                                    + " [--partitions N] [--parallelism N] [--rounds N]");
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

    /** Runs the demo; see the class comment. */
    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        long started = System.nanoTime();
        System.out.printf(Locale.ROOT, "karrow demo: %,d Nexmark bids -> topic %s (%d partitions), Flink parallelism %d%n",
                o.records, o.topic, o.partitions, o.parallelism);

        createTopic(o);
        int schemaId = SchemaRegistration.register(o.registry, o.topic + "-value", NexmarkBids.WRITER_SCHEMA);
        double produceSeconds = produce(o, schemaId);
        System.out.printf(Locale.ROOT, "produced %,d records in %.2f s (%,.0f records/s), schema id %d%n",
                o.records, produceSeconds, o.records / produceSeconds, schemaId);

        TableEnvironment streaming = tableEnvironment(o, false);
        TableEnvironment batch = tableEnvironment(o, true);
        for (int f = 0; f < FORMATS.length; f++) {
            createSourceTable(streaming, o, f);
            createSourceTable(batch, o, f);
        }
        streaming.executeSql("CREATE TEMPORARY TABLE sink (" + NexmarkBids.COLUMNS_DDL + ") WITH ('connector' = 'blackhole')");
        batch.createTemporarySystemFunction("BID_DIGEST_A", new BidDigest(0x5EED_0001L));
        batch.createTemporarySystemFunction("BID_DIGEST_B", new BidDigest(0x5EED_0002L));

        // Throughput: alternate the formats so neither profits alone from a warmer JVM; keep the best.
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
        for (int round = 1; round <= o.rounds; round++) {
            StringBuilder line = new StringBuilder("round " + round + ":");
            for (int f = 0; f < FORMATS.length; f++) {
                double seconds = timeBlackholeInsert(streaming, f);
                best[f] = Math.min(best[f], seconds);
                line.append(String.format(Locale.ROOT, "  %s %.2f s (%,.0f rows/s)", LABELS[f].trim(), seconds, o.records / seconds));
            }
            System.out.println(line);
        }

        // Identity: the same digest of every row, computed from each format's rows.
        List<Row> digests = new ArrayList<>();
        for (int f = 0; f < FORMATS.length; f++) {
            digests.add(digest(batch, f));
        }

        boolean identical = digests.get(0).equals(digests.get(1));
        boolean complete = true;
        System.out.println();
        System.out.printf(Locale.ROOT, "%-34s %12s %9s %14s%n", "format", "records", "seconds", "rows/s");
        for (int f = 0; f < FORMATS.length; f++) {
            long count = (Long) digests.get(f).getField(0);
            complete &= count == o.records;
            System.out.printf(Locale.ROOT, "%-34s %,12d %9.2f %,14.0f%n",
                    LABELS[f] + " (" + FORMATS[f] + ")", count, best[f], count / best[f]);
        }
        System.out.printf(Locale.ROOT, "native / stock: %.2fx%n", best[0] / best[1]);
        for (int f = 0; f < FORMATS.length; f++) {
            System.out.printf("digest %s: %s%n", LABELS[f], digests.get(f));
        }
        if (!complete) {
            System.out.printf(Locale.ROOT, "record count differs from the %,d produced%n", o.records);
        }
        System.out.println("results identical: " + (identical && complete ? "yes" : "no"));
        System.out.printf(Locale.ROOT, "demo took %.1f s%n", (System.nanoTime() - started) / 1e9);
        System.exit(identical && complete ? 0 : 1);
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

    /** The issue-2 table, bounded at the offsets of job start, read with format {@code FORMATS[f]}. */
    private static void createSourceTable(TableEnvironment env, Options o, int f) {
        String format = FORMATS[f];
        env.executeSql("CREATE TEMPORARY TABLE " + table(f) + " (" + NexmarkBids.COLUMNS_DDL + ") WITH ("
                + "'connector' = 'kafka', "
                + "'topic' = '" + o.topic + "', "
                + "'properties.bootstrap.servers' = '" + o.bootstrap + "', "
                + "'properties.group.id' = 'karrow-demo', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + "'value.format' = '" + format + "', "
                + "'value." + format + ".url' = '" + o.registry + "')");
    }

    private static String table(int f) {
        return f == 0 ? "bids_stock" : "bids_native";
    }

    /** Runs {@code INSERT INTO sink SELECT * FROM <table>} and returns the job's net runtime in seconds. */
    private static double timeBlackholeInsert(TableEnvironment env, int f) throws Exception {
        TableResult result = env.executeSql("INSERT INTO sink SELECT * FROM " + table(f));
        JobExecutionResult job = result.getJobClient().orElseThrow().getJobExecutionResult().get();
        return job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0;
    }

    /** COUNT(*), SUM(price), COUNT(extra) and two 40-bit per-row hash sums over every column. */
    private static Row digest(TableEnvironment env, int f) throws Exception {
        String columns = "auction, bidder, price, channel, url, date_time, extra";
        String query = "SELECT COUNT(*), SUM(price), COUNT(extra), SUM(BID_DIGEST_A(" + columns + ")), "
                + "SUM(BID_DIGEST_B(" + columns + ")) FROM " + table(f);
        try (CloseableIterator<Row> rows = env.executeSql(query).collect()) {
            Row row = rows.next();
            if (rows.hasNext()) {
                throw new IllegalStateException("digest query returned more than one row");
            }
            return row;
        }
    }
}
