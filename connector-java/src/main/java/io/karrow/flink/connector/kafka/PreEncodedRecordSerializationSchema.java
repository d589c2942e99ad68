package io.karrow.flink.connector.kafka;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Preconditions;

import org.apache.kafka.clients.producer.ProducerRecord;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns {@link PreEncodedRecord}s into Kafka producer records exactly as Flink's {@code
 * DynamicKafkaRecordSerializationSchema} turns rows into them, minus the encoding already done: the
 * target topic (the single {@code topic}, or the row's {@code topic} metadata checked against the
 * topic list or pattern, with Flink's messages), the partition from {@code sink.partitioner} (which
 * sees the consumed row, the key and the value bytes), the {@code timestamp} and {@code headers}
 * metadata.
 */
final class PreEncodedRecordSerializationSchema
        implements KafkaRecordSerializationSchema<PreEncodedRecord>, KafkaDatasetFacetProvider {

    private static final long serialVersionUID = 1L;

    private final @Nullable Set<String> topics;
    private final @Nullable Pattern topicPattern;
    private final @Nullable KafkaPartitioner<RowData> partitioner;
    private final int consumedArity;
    private final Map<String, Boolean> topicPatternMatches = new HashMap<>();

    /**
     * Creates the schema.
     *
     * @param topics the table's topic list, or {@code null} with a pattern
     * @param topicPattern the table's topic pattern, or {@code null} with a list
     * @param partitioner the {@code sink.partitioner}, or {@code null} for Kafka's default
     * @param consumedArity the arity of the consumed row (physical plus metadata columns)
     */
    PreEncodedRecordSerializationSchema(
            @Nullable List<String> topics,
            @Nullable Pattern topicPattern,
            @Nullable KafkaPartitioner<RowData> partitioner,
            int consumedArity) {
        Preconditions.checkArgument(
                (topics != null && topicPattern == null && topics.size() > 0)
                        || (topics == null && topicPattern != null),
                "Either Topic or Topic Pattern must be set.");
        this.topics = topics == null ? null : new HashSet<>(topics);
        this.topicPattern = topicPattern;
        this.partitioner = partitioner;
        this.consumedArity = consumedArity;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        if (partitioner != null) {
            partitioner.open(sinkContext.getParallelInstanceId(), sinkContext.getNumberOfParallelInstances());
        }
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(PreEncodedRecord record, KafkaSinkContext context, Long timestamp) {
        String targetTopic = targetTopic(record);
        int[] partitions = context.getPartitionsForTopic(targetTopic);
        Integer partition = partitioner == null
                ? null
                : partitioner.partition(row(record), record.key(), record.value(), targetTopic, partitions);
        return new ProducerRecord<>(
                targetTopic, partition, record.timestamp(), record.key(), record.value(), record.headers());
    }

    private RowData row(PreEncodedRecord record) {
        byte[] image = record.rowImage();
        if (image == null) {
            return null;
        }
        BinaryRowData row = new BinaryRowData(consumedArity);
        row.pointTo(MemorySegmentFactory.wrap(image), 0, image.length);
        return row;
    }

    private String targetTopic(PreEncodedRecord record) {
        if (topics != null && topics.size() == 1) {
            return topics.iterator().next();
        }
        String targetTopic = record.topic();
        if (targetTopic == null) {
            throw new IllegalArgumentException(
                    "The topic of the sink record is not valid. Expected a single topic but no topic is set.");
        } else if (topics != null && !topics.contains(targetTopic)) {
            throw new IllegalArgumentException(String.format(
                    "The topic of the sink record is not valid. Expected topic to be in: %s but was: %s",
                    topics, targetTopic));
        } else if (topicPattern != null
                && !topicPatternMatches.computeIfAbsent(targetTopic, t -> topicPattern.matcher(t).matches())) {
            throw new IllegalArgumentException(String.format(
                    "The topic of the sink record is not valid. Expected topic to match: %s but was: %s",
                    topicPattern, targetTopic));
        }
        return targetTopic;
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        if (topics != null) {
            return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(new ArrayList<>(topics))));
        }
        if (topicPattern != null) {
            return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofPattern(topicPattern)));
        }
        return Optional.empty();
    }
}
