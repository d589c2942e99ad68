package io.karrow.flink.connector.kafka;

import static io.karrow.flink.testutils.KafkaTestSupport.createTopic;
import static io.karrow.flink.testutils.KafkaTestSupport.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.connector.kafka.FusedJobs.Side;
import io.karrow.flink.testutils.CollectedMetrics;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.kafka.sink.internal.TransactionalIdFactory;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Savepoints of an exactly-once Kafka sink move between the three sinks: the stock {@code kafka}
 * sink, {@code kafka-native} with native produce ({@code 'sink.produce-mode' = 'native'}) and {@code
 * kafka-native} with Kafka's producer ({@code 'kafka-producer'}, its default). Each leg of a job
 * restores the previous leg's writer state ({@code KafkaWriterState}) and committer state ({@code
 * KafkaCommittable}s, committed again on restore) and writes one more step of input. The source is
 * the stock one throughout, so the output (key {@code partition:offset} of each input record) read
 * {@code read_committed} must be every input record exactly once, and equal to what one
 * uninterrupted stock job writes from the same input. Every native-produce leg must have produced
 * its records natively ({@code karrow.numRecordsProducedNatively}, so a silent fallback to Kafka's
 * producer fails), every batch-encoding leg must have encoded them ({@code karrow.numRecordsEncoded})
 * and produced none natively.
 */
class KafkaNativeProduceSavepointITCase {

    private static final int PER_STEP = 600;
    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    private static final String PLANTED = "planted-lingering:";

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    /** A leg: the sink's connector and produce mode, and the writers of each path its plan must show. */
    private record Leg(String name, String connector, String options, int nativeWriters, int batchWriters) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final Leg STOCK = new Leg("stock", "kafka", "", 0, 0);
    private static final Leg BATCHED =
            new Leg("kafka-producer", "kafka-native", "'sink.produce-mode' = 'kafka-producer',", 0, 1);
    /** {@code kafka-native} without {@code sink.produce-mode}: Kafka's producer is the default. */
    private static final Leg DEFAULT_MODE = new Leg("kafka-native default", "kafka-native", "", 0, 1);
    private static final Leg NATIVE = new Leg("native", "kafka-native", "'sink.produce-mode' = 'native',", 1, 0);

    /** How one leg's job is set up. */
    private record Run(String bootstrap, Leg leg, String naming, String prefix, String in, String out,
            String savepoint, int parallelism, long checkpointMillis, String checkpointDir) {
        Run(Leg leg, String naming, String prefix, String in, String out, String savepoint, int parallelism,
                long checkpointMillis) {
            this(BOOTSTRAP, leg, naming, prefix, in, out, savepoint, parallelism, checkpointMillis, null);
        }
    }

    /** A started job and the name its counters are collected under. */
    private record Started(JobClient client, String name) {}

