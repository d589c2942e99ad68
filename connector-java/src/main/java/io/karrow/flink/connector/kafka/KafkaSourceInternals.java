package io.karrow.flink.connector.kafka;

import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.reader.KafkaPartitionSplitReader;
import org.apache.flink.util.function.SerializableSupplier;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.Properties;

/**
 * Reads the two construction inputs of a built {@link KafkaSource} that its API does not expose:
 * the consumer properties as {@code KafkaSourceBuilder.build()} completed them (byte-array
 * deserializers, auto-commit off, offset reset, client id prefix, ...) and the rack id supplier;
 * and, for the native fetch, a {@link KafkaPartitionSplitReader}'s consumer and stopping offsets.
 *
 * <p>Reading them (rather than recomputing them) keeps the readers' consumers configured exactly as
 * the stock source's, including the random client id prefix shared with the enumerator. Written
 * against flink-connector-kafka 5.0.0-2.2; {@code KafkaSourceInternalsTest} fails if the fields
 * move.
 */
final class KafkaSourceInternals {

    private KafkaSourceInternals() {}

    /** The completed consumer properties of {@code source} (a copy). */
    static Properties properties(KafkaSource<?> source) {
        Properties props = (Properties) read(source, "props");
        Properties copy = new Properties();
        copy.putAll(props);
        return copy;
    }

    /** The rack id supplier of {@code source}, or {@code null}. */
    @SuppressWarnings("unchecked")
    static SerializableSupplier<String> rackIdSupplier(KafkaSource<?> source) {
        return (SerializableSupplier<String>) read(source, "rackIdSupplier");
    }

    /** The Kafka consumer a split reader owns (offset lookup, metadata and commits for the native fetch). */
    @SuppressWarnings("unchecked")
    static KafkaConsumer<byte[], byte[]> consumer(KafkaPartitionSplitReader reader) {
        return (KafkaConsumer<byte[], byte[]>) readField(KafkaPartitionSplitReader.class, reader, "consumer");
    }

    /** The stopping offsets a split reader resolved for its bounded splits (a live view). */
    @SuppressWarnings("unchecked")
    static Map<TopicPartition, Long> stoppingOffsets(KafkaPartitionSplitReader reader) {
        return (Map<TopicPartition, Long>) readField(KafkaPartitionSplitReader.class, reader, "stoppingOffsets");
    }

    private static Object readField(Class<?> owner, Object target, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("kafka-native needs " + owner.getSimpleName() + "." + name
                    + " of flink-connector-kafka 5.0.0-2.2; this flink-connector-kafka version is not supported", e);
        }
    }

    private static Object read(KafkaSource<?> source, String name) {
        try {
            Field field = KafkaSource.class.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(source);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("kafka-native needs KafkaSource." + name
                    + " of flink-connector-kafka 5.0.0-2.2; this flink-connector-kafka version is not supported", e);
        }
    }
}
