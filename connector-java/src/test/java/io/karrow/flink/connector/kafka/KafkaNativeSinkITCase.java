package io.karrow.flink.connector.kafka;

import static io.karrow.flink.connector.kafka.SinkParity.METADATA_COLUMNS;
import static io.karrow.flink.connector.kafka.SinkParity.METADATA_QUERY;
import static io.karrow.flink.connector.kafka.SinkParity.NATIVE;
import static io.karrow.flink.connector.kafka.SinkParity.NATIVE_PRODUCE;
import static io.karrow.flink.connector.kafka.SinkParity.ORACLE;
import static io.karrow.flink.connector.kafka.SinkParity.assertSameMultiset;
import static io.karrow.flink.connector.kafka.SinkParity.assertSameRecordByRecord;
import static io.karrow.flink.connector.kafka.SinkParity.digest;
import static io.karrow.flink.connector.kafka.SinkParity.exactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.connector.kafka.SinkParity.FailOnce;
import io.karrow.flink.connector.kafka.SinkParity.Job;
import io.karrow.flink.testutils.KafkaJobEnvironment;
import io.karrow.flink.testutils.KafkaTestSupport;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The {@code kafka-native} sink end to end against a real broker and the dev registry, in both
 * produce modes: the Kafka-to-Kafka {@code INSERT} writes, in one job, through the stock
 * {@code kafka} connector with the oracle {@code avro-confluent-reference} format, through {@code
 * kafka-native} with {@code avro-confluent-native} and Kafka's Java producer ({@code 'sink.produce-mode'
 * = 'kafka-producer'}, the batch encode operator in front of Flink's KafkaSink), and through {@code
 * kafka-native} with native produce ({@code 'sink.produce-mode' = 'native'}); every output topic must
 * hold the stock sink's bytes. One partition and parallelism 1 compare record by record; three
 * partitions and parallelism 2 compare (partition, key, value, timestamp, headers) multisets and the
 * order of each key. Every delivery guarantee, keyed and keyless, the {@code timestamp} and {@code
 * headers} metadata, every compression codec, exactly-once with an injected failure and restart, and
 * the old transaction protocol when a broker runs it ({@code -Dkarrow.kafka.bootstrap.tv1}). Needs
 * {@code -Dkarrow.kafka.bootstrap}.
 */
class KafkaNativeSinkITCase {

    private static final String BOOTSTRAP = KafkaTestSupport.bootstrap();
    private static final String AT_LEAST_ONCE = "'sink.delivery-guarantee' = 'at-least-once',";

    @RegisterExtension
    static final KafkaJobEnvironment ENV = KafkaJobEnvironment.withRegistry(2);

    /** The three sinks of one comparison: stock, kafka-native with Kafka's producer, kafka-native native. */
    private record Trio(String oracle, String batched, String nativeProduce) {}

    private static Trio trio(Job job, String options, boolean keyed, String metadataColumns, String query)
            throws Exception {
        return new Trio(
                job.sink("kafka", ORACLE, options, keyed, metadataColumns, query),
                job.sink("kafka-native", NATIVE, options, keyed, metadataColumns, query),
                job.sink("kafka-native", NATIVE, NATIVE_PRODUCE + options, keyed, metadataColumns, query));
    }

    private static void assertRecordByRecord(Job job, Trio t, boolean readCommitted, boolean keyed, boolean metadata) {
        List<ConsumerRecord<byte[], byte[]>> oracle = job.read(t.oracle(), readCommitted);
        assertSameRecordByRecord(job.expected, oracle, job.read(t.batched(), readCommitted), keyed, metadata);
        assertSameRecordByRecord(job.expected, oracle, job.read(t.nativeProduce(), readCommitted), keyed, metadata);
    }

    private static void assertMultiset(Job job, Trio t, boolean readCommitted, boolean withPartition, boolean metadata) {
        List<ConsumerRecord<byte[], byte[]>> oracle = job.read(t.oracle(), readCommitted);
        assertSameMultiset(job.expected, oracle, job.read(t.batched(), readCommitted), withPartition, metadata);
        assertSameMultiset(job.expected, oracle, job.read(t.nativeProduce(), readCommitted), withPartition, metadata);
    }

    @Test
    void deliveryNoneWritesTheOraclesBytes() throws Exception {
        Job job = new Job(BOOTSTRAP, ENV.registry(), 1, 1);
        Trio t = trio(job, "'sink.delivery-guarantee' = 'none',", false, "", SinkParity.QUERY);
        job.run(0);
        assertRecordByRecord(job, t, false, false, false);
    }

    @Test
    void atLeastOnceKeyedWritesTheOraclesBytes() throws Exception {
        Job job = new Job(BOOTSTRAP, ENV.registry(), 1, 1);
        Trio t = trio(job, AT_LEAST_ONCE, true, "", SinkParity.QUERY);
        job.run(0);
        assertRecordByRecord(job, t, false, true, false);
    }

