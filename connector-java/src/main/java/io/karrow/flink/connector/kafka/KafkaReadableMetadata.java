package io.karrow.flink.connector.kafka;

import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.util.HashMap;
import java.util.Map;

/**
 * The readable metadata columns of the Kafka source and how each is read from a record, exactly as
 * flink-connector-kafka's {@code KafkaDynamicSource.ReadableMetadata} (which is package-private).
 * The declared types come from the stock source's {@code listReadableMetadata()}.
 */
enum KafkaReadableMetadata {
    TOPIC("topic") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            return StringData.fromString(record.topic());
        }
    },
    PARTITION("partition") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            return record.partition();
        }
    },
    HEADERS("headers") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            // Duplicate keys collapse, last one wins; null values are kept.
            final Map<StringData, byte[]> map = new HashMap<>();
            for (Header header : record.headers()) {
                map.put(StringData.fromString(header.key()), header.value());
            }
            return new GenericMapData(map);
        }
    },
    LEADER_EPOCH("leader-epoch") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            return record.leaderEpoch().orElse(null);
        }
    },
    OFFSET("offset") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            return record.offset();
        }
    },
    TIMESTAMP("timestamp") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            return TimestampData.fromEpochMillis(record.timestamp());
        }
    },
    TIMESTAMP_TYPE("timestamp-type") {
        @Override
        Object read(ConsumerRecord<?, ?> record) {
            return StringData.fromString(record.timestampType().toString());
        }
    };

    final String key;

    KafkaReadableMetadata(String key) {
        this.key = key;
    }

    /** Reads this column's internal value from {@code record}. */
    abstract Object read(ConsumerRecord<?, ?> record);

    /** The metadata column named {@code key}. */
    static KafkaReadableMetadata of(String key) {
        for (KafkaReadableMetadata m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        throw new IllegalStateException("Unknown Kafka metadata key: " + key);
    }
}
