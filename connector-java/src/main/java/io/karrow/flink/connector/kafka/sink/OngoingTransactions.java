package io.karrow.flink.connector.kafka.sink;

import org.apache.flink.connector.kafka.sink.internal.CheckpointTransaction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The transactions of an exactly-once native writer that are not known to be finished: the one it
 * writes and those handed to the committer. The bookkeeping of Flink's {@code ProducerPoolImpl}
 * without its producers (the native writer uses one producer for every transaction), so the writer
 * state it snapshots ({@code KafkaWriterState}'s precommitted transactions, ordered by checkpoint id
 * then transactional id) is the stock writer's.
 */
final class OngoingTransactions {

    private static final Logger LOG = LoggerFactory.getLogger(OngoingTransactions.class);

    private final NavigableMap<CheckpointTransaction, String> byCheckpoint = new TreeMap<>(
            Comparator.comparing(CheckpointTransaction::getCheckpointId)
                    .thenComparing(CheckpointTransaction::getTransactionalId));
    private final Map<String, CheckpointTransaction> byId = new HashMap<>();

    /** Starts with the transactions of the recovered writer states, which the committer may still commit. */
    OngoingTransactions(Collection<CheckpointTransaction> precommitted) {
        for (CheckpointTransaction t : precommitted) {
            byCheckpoint.put(t, t.getTransactionalId());
            byId.put(t.getTransactionalId(), t);
        }
    }

    /** A transaction of checkpoint {@code checkpointId} begins under {@code transactionalId}. */
    void begin(String transactionalId, long checkpointId) {
        CheckpointTransaction t = new CheckpointTransaction(transactionalId, checkpointId);
        CheckpointTransaction existing = byId.put(transactionalId, t);
        if (existing != null) {
            throw new IllegalStateException("Transaction " + transactionalId + " already ongoing: " + existing);
        }
        byCheckpoint.put(t, transactionalId);
    }

    /** The writer's transaction ended without records (nothing to commit). */
    void recycle(String transactionalId) {
        CheckpointTransaction t = byId.remove(transactionalId);
        if (t != null) {
            byCheckpoint.remove(t);
        }
    }

    /**
     * The committer finished {@code transactionalId}. As in Flink's pool, committables are processed
     * in checkpoint order, so every transaction of an earlier checkpoint is finished as well.
     */
    void finished(String transactionalId) {
        CheckpointTransaction t = byId.remove(transactionalId);
        if (t == null) {
            LOG.info("Received unmatched transaction {}. This is expected during rescale.", transactionalId);
            return;
        }
        boolean older = byCheckpoint.firstKey().getCheckpointId() != t.getCheckpointId();
        byCheckpoint.remove(t);
        if (older) {
            Iterator<Map.Entry<CheckpointTransaction, String>> it = byCheckpoint.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<CheckpointTransaction, String> e = it.next();
                if (e.getKey().getCheckpointId() < t.getCheckpointId()) {
                    it.remove();
                    byId.remove(e.getValue());
                }
            }
        }
    }

    /** The ongoing transactions, by checkpoint id then transactional id. */
    List<CheckpointTransaction> list() {
        return new ArrayList<>(byCheckpoint.keySet());
    }

    /** The transactional ids in use. */
    Set<String> ids() {
        return Set.copyOf(byId.keySet());
    }
}
