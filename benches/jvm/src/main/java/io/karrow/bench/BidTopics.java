package io.karrow.bench;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Topics of the bench jobs: creation, and producing generated bids (Avro, JSON or Protobuf) into one. */
final class BidTopics {

    /** What producing wrote. */
    record Produced(double seconds, long priceAbove1000) {}

    private BidTopics() {}

    /** Creates {@code topic} with {@code partitions} partitions unless it exists. */
    static void create(String bootstrap, String topic, int partitions) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Writes {@code o.records} bids ({@code --format avro}: Confluent Avro framed with {@code schemaId};
     * {@code json}: flink-json's JSON; {@code protobuf}: {@code karrow.test.Bid}) to {@code o.topic}, partition {@code i %
     * partitions} for bid {@code i}; returns the time taken and how many bids have price > 1000.
     */
    static Produced produce(JobOptions o, int schemaId) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L * 1024 * 1024));
        AtomicReference<Exception> failure = new AtomicReference<>();
        NexmarkBids.Generator bids = new NexmarkBids.Generator(schemaId, 7L);
        JsonRowDataSerializationSchema json = null;
        if (o.format.equals("json")) {
            json = new JsonRowDataSerializationSchema(NexmarkBids.rowType(), TimestampFormat.SQL,
                    JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
            json.open(null);
        }
        long above = 0;
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 0; i < o.records && failure.get() == null; i++) {
                byte[] value;
                long price;
                if (o.format.equals("protobuf")) {
                    // The same bids, written by the generated karrow.test.Bid class.
                    GenericRowData row = ProtobufMessages.bidRow(bids.nextRow());
                    value = ProtobufMessages.bidMessage(row);
                    price = row.getLong(2);
                } else if (json != null) {
                    // The same bids, as flink-json writes them.
                    GenericRowData row = bids.nextRow();
                    value = json.serialize(row);
                    price = row.getLong(2);
                } else {
                    value = bids.next();
                    price = bids.lastPrice();
                }
                if (price > 1000) {
                    above++;
                }
                producer.send(new ProducerRecord<>(o.topic, (int) (i % o.partitions), null, value), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("producing bids failed", failure.get());
        }
        return new Produced((System.nanoTime() - start) / 1e9, above);
    }
}
