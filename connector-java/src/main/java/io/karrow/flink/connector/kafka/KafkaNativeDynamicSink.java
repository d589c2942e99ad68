package io.karrow.flink.connector.kafka;

import io.karrow.flink.connector.kafka.sink.NativeKafkaSink;
import io.karrow.flink.connector.kafka.sink.NativeProducerSettings;
import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.NativeSerializationSchema;
import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.planner.FusableSink;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.connectors.kafka.partitioner.FlinkFixedPartitioner;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import org.apache.kafka.clients.producer.ProducerConfig;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The {@code kafka-native} table sink: Flink's {@link KafkaDynamicSink} (options, writable metadata,
 * changelog mode, planning: all inherited) whose runtime encodes rows in batches.
 *
 * <p>When the value format is batch-capable ({@link BatchSerializationSchema}, e.g. {@code
 * avro-confluent-native}) the sink is a {@link BatchEncodingKafkaSink}: Flink's own {@link KafkaSink}
 * whose writer first encodes the rows in batches (one native encode per buffer of rows, for values
 * and for natively encoded keys; no operator of its own, so the job graph is the stock one), built with
 * the table's properties, delivery guarantee, transactional id prefix and naming strategy, so
 * producer set-up, partitioning, batching, transactions, commit, abort and restore are the stock
 * ones. The Kafka writer keeps the stock sink's uid ({@code sink}), so its state is interchangeable
 * with a {@code kafka} table's. Any other value format gets the stock runtime.
 *
 * <p>With {@code 'sink.produce-mode' = 'native'} the sink is a {@link NativeKafkaSink}: its writer
 * buffers the rows, encodes them in batches straight into off-heap record batches and hands them to
 * karrow's native producer, with the stock sink's delivery guarantees, two-phase commit, transaction
 * naming and state (and the same uid). What the native producer cannot do is refused here, at
 * planning, with the reason: a value format that does not encode natively, more than one topic, a
 * custom {@code sink.partitioner}, Kafka's {@code partitioner.class} or {@code interceptor.classes}.
 */
public class KafkaNativeDynamicSink extends KafkaDynamicSink implements FusableSink {

    /** The transformation uid suffix of the stock sink; kept for the Kafka writer and committer. */
    private static final String SINK_TRANSFORMATION = "sink";

    /** Rows per native encode call. */
    static final int DEFAULT_MAX_ROWS = 8192;

    /** Buffered row-image bytes that trigger a flush before {@link #DEFAULT_MAX_ROWS} is reached. */
    static final long DEFAULT_MAX_BYTES = 8L * 1024 * 1024;

    /** Longest time a row waits in the buffer without a checkpoint or a full batch. */
    static final long DEFAULT_FLUSH_INTERVAL_MILLIS = 100;

    /** The producer's {@code batch.size} unless {@code properties.batch.size} sets it (Kafka's default: 16 KiB). */
    static final int DEFAULT_BATCH_SIZE = 256 * 1024;

    private final DeliveryGuarantee deliveryGuarantee;
    private final @Nullable String transactionalIdPrefix;
    private final TransactionNamingStrategy transactionNamingStrategy;
    private boolean nativeProduce;

    /** Creates the sink; arguments as for {@link KafkaDynamicSink} (never upsert mode, no flush buffer). */
    public KafkaNativeDynamicSink(
            DataType physicalDataType,
            @Nullable EncodingFormat<SerializationSchema<RowData>> keyEncodingFormat,
            EncodingFormat<SerializationSchema<RowData>> valueEncodingFormat,
            int[] keyProjection,
            int[] valueProjection,
            @Nullable String keyPrefix,
            @Nullable List<String> topics,
            @Nullable Pattern topicPattern,
            Properties properties,
            @Nullable KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            @Nullable Integer parallelism,
            @Nullable String transactionalIdPrefix,
            TransactionNamingStrategy transactionNamingStrategy) {
        super(physicalDataType, physicalDataType, keyEncodingFormat, valueEncodingFormat, keyProjection,
                valueProjection, keyPrefix, topics, topicPattern, properties, partitioner, deliveryGuarantee,
                false, SinkBufferFlushMode.DISABLED, parallelism, transactionalIdPrefix,
                transactionNamingStrategy);
        this.deliveryGuarantee = deliveryGuarantee;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.transactionNamingStrategy = transactionNamingStrategy;
    }