    @Test
    void exactlyOnceWritesTheOraclesBytes() throws Exception {
        Job job = new Job(BOOTSTRAP, ENV.registry(), 1, 1);
        Trio keyless = trio(job, exactlyOnce(), false, "", SinkParity.QUERY);
        Trio keyed = trio(job, exactlyOnce(), true, "", SinkParity.QUERY);
        job.run(500);
        assertRecordByRecord(job, keyless, true, false, false);
        assertRecordByRecord(job, keyed, true, true, false);
    }

    /**
     * Three-partition topics, parallelism 2: Kafka's default partitioner on the key bytes, {@code
     * sink.partitioner = 'fixed'} (subtask i writes partition i), and keyless records (the sticky
     * partitioner's choice is random, so compared without the partition).
     */
    @Test
    void parallelSinksWriteTheOraclesRecords() throws Exception {
        Job job = new Job(BOOTSTRAP, ENV.registry(), 3, 2);
        Trio keyed = trio(job, AT_LEAST_ONCE, true, "", SinkParity.QUERY);
        Trio fixed = trio(job, AT_LEAST_ONCE + "'sink.partitioner' = 'fixed',", false, "", SinkParity.QUERY);
        Trio keyless = trio(job, AT_LEAST_ONCE + "'sink.partitioner' = 'round-robin',", false, "", SinkParity.QUERY);
        job.run(0);
        assertMultiset(job, keyed, false, true, false);
        assertMultiset(job, fixed, false, true, false);
        assertMultiset(job, keyless, false, false, false);
    }

    /** Writable metadata {@code timestamp} and {@code headers} round-trip as with the stock sink. */
    @Test
    void writableMetadataRoundTrips() throws Exception {
        Job job = new Job(BOOTSTRAP, ENV.registry(), 1, 1);
        Trio t = trio(job, AT_LEAST_ONCE, false, METADATA_COLUMNS, METADATA_QUERY);
        job.run(0);
        assertRecordByRecord(job, t, false, false, true);
        ConsumerRecord<byte[], byte[]> first = job.read(t.nativeProduce(), false).get(0);
        assertThat(first.timestamp()).isBetween(SinkParity.TIMESTAMP_BASE + 1_000L, SinkParity.TIMESTAMP_BASE + 1_999L);
        assertThat(SinkParity.headers(first)).hasSize(1).containsKey("channel");
    }

    /**
     * Every compression codec, keyed, with the metadata, three partitions and parallelism 2, under
     * exactly-once: the records read back equal the stock sink's (the codec changes the batches, never
     * the records).
     */
    @Test
    void everyCodecWritesTheOraclesRecords() throws Exception {
        Job job = new Job(BOOTSTRAP, ENV.registry(), 3, 2);
        String[] codecs = {"none", "gzip", "snappy", "lz4", "zstd"};
        String[][] pairs = new String[codecs.length][];
        for (int i = 0; i < codecs.length; i++) {
            String options = (i % 2 == 0 ? exactlyOnce() : AT_LEAST_ONCE)
                    + "'properties.compression.type' = '" + codecs[i] + "',";
            pairs[i] = new String[] {
                job.sink("kafka", ORACLE, options, true, METADATA_COLUMNS, METADATA_QUERY),
                job.sink("kafka-native", NATIVE, NATIVE_PRODUCE + options, true, METADATA_COLUMNS, METADATA_QUERY)
            };
        }
        job.run(500);
        for (String[] pair : pairs) {
            assertSameMultiset(job.expected, job.read(pair[0], true), job.read(pair[1], true), true, true);
        }
    }

    /**
     * Exactly-once with failover: a UDF throws once mid-stream, the job restarts from the last
     * checkpoint, and a {@code read_committed} consumer sees every selected input exactly once (count
     * and an order-independent digest equal to the stock sink's in the same job, and to the input).
     */
    @Test
    void exactlyOnceSurvivesAFailureAndRestart() throws Exception {
        exactlyOnceFailover(BOOTSTRAP, 1, 1);
    }

    /**
     * As {@link #exactlyOnceSurvivesAFailureAndRestart} with parallelism 2 on three partitions: two
     * writers per sink, each restored writer aborting the transactions its subtask owns (the
     * default broker; the old protocol runs the same in {@link #exactlyOnceOnTheOldTransactionProtocol}).
     */
    @Test
    void exactlyOnceSurvivesATaskRestartAtParallelismTwo() throws Exception {
        exactlyOnceFailover(BOOTSTRAP, 3, 2);
    }

