package io.karrow.bench;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The main karrow demo job, Kafka to Kafka: writes Nexmark bids as Confluent Avro to a topic, then
 * runs the flagship Flink SQL pipeline in a local MiniCluster twice,
 *
 * <pre>INSERT INTO bids_out SELECT auction, bidder, price * 100 AS price_cents, date_time
 * FROM bids WHERE price > 1000</pre>
 *
 * <p>once with the stock path (connector {@code kafka}, formats {@code avro-confluent-reference}:
 * flink-avro's registry-aware deserialization and serialization) and once with karrow ({@code
 * kafka-native} source with {@code 'scan.fetch-mode' = 'native'} and sink, {@code avro-confluent-native}
 * both ways), once more like karrow's run with karrow's operator core on ({@code
 * karrow.operator-core.enabled}: the Calc runs natively inside the source, on each fetched batch),
 * each exactly-once into its own output topic; with {@code --native-produce true} a fourth time, the
 * operator core's run with native produce ({@code 'sink.produce-mode' = 'native'}), which the operator
 * core fuses end to end (full fusion: one native call per fetched batch decodes, filters, projects
 * and encodes, and the encoded batch goes to the native producer without a Java object per record).
 * It reports the throughput of each (job net runtime, best of the rounds), the process CPU time per
 * output record (the MiniCluster runs in this JVM; best of the rounds), and whether every output
 * topic holds exactly the stock job's records, byte for byte (read {@code read_committed}, compared
 * as multisets since partitions interleave). Exits with status 1 if one differs. Needs a running
 * broker and registry: see {@code benches/run-demo.sh}.
 */
public final class KarrowDemo {

    private static final String[] FORMATS = {
        "avro-confluent-reference", "avro-confluent-native", "avro-confluent-native", "avro-confluent-native"};
    private static final String[] CONNECTORS = {"kafka", "kafka-native", "kafka-native", "kafka-native"};
    private static final String[] LABELS = {"stock ", "native", "fused ", "full-fusion"};
    /** The pipeline that runs with karrow's operator core on (source fusion), with Kafka's Java producer. */
    private static final int FUSED = 2;
    /** The pipeline that runs with the operator core and native produce: fully fused, source to sink. */
    private static final int FUSED_PRODUCE = 3;
    /** The sink option of each pipeline beyond the shared ones (the last writes with native produce). */
    private static final String[] SINK_MODES = {"", "", "", ", 'sink.produce-mode' = 'native'"};
    private static final String PIPELINE =
            "SELECT auction, bidder, price * 100 AS price_cents, date_time FROM %s WHERE price > 1000";

    private KarrowDemo() {}

