package io.karrow.flink.connector.kafka;

import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.KarrowNativeException;
import io.karrow.flink.nativebridge.NativeFetchSession;

import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.reader.KafkaPartitionSplitReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.Counter;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code kafka-native} split reader with {@code 'scan.fetch-mode' = 'native'}: records are
 * fetched by {@code karrow-kafka} (Kafka's Fetch protocol, record batches walked in place, no
 * object per record) and each poll's values are decoded in one native call.
 *
 * <p>Flink's {@link KafkaPartitionSplitReader} (the superclass) still does everything that is not
 * per record, with its Kafka consumer: assigning splits and resolving their starting offsets
 * (earliest, latest, committed, timestamp, specific) and stopping offsets, partition metadata (the
 * leader each partition is fetched from), and committing offsets on checkpoints. The consumer never
 * polls. Records are handed on as {@link DecodedKafkaRecord}s, exactly as by {@link
 * KafkaNativeSplitReader}, so the stock reader and emitter keep offsets, timestamps and watermarks.
 *
 * <p>Compressed batches (every Kafka codec) are decompressed natively. TLS and SASL PLAIN / SCRAM
 * connect natively with the consumer's own settings ({@link NativeKafkaSecurity}); other mechanisms
 * never get here (the table reads with Kafka's consumer, decided when it is planned). A native fetch
 * failure fails the fetch with a message naming the option that switches back to Kafka's consumer.
 */
final class NativeFetchSplitReader extends KafkaPartitionSplitReader {

    private static final Logger LOG = LoggerFactory.getLogger(NativeFetchSplitReader.class);
    private static final int LEADER_LOOKUPS = 20;
    private static final Duration LEADER_RETRY = Duration.ofMillis(250);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, Long> stoppingOffsets;
    private final KafkaSourceReaderMetrics readerMetrics;
    private final AtomicLong pendingRecords;
    private final Counter numBytesIn;
    private final Counter recordsFetchedNatively;
    private final KafkaRecordBatchDecoder decoder;
    private final NativeFetchSession fetch;
    private final Map<Integer, TopicPartition> partitions = new HashMap<>();
    private final Map<Integer, Long> stops = new HashMap<>();
    private final String offsetReset;
    /** Kafka's OAUTHBEARER login (null: another mechanism): refreshed tokens go to the native fetch. */
    @Nullable
    private final NativeOAuthBearerLogin login;
    /** The consumer fetch metrics under Kafka's names, from the native fetch. */
    private final NativeFetchMetrics fetchMetrics;
    private final Map<TopicPartition, Integer> slots = new HashMap<>();
    private final Set<String> finishedBeforeFetch = new HashSet<>();
    private final List<ConsumerRecord<byte[], byte[]>> pending = new ArrayList<>();
    private int nextSlot;

    NativeFetchSplitReader(
            Properties props,
            SourceReaderContext context,
            KafkaSourceReaderMetrics readerMetrics,
            @Nullable String rackId,
            KafkaRecordDecoderSpec spec,
            KafkaNativeSourceMetrics metrics,
            AtomicLong pendingRecords) {
        // The Java consumer fetches nothing here: its metrics are registered below, with the fetch
        // metrics under Kafka's names taken from the native fetch instead.
        super(withoutConsumerMetrics(props), context, readerMetrics, rackId);
        this.readerMetrics = readerMetrics;
        this.recordsFetchedNatively = metrics.recordsFetchedNatively;
        this.pendingRecords = pendingRecords;
        this.numBytesIn = context.metricGroup().getIOMetricGroup().getNumBytesInCounter();
        this.consumer = KafkaSourceInternals.consumer(this);
        this.stoppingOffsets = KafkaSourceInternals.stoppingOffsets(this);
        this.offsetReset = props.getProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest").trim();
        this.fetchMetrics = new NativeFetchMetrics(props);
        if (KafkaSourceOptions.getOption(props, KafkaSourceOptions.REGISTER_KAFKA_CONSUMER_METRICS, Boolean::parseBoolean)) {
            fetchMetrics.register(context.metricGroup(), consumer);
        }
        KafkaRecordBatchDecoder openedDecoder = null;
        NativeOAuthBearerLogin openedLogin = null;
        try {
            openedDecoder = spec.open(context, metrics);
            this.decoder = openedDecoder;
            openedLogin = NativeKafkaSecurity.oauthBearerLogin(props);
            this.login = openedLogin;
            this.fetch = new NativeFetchSession(
                    fetchConfig(props, context.getIndexOfSubtask(), rackId, openedLogin));
        } catch (Exception e) {
            if (openedDecoder != null) {
                openedDecoder.close();
            }
            if (openedLogin != null) {
                openedLogin.close();
            }
            fetchMetrics.close();
            try {
                super.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IllegalStateException("Could not open the kafka-native fetch: " + e.getMessage(), e);
        }
    }

    /** Lets the stock reader assign and seek, then assigns each split natively from the resolved position. */
    @Override
    public void handleSplitsChanges(SplitsChange<KafkaPartitionSplit> splitsChange) {
        super.handleSplitsChanges(splitsChange);
        if (!(splitsChange instanceof SplitsAddition)) {
            return;
        }
        Set<TopicPartition> assigned = consumer.assignment();
        for (KafkaPartitionSplit split : splitsChange.splits()) {
            TopicPartition tp = split.getTopicPartition();
            if (!assigned.contains(tp)) {
                // The stock reader found the split empty (stopping at or before its start) and
                // unassigned it; it is finished before any fetch.
                finishedBeforeFetch.add(split.splitId());
                continue;
            }
            long start = consumer.position(tp);
            long stop = stoppingOffsets.getOrDefault(tp, Long.MAX_VALUE);
            if (start >= stop) {
                finishedBeforeFetch.add(split.splitId());
                continue;
            }
            int slot = nextSlot++;
            try {
                fetch.assign(slot, tp.topic(), tp.partition(), leaderOf(tp, false), start, stop);
            } catch (KarrowNativeException e) {
                throw new IllegalStateException("Could not assign " + tp + " to the native fetch", e);
            }
            partitions.put(slot, tp);
            stops.put(slot, stop);
            slots.put(tp, slot);
        }
    }

    /** Fetches once natively, decodes the values in one call, and groups the records by split. */
    @Override
    public RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> fetch() throws IOException {
        Set<String> finished = new HashSet<>(finishedBeforeFetch);
        finishedBeforeFetch.clear();
        try {
            if (login != null) {
                login.handOverRefreshed(fetch::setToken);
            }
            fetch.poll();
        } catch (KarrowNativeException e) {
            throw new IOException(e.getMessage() + " ('scan.fetch-mode' = 'kafka-consumer' reads with Kafka's"
                    + " Java consumer instead)", e);
        }
        int count = fetch.recordCount();
        fetchMetrics.record(fetch, count, fetch.recordBytes());
        pendingRecords.set(fetch.pendingRecords());
        numBytesIn.inc(fetch.recordBytes());
        recordsFetchedNatively.inc(count);
        pending.clear();
        int keyAt = 0;
        int headerAt = 0;
        int lastEpoch = Integer.MIN_VALUE;
        Optional<Integer> epochOf = Optional.empty();
        DirectValueBuffer values = fetch.values();
        for (int i = 0; i < count; i++) {
            TopicPartition tp = partitions.get(fetch.slot(i));
            int keyLength = fetch.keyLength(i);
            byte[] key = keyLength < 0 ? null : fetch.key(keyAt, keyLength);
            keyAt += Math.max(keyLength, 0);
            int headerBytes = fetch.headerBytes(i);
            int headerCount = fetch.headerCount(i);
            Headers headers = headerCount == 0 ? new RecordHeaders() : fetch.headers(headerAt, headerBytes, headerCount);
            headerAt += headerBytes;
            int epoch = fetch.leaderEpoch(i);
            if (epoch != lastEpoch) {
                // Consecutive records share their batch's epoch: one Optional per change.
                lastEpoch = epoch;
                epochOf = epoch < 0 ? Optional.empty() : Optional.of(epoch);
            }
            pending.add(new ConsumerRecord<>(
                    tp.topic(),
                    tp.partition(),
                    fetch.offset(i),
                    fetch.timestamp(i),
                    fetch.logAppendTime(i) ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
                    keyLength,
                    ConsumerRecord.NULL_SIZE,
                    key,
                    null,
                    headers,
                    epochOf,
                    Optional.empty()));
        }
        if (!decoder.isBatched()) {
            attachValues(values);
        }
        List<DecodedKafkaRecord> decoded = decoder.decode(pending, values);
        DecodedRecordsBySplits out = new DecodedRecordsBySplits(finished);
        int from = 0;
        while (from < decoded.size()) {
            TopicPartition tp = new TopicPartition(decoded.get(from).topic(), decoded.get(from).partition());
            int to = from + 1;
            while (to < decoded.size() && decoded.get(to).partition() == tp.partition()
                    && decoded.get(to).topic().equals(tp.topic())) {
                to++;
            }
            out.add(tp.toString(), new ArrayList<>(decoded.subList(from, to)));
            readerMetrics.recordCurrentOffset(tp, decoded.get(to - 1).offset());
            from = to;
        }
        for (int k = 0; k < fetch.finishedCount(); k++) {
            int slot = fetch.finishedSlot(k);
            TopicPartition tp = partitions.remove(slot);
            if (tp != null) {
                slots.remove(tp);
                stops.remove(slot);
                finished.add(tp.toString());
                fetch.unassign(slot);
            }
        }
        for (int k = 0; k < fetch.leaderChangedCount(); k++) {
            int slot = fetch.leaderChangedSlot(k);
            TopicPartition tp = partitions.get(slot);
            if (tp != null) {
                fetch.setLeader(slot, leaderOf(tp, true));
            }
        }
        for (int k = 0; k < fetch.outOfRangeCount(); k++) {
            int slot = fetch.outOfRangeSlot(k);
            TopicPartition tp = partitions.get(slot);
            if (tp != null) {
                long reset = resetOffset(tp);
                LOG.info("The fetch offset of {} was out of range; resetting it to {} ('auto.offset.reset' = '{}')",
                        tp, reset, offsetReset);
                fetch.assign(slot, tp.topic(), tp.partition(), leaderOf(tp, false), reset, stops.get(slot));
            }
        }
        handleTruncations();
        if (fetch.leaderChangedCount() > 0) {
            // As the Java consumer's retry.backoff.ms: do not ask a moving leader again at once.
            try {
                Thread.sleep(LEADER_RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        pending.clear();
        return out;
    }

    /**
     * Partitions whose leader's log was truncated below their next offset (KIP-320, a diverging epoch
     * in the fetch response), handled as Kafka's consumer handles a truncation it detects
     * ({@code SubscriptionState.maybeCompleteValidation}): with a reset policy ({@code
     * auto.offset.reset} other than {@code none}), the partition continues from the
     * first offset known to diverge, with that epoch, and a line is logged; without one ({@code
     * none}), the fetch fails with Kafka's {@link LogTruncationException} naming each partition, its
     * fetch offset and the divergent offset.
     */
    private void handleTruncations() throws IOException {
        Map<TopicPartition, Long> fetchOffsets = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> divergent = new HashMap<>();
        boolean reset = hasResetPolicy();
        for (int k = 0; k < fetch.truncatedCount(); k++) {
            int slot = fetch.truncatedSlot(k);
            TopicPartition tp = partitions.get(slot);
            if (tp == null) {
                continue;
            }
            long offset = fetch.truncatedOffset(k);
            long endOffset = fetch.truncatedEndOffset(k);
            int epoch = fetch.truncatedEpoch(k);
            if (reset) {
                LOG.info("Truncation detected for partition {} at offset {}, resetting offset to the first offset"
                        + " known to diverge {} (leader epoch {})", tp, offset, endOffset, epoch);
                fetch.assign(slot, tp.topic(), tp.partition(), leaderOf(tp, false), endOffset, stops.get(slot), epoch);
            } else {
                LOG.warn("Truncation detected for partition {} at offset {} (the end offset from the broker is {},"
                        + " leader epoch {}), but no reset policy is set", tp, offset, endOffset, epoch);
                fetchOffsets.put(tp, offset);
                divergent.put(tp, new OffsetAndMetadata(endOffset, Optional.of(epoch), null));
            }
        }
        if (!fetchOffsets.isEmpty()) {
            throw new LogTruncationException("Detected truncated partitions " + divergent + " at fetch offsets "
                    + fetchOffsets + " and 'auto.offset.reset' is '" + offsetReset + "': no reset policy",
                    fetchOffsets, divergent);
        }
    }

    /**
     * Whether {@code auto.offset.reset} names a policy, anything but {@code none} (Kafka's {@code
     * hasDefaultOffsetResetPolicy}).
     */
    private boolean hasResetPolicy() {
        return !"none".equals(offsetReset.toLowerCase(java.util.Locale.ROOT));
    }

    /** Gives each record its value bytes, for value formats that decode one {@code byte[]} at a time. */
    private void attachValues(DirectValueBuffer values) {
        byte[][] copies = values.copyValues();
        for (int i = 0; i < pending.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = pending.get(i);
            byte[] value = copies[i];
            pending.set(i, new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(),
                    r.timestampType(), r.serializedKeySize(), value == null ? ConsumerRecord.NULL_SIZE : value.length,
                    r.key(), value, r.headers(), r.leaderEpoch(), Optional.empty()));
        }
    }

    /** Pauses and resumes natively (watermark alignment), as the stock reader pauses its consumer. */
    @Override
    public void pauseOrResumeSplits(
            Collection<KafkaPartitionSplit> splitsToPause, Collection<KafkaPartitionSplit> splitsToResume) {
        try {
            for (KafkaPartitionSplit split : splitsToPause) {
                Integer slot = slots.get(split.getTopicPartition());
                if (slot != null) {
                    fetch.setPaused(slot, true);
                }
            }
            for (KafkaPartitionSplit split : splitsToResume) {
                Integer slot = slots.get(split.getTopicPartition());
                if (slot != null) {
                    fetch.setPaused(slot, false);
                }
            }
        } catch (KarrowNativeException e) {
            throw new IllegalStateException("Could not pause or resume native fetches", e);
        }
    }

    /**
     * Commits synchronously: the consumer never polls, so an asynchronous commit's callback would
     * never run.
     */
    @Override
    public void notifyCheckpointComplete(
            Map<TopicPartition, OffsetAndMetadata> offsetsToCommit, OffsetCommitCallback offsetCommitCallback) {
        Exception failure = null;
        try {
            consumer.commitSync(offsetsToCommit);
        } catch (Exception e) {
            failure = e;
        }
        offsetCommitCallback.onComplete(offsetsToCommit, failure);
    }

    /**
     * Ends a blocking native fetch promptly (Flink wakes the fetcher to add splits, pause or resume
     * them, or shut down): the fetch returns with no records, as the stock reader's does after {@code
     * KafkaConsumer.wakeup()}. The consumer itself is not woken: it never polls here.
     */
    @Override
    public void wakeUp() {
        try {
            fetch.wakeUp();
        } catch (KarrowNativeException e) {
            LOG.warn("Could not wake the native fetch up", e);
        }
    }

    /** Closes the native fetch, the decoder, then the consumer. */
    @Override
    public void close() throws Exception {
        try {
            fetch.close();
            decoder.close();
        } finally {
            try {
                fetchMetrics.close();
                if (login != null) {
                    login.close();
                }
            } finally {
                super.close();
            }
        }
    }

    /**
     * Where {@code tp} continues after its offset fell outside the log (deleted by retention while
     * the job was behind), as Kafka's consumer resets it: {@code auto.offset.reset}, which Flink
     * sets from the starting-offsets mode.
     */
    private long resetOffset(TopicPartition tp) throws IOException {
        Set<TopicPartition> one = Collections.singleton(tp);
        switch (offsetReset.toLowerCase(java.util.Locale.ROOT)) {
            case "earliest":
                return consumer.beginningOffsets(one).get(tp);
            case "latest":
                return consumer.endOffsets(one).get(tp);
            default:
                throw new IOException("The fetch offset of " + tp + " is out of range and 'auto.offset.reset' is '"
                        + offsetReset + "': no reset policy (as Kafka's consumer would fail)");
        }
    }

    /** {@code host:port} of {@code tp}'s leader, from the consumer's metadata. */
    private String leaderOf(TopicPartition tp, boolean moved) {
        for (int attempt = 0; attempt < LEADER_LOOKUPS; attempt++) {
            if (moved || attempt > 0) {
                // Asking the leader for its end offset makes the consumer refresh stale metadata.
                try {
                    consumer.endOffsets(Collections.singleton(tp), Duration.ofSeconds(10));
                } catch (RuntimeException ignored) {
                    // The lookup below tells whether a leader is known now.
                }
            }
            for (PartitionInfo info : consumer.partitionsFor(tp.topic(), Duration.ofSeconds(30))) {
                Node leader = info.leader();
                if (info.partition() == tp.partition() && leader != null && !leader.isEmpty()) {
                    return leader.host() + ":" + leader.port();
                }
            }
            try {
                Thread.sleep(LEADER_RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException("No leader is known for " + tp + " after " + LEADER_LOOKUPS + " lookups");
    }

    /**
     * The native fetch configuration from the consumer properties (same option names and defaults).
     * The rack is {@code rackId} (the source's rack id supplier) when set, else {@code client.rack},
     * as Flink's split reader gives its consumer; the native fetch then follows the preferred read
     * replica the leader names (KIP-392), as Kafka's consumer does.
     */
    static String fetchConfig(Properties props, int subtask, @Nullable String rackId) {
        return fetchConfig(props, subtask, rackId, null);
    }

    /** {@code props} with Flink's registration of the Java consumer's metrics turned off. */
    private static Properties withoutConsumerMetrics(Properties props) {
        Properties copy = new Properties();
        for (String name : props.stringPropertyNames()) {
            copy.setProperty(name, props.getProperty(name));
        }
        copy.setProperty(KafkaSourceOptions.REGISTER_KAFKA_CONSUMER_METRICS.key(), "false");
        return copy;
    }

    /** {@link #fetchConfig(Properties, int, String)} with the OAUTHBEARER token of {@code login}. */
    static String fetchConfig(
            Properties props, int subtask, @Nullable String rackId, @Nullable NativeOAuthBearerLogin login) {
        String clientId = props.getProperty(ConsumerConfig.CLIENT_ID_CONFIG,
                props.getProperty("client.id.prefix", "karrow")) + "-native-" + subtask;
        boolean readCommitted = "read_committed".equalsIgnoreCase(
                props.getProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"));
        return "{\"clientId\":" + JsonText.appendString(new StringBuilder(), clientId)
                + ",\"readCommitted\":" + readCommitted
                + ",\"maxWaitMs\":" + intProp(props, ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500)
                + ",\"minBytes\":" + intProp(props, ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1)
                + ",\"maxBytes\":" + intProp(props, ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 50 * 1024 * 1024)
                + ",\"partitionMaxBytes\":"
                + intProp(props, ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024 * 1024)
                + rackJson(props, rackId)
                + NativeKafkaSecurity.configJson(props, login) + "}";
    }

    /** {@code ,"rack":...} when a rack is set, else nothing. */
    private static String rackJson(Properties props, @Nullable String rackId) {
        String rack = rackId != null && !rackId.isEmpty()
                ? rackId
                : props.getProperty(ConsumerConfig.CLIENT_RACK_CONFIG, "").trim();
        return rack.isEmpty() ? "" : ",\"rack\":" + JsonText.appendString(new StringBuilder(), rack);
    }

    private static int intProp(Properties props, String key, int fallback) {
        String value = props.getProperty(key);
        return value == null ? fallback : Integer.parseInt(value.trim());
    }
}
