package io.karrow.flink.connector.kafka.sink;

import io.karrow.flink.connector.kafka.NativeKafkaSecurity;
import io.karrow.flink.connector.kafka.NativeOAuthBearerLogin;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.internal.BackchannelFactory;
import org.apache.flink.connector.kafka.sink.internal.KafkaCommitter;
import org.apache.flink.connector.kafka.sink.internal.TransactionFinished;
import org.apache.flink.connector.kafka.sink.internal.WritableBackchannel;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnknownProducerIdException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Collection;

/**
 * The committer of a {@code kafka-native} sink in native produce mode: commits each {@link
 * KafkaCommittable} after its checkpoint completed, with one EndTxn from the committable's
 * transactional id, producer id and epoch (the same for a committable the writer just handed over
 * and for one restored from a checkpoint or savepoint of any of the three sinks: no producer, no
 * reflection), and answers each outcome as Flink's {@code KafkaCommitter} answers it:
 *
 * <ul>
 *   <li>done: the writer learns it over Flink's backchannel (its id may be reused);
 *   <li>no answer within {@code max.block.ms} (a timeout, a coordinator that kept moving): retried
 *       later;
 *   <li>the exceptions Kafka's producer (4.2) raises from {@code commitTransaction} for these codes
 *       and the stock committer catches: fenced (PRODUCER_FENCED, and INVALID_PRODUCER_EPOCH, which
 *       the producer reports as fenced), INVALID_TXN_STATE, UNKNOWN_PRODUCER_ID: failed with a known
 *       reason (the committable is dropped, the job goes on), logged as the stock committer logs
 *       it. A transaction the broker aborted because it outlived {@code transaction.timeout.ms}
 *       ends here: the coordinator answers PRODUCER_FENCED under transaction protocol 1 and
 *       INVALID_TXN_STATE under protocol 2;
 *   <li>anything else, INVALID_PRODUCER_ID_MAPPING (an {@code InvalidPidMappingException}, which the
 *       stock committer does not catch) and TRANSACTION_ABORTABLE among them: failed with an
 *       unknown reason (Flink fails over).
 * </ul>
 */
