package io.karrow.flink.connector.kafka.sink;

import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.connector.kafka.sink.internal.BackchannelFactory;
import org.apache.flink.connector.kafka.sink.internal.CheckpointTransaction;
import org.apache.flink.connector.kafka.sink.internal.ReadableBackchannel;
import org.apache.flink.connector.kafka.sink.internal.TransactionAbortStrategyContextImpl;
import org.apache.flink.connector.kafka.sink.internal.TransactionAbortStrategyImpl;
import org.apache.flink.connector.kafka.sink.internal.TransactionFinished;
import org.apache.flink.connector.kafka.sink.internal.TransactionOwnership;
import org.apache.flink.connector.kafka.sink.internal.TransactionalIdFactory;
import org.apache.flink.util.FlinkRuntimeException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClient;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The exactly-once writer of a {@code kafka-native} sink in native produce mode: the contract of
 * Flink's {@code ExactlyOnceKafkaWriter} on karrow's native transactional producer.
 *
 * <ul>
 *   <li>Transactions are named as the stock sink names them ({@code prefix-subtask-offset}, {@link
 *       TransactionalIdFactory}): {@code INCREMENTING} takes the checkpoint id as the offset and
 *       initializes the ids of checkpoints skipped since the last one; {@code POOLING} takes the
 *       lowest offset no ongoing transaction uses.
 *   <li>At start, lingering transactions of earlier runs are aborted with Flink's own strategy
 *       ({@link TransactionAbortStrategyImpl}: probing for {@code INCREMENTING}, listing open
 *       transactions for {@code POOLING}), each by an InitProducerId of its id.
 *   <li>Pre-commit flushes and hands a {@link KafkaCommittable} (transactional id, producer id,
 *       epoch) to the committer; no producer travels with it, so {@code NativeKafkaCommitter}
 *       ends it with EndTxn from those ids, as it ends a restored one.
 *   <li>The state is the stock writer's {@link KafkaWriterState} (ownership, and the precommitted
 *       transactions not known finished, learned from the committer over Flink's backchannel), so
 *       savepoints move between the stock sink, the sink with Kafka's producer and this one.
 * </ul>
 *
 * <p>One native producer serves every transaction: each checkpoint it is given the next id and
 * initialized (its connections stay). Both transaction protocols a Kafka 4.x broker runs work.
 *
 * @param <IN> the sink's input type
 */