    /** Selects the native producer ({@code 'sink.produce-mode' = 'native'}). */
    void setNativeProduce(boolean nativeProduce) {
        this.nativeProduce = nativeProduce;
    }

    /** Whether the sink writes with the native producer. */
    boolean nativeProduce() {
        return nativeProduce;
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        final SerializationSchema<RowData> valueSerialization =
                createSerialization(context, valueEncodingFormat, valueProjection, null);
        if (nativeProduce) {
            refuseWhatTheNativeProducerCannotDo(valueSerialization);
        }
        if (!(valueSerialization instanceof BatchSerializationSchema) || flushMode.isEnabled()) {
            return super.getSinkRuntimeProvider(context);
        }
        final SerializationSchema<RowData> keySerialization =
                createSerialization(context, keyEncodingFormat, keyProjection, keyPrefix);

        final KafkaRecordEncoderSpec spec = new KafkaRecordEncoderSpec(
                keySerialization,
                (BatchSerializationSchema) valueSerialization,
                keyProjection,
                valueProjection,
                physicalDataType.getLogicalType().getChildren(),
                (RowType) consumedDataType.getLogicalType(),
                metadataKeys,
                upsertMode,
                partitioner != null);
        if (nativeProduce) {
            return nativeSinkProvider(spec);
        }
        final KafkaSink<PreEncodedRecord> kafkaSink = createKafkaSink(
                new PreEncodedRecordSerializationSchema(
                        topics, topicPattern, partitioner, DataType.getFieldDataTypes(consumedDataType).size()));
        final BatchEncodingKafkaSink sink = new BatchEncodingKafkaSink(
                kafkaSink, spec, DEFAULT_MAX_ROWS, DEFAULT_MAX_BYTES, DEFAULT_FLUSH_INTERVAL_MILLIS);

        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(ProviderContext providerContext, DataStream<RowData> dataStream) {
                // Without 'sink.parallelism' the stock sink runs at the input's parallelism.
                final int sinkParallelism = parallelism != null ? parallelism : dataStream.getParallelism();
                // The rows go straight into the sink (batched inside its writer): the job graph
                // is the stock sink's, so savepoints restore across the three sinks.
                final DataStreamSink<RowData> end = dataStream.sinkTo(sink);
                end.getTransformation().setParallelism(sinkParallelism, parallelism != null);
                providerContext.generateUid(SINK_TRANSFORMATION).ifPresent(end::uid);
                end.name(BATCH_ENCODE_SINK_NAME);
                return end;
            }

            @Override
            public Optional<Integer> getParallelism() {
                return Optional.ofNullable(parallelism);
            }
        };
    }

    /** The native produce runtime: one {@link NativeKafkaSink} writing the batch-encoded rows. */
    private SinkRuntimeProvider nativeSinkProvider(KafkaRecordEncoderSpec spec) {
        final NativeProducerSettings settings = new NativeProducerSettings(
                withDefaultBatchSize(properties),
                topics.get(0),
                partitioner == null ? NativeProducerSettings.Partitioner.DEFAULT : NativeProducerSettings.Partitioner.FIXED);
        final NativeKafkaSink<RowData> sink = new NativeKafkaSink<>(
                deliveryGuarantee,
                settings,
                transactionalIdPrefix,
                transactionNamingStrategy,
                new RowDataRecordFeed(spec, DEFAULT_MAX_ROWS, DEFAULT_MAX_BYTES));
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(ProviderContext providerContext, DataStream<RowData> dataStream) {
                final int sinkParallelism = parallelism != null ? parallelism : dataStream.getParallelism();
                final DataStreamSink<RowData> end = dataStream.sinkTo(sink);
                end.getTransformation().setParallelism(sinkParallelism, parallelism != null);
                providerContext.generateUid(SINK_TRANSFORMATION).ifPresent(end::uid);
                end.name(NATIVE_SINK_NAME);
                return end;
            }

            @Override
            public Optional<Integer> getParallelism() {
                return Optional.ofNullable(parallelism);
            }
        };
    }

    /**
     * The name of the sink with Kafka's producer in the plan (its writer, which batch-encodes the
     * rows: "KafkaNativeBatchEncode: Writer").
     */
    static final String BATCH_ENCODE_SINK_NAME = "KafkaNativeBatchEncode";

    /** The name of the native produce sink in the plan (its operators: "KafkaNativeProduce: Writer", ...). */
    static final String NATIVE_SINK_NAME = "KafkaNativeProduce";

    /**
     * Fails planning, naming the reason, for what the native producer does not do (the table then
     * needs {@code 'sink.produce-mode' = 'kafka-producer'}).
     */
    private void refuseWhatTheNativeProducerCannotDo(@Nullable SerializationSchema<RowData> valueSerialization) {
        final String mode = "'" + KafkaNativeConnectorOptions.SINK_PRODUCE_MODE.key() + "' = '"
                + KafkaNativeConnectorOptions.PRODUCE_MODE_NATIVE + "'";
        final String instead = " Use '" + KafkaNativeConnectorOptions.PRODUCE_MODE_KAFKA_PRODUCER + "'.";
        if (!(valueSerialization instanceof BatchSerializationSchema)) {
            throw new ValidationException(mode + " needs a value format that encodes natively (avro-confluent-native,"
                    + " json-native, json-confluent-native, protobuf-native, protobuf-confluent-native)." + instead);
        }
        if (topics == null || topics.size() != 1) {
            throw new ValidationException(mode + " writes one topic ('topic' with a single name), not a topic list"
                    + " or pattern." + instead);
        }
        if (partitioner != null && !(partitioner instanceof FlinkFixedPartitioner)) {
            throw new ValidationException(mode + " partitions as 'default', 'round-robin' or 'fixed' do; the"
                    + " custom 'sink.partitioner' " + partitioner.getClass().getName() + " runs with Kafka's producer."
                    + instead);
        }
        for (String key : new String[] {ProducerConfig.PARTITIONER_CLASS_CONFIG, ProducerConfig.INTERCEPTOR_CLASSES_CONFIG}) {
            if (properties.containsKey(key)) {
                throw new ValidationException(mode + " does not run Kafka producer classes ('properties." + key
                        + "')." + instead);
            }
        }
    }

    /**
     * {@code props}, or a copy with the producer's {@code batch.size} at {@link #DEFAULT_BATCH_SIZE}
     * when they do not set it: the rows of one native encode reach the producer together, and larger
     * producer batches spread its per-batch and per-request costs over more records.
     */
    static Properties withDefaultBatchSize(Properties props) {
        return ClientProperties.withDefault(props, ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_SIZE);
    }

    /** Flink's {@code KafkaSink}, configured as the stock table sink configures it. */
    private KafkaSink<PreEncodedRecord> createKafkaSink(PreEncodedRecordSerializationSchema recordSerializer) {
        final KafkaSinkBuilder<PreEncodedRecord> builder = KafkaSink.builder();
        if (transactionalIdPrefix != null) {
            builder.setTransactionalIdPrefix(transactionalIdPrefix);
        }
        return builder.setDeliveryGuarantee(deliveryGuarantee)
                .setBootstrapServers(properties.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG).toString())
                .setKafkaProducerConfig(withDefaultBatchSize(properties))
                .setRecordSerializer(recordSerializer)
                .setTransactionNamingStrategy(transactionNamingStrategy)
                .build();
    }

    private @Nullable SerializationSchema<RowData> createSerialization(
            DynamicTableSink.Context context,
            @Nullable EncodingFormat<SerializationSchema<RowData>> format,
            int[] projection,
            @Nullable String prefix) {
        if (format == null) {
            return null;
        }
        return format.createRuntimeEncoder(context, FormatDataTypes.of(physicalDataType, projection, prefix));
    }

    /** The identifiers of the table's value and key formats ({@code value.format} / {@code format}, {@code key.format}). */
    private @Nullable String valueFormat;
    private @Nullable String keyFormat;

    /** Records the identifiers of the table's value and key formats. */
    void setFormats(@Nullable String valueFormat, @Nullable String keyFormat) {
        this.valueFormat = valueFormat;
        this.keyFormat = keyFormat;
    }

    @Override
    public @Nullable String whyNotFusable() {
        if (valueFormat == null || !KafkaNativeDynamicSource.NATIVE_VALUE_FORMATS.contains(valueFormat)) {
            return "the sink's value format '" + valueFormat + "' does not encode natively";
        }
        if (keyEncodingFormat != null && !KafkaNativeDynamicSource.NATIVE_VALUE_FORMATS.contains(keyFormat)) {
            return "the sink's key format '" + keyFormat + "' does not encode natively";
        }
        if (!metadataKeys.isEmpty()) {
            return "the sink writes metadata columns " + metadataKeys;
        }
        if (partitioner != null && !(partitioner instanceof FlinkFixedPartitioner)) {
            return "the sink has a custom partitioner ('sink.partitioner'), which needs the rows";
        }
        if (!nativeProduce) {
            return "the sink writes with Kafka's producer; full fusion hands its batches to the native producer ('"
                    + KafkaNativeConnectorOptions.SINK_PRODUCE_MODE.key() + "' = '"
                    + KafkaNativeConnectorOptions.PRODUCE_MODE_NATIVE + "')";
        }
        if (topics == null || topics.size() != 1) {
            return "the sink writes a topic list or pattern";
        }
        if (parallelism != null) {
            return "the sink sets 'sink.parallelism', so its writer may not be chained to the fused source";
        }
        RowType physical = (RowType) physicalDataType.getLogicalType();
        for (RowType.RowField field : physical.getFields()) {
            if (!field.getType().isNullable()) {
                return "the sink's column " + field.getName() + " is NOT NULL: Flink's NOT NULL enforcer"
                        + " ('table.exec.sink.not-null-enforcer') looks at every row";
            }
            if (hasLengthEnforcedType(field.getType())) {
                return "the sink's column " + field.getName() + " is " + field.getType().asSummaryString()
                        + ": Flink's type length enforcer ('table.exec.sink.type-length-enforcer') may look at every"
                        + " row";
            }
        }
        return null;
    }

    /** CHAR, BINARY, and VARCHAR/VARBINARY of a bounded length (what the length enforcer checks). */
    private static boolean hasLengthEnforcedType(LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case BINARY:
                return true;
            case VARCHAR:
                return ((VarCharType) type).getLength() != VarCharType.MAX_LENGTH;
            case VARBINARY:
                return ((VarBinaryType) type).getLength() != VarBinaryType.MAX_LENGTH;
            default:
                return false;
        }
    }

    @Override
    public String encodeStageJson() throws Exception {
        String value = encoderJson(valueFormat, valueEncodingFormat, valueProjection, null);
        String key = keyEncodingFormat == null ? "null" : encoderJson(keyFormat, keyEncodingFormat, keyProjection, keyPrefix);
        return "{\"value\":" + value + ",\"key\":" + key + "}";
    }

    /**
     * One encoder of the encode stage: the format, the consumed row's columns it writes (the consumed
     * row is the physical row: metadata columns are declined) and its native configuration.
     */
    private String encoderJson(
            String format,
            EncodingFormat<SerializationSchema<RowData>> encodingFormat,
            int[] projection,
            @Nullable String prefix) throws Exception {
        // The native formats' encoders do not read the context.
        SerializationSchema<RowData> schema =
                encodingFormat.createRuntimeEncoder(null, FormatDataTypes.of(physicalDataType, projection, prefix));
        if (!(schema instanceof NativeSerializationSchema)) {
            throw new IllegalStateException("the format '" + format + "' gave no native encoder");
        }
        StringBuilder out = new StringBuilder(256).append("{\"format\":");
        JsonText.appendString(out, format).append(",\"columns\":[");
        for (int i = 0; i < projection.length; i++) {
            out.append(i == 0 ? "" : ",").append(projection[i]);
        }
        return out.append("],\"config\":").append(((NativeSerializationSchema<?>) schema).encoderConfigJson())
                .append('}').toString();
    }

    @Override
    public DynamicTableSink copy() {
        final KafkaNativeDynamicSink copy = new KafkaNativeDynamicSink(
                physicalDataType,
                keyEncodingFormat,
                valueEncodingFormat,
                keyProjection,
                valueProjection,
                keyPrefix,
                topics,
                topicPattern,
                properties,
                partitioner,
                deliveryGuarantee,
                parallelism,
                transactionalIdPrefix,
                transactionNamingStrategy);
        copy.metadataKeys = metadataKeys;
        copy.consumedDataType = consumedDataType;
        copy.nativeProduce = nativeProduce;
        copy.valueFormat = valueFormat;
        copy.keyFormat = keyFormat;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return nativeProduce ? "Kafka native table sink (native produce)" : "Kafka native table sink";
    }
}
