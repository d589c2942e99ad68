package io.karrow.flink.connector.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.connector.kafka.sink.NativeKafkaCommitter.Outcome;
import io.karrow.flink.nativebridge.NativeProducerSession.EndResult;

import org.junit.jupiter.api.Test;

/**
 * The committer answers each EndTxn outcome as Flink's {@code KafkaCommitter} answers the exception
 * Kafka's producer (4.2) raises for it from {@code commitTransaction}.
 */
class NativeKafkaCommitterTest {

    private static Outcome of(int code, boolean retriable) {
        return NativeKafkaCommitter.outcome(new EndResult(code, code == 0 ? null : "error " + code, retriable));
    }

    @Test
    void committedAndRetriedOutcomes() {
        assertThat(of(0, false)).isEqualTo(Outcome.COMMITTED);
        // max.block.ms passed (the producer's TimeoutException, a RetriableException).
        assertThat(of(-1, true)).isEqualTo(Outcome.RETRY_LATER);
    }

    @Test
    void theExceptionsTheStockCommitterCatchesAreKnownReasons() {
        // PRODUCER_FENCED; INVALID_PRODUCER_EPOCH is raised as ProducerFencedException too.
        assertThat(of(90, false)).isEqualTo(Outcome.FENCED);
        assertThat(of(47, false)).isEqualTo(Outcome.FENCED);
        // A transaction the broker aborted after transaction.timeout.ms, under protocol 2.
        assertThat(of(48, false)).isEqualTo(Outcome.INVALID_TXN_STATE);
        assertThat(of(59, false)).isEqualTo(Outcome.UNKNOWN_PRODUCER_ID);
    }

    @Test
    void everyOtherErrorFailsOver() {
        // INVALID_PRODUCER_ID_MAPPING is raised as InvalidPidMappingException, which is not an
        // UnknownProducerIdException: the stock committer's catch-all fails over.
        assertThat(of(49, false)).isEqualTo(Outcome.UNKNOWN_REASON);
        // TRANSACTION_ABORTABLE, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, no Kafka code at all.
        assertThat(of(120, false)).isEqualTo(Outcome.UNKNOWN_REASON);
        assertThat(of(53, false)).isEqualTo(Outcome.UNKNOWN_REASON);
        assertThat(of(-1, false)).isEqualTo(Outcome.UNKNOWN_REASON);
    }
}
