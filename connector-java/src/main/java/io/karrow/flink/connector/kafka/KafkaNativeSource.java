package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.synchronization.FutureCompletingBlockingQueue;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.reader.KafkaRecordEmitter;
import org.apache.flink.connector.kafka.source.reader.KafkaSourceReader;
import org.apache.flink.connector.kafka.source.reader.fetcher.KafkaSourceFetcherManager;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.flink.streaming.api.lineage.SourceLineageVertex;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.function.SerializableSupplier;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.IOException;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The {@code kafka-native} source: a Flink {@link KafkaSource} whose readers decode each fetched
 * batch on the fetcher thread.
 *
 * <p>Delegates to the wrapped stock {@link KafkaSource}: boundedness, the split enumerator (topic
 * subscription, partition discovery, starting and stopping offsets), and the split and enumerator
 * state serializers, so checkpoints and savepoints are the stock source's and a savepoint of a
 * {@code kafka} table restores into {@code kafka-native} and back. The reader is Flink's own {@link
 * KafkaSourceReader} and {@link KafkaRecordEmitter} (offset commits on checkpoint, per-record
 * offsets and timestamps, watermarks), fed by {@link KafkaNativeSplitReader}.
 */
public final class KafkaNativeSource
        implements Source<RowData, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<RowData>,
                LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    /**
     * The consumer's {@code max.poll.records} unless {@code properties.max.poll.records} sets it: each
     * poll's records are decoded in one native call per split, so larger polls spread the per-poll and
     * per-call costs over more records than Kafka's default of 500.
     */
    static final int DEFAULT_MAX_POLL_RECORDS = 2000;

    private final KafkaSource<RowData> delegate;
    private final Properties props;
    private final SerializableSupplier<String> rackIdSupplier;
    private final KafkaRecordDecoderSpec decoderSpec;
    private final TypeInformation<RowData> producedType;
    private final boolean nativeFetch;

    KafkaNativeSource(
            KafkaSource<RowData> delegate, KafkaRecordDecoderSpec decoderSpec, TypeInformation<RowData> producedType) {
        this(delegate, decoderSpec, producedType, false);
    }

    /** As above; {@code nativeFetch} selects {@link NativeFetchSplitReader} ({@code 'scan.fetch-mode' = 'native'}). */
    KafkaNativeSource(
            KafkaSource<RowData> delegate,
            KafkaRecordDecoderSpec decoderSpec,
            TypeInformation<RowData> producedType,
            boolean nativeFetch) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.props = withDefaultMaxPollRecords(KafkaSourceInternals.properties(delegate));
        this.rackIdSupplier = KafkaSourceInternals.rackIdSupplier(delegate);
        this.decoderSpec = Objects.requireNonNull(decoderSpec, "decoderSpec");
        this.producedType = Objects.requireNonNull(producedType, "producedType");
        this.nativeFetch = nativeFetch;
    }

    @Override
    public Boundedness getBoundedness() {
        return delegate.getBoundedness();
    }

    /** Builds Flink's {@link KafkaSourceReader} with a batch-decoding split reader (mirrors {@code KafkaSource#createReader}). */
    @Override
    public SourceReader<RowData, KafkaPartitionSplit> createReader(SourceReaderContext readerContext) {
        FutureCompletingBlockingQueue<RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>>> elementsQueue =
                new FutureCompletingBlockingQueue<>();
        KafkaSourceReaderMetrics kafkaSourceReaderMetrics = new KafkaSourceReaderMetrics(readerContext.metricGroup());
        KafkaNativeSourceMetrics nativeMetrics = new KafkaNativeSourceMetrics(readerContext.metricGroup());
        // Kafka's consumer reports its lag only when it fetches; the native fetch reports it here
        // instead, once per reader (split readers come and go).
        AtomicLong pendingRecords = new AtomicLong();
        if (nativeFetch) {
            readerContext.metricGroup().setPendingRecordsGauge(pendingRecords::get);
        }
        Supplier<SplitReader<ConsumerRecord<byte[], byte[]>, KafkaPartitionSplit>> splitReaderSupplier =
                () -> nativeFetch
                        ? new NativeFetchSplitReader(
                                props,
                                readerContext,
                                kafkaSourceReaderMetrics,
                                rackIdSupplier == null ? null : rackIdSupplier.get(),
                                decoderSpec,
                                nativeMetrics,
                                pendingRecords)
                        : new KafkaNativeSplitReader(
                                props,
                                readerContext,
                                kafkaSourceReaderMetrics,
                                rackIdSupplier == null ? null : rackIdSupplier.get(),
                                decoderSpec,
                                nativeMetrics);
        KafkaRecordEmitter<RowData> recordEmitter =
                new KafkaRecordEmitter<>(new PreDecodedRowsDeserializationSchema(producedType));
        return new KafkaSourceReader<>(
                elementsQueue,
                new KafkaSourceFetcherManager(elementsQueue, splitReaderSupplier, ignored -> {}),
                recordEmitter,
                toConfiguration(props),
                readerContext,
                kafkaSourceReaderMetrics);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> enumContext) {
        return delegate.createEnumerator(enumContext);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> enumContext, KafkaSourceEnumState checkpoint)
            throws IOException {
        return delegate.restoreEnumerator(enumContext, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return delegate.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return delegate.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }

    @Override
    public SourceLineageVertex getLineageVertex() {
        return delegate.getLineageVertex();
    }

    /** {@code props}, or a copy with {@link #DEFAULT_MAX_POLL_RECORDS} when they do not set it. */
    static Properties withDefaultMaxPollRecords(Properties props) {
        return ClientProperties.withDefault(props, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, DEFAULT_MAX_POLL_RECORDS);
    }

    private static Configuration toConfiguration(Properties props) {
        Configuration config = new Configuration();
        props.stringPropertyNames().forEach(key -> config.setString(key, props.getProperty(key)));
        return config;
    }
}
