package io.karrow.flink.connector.kafka.sink;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.connector.kafka.sink.internal.NoopCommitter;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.Objects;

/**
 * The Sink V2 of a {@code kafka-native} table in native produce mode ({@code 'sink.produce-mode' =
 * 'native'}): Flink's {@link KafkaSink} contract (delivery guarantees, two-phase commit, transaction
 * naming, writer and committer state) with the records written by karrow's native producer.
 *
 * <p>Its writer state and committables are Flink's own types ({@link KafkaWriterState}, {@link
 * KafkaCommittable}) with the stock sink's serializers, and its topology is the stock one (a writer,
 * a committer, co-located under exactly-once as {@link KafkaSink#addPostCommitTopology} does), so a
 * checkpoint or savepoint of either sink restores into the other.
 *
 * <p>Inputs: table rows ({@code RowDataRecordFeed}, encoded in batches by the table's formats), or
 * already encoded record batches ({@link EncodedBatchFeed}, the entry of a fused pipeline).
 *
 * @param <IN> the input type
 */
public final class NativeKafkaSink<IN>
        implements Sink<IN>,
                SupportsWriterState<IN, KafkaWriterState>,
                SupportsCommitter<KafkaCommittable>,
                SupportsPostCommitTopology<KafkaCommittable> {

    private static final long serialVersionUID = 1L;

    private final DeliveryGuarantee deliveryGuarantee;
    private final NativeProducerSettings settings;
    private final @Nullable String transactionalIdPrefix;
    private final TransactionNamingStrategy namingStrategy;
    private final NativeRecordFeed<IN> feed;

    /**
     * Creates the sink.
     *
     * @param deliveryGuarantee {@code sink.delivery-guarantee}
     * @param settings the producer's settings (properties, topic, partitioner)
     * @param transactionalIdPrefix {@code sink.transactional-id-prefix} (required for exactly-once)
     * @param namingStrategy {@code sink.transaction-naming-strategy}
     * @param feed how the inputs become encoded records
     */
    public NativeKafkaSink(
            DeliveryGuarantee deliveryGuarantee,
            NativeProducerSettings settings,
            @Nullable String transactionalIdPrefix,
            TransactionNamingStrategy namingStrategy,
            NativeRecordFeed<IN> feed) {
        this.deliveryGuarantee = Objects.requireNonNull(deliveryGuarantee, "deliveryGuarantee");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.namingStrategy = Objects.requireNonNull(namingStrategy, "namingStrategy");
        this.feed = Objects.requireNonNull(feed, "feed");
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE && transactionalIdPrefix == null) {
            throw new IllegalStateException(
                    "EXACTLY_ONCE delivery guarantee requires a transactionalIdPrefix to be set to provide unique"
                            + " transaction names across multiple KafkaSinks writing to the same Kafka cluster.");
        }
        this.transactionalIdPrefix = transactionalIdPrefix;
    }

    @Override
    public StatefulSinkWriter<IN, KafkaWriterState> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, Collections.emptyList());
    }

    @Override
    public StatefulSinkWriter<IN, KafkaWriterState> restoreWriter(
            WriterInitContext context, Collection<KafkaWriterState> recoveredState) throws IOException {
        NativeKafkaWriter<IN> writer;
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            writer = new ExactlyOnceNativeKafkaWriter<>(
                    settings, transactionalIdPrefix, namingStrategy, context, feed, recoveredState);
        } else {
            writer = new NativeKafkaWriter<>(deliveryGuarantee, settings, context, feed, false);
        }
        writer.initialize();
        return writer;
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) {
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            return new NativeKafkaCommitter(
                    settings,
                    transactionalIdPrefix,
                    context.getTaskInfo().getIndexOfThisSubtask(),
                    context.getTaskInfo().getAttemptNumber(),
                    namingStrategy == TransactionNamingStrategy.POOLING);
        }
        return new NoopCommitter();
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return StockSerializers.SINK.getCommittableSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
        return StockSerializers.SINK.getWriterStateSerializer();
    }

    /** As the stock sink: under exactly-once the committer runs in the writer's slot. */
    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committer) {
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE && transactionalIdPrefix != null) {
            Transformation<?> transformation = committer.getTransformation();
            while (transformation.getOutputType() instanceof CommittableMessageTypeInfo
                    && transformation.getCoLocationGroupKey() == null) {
                transformation.setCoLocationGroupKey(transactionalIdPrefix);
                transformation = transformation.getInputs().get(0);
            }
        }
    }

    /** The stock sink's state serializers, from a {@link KafkaSink} built only to ask it for them. */
    private static final class StockSerializers {
        static final KafkaSink<Object> SINK = KafkaSink.builder()
                .setBootstrapServers("unused:9092")
                .setRecordSerializer(new KafkaRecordSerializationSchema<Object>() {
                    @Override
                    public org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> serialize(
                            Object element, KafkaSinkContext context, Long timestamp) {
                        throw new UnsupportedOperationException("never called");
                    }

                    @Override
                    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {}
                })
                .build();
    }
}
