package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.connector.kafka.FusedJobs.Side;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Savepoints of an exactly-once Kafka sink move between the three sinks: a job writes through the
 * stock {@code kafka} sink, is stopped with a savepoint, and the same query restarts from it with
 * {@code kafka-native} and native produce, then with {@code kafka-native} and Kafka's producer, then
 * native again, then the stock sink. Each leg restores the previous leg's writer state ({@code
 * KafkaWriterState}) and committer state ({@code KafkaCommittable}s, committed again on restore) and
 * writes one more step of input. The source is the stock one throughout, so the output ({@code
 * partition:offset} of each input record) read {@code read_committed} must be every input record
 * exactly once. Under both transaction naming strategies.
 */
class KafkaNativeProduceSavepointITCase {

    private static final int PER_STEP = 600;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .setConfiguration(CollectedMetrics.configuration())
                    .build());

    private static DevRegistry registry;

    @BeforeAll
    static void setUp() throws Exception {
        KafkaTestSupport.requireBroker();
        registry = DevRegistry.start();
    }

    @AfterAll
    static void tearDown() {
        if (registry != null) {
            registry.close();
        }
    }

    /** A leg: the sink's connector and produce mode, and the writers of each path its plan must show. */
    private record Leg(String connector, String options, int nativeWriters, int batchWriters) {}

    private static final Leg STOCK = new Leg("kafka", "", 0, 0);
    private static final Leg BATCHED = new Leg("kafka-native", "'sink.produce-mode' = 'kafka-producer',", 0, 1);
    private static final Leg NATIVE = new Leg("kafka-native", "'sink.produce-mode' = 'native',", 1, 0);

    @ParameterizedTest(name = "sink.transaction-naming-strategy = {0}")
    @ValueSource(strings = {"INCREMENTING", "POOLING"})
    void exactlyOnceSavepointsMoveBetweenStockBatchedAndNativeSinks(String naming, @TempDir Path savepoints)
            throws Exception {
        String in = createTopic("produce-savepoint-in", 3);
        String out = createTopic("produce-savepoint-out", 3);
        String prefix = "karrow-savepoint-" + UUID.randomUUID().toString().substring(0, 8);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(in + "-value", corpus.writers().get(0).toString());
        List<Leg> legs = List.of(STOCK, NATIVE, BATCHED, NATIVE, STOCK);
        String savepoint = null;
        for (int step = 0; step < legs.size(); step++) {
            produce(in, id, corpus, step * PER_STEP, PER_STEP);
            JobClient job = start(legs.get(step), naming, prefix, in, out, savepoint);
            int expected = (step + 1) * PER_STEP;
            List<String> committed = readCommitted(out, expected);
            // A leg whose job failed (e.g. restoring state it has no operator for) says why.
            assertThat(committed).as("leg %d (%s), job %s", step, legs.get(step), describe(job)).hasSize(expected);
            if (step == legs.size() - 1) {
                job.cancel().get(60, TimeUnit.SECONDS);
                List<String> all = readCommitted(out, expected + 1);
                assertThat(all).hasSize(expected).doesNotHaveDuplicates();
                assertThat(new HashSet<>(all)).isEqualTo(expectedIds(expected));
            } else {
                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(120, TimeUnit.SECONDS);
            }
        }
    }

    private static void produce(String topic, int schemaId, AvroCorpus corpus, int from, int count) {
        Random random = new Random(from);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = from; i < from + count; i++) {
                var record = AvroCorpora.bid(random, i, corpus.writers().get(0));
                producer.send(new ProducerRecord<>(topic, i % 3, null,
                        ConfluentAvroEncoder.encode(schemaId, corpus.writers().get(0), record)));
            }
            producer.flush();
        }
    }

    /** The committed output ids (the records' keys), once at least {@code expected} arrived (or 90 s passed). */
    private static List<String> readCommitted(String topic, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<String> values = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            values = KafkaTestSupport.readAll(topic, true).stream()
                    .map(r -> new String(r.key(), StandardCharsets.UTF_8))
                    .collect(Collectors.toList());
            if (values.size() >= expected) {
                break;
            }
            Thread.sleep(500);
        }
        return values;
    }

    private static JobClient start(Leg leg, String naming, String prefix, String in, String out, String savepoint) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (savepoint != null) {
            tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        tEnv.executeSql("CREATE TABLE src (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL)"
                + " WITH ('connector' = 'kafka', 'topic' = '" + in + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'properties.group.id' = 'karrow-produce-savepoint-it',"
                + "'scan.startup.mode' = 'earliest-offset',"
                + "'value.format' = 'avro-confluent-reference', 'value.avro-confluent-reference.url' = '"
                + registry.url() + "')");
        String format = leg.connector().equals("kafka") ? "avro-confluent-reference" : "avro-confluent-native";
        tEnv.executeSql("CREATE TABLE snk (id STRING, auction BIGINT) WITH ('connector' = '" + leg.connector() + "',"
                + " 'topic' = '" + out + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                + "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '" + prefix + "',"
                + "'sink.transaction-naming-strategy' = '" + naming + "',"
                + "'properties.transaction.timeout.ms' = '600000'," + leg.options()
                + "'key.format' = 'raw', 'key.fields' = 'id', 'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + registry.url() + "')");
        StatementSet statements = tEnv.createStatementSet();
        // The key is the id as raw bytes (read back below).
        statements.addInsertSql("INSERT INTO snk SELECT CONCAT(CAST(`partition` AS STRING), ':',"
                + " CAST(`offset` AS STRING)), auction FROM src");
        String plan = statements.explain(ExplainDetail.JSON_EXECUTION_PLAN);
        assertThat(plan.split("\"type\" : \"" + KafkaNativeDynamicSink.NATIVE_SINK_NAME + ": Writer\"", -1).length - 1)
                .as("native produce writers of leg %s", leg).isEqualTo(leg.nativeWriters());
        assertThat(plan.split("\"type\" : \"" + KafkaNativeDynamicSink.BATCH_ENCODE_SINK_NAME + ": Writer\"", -1).length
                        - 1)
                .as("batch encoding writers of leg %s", leg).isEqualTo(leg.batchWriters());
        return statements.execute().getJobClient().orElseThrow();
    }

    /** The job's status, and its failure if it failed. */
    private static String describe(JobClient job) {
        try {
            JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
            if (status == JobStatus.FAILED) {
                try {
                    job.getJobExecutionResult().get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    return status + ": " + ExceptionUtils.stringifyException(e);
                }
            }
            return status.toString();
        } catch (Exception e) {
            return "(status unknown: " + e + ")";
        }
    }

    private static Set<String> expectedIds(int total) {
        // Record i went to partition i % 3 at offset i / 3.
        return IntStream.range(0, total).mapToObj(i -> (i % 3) + ":" + (i / 3)).collect(Collectors.toSet());
    }

    /**
     * A leg of the fused variant: the path of its source ({@code side}), its sink's connector and
     * produce mode, and whether its plan fuses the sink too.
     */
    private record FusedLeg(Side side, String connector, String produceMode, boolean fullSink) {}

    /**
     * The exactly-once sinks' savepoints between unfused and fused jobs, in both directions, over
     * {@link FusedJobs#QUERY}: stock; fully fused ({@code kafka-native} in, the operator core on,
     * {@code kafka-native} out with native produce, fused into the scan); the same tables with the
     * operator core off; source fusion into {@code kafka-native} with Kafka's producer (the sink is
     * not fused then); fully fused again; stock. Each leg restores the previous leg's source, writer
     * and committer state and reads one more step; the {@code read_committed} output must be exactly
     * the stock job's output over the whole input, each record once.
     */
    @ParameterizedTest(name = "sink.transaction-naming-strategy = {0}")
    @ValueSource(strings = {"INCREMENTING", "POOLING"})
    void exactlyOnceSavepointsMoveBetweenUnfusedAndFusedJobs(String naming, @TempDir Path savepoints)
            throws Exception {
        String in = createTopic("produce-savepoint-fused-in", 3);
        String out = createTopic("produce-savepoint-fused-out", 3);
        String prefix = "karrow-savepoint-fused-" + UUID.randomUUID().toString().substring(0, 8);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = registry.register(in + "-value", corpus.writers().get(0).toString());
        List<FusedLeg> legs = List.of(
                new FusedLeg(Side.STOCK, "kafka", null, false),
                new FusedLeg(Side.FUSED, "kafka-native", "native", true),
                new FusedLeg(Side.UNFUSED, "kafka-native", "native", true),
                new FusedLeg(Side.FUSED, "kafka-native", "kafka-producer", false),
                new FusedLeg(Side.FUSED, "kafka-native", "native", true),
                new FusedLeg(Side.STOCK, "kafka", null, false));
        String savepoint = null;
        int kept = 0;
        Map<String, Integer> committed = Map.of();
        for (int step = 0; step < legs.size(); step++) {
            FusedLeg leg = legs.get(step);
            kept += FusedJobs.produce(in, id, corpus, step * PER_STEP, PER_STEP);
            String jobName = "produce-savepoint-fused-" + step + "-" + UUID.randomUUID();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(500);
            StreamTableEnvironment tEnv = FusedJobs.tableEnv(env, leg.side(), jobName);
            if (savepoint != null) {
                tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            }
            tEnv.executeSql(FusedJobs.sourceDdl(leg.side(), in, registry.url(), "karrow-produce-savepoint-it", ""));
            boolean nativeSink = leg.connector().equals("kafka-native");
            tEnv.executeSql("CREATE TABLE snk (" + FusedJobs.OUT_COLUMNS + ") WITH ('connector' = '" + leg.connector()
                    + "', 'topic' = '" + out + "', 'properties.bootstrap.servers' = '" + BOOTSTRAP + "',"
                    + "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '" + prefix + "',"
                    + "'sink.transaction-naming-strategy' = '" + naming + "',"
                    + "'properties.transaction.timeout.ms' = '600000',"
                    + (nativeSink ? "'sink.produce-mode' = '" + leg.produceMode() + "'," : "")
                    + "'value.format' = '" + (nativeSink ? "json-native" : "json") + "')");
            String insert = "INSERT INTO snk " + FusedJobs.QUERY;
            FusedJobs.assertPlan(leg.side(), leg.fullSink(), tEnv.explainSql(insert));
            JobClient job = tEnv.executeSql(insert).getJobClient().orElseThrow();
            committed = readCommittedValues(out, kept);
            assertThat(committed.values().stream().mapToInt(Integer::intValue).sum())
                    .as("leg %d (%s), job %s", step, leg, describe(job)).isEqualTo(kept);
            if (leg.side() != Side.STOCK) {
                FusedJobs.assertRan(leg.side(), leg.fullSink(), jobName, 1);
            }
            if (step == legs.size() - 1) {
                job.cancel().get(60, TimeUnit.SECONDS);
                committed = readCommittedValues(out, kept + 1);
            } else {
                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(120, TimeUnit.SECONDS);
            }
        }
        Map<String, Integer> expected = FusedJobs.stockValues(in, registry.url());
        assertThat(expected.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(kept);
        assertThat(committed).isEqualTo(expected);
    }

    /** The committed output values with their counts, once at least {@code expected} arrived (or 90 s passed). */
    private static Map<String, Integer> readCommittedValues(String topic, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Map<String, Integer> values = Map.of();
        while (System.nanoTime() < deadline) {
            values = FusedJobs.multiset(KafkaTestSupport.readAll(topic, true));
            if (values.values().stream().mapToInt(Integer::intValue).sum() >= expected) {
                break;
            }
            Thread.sleep(500);
        }
        return values;
    }
}