    /**
     * Exactly-once with a failure between pre-commit and commit: the committer of the stock sink and
     * that of native produce each fail once before their first commit ({@link FailingCommitTableFactory}),
     * after the checkpoint whose transactions they were to commit completed. The job fails over and
     * restores that checkpoint, and the restored committer commits those transactions (each
     * transactional id of the failed call is later committed). A {@code read_committed} consumer
     * then sees every selected input exactly once: the stock sink's output has the input's count and
     * digest, and native produce's equals it record by record.
     */
    @Test
    void exactlyOnceCommitsWhatAFailureBetweenPreCommitAndCommitLeft() throws Exception {
        failingCommitter(BOOTSTRAP, false);
    }

    /**
     * Exactly-once with a failure during commit: each committer commits its first transactions, then
     * fails before Flink learns it. The restored committer is handed those committed transactions
     * again and must neither lose nor fail over on them; the output is as above.
     */
    @Test
    void exactlyOnceSurvivesAFailureDuringCommit() throws Exception {
        failingCommitter(BOOTSTRAP, true);
    }

    private static void failingCommitter(String bootstrap, boolean afterCommit) throws Exception {
        // Never fails; slows the rows so that checkpoints complete while the job runs.
        FailOnce.reset(Integer.MAX_VALUE);
        Job job = new Job(bootstrap, ENV.registry(), 1, 1);
        String query = SinkParity.QUERY + " AND fail_once(auction)";
        String label = "failing-commit-" + UUID.randomUUID();
        List<String> sinks = List.of("stock", "native");
        for (String sink : sinks) {
            FailingCommitSink.Injection.of(label + "-" + sink).afterCommit = afterCommit;
        }
        String oracle = job.sinkWithFailingCommitter("kafka", ORACLE, exactlyOnce(), query, label + "-stock");
        String nativeProduce = job.sinkWithFailingCommitter(
                "kafka-native", NATIVE, NATIVE_PRODUCE + exactlyOnce(), query, label + "-native");
        job.run(200);
        for (String sink : sinks) {
            FailingCommitSink.Injection injection = FailingCommitSink.Injection.of(label + "-" + sink);
            assertThat(injection.armed.get()).as("%s: the injected failure happened", sink).isFalse();
            assertThat(injection.failed).as("%s: transactions of the failed commit call", sink).isNotEmpty();
            for (String id : injection.failed) {
                List<FailingCommitSink.Commit> later = injection.commits.stream()
                        .filter(c -> c.transactionalId().equals(id) && c.attempt() > injection.failedAttempt)
                        .collect(Collectors.toList());
                if (afterCommit) {
                    assertThat(injection.commits).as("%s: %s committed before the failure", sink, id)
                            .contains(new FailingCommitSink.Commit(
                                    id, FailingCommitSink.Outcome.COMMITTED, injection.failedAttempt));
                    // Handed again to the restored committer, which neither threw nor failed over.
                    assertThat(later).as("%s: %s after the restore", sink, id).isNotEmpty()
                            .allMatch(c -> c.outcome() != FailingCommitSink.Outcome.THREW
                                    && c.outcome() != FailingCommitSink.Outcome.FAILED_UNKNOWN_REASON);
                } else {
                    // Committed by the committer of a later attempt: the restored one.
                    assertThat(later).as("%s: %s committed after the restore", sink, id)
                            .anyMatch(c -> c.outcome() == FailingCommitSink.Outcome.COMMITTED);
                }
                System.out.printf("KafkaNativeSinkITCase: failing committer (%s, %s): attempt %d failed at %s;"
                                + " after the restore: %s%n",
                        sink, afterCommit ? "after commit" : "before commit", injection.failedAttempt, id, later);
            }
        }
        List<ConsumerRecord<byte[], byte[]>> reference = job.read(oracle, true);
        assertThat(reference).hasSize(job.expected);
        assertThat(digest(reference)).isEqualTo(job.expectedDigest);
        assertSameRecordByRecord(job.expected, reference, job.read(nativeProduce, true), false, false);
    }

    /**
     * A transaction open longer than {@code transaction.timeout.ms}: the broker aborts it (and bumps the
     * producer's epoch), the native producer's next batch is refused as fenced, and the job fails with
     * an error that names {@code transaction.timeout.ms} and its value as the likely cause. No
     * checkpoint completes before that, so nothing is committed.
     */
    @Test
    void aTransactionOpenPastItsTimeoutFailsTheJobNamingTheTimeout() throws Exception {
        transactionTimeout(BOOTSTRAP);
    }

    /**
     * As {@link #aTransactionOpenPastItsTimeoutFailsTheJobNamingTheTimeout}, on the old transaction
     * protocol ({@code transaction.version=1}): the coordinator's abort bumps the epoch there too, and
     * the partition leader refuses the next batch with the old one.
     */
    @Test
    void aTransactionOpenPastItsTimeoutFailsTheJobOnTheOldTransactionProtocol() throws Exception {
        transactionTimeout(requireTv1());
    }