final class ExactlyOnceNativeKafkaWriter<IN> extends NativeKafkaWriter<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceNativeKafkaWriter.class);

    private final String transactionalIdPrefix;
    private final TransactionNamingStrategy namingStrategy;
    private final TransactionOwnership ownership;
    private final TransactionAbortStrategyImpl abortStrategy;
    private final Collection<KafkaWriterState> recoveredStates;
    private final long restoredCheckpointId;
    private final int subtaskId;
    private final int parallelism;
    private final int[] ownedSubtaskIds;
    private final int totalNumberOfOwnedSubtasks;
    private final OngoingTransactions ongoing;
    private final ReadableBackchannel<TransactionFinished> backchannel;
    private long lastCheckpointId;
    private String currentTransactionalId;
    private Admin admin;

    ExactlyOnceNativeKafkaWriter(
            NativeProducerSettings settings,
            String transactionalIdPrefix,
            TransactionNamingStrategy namingStrategy,
            WriterInitContext context,
            NativeRecordFeed<IN> feed,
            Collection<KafkaWriterState> recoveredStates) {
        super(DeliveryGuarantee.EXACTLY_ONCE, settings, context, feed, true);
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.namingStrategy = namingStrategy;
        this.ownership = ownership(namingStrategy);
        this.abortStrategy = abortStrategy(namingStrategy);
        this.recoveredStates = recoveredStates;
        this.subtaskId = context.getTaskInfo().getIndexOfThisSubtask();
        this.parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        this.ownedSubtaskIds = ownership.getOwnedSubtaskIds(subtaskId, parallelism, recoveredStates);
        this.totalNumberOfOwnedSubtasks =
                ownership.getTotalNumberOfOwnedSubtasks(subtaskId, parallelism, recoveredStates);
        this.restoredCheckpointId =
                context.getRestoredCheckpointId().orElse(InitContext.INITIAL_CHECKPOINT_ID - 1);
        this.lastCheckpointId = restoredCheckpointId;
        this.ongoing = new OngoingTransactions(recoveredStates.stream()
                .flatMap(s -> s.getPrecommittedTransactionalIds().stream())
                .collect(Collectors.toList()));
        this.backchannel = BackchannelFactory.getInstance()
                .getReadableBackchannel(subtaskId, context.getTaskInfo().getAttemptNumber(), transactionalIdPrefix);
    }

    /**
     * The ownership model of {@code strategy}: {@code TransactionNamingStrategy} pairs {@code
     * INCREMENTING} with ownership by subtask id and {@code POOLING} with ownership recorded in the
     * writer state.
     */
    static TransactionOwnership ownership(TransactionNamingStrategy strategy) {
        return strategy == TransactionNamingStrategy.POOLING
                ? TransactionOwnership.EXPLICIT_BY_WRITER_STATE
                : TransactionOwnership.IMPLICIT_BY_SUBTASK_ID;
    }

    /** The abort strategy {@code TransactionNamingStrategy} pairs with {@code strategy}. */
    static TransactionAbortStrategyImpl abortStrategy(TransactionNamingStrategy strategy) {
        return strategy == TransactionNamingStrategy.POOLING
                ? TransactionAbortStrategyImpl.LISTING
                : TransactionAbortStrategyImpl.PROBING;
    }

    @Override
    void initialize() {
        try {
            abortLingeringTransactions(restoredCheckpointId + 1);
            startTransaction(restoredCheckpointId + 1);
        } catch (Throwable t) {
            try {
                close();
            } catch (Exception e) {
                t.addSuppressed(e);
            }
            throw t;
        }
        super.initialize();
    }

    /** Opens the transaction the records up to checkpoint {@code checkpointId} go into. */
    private void startTransaction(long checkpointId) {
        try {
            endEmptyTransaction(checkpointId);
            String id;
            if (namingStrategy == TransactionNamingStrategy.POOLING) {
                Set<String> used = ongoing.ids();
                long offset = 0;
                while (used.contains(name(offset))) {
                    offset++;
                }
                id = name(offset);
            } else {
                if (checkpointId <= lastCheckpointId) {
                    throw new IllegalStateException("Expected " + checkpointId + " > " + lastCheckpointId);
                }
                // Aborted checkpoints leave gaps: their ids are initialized (empty), so that the
                // probing abort of a later run finds a consecutive sequence of used ids.
                for (long skipped = lastCheckpointId + 1; skipped < checkpointId; skipped++) {
                    initialize(name(skipped));
                }
                id = name(checkpointId);
            }
            ongoing.begin(id, checkpointId);
            initialize(id);
            lastCheckpointId = checkpointId;
            currentTransactionalId = id;
            producer.beginTransaction();
        } catch (KarrowNativeException e) {
            throw new FlinkRuntimeException("Could not start a Kafka transaction for checkpoint " + checkpointId, e);
        }
    }

    /**
     * Ends the open transaction when no pre-commit ran since it began, which Flink allows only when
     * nothing can have been written to it: the checkpoints after end of input call {@link
     * #snapshotState} without {@link #prepareCommit}. It ends without a request and its id is free
     * again, as the stock writer recycles the producer of an empty transaction.
     */
    private void endEmptyTransaction(long checkpointId) throws KarrowNativeException {
        if (currentTransactionalId == null || !producer.state().inTransaction()) {
            return;
        }
        if (producer.state().hasRecordsInTransaction()) {
            throw new IllegalStateException("Transaction " + currentTransactionalId + " holds records but was not"
                    + " pre-committed before checkpoint " + checkpointId);
        }
        producer.commitTransaction();
        ongoing.recycle(currentTransactionalId);
    }

    private String name(long offset) {
        return TransactionalIdFactory.buildTransactionalId(transactionalIdPrefix, ownedSubtaskIds[0], offset);
    }

    /** Gives the producer {@code transactionalId} and gets its producer id and epoch; returns the epoch. */
    private short initialize(String transactionalId) throws KarrowNativeException {
        producer.setTransactionalId(transactionalId);
        return producer.initTransactions().epoch();
    }

    @Override
    public Collection<KafkaCommittable> prepareCommit() throws IOException {
        NativeProducerSession.State state = producer.state();
        if (state.hasRecordsInTransaction()) {
            NativeProducerSession.ProducerIdAndEpoch ids = producer.precommitTransaction();
            KafkaCommittable committable =
                    new KafkaCommittable(ids.producerId(), ids.epoch(), currentTransactionalId, null);
            LOG.debug("Prepare {}.", committable);
            return Collections.singletonList(committable);
        }
        // Nothing written: the transaction ends here (no request) and its id is free again.
        producer.commitTransaction();
        ongoing.recycle(currentTransactionalId);
        return Collections.emptyList();
    }

    @Override
    public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
        TransactionFinished finished;
        while ((finished = backchannel.poll()) != null) {
            ongoing.finished(finished.getTransactionId());
        }
        List<CheckpointTransaction> precommitted = ongoing.list();
        startTransaction(checkpointId + 1);
        List<KafkaWriterState> states = new ArrayList<>();
        for (int i = 0; i < ownedSubtaskIds.length; i++) {
            states.add(new KafkaWriterState(
                    transactionalIdPrefix,
                    ownedSubtaskIds[i],
                    totalNumberOfOwnedSubtasks,
                    ownership,
                    // New transactions are only created with the first owned subtask id.
                    i == 0 ? precommitted : List.of()));
        }
        LOG.debug("Snapshotting state {}", states);
        return states;
    }

    @Override
    public void close() throws Exception {
        if (isClosed()) {
            return;
        }
        try {
            // Best effort, as the stock writer: abort what this writer has open (recovery aborts
            // it otherwise); a precommitted transaction belongs to the committer.
            if (producer.state().hasRecordsInTransaction()) {
                producer.abortTransaction();
            }
        } catch (KarrowNativeException e) {
            LOG.debug("Aborting transaction {} on close failed: {}", currentTransactionalId, e.getMessage());
        } finally {
            try {
                backchannel.close();
            } finally {
                try {
                    if (admin != null) {
                        admin.close();
                    }
                } finally {
                    super.close();
                }
            }
        }
    }

    private void abortLingeringTransactions(long startCheckpointId) {
        List<String> prefixes = new ArrayList<>();
        prefixes.add(transactionalIdPrefix);
        Optional<KafkaWriterState> last = recoveredStates.stream().findFirst();
        if (last.isPresent() && !last.get().getTransactionalIdPrefix().equals(transactionalIdPrefix)) {
            prefixes.add(last.get().getTransactionalIdPrefix());
            LOG.warn("Transactional id prefix from previous execution {} has changed to {}.",
                    last.get().getTransactionalIdPrefix(), transactionalIdPrefix);
        }
        Set<String> precommitted = recoveredStates.stream()
                .flatMap(s -> s.getPrecommittedTransactionalIds().stream())
                .map(CheckpointTransaction::getTransactionalId)
                .collect(Collectors.toSet());
        LOG.info("Aborting lingering transactions with prefixes {} using {}", prefixes, abortStrategy);
        TransactionAbortStrategyImpl.TransactionAborter aborter = transactionalId -> {
            try {
                LOG.debug("Aborting transaction {}", transactionalId);
                return initialize(transactionalId);
            } catch (KarrowNativeException e) {
                throw new FlinkRuntimeException("Could not abort Kafka transaction " + transactionalId, e);
            }
        };
        abortStrategy.abortTransactions(new TransactionAbortStrategyContextImpl(
                () -> List.of(settings.topic()),
                subtaskId,
                parallelism,
                ownedSubtaskIds,
                totalNumberOfOwnedSubtasks,
                prefixes,
                startCheckpointId,
                aborter,
                this::admin,
                precommitted));
    }

    /** The admin client of the listing abort strategy ({@code POOLING}), made when first needed. */
    private Admin admin() {
        if (admin == null) {
            admin = AdminClient.create(settings.properties());
        }
        return admin;
    }
}
