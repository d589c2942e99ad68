package io.karrow.flink.connector.kafka;

import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.util.function.SerializableSupplier;

import java.lang.reflect.Field;
import java.util.Properties;

/**
 * Reads the two construction inputs of a built {@link KafkaSource} that its API does not expose:
 * the consumer properties as {@code KafkaSourceBuilder.build()} completed them (byte-array
 * deserializers, auto-commit off, offset reset, client id prefix, ...) and the rack id supplier.
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