    /** Runs the demo; see the class comment. */
    public static void main(String[] args) throws Exception {
        JobOptions o = JobOptions.parse(args, "KarrowDemo", 1_000_000L, "bids-", 2);
        long started = System.nanoTime();
        System.out.printf(Locale.ROOT, "karrow demo: %,d Nexmark bids -> topic %s (%d partitions), Flink parallelism %d%n",
                o.records, o.topic, o.partitions, o.parallelism);

        BidTopics.create(o.bootstrap, o.topic, o.partitions);
        int schemaId = SchemaRegistration.register(o.registry, o.topic + "-value", NexmarkBids.WRITER_SCHEMA);
        BidTopics.Produced produced = BidTopics.produce(o, schemaId);
        double produceSeconds = produced.seconds();
        System.out.printf(Locale.ROOT, "produced %,d records in %.2f s (%,.0f records/s), schema id %d%n",
                o.records, produceSeconds, o.records / produceSeconds, schemaId);

        TableEnvironment env = tableEnvironment(o);
        int pipelines = o.nativeProduce ? FORMATS.length : FUSED + 1;
        for (int f = 0; f < pipelines; f++) {
            createSourceTable(env, o, f);
        }
        long expected = produced.priceAbove1000();

        // Throughput: alternate the pipelines so none profits alone from a warmer JVM; keep the best.
        double[] best = new double[pipelines];
        double[] bestCpuNanosPerRecord = new double[pipelines];
        java.util.Arrays.fill(best, Double.MAX_VALUE);
        java.util.Arrays.fill(bestCpuNanosPerRecord, Double.MAX_VALUE);
        List<List<byte[]>> outputs = new ArrayList<>();
        for (int round = 1; round <= o.rounds; round++) {
            StringBuilder line = new StringBuilder("round " + round + ":");
            for (int f = 0; f < pipelines; f++) {
                String outTopic = o.topic + "-out-" + LABELS[f].trim() + "-" + round;
                BidTopics.create(o.bootstrap, outTopic, o.partitions);
                createSinkTable(env, o, f, outTopic);
                long cpuBefore = processCpuNanos();
                double seconds = timeInsert(env, f);
                double cpuPerRecord = (processCpuNanos() - cpuBefore) / (double) Math.max(1, expected);
                best[f] = Math.min(best[f], seconds);
                bestCpuNanosPerRecord[f] = Math.min(bestCpuNanosPerRecord[f], cpuPerRecord);
                line.append(String.format(Locale.ROOT, "  %s %.2f s (%,.0f input rows/s, %.2f us CPU/output record)",
                        LABELS[f].trim(), seconds, o.records / seconds, cpuPerRecord / 1000));
                if (round == o.rounds) {
                    outputs.add(readCommitted(o, outTopic));
                }
            }
            System.out.println(line);
        }

        List<byte[]> stock = outputs.get(0);
        boolean complete = true;
        boolean identical = true;
        for (int f = 0; f < pipelines; f++) {
            complete &= outputs.get(f).size() == expected;
            identical &= sortedEquals(stock, outputs.get(f));
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%-66s %12s %9s %14s %16s%n",
                "pipeline", "output", "seconds", "input rows/s", "us CPU/output");
        for (int f = 0; f < pipelines; f++) {
            String label = LABELS[f] + " (" + CONNECTORS[f] + " + " + FORMATS[f]
                    + (f >= FUSED ? ", operator core" : "") + (SINK_MODES[f].isEmpty() ? "" : ", native produce, sink fused") + ")";
            System.out.printf(Locale.ROOT, "%-66s %,12d %9.2f %,14.0f %16.2f%n",
                    label, outputs.get(f).size(), best[f], o.records / best[f], bestCpuNanosPerRecord[f] / 1000);
        }
        System.out.printf(Locale.ROOT, "native / stock: %.2fx%n", best[0] / best[1]);
        System.out.printf(Locale.ROOT, "fused / stock: %.2fx%n", best[0] / best[FUSED]);
        if (pipelines > FUSED_PRODUCE) {
            System.out.printf(Locale.ROOT, "full-fusion / stock: %.2fx; CPU per output record, full fusion /"
                    + " source fusion with Kafka's Java producer: %.2f%n", best[0] / best[FUSED_PRODUCE],
                    bestCpuNanosPerRecord[FUSED_PRODUCE] / bestCpuNanosPerRecord[FUSED]);
        }
        System.out.printf(Locale.ROOT, "expected output records (price > 1000): %,d%n", expected);
        System.out.println("output topics identical (bytes, read_committed): " + (identical && complete ? "yes" : "no"));
        System.out.printf(Locale.ROOT, "demo took %.1f s%n", (System.nanoTime() - started) / 1e9);
        System.exit(identical && complete ? 0 : 1);
    }

    /** CPU time of this process (every thread of the MiniCluster runs in it). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static boolean sortedEquals(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        List<byte[]> x = new ArrayList<>(a);
        List<byte[]> y = new ArrayList<>(b);
        x.sort(Arrays::compare);
        y.sort(Arrays::compare);
        for (int i = 0; i < x.size(); i++) {
            if (!Arrays.equals(x.get(i), y.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Every value of {@code topic} visible to a {@code read_committed} consumer. */
    private static List<byte[]> readCommitted(JobOptions o, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<byte[]> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("timed out reading " + topic);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }


