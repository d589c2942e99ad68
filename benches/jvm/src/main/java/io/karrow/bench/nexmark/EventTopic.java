package io.karrow.bench.nexmark;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Topics of the suite: creating and deleting them, and writing the event topic of a format family:
 * {@code events} generated events, event {@code i} to partition {@code i % partitions} (each
 * partition in event-time order), serialized by the stock format a Flink SQL sink of the {@code
 * nexmark} table would use: {@code json} for JSON, flink-avro's registry-aware serializer ({@code
 * avro-confluent-reference}, writer schema derived from the table and registered under {@code
 * <topic>-value}) for Avro, Flink's {@code protobuf} format with the generated {@code Event} class
 * behind the Confluent header (the schema id of {@code nexmark.proto} as registered, message index
 * {@code [0]}) for Protobuf.
 */
final class EventTopic {

    /** What writing the topic did. */
    record Written(long events, long persons, long auctions, long bids, long bytes, double seconds) {}

    private EventTopic() {}

    static Properties admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
        return p;
    }

    static void create(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(admin(bootstrap))) {
            admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    static void delete(String bootstrap, Collection<String> topics) throws Exception {
        if (topics.isEmpty()) {
            return;
        }
        try (Admin admin = Admin.create(admin(bootstrap))) {
            admin.deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** Creates {@code topic} and writes the events of {@code family} to it. */
    static Written write(Family family, String bootstrap, String registry, String topic, int partitions, long events,
            EventGenerator generator) throws Exception {
        create(bootstrap, topic, partitions);
        SerializationSchema<RowData> serializer;
        byte[] header = null;
        switch (family) {
            case JSON -> serializer = Formats.encoder("json", Map.of(), NexmarkSchema.rowType(false), topic);
            case AVRO -> serializer = Formats.encoder("avro-confluent-reference",
                    Map.of("url", registry, "subject", topic + "-value"), NexmarkSchema.rowType(false), topic);
            case PROTOBUF -> {
                serializer = Formats.encoder("protobuf",
                        Map.of("message-class-name", Family.PROTOBUF_MESSAGE_CLASS), NexmarkSchema.rowType(true), topic);
                int id = Registry.register(registry, topic + "-value", "PROTOBUF", Family.protobufSchemaText());
                header = ByteBuffer.allocate(6).put((byte) 0).putInt(id).put((byte) 0).array();
            }
            default -> throw new IllegalArgumentException(family.toString());
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
        AtomicReference<Exception> failure = new AtomicReference<>();
        long[] byType = new long[3];
        long bytes = 0;
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 0; i < events && failure.get() == null; i++) {
                GenericRowData event = generator.next();
                byType[event.getInt(0)]++;
                byte[] value = serializer.serialize(event);
                if (header != null) {
                    byte[] framed = new byte[header.length + value.length];
                    System.arraycopy(header, 0, framed, 0, header.length);
                    System.arraycopy(value, 0, framed, header.length, value.length);
                    value = framed;
                }
                bytes += value.length;
                producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, value), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("writing the events to " + topic + " failed", failure.get());
        }
        return new Written(events, byType[0], byType[1], byType[2], bytes, (System.nanoTime() - start) / 1e9);
    }

    /** The names of {@code topics} that exist (for cleaning up). */
    static List<String> existing(String bootstrap, Collection<String> topics) throws Exception {
        try (Admin admin = Admin.create(admin(bootstrap))) {
            Set<String> names = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            return topics.stream().filter(names::contains).toList();
        }
    }
}
