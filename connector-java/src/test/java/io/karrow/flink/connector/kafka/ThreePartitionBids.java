package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.avro.corpus.AvroCorpora;
import io.karrow.flink.formats.avro.corpus.AvroCorpus;
import io.karrow.flink.formats.avro.corpus.ConfluentAvroEncoder;
import io.karrow.flink.testutils.KafkaTestSupport;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.Random;

/** The Confluent-Avro bids the failover and savepoint ITCases write to their three-partition input topics. */
final class ThreePartitionBids {

    private ThreePartitionBids() {}

    /** As {@link #produce(String, String, int, AvroCorpus, int, int)}, on {@link KafkaTestSupport#bootstrap()}. */
    static void produce(String topic, int schemaId, AvroCorpus corpus, int from, int count) {
        produce(KafkaTestSupport.bootstrap(), topic, schemaId, corpus, from, count);
    }

    /**
     * Bids {@code from .. from + count - 1} in the corpus's first writer schema, framed with {@code
     * schemaId} and seeded by {@code from}; bid {@code i} goes to partition {@code i % 3}, so at
     * offset {@code i / 3} of a topic the bids fill from 0.
     */
    static void produce(String bootstrap, String topic, int schemaId, AvroCorpus corpus, int from, int count) {
        Random random = new Random(from);
        try (KafkaProducer<byte[], byte[]> producer = KafkaTestSupport.producer(bootstrap)) {
            for (int i = from; i < from + count; i++) {
                GenericRecord record = AvroCorpora.bid(random, i, corpus.writers().get(0));
                producer.send(new ProducerRecord<>(topic, i % 3, null,
                        ConfluentAvroEncoder.encode(schemaId, corpus.writers().get(0), record)));
            }
            producer.flush();
        }
    }
}
