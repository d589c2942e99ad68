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
 * both ways), and once more like karrow's run with karrow's operator core on ({@code
 * karrow.operator-core.enabled}: the Calc runs natively inside the source, on each fetched batch),
 * each exactly-once into its own output topic. It reports the throughput of each (job net runtime, best of the rounds) and whether
 * all output topics hold exactly the same records, byte for byte (read {@code read_committed},
 * compared as multisets since partitions interleave). Exits with status 1 if they differ. Needs a
 * running broker and registry: see {@code benches/run-demo.sh}.
 */
public final class KarrowDemo {

    private static final String[] FORMATS = {"avro-confluent-reference", "avro-confluent-native", "avro-confluent-native"};
    private static final String[] CONNECTORS = {"kafka", "kafka-native", "kafka-native"};
    private static final String[] LABELS = {"stock ", "native", "fused "};
    /** The pipeline that runs with karrow's operator core on (source fusion). */
    private static final int FUSED = 2;
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
        for (int f = 0; f < FORMATS.length; f++) {
            createSourceTable(env, o, f);
        }

        // Throughput: alternate the pipelines so neither profits alone from a warmer JVM; keep the best.
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        List<List<byte[]>> outputs = new ArrayList<>();
        for (int round = 1; round <= o.rounds; round++) {
            StringBuilder line = new StringBuilder("round " + round + ":");
            for (int f = 0; f < FORMATS.length; f++) {
                String outTopic = o.topic + "-out-" + LABELS[f].trim() + "-" + round;
                BidTopics.create(o.bootstrap, outTopic, o.partitions);
                createSinkTable(env, o, f, outTopic);
                double seconds = timeInsert(env, f);
                best[f] = Math.min(best[f], seconds);
                line.append(String.format(Locale.ROOT, "  %s %.2f s (%,.0f input rows/s)",
                        LABELS[f].trim(), seconds, o.records / seconds));
                if (round == o.rounds) {
                    outputs.add(readCommitted(o, outTopic));
                }
            }
            System.out.println(line);
        }

        long expected = produced.priceAbove1000();
        List<byte[]> stock = outputs.get(0);
        boolean complete = true;
        boolean identical = true;
        for (List<byte[]> out : outputs) {
            complete &= out.size() == expected;
            identical &= sortedEquals(stock, out);
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%-58s %12s %9s %14s%n", "pipeline", "output", "seconds", "input rows/s");
        for (int f = 0; f < FORMATS.length; f++) {
            System.out.printf(Locale.ROOT, "%-58s %,12d %9.2f %,14.0f%n",
                    LABELS[f] + " (" + CONNECTORS[f] + " + " + FORMATS[f] + (f == FUSED ? ", operator core" : "") + ")",
                    outputs.get(f).size(), best[f],
                    o.records / best[f]);
        }
        System.out.printf(Locale.ROOT, "native / stock: %.2fx%n", best[0] / best[1]);
        System.out.printf(Locale.ROOT, "fused / stock: %.2fx%n", best[0] / best[FUSED]);
        System.out.printf(Locale.ROOT, "expected output records (price > 1000): %,d%n", expected);
        System.out.println("output topics identical (bytes, read_committed): " + (identical && complete ? "yes" : "no"));
        System.out.printf(Locale.ROOT, "demo took %.1f s%n", (System.nanoTime() - started) / 1e9);
        System.exit(identical && complete ? 0 : 1);
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
                + o.sinkOptions.stream().map(option -> ", " + option).collect(java.util.stream.Collectors.joining()) + ")");
    }

    private static String table(int f) {
        return new String[] {"bids_stock", "bids_native", "bids_fused"}[f];
    }

    private static String outTable(int f) {
        return new String[] {"bids_out_stock", "bids_out_native", "bids_out_fused"}[f];
    }

    /** Runs the pipeline of {@code f} and returns the job's net runtime in seconds. */
    private static double timeInsert(TableEnvironment env, int f) throws Exception {
        String query = "INSERT INTO " + outTable(f) + " " + String.format(PIPELINE, table(f));
        // Read when the statement is optimized: only the fused pipeline plans the operator core in.
        env.getConfig().set("karrow.operator-core.enabled", String.valueOf(f == FUSED));
        if (f == FUSED && !env.explainSql(query).contains("KarrowFusedScan")) {
            throw new IllegalStateException("the operator core did not fuse the demo query:\n" + env.explainSql(query));
        }
        TableResult result = env.executeSql(query);
        JobExecutionResult job = result.getJobClient().orElseThrow().getJobExecutionResult().get();
        return job.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0;
    }
}