    private static TableEnvironment tableEnvironment(JobOptions o) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, o.parallelism);
        // Exactly-once commits its Kafka transactions on checkpoints (the last one at end of input).
        conf.setString("execution.checkpointing.interval", "2 s");
        // A failing job must end the demo, not restart forever.
        conf.setString("restart-strategy.type", "none");
        return TableEnvironment.create(EnvironmentSettings.newInstance().withConfiguration(conf).inStreamingMode().build());
    }

    /** The issue-2 table, bounded at the offsets of job start, read with pipeline {@code f}. */
    private static void createSourceTable(TableEnvironment env, JobOptions o, int f) {
        String format = FORMATS[f];
        env.executeSql("CREATE TEMPORARY TABLE " + table(f) + " (" + NexmarkBids.COLUMNS_DDL + ") WITH ("
                + "'connector' = '" + CONNECTORS[f] + "', "
                + "'topic' = '" + o.topic + "', "
                + "'properties.bootstrap.servers' = '" + o.bootstrap + "', "
                + "'properties.group.id' = 'karrow-demo', "
                + "'scan.startup.mode' = 'earliest-offset', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + "'value.format' = '" + format + "', "
                + "'value." + format + ".url' = '" + o.registry + "'"
                // karrow reads with its native fetch (Kafka's Fetch protocol, no object per record).
                + (f >= 1 ? ", 'scan.fetch-mode' = 'native'" : "") + ")");
    }

    /** The output table of pipeline {@code f}, exactly-once into {@code topic}. */
    private static void createSinkTable(TableEnvironment env, JobOptions o, int f, String topic) {
        String format = FORMATS[f];
        env.executeSql("DROP TEMPORARY TABLE IF EXISTS " + outTable(f));
        env.executeSql("CREATE TEMPORARY TABLE " + outTable(f)
                + " (auction BIGINT, bidder BIGINT, price_cents BIGINT, date_time TIMESTAMP(3)) WITH ("
                + "'connector' = '" + CONNECTORS[f] + "', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + o.bootstrap + "', "
                + "'sink.delivery-guarantee' = 'exactly-once', "
                + "'sink.transactional-id-prefix' = '" + topic + "', "
                // Flink's default (1 h) is above the broker's transaction.max.timeout.ms (15 min).
                + "'properties.transaction.timeout.ms' = '600000', "
                + "'value.format' = '" + format + "', "
                + "'value." + format + ".url' = '" + o.registry + "', "
                + "'value." + format + ".subject' = 'bids_out-value'"
                + SINK_MODES[f]
                + o.sinkOptions.stream().map(option -> ", " + option).collect(java.util.stream.Collectors.joining()) + ")");
    }

    private static String table(int f) {
        return new String[] {"bids_stock", "bids_native", "bids_fused", "bids_fused_produce"}[f];
    }

    private static String outTable(int f) {
        return new String[] {"bids_out_stock", "bids_out_native", "bids_out_fused", "bids_out_fused_produce"}[f];
    }

    /** Runs the pipeline of {@code f} and returns the job's net runtime in seconds. */
    private static double timeInsert(TableEnvironment env, int f) throws Exception {
        String query = "INSERT INTO " + outTable(f) + " " + String.format(PIPELINE, table(f));
        // Read when the statement is optimized: only the fused pipelines plan the operator core in.
        env.getConfig().set("karrow.operator-core.enabled", String.valueOf(f >= FUSED));
        if (f >= FUSED && !env.explainSql(query).contains("KarrowFusedScan")) {
            throw new IllegalStateException("the operator core did not fuse the demo query:\n" + env.explainSql(query));
        }
        if (f == FUSED_PRODUCE && !env.explainSql(query).contains("fusedSink=")) {
            throw new IllegalStateException("the operator core did not fuse the demo's sink:\n" + env.explainSql(query));
        }
        TableResult result = env.executeSql(query);
        JobExecutionResult job = result.getJobClient().orElseThrow().getJobExecutionResult().get();
        return job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0;
    }
}
