package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.connector.kafka.FusedJobs.Side;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Failover of a {@code kafka-native} + {@code avro-confluent-native} job over a real broker
 * ({@code -Dkarrow.kafka.bootstrap}), the dev registry and a MiniCluster: an unbounded job with
 * checkpoints every 500 ms and a fixed-delay restart strategy writes one line per input record
 * ({@code partition|offset|every decoded column}) to an output topic through the stock {@code kafka}
 * sink with {@code exactly-once} delivery. After a first batch is committed, a second batch is
 * produced and a UDF throws exactly once in the middle of it; the job restarts from the last
 * checkpoint. What a {@code read_committed} consumer sees must be every input record exactly once:
 * the set of {@code partition:offset} is the input's, there are no duplicates, and every line equals
 * the one the stock {@code kafka} + {@code avro-confluent-reference} path computes for that record.
 * (A source that restored wrong offsets would duplicate or lose lines; one that lost the restored
 * state would start from {@code earliest-offset} and duplicate the first batch.)
 */
class KafkaNativeFailoverITCase {

    private static final int FIRST = 3_000;
    private static final int SECOND = 3_000;
    /** The injected failure hits the {@code FAIL_AFTER}-th record processed after arming (mid second batch). */
    private static final int FAIL_AFTER = 1_000;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    /** The index of the MiniCluster's live TaskManager (the fused tests terminate one and start the next). */
    private static int liveTaskManager = 0;

    /** Shared with {@link FailOnce} (the MiniCluster runs in this JVM and class loader). */
    static final AtomicBoolean ARMED = new AtomicBoolean();
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicInteger SEEN_AFTER_ARMING = new AtomicInteger();

    /** Passes its argument through; throws once, on the {@link #FAIL_AFTER}-th call after {@link #ARMED}. */
    public static class FailOnce extends ScalarFunction {
        // Explicit argument hints: Flink otherwise reads parameter names from the class file, which it
        // cannot find for a test class under Failsafe.
        @FunctionHint(arguments = @ArgumentHint(name = "line", type = @DataTypeHint("STRING")),
                output = @DataTypeHint("STRING"))
        public String eval(String line) {
            if (ARMED.get() && SEEN_AFTER_ARMING.incrementAndGet() == FAIL_AFTER && FAILED.compareAndSet(false, true)) {
                throw new RuntimeException("karrow test: injected failure");
            }
            return line;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }

    /** A {@code read_committed} consumer of the whole output topic, accumulating every value it sees. */
    private static final class CommittedOutput implements AutoCloseable {
        final List<String> values = new ArrayList<>();
        private final KafkaConsumer<byte[], byte[]> consumer;

        CommittedOutput(String topic) {
            consumer = KafkaTestSupport.committedFromStart(BOOTSTRAP, topic);
        }

        void poll(Duration timeout) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
                values.add(new String(r.value(), StandardCharsets.UTF_8));
            }
        }

        /** Polls until {@code done} or {@code seconds} pass; false on timeout. */
        boolean pollUntil(BooleanSupplier done, int seconds) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (!done.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                poll(Duration.ofMillis(200));
            }
            return true;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    private static final String LINE = "CONCAT_WS('|', CAST(`partition` AS STRING), CAST(`offset` AS STRING),"
            + " CAST(auction AS STRING), CAST(bidder AS STRING), CAST(price AS STRING), channel, url,"
            + " CAST(date_time AS STRING), COALESCE(extra, '<null>'))";

    private static String sourceDdl(String table, String connector, String format, String topic, boolean bounded) {
        return sourceDdl(table, connector, format, topic, bounded, "");
    }

    private static String sourceDdl(
            String table, String connector, String format, String topic, boolean bounded, String extraOptions) {
        return "CREATE TABLE " + table + " (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING, `partition` INT METADATA VIRTUAL,"
                + " `offset` BIGINT METADATA VIRTUAL)"
                + " WITH ('connector' = '" + connector + "', 'topic' = '" + topic + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'properties.group.id' = 'karrow-failover-it',"
                + "'scan.startup.mode' = 'earliest-offset',"
                + (bounded ? "'scan.bounded.mode' = 'latest-offset'," : "")
                + "'value.format' = '" + format + "', 'value." + format + ".url' = '" + ENV.registry().url() + "'"
                + extraOptions + ")";
    }

