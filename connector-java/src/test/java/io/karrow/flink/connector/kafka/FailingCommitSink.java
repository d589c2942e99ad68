package io.karrow.flink.connector.kafka;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A two-phase committing sink (Flink's {@code KafkaSink} or karrow's {@code NativeKafkaSink}) whose
 * committer fails once, at the first commit call with committables. The checkpoint those
 * committables belong to has completed (the committer commits only then). By default the call
 * throws instead of handing them to the sink's committer: the transactions are pre-committed and
 * not committed, the failure between pre-commit and commit; Flink fails the task over, restores
 * that checkpoint, and the restored committer must commit them. With {@link Injection#afterCommit}
 * the call throws after the sink's committer committed them, before Flink learns it (a failure
 * during commit): the restored committer is handed transactions that are already committed.
 * Writer, state, serializers and topology are the wrapped sink's.
 *
 * <p>What happened is kept per label in {@link Injection} (the MiniCluster runs in the test's JVM):
 * the transactional ids of the failed call, and the outcome of every commit request handed on.
 *
 * @param <IN> the input type
 * @param <S> the writer state
 */
final class FailingCommitSink<IN, S>
        implements Sink<IN>,
                SupportsWriterState<IN, S>,
                SupportsCommitter<KafkaCommittable>,
                SupportsPostCommitTopology<KafkaCommittable> {

    private static final long serialVersionUID = 1L;

    private final Sink<IN> sink;
    private final String label;

    /**
     * Wraps {@code sink}, which must have writer state and a committer of {@link KafkaCommittable}s.
     *
     * @param sink the sink
     * @param label where the failure and the commits are recorded ({@link Injection#of})
     */
    FailingCommitSink(Sink<IN> sink, String label) {
        if (!(sink instanceof SupportsWriterState) || !(sink instanceof SupportsCommitter)) {
            throw new IllegalArgumentException("not a two-phase committing sink: " + sink.getClass().getName());
        }
        this.sink = sink;
        this.label = label;
    }

    @SuppressWarnings("unchecked")
    private SupportsWriterState<IN, S> stateful() {
        return (SupportsWriterState<IN, S>) sink;
    }

    @SuppressWarnings("unchecked")
    private SupportsCommitter<KafkaCommittable> committing() {
        return (SupportsCommitter<KafkaCommittable>) sink;
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) throws IOException {
        return sink.createWriter(context);
    }

    @Override
    public StatefulSinkWriter<IN, S> restoreWriter(WriterInitContext context, Collection<S> recoveredState)
            throws IOException {
        return stateful().restoreWriter(context, recoveredState);
    }

    @Override
    public SimpleVersionedSerializer<S> getWriterStateSerializer() {
        return stateful().getWriterStateSerializer();
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return new FailingCommitter(
                committing().createCommitter(context),
                Injection.of(label),
                context.getTaskInfo().getAttemptNumber());
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return committing().getCommittableSerializer();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committables) {
        if (sink instanceof SupportsPostCommitTopology) {
            ((SupportsPostCommitTopology<KafkaCommittable>) sink).addPostCommitTopology(committables);
        }
    }

    /** How a commit request handed to the sink's committer ended. */
    enum Outcome {
        COMMITTED,
        ALREADY_COMMITTED,
        RETRY_LATER,
        FAILED_KNOWN_REASON,
        FAILED_UNKNOWN_REASON,
        /** The committer threw. */
        THREW
    }

    /**
     * One commit request handed to the sink's committer, how it ended, and the attempt (Flink's
     * attempt number of the committer's task: 0, then one more per restart) that committed it.
     */
    record Commit(String transactionalId, Outcome outcome, int attempt) {}

    /** The failure of one wrapped sink: armed until it fires, then what it failed and what came after. */
    static final class Injection {
        private static final Map<String, Injection> BY_LABEL = new ConcurrentHashMap<>();

        final AtomicBoolean armed = new AtomicBoolean(true);
        /** The transactional ids of the commit call that failed. */
        final List<String> failed = new CopyOnWriteArrayList<>();
        /** The attempt of the task whose committer failed (-1: none yet). */
        volatile int failedAttempt = -1;
        /** Fail after the sink's committer committed (set before the job runs); else before. */
        volatile boolean afterCommit;
        /** Every commit request handed to the sink's committer, in order. */
        final List<Commit> commits = new CopyOnWriteArrayList<>();

        /** The injection of {@code label} (armed when first asked for). */
        static Injection of(String label) {
            return BY_LABEL.computeIfAbsent(label, l -> new Injection());
        }
    }

    /** The sink's committer behind the one injected failure. */
    private static final class FailingCommitter implements Committer<KafkaCommittable> {
        private final Committer<KafkaCommittable> committer;
        private final Injection injection;
        private final int attempt;

        FailingCommitter(Committer<KafkaCommittable> committer, Injection injection, int attempt) {
            this.committer = committer;
            this.injection = injection;
            this.attempt = attempt;
        }

        @Override
        public void commit(Collection<CommitRequest<KafkaCommittable>> requests)
                throws IOException, InterruptedException {
            List<String> ids = new ArrayList<>();
            for (CommitRequest<KafkaCommittable> r : requests) {
                ids.add(r.getCommittable().getTransactionalId());
            }
            if (!ids.isEmpty() && injection.armed.compareAndSet(true, false)) {
                injection.failed.addAll(ids);
                injection.failedAttempt = attempt;
                if (!injection.afterCommit) {
                    throw new IOException("injected failure between pre-commit and commit of " + ids);
                }
                handOn(requests);
                throw new IOException("injected failure after the commit of " + ids);
            }
            handOn(requests);
        }

        /** Hands {@code requests} to the sink's committer, recording how each ended. */
        private void handOn(Collection<CommitRequest<KafkaCommittable>> requests)
                throws IOException, InterruptedException {
            List<Observed> observed = new ArrayList<>();
            for (CommitRequest<KafkaCommittable> r : requests) {
                observed.add(new Observed(r));
            }
            boolean threw = true;
            try {
                committer.commit(new ArrayList<CommitRequest<KafkaCommittable>>(observed));
                threw = false;
            } finally {
                for (Observed o : observed) {
                    injection.commits.add(
                            new Commit(o.getCommittable().getTransactionalId(), threw ? Outcome.THREW : o.outcome, attempt));
                }
            }
        }

        @Override
        public void close() throws Exception {
            committer.close();
        }
    }

    /** A commit request that remembers how the committer ended it (committed unless it said otherwise). */
    private static final class Observed implements Committer.CommitRequest<KafkaCommittable> {
        private final Committer.CommitRequest<KafkaCommittable> request;
        private Outcome outcome = Outcome.COMMITTED;

        Observed(Committer.CommitRequest<KafkaCommittable> request) {
            this.request = request;
        }

        @Override
        public KafkaCommittable getCommittable() {
            return request.getCommittable();
        }

        @Override
        public int getNumberOfRetries() {
            return request.getNumberOfRetries();
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            outcome = Outcome.FAILED_KNOWN_REASON;
            request.signalFailedWithKnownReason(t);
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            outcome = Outcome.FAILED_UNKNOWN_REASON;
            request.signalFailedWithUnknownReason(t);
        }

        @Override
        public void retryLater() {
            outcome = Outcome.RETRY_LATER;
            request.retryLater();
        }

        @Override
        public void updateAndRetryLater(KafkaCommittable committable) {
            outcome = Outcome.RETRY_LATER;
            request.updateAndRetryLater(committable);
        }

        @Override
        public void signalAlreadyCommitted() {
            outcome = Outcome.ALREADY_COMMITTED;
            request.signalAlreadyCommitted();
        }
    }
}
