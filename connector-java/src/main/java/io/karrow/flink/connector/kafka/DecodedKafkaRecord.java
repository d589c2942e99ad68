package io.karrow.flink.connector.kafka;

import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.IOException;
import java.util.List;

/**
 * A fetched Kafka record whose rows were already decoded on the fetcher thread, or the failure to
 * decode it.
 *
 * <p>It is a {@link ConsumerRecord} carrying the original record's topic, partition, offset,
 * timestamp, timestamp type, headers, leader epoch and serialized sizes, so Flink's own {@code
 * KafkaSourceReader} and {@code KafkaRecordEmitter} handle it unchanged: the emitter stamps each
 * row with the record's timestamp and advances the split offset to {@code offset() + 1}. The key
 * and value bytes are dropped (the rows replace them).
 */
final class DecodedKafkaRecord extends ConsumerRecord<byte[], byte[]> {

    private final RowData single;
    private final List<RowData> rows;
    private final IOException failure;

    private DecodedKafkaRecord(ConsumerRecord<byte[], byte[]> r, RowData single, List<RowData> rows, IOException failure) {
        super(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(), r.serializedKeySize(),
                r.serializedValueSize(), null, null, r.headers(), r.leaderEpoch(), r.deliveryCount());
        this.single = single;
        this.rows = rows;
        this.failure = failure;
    }

    /** A record that produced no row (for example a tombstone). */
    static DecodedKafkaRecord empty(ConsumerRecord<byte[], byte[]> record) {
        return new DecodedKafkaRecord(record, null, null, null);
    }

    /** A record that produced exactly one row. */
    static DecodedKafkaRecord of(ConsumerRecord<byte[], byte[]> record, RowData row) {
        return new DecodedKafkaRecord(record, row, null, null);
    }

    /** A record that produced {@code rows} (copied), in order. */
    static DecodedKafkaRecord of(ConsumerRecord<byte[], byte[]> record, List<RowData> rows) {
        switch (rows.size()) {
            case 0:
                return empty(record);
            case 1:
                return of(record, rows.get(0));
            default:
                return new DecodedKafkaRecord(record, null, List.copyOf(rows), null);
        }
    }

    /** A record that could not be decoded; emitting it throws {@code failure}. */
    static DecodedKafkaRecord failed(ConsumerRecord<byte[], byte[]> record, IOException failure) {
        return new DecodedKafkaRecord(record, null, null, failure);
    }

    /** The decoding failure, or {@code null}. */
    IOException failure() {
        return failure;
    }

    /** Emits the rows in order, or throws the decoding failure. */
    void emitTo(Collector<RowData> out) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (single != null) {
            out.collect(single);
        } else if (rows != null) {
            for (RowData row : rows) {
                out.collect(row);
            }
        }
    }
}