    private static JobClient startFailoverJob(String in, String out, String fetchMode) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(conf);
        env.setParallelism(2);
        env.enableCheckpointing(500);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.createTemporarySystemFunction("FAIL_ONCE", FailOnce.class);
        tEnv.executeSql(sourceDdl("src", "kafka-native", "avro-confluent-native", in, false,
                ", 'scan.fetch-mode' = '" + fetchMode + "'"));
        tEnv.executeSql("CREATE TABLE snk (line STRING) WITH ('connector' = 'kafka', 'topic' = '" + out + "',"
                + "'properties.bootstrap.servers' = '" + BOOTSTRAP + "', 'value.format' = 'raw',"
                + "'sink.delivery-guarantee' = 'exactly-once',"
                + "'sink.transactional-id-prefix' = 'karrow-failover-" + UUID.randomUUID() + "',"
                + "'properties.transaction.timeout.ms' = '60000')");
        return tEnv.executeSql("INSERT INTO snk SELECT FAIL_ONCE(" + LINE + ") FROM src").getJobClient().orElseThrow();
    }

    /** The lines the stock path computes for every input record (bounded, no failure). */
    private static Map<String, Integer> stockLines(String in) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(sourceDdl("stock", "kafka", "avro-confluent-reference", in, true));
        Map<String, Integer> lines = new HashMap<>();
        try (CloseableIterator<Row> rows = tEnv.executeSql("SELECT " + LINE + " FROM stock").collect()) {
            while (rows.hasNext()) {
                lines.merge((String) rows.next().getField(0), 1, Integer::sum);
            }
        }
        return lines;
    }

    private static Map<String, Integer> multiset(List<String> values) {
        Map<String, Integer> m = new HashMap<>();
        values.forEach(v -> m.merge(v, 1, Integer::sum));
        return m;
    }

    private static Set<String> expectedIds(int total) {
        return IntStream.range(0, total).mapToObj(i -> (i % 3) + ":" + (i / 3)).collect(Collectors.toSet());
    }

    /** With each {@code scan.fetch-mode}. */
    @ParameterizedTest(name = "scan.fetch-mode = {0}")
    @ValueSource(strings = {"kafka-consumer", "native"})
    void restartFromCheckpointAfterAnInjectedFailureLosesAndDuplicatesNothing(String fetchMode) throws Exception {
        ARMED.set(false);
        FAILED.set(false);
        SEEN_AFTER_ARMING.set(0);
        String in = createTopic("failover-in", 3);
        String out = createTopic("failover-out", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());

        ThreePartitionBids.produce(in, id, corpus, 0, FIRST);
        JobClient job = startFailoverJob(in, out, fetchMode);
        List<String> lines;
        JobStatus status;
        try (CommittedOutput output = new CommittedOutput(out)) {
            // The first batch committed: at least one checkpoint completed with the source's offsets in it.
            assertThat(output.pollUntil(() -> output.values.size() >= FIRST, 120))
                    .as("first batch committed (%s lines)", output.values.size()).isTrue();

            ARMED.set(true);
            ThreePartitionBids.produce(in, id, corpus, FIRST, SECOND);
            boolean complete = output.pollUntil(() -> output.values.size() >= FIRST + SECOND, 180);
            // A duplicate would be committed by the next checkpoints; give them time to show.
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < settle) {
                output.poll(Duration.ofMillis(200));
            }
            assertThat(complete).as("all lines committed (%s of %s)", output.values.size(), FIRST + SECOND).isTrue();
            lines = output.values;
        } finally {
            status = job.getJobStatus().get(30, TimeUnit.SECONDS);
            job.cancel().get(60, TimeUnit.SECONDS);
        }
        assertThat(FAILED.get()).as("the failure was injected").isTrue();
        assertThat(status).as("the job restarted and kept running").isEqualTo(JobStatus.RUNNING);

        assertThat(lines).hasSize(FIRST + SECOND).doesNotHaveDuplicates();
        Set<String> ids = lines.stream()
                .map(line -> {
                    String[] parts = line.split("\\|", 3);
                    return parts[0] + ":" + parts[1];
                })
                .collect(Collectors.toSet());
        assertThat(ids).isEqualTo(expectedIds(FIRST + SECOND));
        Map<String, Integer> expected = stockLines(in);
        assertThat(expected.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(FIRST + SECOND);
        assertThat(multiset(lines)).isEqualTo(expected);
        assertThat(new HashSet<>(lines)).hasSize(FIRST + SECOND);
    }

    /**
     * The fused job under a failover: {@link FusedJobs#QUERY} over the native fetch with the operator
     * core on, into an exactly-once sink — the stock {@code kafka} sink (source fusion) or
     * {@code kafka-native} with native produce (full fusion: no Calc or UDF is left in the job where
     * a failure could be injected, so both variants lose their TaskManager instead). After a first
     * batch is committed, a second batch is produced and the only TaskManager is terminated; a new
     * one is started and the job restarts from its last checkpoint. The {@code read_committed}
     * output must be exactly the stock job's output over the same input, each record once, and the
     * plan and the counters must show the fused path ran.
     */
    @ParameterizedTest(name = "full fusion = {0}")
    @ValueSource(booleans = {false, true})
    void fusedJobRestartsFromCheckpointAfterLosingItsTaskManager(boolean fullSink, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        String in = createTopic("failover-fused-in", 3);
        String out = createTopic("failover-fused-out", 1);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());
        int first = FusedJobs.produce(in, id, corpus, 0, FIRST);

        String jobName = "failover-fused-" + UUID.randomUUID();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(conf);
        env.setParallelism(2);
        env.enableCheckpointing(500);
        StreamTableEnvironment tEnv = FusedJobs.tableEnv(env, Side.FUSED, jobName);
        tEnv.executeSql(FusedJobs.sourceDdl(Side.FUSED, in, ENV.registry().url(), "karrow-failover-it", ""));
        tEnv.executeSql(FusedJobs.sinkDdl(Side.FUSED, fullSink, out, FusedJobs.exactlyOnce()));
        String insert = "INSERT INTO snk " + FusedJobs.QUERY;
        FusedJobs.assertPlan(Side.FUSED, fullSink, tEnv.explainSql(insert));
        JobClient job = tEnv.executeSql(insert).getJobClient().orElseThrow();

        int second;
        List<String> lines;
        JobStatus status;
        try (CommittedOutput output = new CommittedOutput(out)) {
            assertThat(output.pollUntil(() -> output.values.size() >= first, 120))
                    .as("first batch committed (%s of %s lines)", output.values.size(), first).isTrue();
            second = FusedJobs.produce(in, id, corpus, FIRST, SECOND);
            cluster.terminateTaskManager(liveTaskManager).get(60, TimeUnit.SECONDS);
            cluster.startTaskManager();
            liveTaskManager++;
            boolean complete = output.pollUntil(() -> output.values.size() >= first + second, 180);
            // A duplicate would be committed by the next checkpoints; give them time to show.
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < settle) {
                output.poll(Duration.ofMillis(200));
            }
            assertThat(complete).as("all lines committed (%s of %s)", output.values.size(), first + second).isTrue();
            lines = output.values;
        } finally {
            status = job.getJobStatus().get(30, TimeUnit.SECONDS);
            job.cancel().get(60, TimeUnit.SECONDS);
        }
        assertThat(status).as("the job restarted on the new TaskManager and kept running").isEqualTo(JobStatus.RUNNING);
        Map<String, Integer> expected = FusedJobs.stockValues(in, ENV.registry().url());
        assertThat(expected.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(first + second);
        assertThat(multiset(lines)).isEqualTo(expected);
        FusedJobs.assertRan(Side.FUSED, fullSink, jobName, first + second);
    }
}