final class NativeKafkaCommitter implements Committer<KafkaCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(NativeKafkaCommitter.class);

    private static final int INVALID_PRODUCER_EPOCH = 47;
    private static final int INVALID_TXN_STATE = 48;
    private static final int UNKNOWN_PRODUCER_ID = 59;
    private static final int PRODUCER_FENCED = 90;

    private final NativeProducerSettings settings;
    private final int subtaskId;
    private final boolean reusesTransactionalIds;
    private final WritableBackchannel<TransactionFinished> backchannel;
    private NativeProducerSession session;
    /** Kafka's OAUTHBEARER login while a session is open (null: another mechanism, or none open). */
    @Nullable
    private NativeOAuthBearerLogin login;

    NativeKafkaCommitter(
            NativeProducerSettings settings,
            String transactionalIdPrefix,
            int subtaskId,
            int attemptNumber,
            boolean reusesTransactionalIds) {
        this.settings = settings;
        this.subtaskId = subtaskId;
        this.reusesTransactionalIds = reusesTransactionalIds;
        this.backchannel = BackchannelFactory.getInstance()
                .getWritableBackchannel(subtaskId, attemptNumber, transactionalIdPrefix);
    }

    @Override
    public void commit(Collection<CommitRequest<KafkaCommittable>> requests) throws IOException {
        for (CommitRequest<KafkaCommittable> request : requests) {
            KafkaCommittable committable = request.getCommittable();
            String id = committable.getTransactionalId();
            LOG.debug("Committing Kafka transaction {}", id);
            NativeProducerSession.EndResult result;
            try {
                result = session().endTransaction(id, committable.getProducerId(), committable.getEpoch(), true);
            } catch (IOException e) {
                LOG.error("Transaction ({}) encountered error and data has been potentially lost.", request, e);
                closeSession();
                request.signalFailedWithUnknownReason(e);
                continue;
            }
            switch (outcome(result)) {
                case COMMITTED:
                    backchannel.send(TransactionFinished.successful(id));
                    break;
                case RETRY_LATER:
                    LOG.warn("Encountered retriable exception while committing {}: {}", id, result.message());
                    request.retryLater();
                    break;
                case FENCED:
                    ProducerFencedException fenced = new ProducerFencedException(result.message());
                    logFenced(request, fenced);
                    failed(id);
                    request.signalFailedWithKnownReason(fenced);
                    break;
                case INVALID_TXN_STATE:
                    InvalidTxnStateException invalid = new InvalidTxnStateException(result.message());
                    LOG.error("Unable to commit transaction ({}) because it's in an invalid state. "
                            + "Most likely the transaction has been aborted for some reason. "
                            + "Please check the Kafka logs for more details.", request, invalid);
                    failed(id);
                    request.signalFailedWithKnownReason(invalid);
                    break;
                case UNKNOWN_PRODUCER_ID:
                    UnknownProducerIdException unknown = new UnknownProducerIdException(result.message());
                    LOG.error("Unable to commit transaction ({}) "
                            + KafkaCommitter.UNKNOWN_PRODUCER_ID_ERROR_MESSAGE, request, unknown);
                    failed(id);
                    request.signalFailedWithKnownReason(unknown);
                    break;
                default:
                    KafkaException lost = new KafkaException(result.message());
                    LOG.error("Transaction ({}) encountered error and data has been potentially lost.", request, lost);
                    closeSession();
                    request.signalFailedWithUnknownReason(lost);
            }
        }
    }

    /** What the stock committer does with the exception Kafka's producer raises for an EndTxn outcome. */
    enum Outcome {
        /** Done: the writer learns it. */
        COMMITTED,
        /** A {@code RetriableException} (the producer's {@code TimeoutException} after {@code max.block.ms}). */
        RETRY_LATER,
        /** {@code ProducerFencedException}: failed with a known reason. */
        FENCED,
        /** {@code InvalidTxnStateException}: failed with a known reason. */
        INVALID_TXN_STATE,
        /** {@code UnknownProducerIdException}: failed with a known reason. */
        UNKNOWN_PRODUCER_ID,
        /** Any other exception: failed with an unknown reason (fail-over). */
        UNKNOWN_REASON
    }

    /**
     * The outcome of {@code result} as Kafka's producer (4.2, {@code TransactionManager.EndTxnHandler})
     * would raise it to the stock committer: INVALID_PRODUCER_EPOCH and PRODUCER_FENCED as {@code
     * ProducerFencedException}, INVALID_TXN_STATE and UNKNOWN_PRODUCER_ID as themselves, every
     * retriable code retried until {@code max.block.ms} and then a {@code TimeoutException} (the
     * native coordinator retries the same codes and reports the timeout as retriable), and every
     * other code as an exception the committer does not catch.
     */
    static Outcome outcome(NativeProducerSession.EndResult result) {
        if (result.ok()) {
            return Outcome.COMMITTED;
        }
        if (result.retriable()) {
            return Outcome.RETRY_LATER;
        }
        switch (result.errorCode()) {
            case PRODUCER_FENCED:
            case INVALID_PRODUCER_EPOCH:
                return Outcome.FENCED;
            case INVALID_TXN_STATE:
                return Outcome.INVALID_TXN_STATE;
            case UNKNOWN_PRODUCER_ID:
                return Outcome.UNKNOWN_PRODUCER_ID;
            default:
                return Outcome.UNKNOWN_REASON;
        }
    }

    private void logFenced(CommitRequest<KafkaCommittable> request, ProducerFencedException e) {
        if (reusesTransactionalIds) {
            LOG.warn("Unable to commit transaction ({}) because its producer is already fenced."
                    + " If this warning appears as part of the recovery of a checkpoint, it is expected in some"
                    + " cases (e.g., aborted checkpoints in previous attempt). If it's outside of recovery, this"
                    + " means that you either have a different sink with the same 'transactional.id' or recovery"
                    + " took longer than 'transaction.timeout.ms' ({}ms). In both cases this most likely signals"
                    + " data loss, please consult the Flink documentation for more details.",
                    request, settings.transactionTimeout(), e);
        } else {
            LOG.error("Unable to commit transaction ({}) because its producer is already fenced. This means that"
                    + " you either have a different producer with the same 'transactional.id' (this is unlikely"
                    + " with the 'KafkaSink' as all generated ids are unique and shouldn't be reused) or recovery"
                    + " took longer than 'transaction.timeout.ms' ({}ms). In both cases this most likely signals"
                    + " data loss, please consult the Flink documentation for more details.",
                    request, settings.transactionTimeout(), e);
        }
    }

    /**
     * The writer learns the transaction failed (its id is not reused for it), and the session is
     * closed, as the stock committer closes its committing producer.
     */
    private void failed(String id) {
        backchannel.send(TransactionFinished.erroneously(id));
        closeSession();
    }

    /**
     * The committing session, opened on first use; with OAUTHBEARER it holds Kafka's login (which
     * refreshes the token) and hands each refreshed token to the session before it is used, so a
     * re-authentication or a reconnect of a long-lived committer never sends an expired token.
     */
    private NativeProducerSession session() throws IOException {
        if (session == null) {
            if (login == null) {
                login = NativeKafkaSecurity.oauthBearerLogin(settings.properties());
            }
            session = new NativeProducerSession(settings.committerConfigJson(subtaskId, login));
        } else if (login != null) {
            login.handOverRefreshed(session::setToken);
        }
        return session;
    }

    private void closeSession() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            backchannel.close();
        } finally {
            closeSession();
            if (login != null) {
                login.close();
                login = null;
            }
        }
    }
}
