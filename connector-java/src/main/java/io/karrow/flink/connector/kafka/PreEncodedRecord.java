package io.karrow.flink.connector.kafka;

import org.apache.kafka.common.header.Header;

import javax.annotation.Nullable;

import java.util.List;

/**
 * One sink row after encoding: the Kafka key and value bytes plus what the producer record still
 * needs from the row (the {@code topic}, {@code headers} and {@code timestamp} metadata, and the
 * row's binary image when a {@code sink.partitioner} must see it). Immutable; the arrays are never
 * modified after construction.
 */
public final class PreEncodedRecord {

    private final @Nullable String topic;
    private final @Nullable byte[] key;
    private final @Nullable byte[] value;
    private final @Nullable Long timestamp;
    private final @Nullable List<Header> headers;
    private final @Nullable byte[] rowImage;

    /**
     * Creates a record.
     *
     * @param topic the {@code topic} metadata column, or {@code null} when not declared or NULL
     * @param key the key bytes, or {@code null} (no key format)
     * @param value the value bytes, or {@code null} (an upsert tombstone)
     * @param timestamp the {@code timestamp} metadata in epoch milliseconds, or {@code null}
     * @param headers the {@code headers} metadata, or {@code null}
     * @param rowImage the consumed row's {@code BinaryRowData} image, kept only for a partitioner
     */
    public PreEncodedRecord(
            @Nullable String topic,
            @Nullable byte[] key,
            @Nullable byte[] value,
            @Nullable Long timestamp,
            @Nullable List<Header> headers,
            @Nullable byte[] rowImage) {
        this.topic = topic;
        this.key = key;
        this.value = value;
        this.timestamp = timestamp;
        this.headers = headers;
        this.rowImage = rowImage;
    }

    public @Nullable String topic() {
        return topic;
    }

    public @Nullable byte[] key() {
        return key;
    }

    public @Nullable byte[] value() {
        return value;
    }

    public @Nullable Long timestamp() {
        return timestamp;
    }

    public @Nullable List<Header> headers() {
        return headers;
    }

    public @Nullable byte[] rowImage() {
        return rowImage;
    }
}
