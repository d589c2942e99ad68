package io.karrow.flink.connector.kafka.sink;

import io.karrow.flink.connector.kafka.NativeKafkaSecurity;
import io.karrow.flink.connector.kafka.NativeOAuthBearerLogin;
import io.karrow.flink.nativebridge.NativeProducerSession;

import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.util.FlinkRuntimeException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * The writer of a {@code kafka-native} sink in native produce mode under {@code none} and {@code
 * at-least-once}: what Flink's {@code KafkaWriter} does, with the records going to karrow's native
 * producer in batches ({@link NativeRecordFeed}) instead of one {@code ProducerRecord} at a time.
 *
 * <p>As the stock writer: at-least-once flushes (every record acknowledged) before each checkpoint
 * and at end of input, none only at end of input; a failed send fails the next call; no state and
 * no committables. The producer has no thread of its own, so a processing-time timer drives it
 * every {@code linger.ms} (at least 1 ms, at most 100 ms): what the feed buffered is encoded and
 * appended, lingering batches are sent and acknowledgements read.
 *
 * <p>Metrics: the stock writer's {@code numRecordsOut} and {@code numBytesOut} (records and bytes
 * handed to the producer), and {@code karrow.numRecordsProducedNatively}: records the broker
 * acknowledged to the native producer (the evidence that native produce ran; under exactly-once it
 * includes records of transactions aborted later).
 *
 * @param <IN> the sink's input type
 */
class NativeKafkaWriter<IN>
        implements StatefulSinkWriter<IN, KafkaWriterState>, CommittingSinkWriter<IN, KafkaCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(NativeKafkaWriter.class);

    /** The group of karrow's metrics (as the source's). */
    static final String METRIC_GROUP = "karrow";

    /** Records the broker acknowledged to the native producer. */
    static final String RECORDS_PRODUCED_NATIVELY = "numRecordsProducedNatively";

    private final DeliveryGuarantee deliveryGuarantee;
    protected final NativeProducerSettings settings;
    protected final NativeProducerSession producer;
    protected final NativeRecordFeed.Feeder<IN> feeder;
    private final ProcessingTimeService timeService;
    /** Kafka's OAUTHBEARER login (null: another mechanism): refreshed tokens go to the producer. */
    @Nullable
    private final NativeOAuthBearerLogin login;
    private final long pollIntervalMillis;
    private final Counter numRecordsOut;
    private final Counter numBytesOut;
    private final Counter producedNatively;
    private long bytesReported;
    private long acknowledgedReported;
    private boolean closed;
    private boolean timerArmed;

    NativeKafkaWriter(
            DeliveryGuarantee deliveryGuarantee,
            NativeProducerSettings settings,
            WriterInitContext context,
            NativeRecordFeed<IN> feed,
            boolean transactional) {
        this.deliveryGuarantee = deliveryGuarantee;
        this.settings = settings;
        this.timeService = context.getProcessingTimeService();
        this.numRecordsOut = context.metricGroup().getIOMetricGroup().getNumRecordsOutCounter();
        this.numBytesOut = context.metricGroup().getIOMetricGroup().getNumBytesOutCounter();
        this.producedNatively = context.metricGroup()
                .addGroup(METRIC_GROUP)
                .counter(RECORDS_PRODUCED_NATIVELY, new ThreadSafeSimpleCounter());
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        NativeRecordFeed.Feeder<IN> opened = null;
        NativeProducerSession session = null;
        NativeOAuthBearerLogin openedLogin = null;
        try {
            opened = feed.open(context.asSerializationSchemaInitializationContext(), context.metricGroup());
            openedLogin = NativeKafkaSecurity.oauthBearerLogin(settings.properties());
            session = new NativeProducerSession(
                    settings.configJson(transactional, subtask, "-" + subtask, openedLogin));
        } catch (Exception e) {
            if (opened != null) {
                opened.close();
            }
            if (openedLogin != null) {
                openedLogin.close();
            }
            throw new FlinkRuntimeException("Cannot open the native Kafka producer", e);
        }
        this.feeder = opened;
        this.producer = session;
        this.login = openedLogin;
        this.pollIntervalMillis = pollInterval(settings);
    }

    /** Starts the writer (the exactly-once writer aborts lingering transactions and opens one). */
    void initialize() {
        armTimer();
    }

    private static long pollInterval(NativeProducerSettings settings) {
        String linger = settings.properties().getProperty("linger.ms");
        long millis = 5;
        if (linger != null) {
            try {
                millis = Long.parseLong(linger.trim());
            } catch (NumberFormatException e) {
                // Kafka's ProducerConfig refused it already when the producer was opened.
            }
        }
        return Math.max(1, Math.min(100, millis));
    }

    private void armTimer() {
        if (closed || timerArmed) {
            return;
        }
        timerArmed = true;
        timeService.registerTimer(timeService.getCurrentProcessingTime() + pollIntervalMillis, this::onTimer);
    }

    private void onTimer(long time) throws IOException {
        timerArmed = false;
        if (closed) {
            return;
        }
        handed(feeder.flush(producer));
        poll();
        armTimer();
    }

    @Override
    public void write(IN element, Context context) throws IOException {
        handed(feeder.write(element, producer));
    }

    /** Counts records handed to the producer (the stock writer counts each sent record). */
    private void handed(int records) {
        if (records > 0) {
            numRecordsOut.inc(records);
            long bytes = feeder.bytesOut();
            numBytesOut.inc(bytes - bytesReported);
            bytesReported = bytes;
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        handed(feeder.flush(producer));
        if (deliveryGuarantee != DeliveryGuarantee.NONE || endOfInput) {
            LOG.debug("flush, end of input {}", endOfInput);
            producer.flush();
        }
        poll();
    }

    /** Sends what lingered, reads acknowledgements and counts them. */
    private void poll() throws IOException {
        if (login != null) {
            login.handOverRefreshed(producer::setToken);
        }
        producer.poll();
        long acknowledged = producer.acknowledged();
        producedNatively.inc(acknowledged - acknowledgedReported);
        acknowledgedReported = acknowledged;
    }

    @Override
    public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException {
        return Collections.emptyList();
    }

    @Override
    public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
        return Collections.emptyList();
    }

    /** Whether {@link #close()} ran. */
    protected boolean isClosed() {
        return closed;
    }

    /** Closes the producer at once (records not flushed are dropped, as the stock writer drops them). */
    @Override
    public void close() throws Exception {
        closed = true;
        try {
            feeder.close();
        } finally {
            try {
                producer.close();
            } finally {
                if (login != null) {
                    login.close();
                }
            }
        }
    }
}