    private static void transactionTimeout(String bootstrap) throws Exception {
        Job job = new Job(bootstrap, ENV.registry(), 1, 1);
        job.tEnv.createTemporarySystemFunction("slow_rows", SlowRows.class);
        // Rows keep coming for at least 40 s; the broker aborts a timed-out transaction within
        // transaction.abort.timed.out.transaction.cleanup.interval.ms (10 s) of its timeout.
        String options = "'sink.delivery-guarantee' = 'exactly-once',"
                + "'sink.transactional-id-prefix' = 'karrow-it-timeout-" + UUID.randomUUID().toString().substring(0, 8)
                + "',"
                + "'properties.transaction.timeout.ms' = '3000',";
        String topic = job.sink("kafka-native", NATIVE, NATIVE_PRODUCE + options, false, "",
                SinkParity.QUERY + " AND slow_rows(auction)");
        job.env.configure(new Configuration().set(RestartStrategyOptions.RESTART_STRATEGY, "none"));
        // No checkpoint before the timeout: the first transaction stays open.
        job.env.enableCheckpointing(600_000);
        assertThatThrownBy(() -> job.statements.execute().await(5, TimeUnit.MINUTES))
                .hasStackTraceContaining("transaction.timeout.ms (3000 ms)")
                .hasStackTraceContaining("the broker has ended this transaction");
        assertThat(job.read(topic, true)).as("committed records").isEmpty();
    }

    /** Sleeps 4 ms per row (keeps a job running past a short transaction timeout). */
    public static class SlowRows extends ScalarFunction {
        public boolean eval(Long auction) throws InterruptedException {
            Thread.sleep(4);
            return true;
        }
    }

    /**
     * The old transaction protocol ({@code transaction.version=1}): the same guarantees, failures
     * before and during commit included.
     */
    @Test
    void exactlyOnceOnTheOldTransactionProtocol() throws Exception {
        String tv1 = requireTv1();
        Job job = new Job(tv1, ENV.registry(), 3, 2);
        Trio keyed = trio(job, exactlyOnce(), true, METADATA_COLUMNS, METADATA_QUERY);
        Trio keyless = trio(job, exactlyOnce() + "'properties.compression.type' = 'lz4',", false, "", SinkParity.QUERY);
        job.run(500);
        assertMultiset(job, keyed, true, true, true);
        assertMultiset(job, keyless, true, false, false);
        exactlyOnceFailover(tv1, 3, 2);
        failingCommitter(tv1, false);
        failingCommitter(tv1, true);
    }

    /**
     * The broker formatted with {@code transaction.version=1} ({@code -Dkarrow.kafka.bootstrap.tv1}),
     * checked to run that protocol; the test is skipped without one.
     */
    private static String requireTv1() throws Exception {
        String tv1 = KafkaTestSupport.bootstrapTv1();
        Assumptions.assumeTrue(tv1 != null, "no broker with transaction.version=1 (-Dkarrow.kafka.bootstrap.tv1)");
        try (Admin admin = KafkaTestSupport.admin(tv1)) {
            FinalizedVersionRange version = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
                    .finalizedFeatures().get("transaction.version");
            assertThat(version).as("the broker's finalized transaction.version").isNotNull();
            assertThat(version.maxVersionLevel()).as("the broker's transaction.version").isEqualTo((short) 1);
        }
        return tv1;
    }

    private static void exactlyOnceFailover(String bootstrap, int partitions, int parallelism) throws Exception {
        FailOnce.reset(SinkParity.BIDS / 2);
        Job job = new Job(bootstrap, ENV.registry(), partitions, parallelism);
        String query = " SELECT auction, bidder, price * 100 AS price_cents, date_time FROM bids"
                + " WHERE price > 1000 AND fail_once(auction)";
        Trio t = trio(job, exactlyOnce(), false, "", query);
        job.run(200);
        assertThat(FailOnce.FAILED.get()).as("the injected failure happened").isTrue();
        List<ConsumerRecord<byte[], byte[]>> reference = job.read(t.oracle(), true);
        assertThat(reference).hasSize(job.expected);
        assertThat(digest(reference)).isEqualTo(job.expectedDigest);
        for (String topic : List.of(t.batched(), t.nativeProduce())) {
            List<ConsumerRecord<byte[], byte[]>> records = job.read(topic, true);
            assertThat(records).as(topic).hasSize(job.expected);
            assertThat(digest(records)).as(topic).isEqualTo(job.expectedDigest);
        }
        // Aborted transactions' records are visible to read_uncommitted: evidence that output
        // written before the failure was rolled back rather than never written.
        System.out.printf("KafkaNativeSinkITCase: failover: %d committed; incl. aborted: %d stock, %d batched, %d native%n",
                reference.size(), job.read(t.oracle(), false).size(), job.read(t.batched(), false).size(),
                job.read(t.nativeProduce(), false).size());
    }
}