    @ParameterizedTest(name = "sink.transaction-naming-strategy = {0}")
    @ValueSource(strings = {"INCREMENTING", "POOLING"})
    void exactlyOnceSavepointsMoveBetweenStockBatchedAndNativeSinks(String naming, @TempDir Path savepoints)
            throws Exception {
        String in = createTopic("produce-savepoint-in", 3);
        String out = createTopic("produce-savepoint-out", 3);
        String prefix = "karrow-savepoint-" + UUID.randomUUID().toString().substring(0, 8);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());
        List<Leg> legs = List.of(STOCK, NATIVE, BATCHED, NATIVE, DEFAULT_MODE, NATIVE, STOCK);
        String savepoint = null;
        for (int step = 0; step < legs.size(); step++) {
            ThreePartitionBids.produce(in, id, corpus, step * PER_STEP, PER_STEP);
            Leg leg = legs.get(step);
            Started job = start(new Run(leg, naming, prefix, in, out, savepoint, 2, 500));
            int expected = (step + 1) * PER_STEP;
            List<String> committed = readCommitted(out, expected);
            // A leg whose job failed (e.g. restoring state it has no operator for) says why.
            assertThat(committed).as("leg %d (%s), job %s", step, leg, describe(job.client())).hasSize(expected);
            if (step == legs.size() - 1) {
                stop(job);
                // The job has ended: one read shows everything it committed.
                List<String> all = readCommitted(out, 0);
                assertThat(all).hasSize(expected).doesNotHaveDuplicates();
                assertThat(Set.copyOf(all)).isEqualTo(expectedIds(expected));
            } else {
                savepoint = job.client()
                        .stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(120, TimeUnit.SECONDS);
            }
            assertEngaged(leg, job.name(), PER_STEP);
        }
        // The oracle: one uninterrupted stock job over the same input writes the same records.
        String uninterrupted = createTopic("produce-savepoint-stock-out", 3);
        int total = legs.size() * PER_STEP;
        Started stock = start(new Run(STOCK, naming, prefix + "-oracle", in, uninterrupted, null, 2, 500));
        assertThat(readCommitted(uninterrupted, total)).as("uninterrupted stock job %s", describe(stock.client()))
                .hasSize(total);
        stop(stock);
        assertThat(records(out)).as("the legs' output against one uninterrupted stock job's")
                .isEqualTo(records(uninterrupted));
    }

    /** The cases of the restore test: from which mode to which, under which naming strategy. */
    static Stream<Arguments> modeChanges() {
        return Stream.of(
                Arguments.of(NATIVE, BATCHED, "INCREMENTING"),
                Arguments.of(BATCHED, NATIVE, "POOLING"),
                Arguments.of(NATIVE, STOCK, "POOLING"),
                Arguments.of(STOCK, NATIVE, "INCREMENTING"));
    }

    /**
     * What one mode leaves in Kafka when its job goes is resolved by the other mode as the stock
     * sink resolves it on restore. The first job takes a savepoint (its only checkpoint, so its
     * transaction then holds every record written) and is cancelled: Flink commits a savepoint's
     * transactions only at a later checkpoint or at a stop, so that pre-committed transaction stays
     * open (asserted). A transaction that the dead job's writer had open is then left lingering with
     * records in it (written by Kafka's producer under the newest transactional id that writer
     * initialized: the broker cannot tell who wrote it). The second job, in the other mode, restores
     * the savepoint: its committer must commit the first job's transaction (its producer id and epoch
     * come from the other mode), its writer must abort the lingering one (else {@code read_committed}
     * stalls behind it), and the output is both steps' input exactly once, without the planted records.
     */
    @ParameterizedTest(name = "{0} -> {1}, {2}")
    @MethodSource("modeChanges")
    void anotherModeCommitsWhatAFailedJobPrecommittedAndAbortsWhatItLeftOpen(
            Leg from, Leg to, String naming, @TempDir Path savepoints) throws Exception {
        String in = createTopic("produce-restore-in", 3);
        String out = createTopic("produce-restore-out", 3);
        String prefix = "karrow-restore-" + UUID.randomUUID().toString().substring(0, 8);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());

        ThreePartitionBids.produce(in, id, corpus, 0, PER_STEP);
        // No periodic checkpoint: the savepoint is the first, its transaction holds every record.
        Started first = start(new Run(from, naming, prefix, in, out, null, 1, 3_600_000));
        String savepoint;
        try {
            assertThat(readUncommitted(out, PER_STEP)).as("first job %s", describe(first.client())).hasSize(PER_STEP);
            // A savepoint that is not a stop is not committed (Flink notifies only checkpoints and
            // stops): its transaction stays pre-committed when the job goes.
            savepoint = first.client().triggerSavepoint(savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(120, TimeUnit.SECONDS);
        } finally {
            stop(first);
        }
        List<String> precommitted = transactions(prefix, TransactionState.ONGOING);
        assertThat(precommitted).as("open transactions the first job left").hasSize(1);
        assertEngaged(from, first.name(), PER_STEP);

        String lingering = newestTransactionalId(prefix);
        try (KafkaProducer<byte[], byte[]> planted = transactionalProducer(lingering)) {
            planted.initTransactions();
            planted.beginTransaction();
            for (int p = 0; p < 3; p++) {
                planted.send(new ProducerRecord<>(out, p, (PLANTED + p).getBytes(StandardCharsets.UTF_8), new byte[0]));
            }
            planted.flush();
            // Left open: the producer is dropped without ending the transaction.
            planted.close(Duration.ZERO);
        }

        ThreePartitionBids.produce(in, id, corpus, PER_STEP, PER_STEP);
        Started second = start(new Run(to, naming, prefix, in, out, savepoint, 1, 500));
        int expected = 2 * PER_STEP;
        try {
            List<String> committed = readCommitted(out, expected);
            assertThat(committed).as("second job %s", describe(second.client())).hasSize(expected);
        } finally {
            stop(second);
        }
        assertThat(transactions(prefix, TransactionState.ONGOING)).as("open transactions after the second job")
                .isEmpty();
        // The job has ended: one read shows everything it committed.
        List<String> all = readCommitted(out, 0);
        assertThat(all).hasSize(expected).doesNotHaveDuplicates();
        assertThat(Set.copyOf(all)).isEqualTo(expectedIds(expected));
        // The planted records were written, and aborted (read_uncommitted still shows them).
        assertThat(KafkaTestSupport.readAll(out, false).stream()
                        .filter(r -> new String(r.key(), StandardCharsets.UTF_8).startsWith(PLANTED))
                        .count())
                .as("lingering records in %s", lingering).isEqualTo(3);
        assertEngaged(to, second.name(), PER_STEP);
        System.out.printf("KafkaNativeProduceSavepointITCase: %s -> %s (%s): committed %s, aborted %s%n",
                from, to, naming, precommitted, lingering);
    }

    /** The cases of the job restart test: the failed job's mode, the restarted job's, the broker. */
    static Stream<Arguments> jobRestarts() {
        return Stream.of(
                Arguments.of(NATIVE, NATIVE, "default"),
                Arguments.of(NATIVE, NATIVE, "transaction.version=1"),
                Arguments.of(NATIVE, BATCHED, "default"),
                Arguments.of(BATCHED, NATIVE, "transaction.version=1"));
    }

    /**
     * A job restart: an exactly-once job fails mid-stream (a filter throws, no restart strategy)
     * with records written into its open transactions, and a new job is started from its last
     * retained checkpoint, in the same produce mode or the other. Both steps' input arrives exactly
     * once in the {@code read_committed} output, equal to one uninterrupted stock job's output; each
     * native-produce job produced natively. On the default broker and on one with the old transaction
     * protocol ({@code -Dkarrow.kafka.bootstrap.tv1}; skipped without one).
     */
    @ParameterizedTest(name = "{0} -> {1}, {2} broker")
    @MethodSource("jobRestarts")
    void aJobRestartedFromItsLastCheckpointWritesEveryRecordOnce(
            Leg from, Leg to, String broker, @TempDir Path checkpoints) throws Exception {
        String bootstrap = broker.equals("default") ? BOOTSTRAP : KafkaTestSupport.bootstrapTv1();
        Assumptions.assumeTrue(bootstrap != null, "no broker with transaction.version=1 (-Dkarrow.kafka.bootstrap.tv1)");
        String in = KafkaTestSupport.createTopic(bootstrap, "produce-restart-in", 3);
        String out = KafkaTestSupport.createTopic(bootstrap, "produce-restart-out", 3);
        String prefix = "karrow-restart-" + UUID.randomUUID().toString().substring(0, 8);
        AvroCorpus corpus = AvroCorpora.bids();
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());
        // Fails once, halfway through the second step's input (the counter spans both jobs).
        SinkParity.FailOnce.reset(PER_STEP + PER_STEP / 2);
        String dir = checkpoints.toUri().toString();

        ThreePartitionBids.produce(bootstrap, in, id, corpus, 0, PER_STEP);
        Started first = start(new Run(bootstrap, from, "INCREMENTING", prefix, in, out, null, 2, 200, dir));
        try {
            // A checkpoint completed and its transactions were committed: then the second step.
            assertThat(readKeys(bootstrap, out, PER_STEP, true)).as("first job %s", describe(first.client()))
                    .hasSize(PER_STEP);
            ThreePartitionBids.produce(bootstrap, in, id, corpus, PER_STEP, PER_STEP);
            assertThatThrownBy(() -> first.client().getJobExecutionResult().get(120, TimeUnit.SECONDS))
                    .hasStackTraceContaining("injected failure after");
        } finally {
            stop(first);
        }
        assertThat(SinkParity.FailOnce.FAILED.get()).as("the injected failure happened").isTrue();
        String checkpoint = latestCheckpoint(checkpoints);

        Started second = start(new Run(bootstrap, to, "INCREMENTING", prefix, in, out, checkpoint, 2, 200, dir));
        int expected = 2 * PER_STEP;
        try {
            assertThat(readKeys(bootstrap, out, expected, true)).as("second job %s", describe(second.client()))
                    .hasSize(expected);
        } finally {
            stop(second);
        }
        // The job has ended: one read shows everything it committed.
        List<String> all = readKeys(bootstrap, out, 0, true);
        assertThat(all).hasSize(expected).doesNotHaveDuplicates();
        assertThat(Set.copyOf(all)).isEqualTo(expectedIds(expected));

        String uninterrupted = KafkaTestSupport.createTopic(bootstrap, "produce-restart-stock-out", 3);
        Started stock = start(new Run(bootstrap, STOCK, "INCREMENTING", prefix + "-oracle", in, uninterrupted, null, 2,
                500, null));
        try {
            assertThat(readKeys(bootstrap, uninterrupted, expected, true)).as("stock job %s", describe(stock.client()))
                    .hasSize(expected);
        } finally {
            stop(stock);
        }
        assertThat(records(bootstrap, out)).as("the restarted job's output against one uninterrupted stock job's")
                .isEqualTo(records(bootstrap, uninterrupted));

        // The first job wrote at least the first step; the second re-wrote what followed its checkpoint.
        assertEngaged(from, first.name(), PER_STEP, expected);
        assertEngaged(to, second.name(), 1, PER_STEP);
        System.out.printf("KafkaNativeProduceSavepointITCase: job restart %s -> %s on the %s broker from %s%n",
                from, to, broker, checkpoint);
    }

    /** The newest retained checkpoint under {@code root} ({@code <job>/chk-<n>} with a {@code _metadata}). */
    private static String latestCheckpoint(Path root) throws Exception {
        try (Stream<Path> paths = Files.walk(root, 2)) {
            Path newest = paths.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new AssertionError("no retained checkpoint under " + root));
            return newest.toUri().toString();
        }
    }

    /**
     * The path of {@code leg} ran for {@code records} records: native produce produced them all
     * natively, batch encoding encoded them all and produced none natively, the stock sink neither.
     */
    private static void assertEngaged(Leg leg, String jobName, long records) {
        assertEngaged(leg, jobName, records, records);
    }

    /** As {@link #assertEngaged(Leg, String, long)}, for between {@code min} and {@code max} records. */
    private static void assertEngaged(Leg leg, String jobName, long min, long max) {
        long produced = CollectedMetrics.sum(jobName, "karrow", "numRecordsProducedNatively");
        long encoded = CollectedMetrics.sum(jobName, "karrow", "numRecordsEncoded");
        if (leg.nativeWriters() > 0) {
            assertThat(produced).as("records produced natively by the %s leg", leg).isBetween(min, max);
            assertThat(encoded).as("records encoded natively by the %s leg", leg).isBetween(min, max);
        } else if (leg.batchWriters() > 0) {
            assertThat(produced).as("records produced natively by the %s leg", leg).isZero();
            assertThat(encoded).as("records batch-encoded by the %s leg", leg).isBetween(min, max);
        } else {
            assertThat(produced + encoded).as("native work of the stock leg").isZero();
        }
    }

    /** The transactional id with the prefix {@code prefix}, subtask 0, that has the highest offset. */
    private static String newestTransactionalId(String prefix) throws Exception {
        String owned = prefix + "-0-";
        List<String> ids = transactions(prefix, null);
        assertThat(ids).as("transactional ids of %s", prefix).isNotEmpty();
        long newest = ids.stream().filter(t -> t.startsWith(owned))
                .mapToLong(t -> Long.parseLong(t.substring(owned.length()))).max().orElseThrow();
        return TransactionalIdFactory.buildTransactionalId(prefix, 0, newest);
    }

    /** The transactional ids with the prefix {@code prefix} the broker knows, in state {@code state} (null: any). */
    private static List<String> transactions(String prefix, TransactionState state) throws Exception {
        try (Admin admin = KafkaTestSupport.admin()) {
            return admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.transactionalId().startsWith(prefix + "-"))
                    .filter(t -> state == null || t.state() == state)
                    .map(TransactionListing::transactionalId)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** Cancels {@code job} and waits until it has ended (its slots are free again). */
    private static void stop(Started job) throws Exception {
        JobStatus status = job.client().getJobStatus().get(30, TimeUnit.SECONDS);
        if (!status.isGloballyTerminalState()) {
            job.client().cancel().get(60, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!job.client().getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);
        return new KafkaProducer<>(p);
    }

    /** The committed output ids (the records' keys), once at least {@code expected} arrived (or 90 s passed). */
    private static List<String> readCommitted(String topic, int expected) throws InterruptedException {
        return readKeys(BOOTSTRAP, topic, expected, true);
    }

    /** As {@link #readCommitted}, {@code read_uncommitted}. */
    private static List<String> readUncommitted(String topic, int expected) throws InterruptedException {
        return readKeys(BOOTSTRAP, topic, expected, false);
    }

    private static List<String> readKeys(String bootstrap, String topic, int expected, boolean committed)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<String> values = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            values = KafkaTestSupport.readAll(bootstrap, topic, committed).stream()
                    .map(r -> new String(r.key(), StandardCharsets.UTF_8))
                    .collect(Collectors.toList());
            if (values.size() >= expected) {
                break;
            }
            Thread.sleep(500);
        }
        return values;
    }

    private static List<String> records(String topic) {
        return records(BOOTSTRAP, topic);
    }

    /** The committed records of {@code topic} as sorted {@code partition key value} lines (hex bytes). */
    private static List<String> records(String bootstrap, String topic) {
        HexFormat hex = HexFormat.of();
        List<String> lines = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : KafkaTestSupport.readAll(bootstrap, topic, true)) {
            lines.add(r.partition() + " " + new String(r.key(), StandardCharsets.UTF_8) + " " + hex.formatHex(r.value()));
        }
        lines.sort(null);
        return lines;
    }

    private static Started start(Run run) {
        Configuration config = new Configuration();
        if (run.checkpointDir() != null) {
            // The injected failure must end the job, leaving its transactions to the next job.
            config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (run.checkpointDir() != null) {
            config.setString("execution.checkpointing.dir", run.checkpointDir());
            config.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(run.parallelism());
        env.enableCheckpointing(run.checkpointMillis());
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        String name = "produce-savepoint-" + run.leg().name() + "-" + UUID.randomUUID();
        tEnv.getConfig().set("pipeline.name", name);
        tEnv.createTemporarySystemFunction("fail_once", SinkParity.FailOnce.class);
        if (run.savepoint() != null) {
            tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, run.savepoint());
        }
        tEnv.executeSql("CREATE TABLE src (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,"
                + " date_time TIMESTAMP(3), extra STRING, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL)"
                + " WITH ('connector' = 'kafka', 'topic' = '" + run.in() + "',"
                + "'properties.bootstrap.servers' = '" + run.bootstrap() + "', 'properties.group.id' = 'karrow-produce-savepoint-it',"
                + "'scan.startup.mode' = 'earliest-offset',"
                + "'value.format' = 'avro-confluent-reference', 'value.avro-confluent-reference.url' = '"
                + ENV.registry().url() + "')");
        Leg leg = run.leg();
        String format = leg.connector().equals("kafka") ? "avro-confluent-reference" : "avro-confluent-native";
        tEnv.executeSql("CREATE TABLE snk (id STRING, auction BIGINT) WITH ('connector' = '" + leg.connector() + "',"
                + " 'topic' = '" + run.out() + "', 'properties.bootstrap.servers' = '" + run.bootstrap() + "',"
                + "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '" + run.prefix() + "',"
                + "'sink.transaction-naming-strategy' = '" + run.naming() + "',"
                + "'properties.transaction.timeout.ms' = '600000'," + leg.options()
                + "'key.format' = 'raw', 'key.fields' = 'id', 'value.format' = '" + format + "',"
                + "'value." + format + ".url' = '" + ENV.registry().url() + "')");
        StatementSet statements = tEnv.createStatementSet();
        // The key is the id as raw bytes (read back below).
        statements.addInsertSql("INSERT INTO snk SELECT CONCAT(CAST(`partition` AS STRING), ':',"
                + " CAST(`offset` AS STRING)), auction FROM src"
                + (run.checkpointDir() != null ? " WHERE fail_once(auction)" : ""));
        String plan = statements.explain(ExplainDetail.JSON_EXECUTION_PLAN);
        assertThat(plan.split("\"type\" : \"" + KafkaNativeDynamicSink.NATIVE_SINK_NAME + ": Writer\"", -1).length - 1)
                .as("native produce writers of leg %s", leg).isEqualTo(leg.nativeWriters());
        assertThat(plan.split("\"type\" : \"" + KafkaNativeDynamicSink.BATCH_ENCODE_SINK_NAME + ": Writer\"", -1).length
                        - 1)
                .as("batch encoding writers of leg %s", leg).isEqualTo(leg.batchWriters());
        return new Started(statements.execute().getJobClient().orElseThrow(), name);
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
        int id = ENV.registry().register(in + "-value", corpus.writers().get(0).toString());
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
            tEnv.executeSql(FusedJobs.sourceDdl(leg.side(), in, ENV.registry().url(), "karrow-produce-savepoint-it", ""));
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
        Map<String, Integer> expected = FusedJobs.stockValues(in, ENV.registry().url());
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
