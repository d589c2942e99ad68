package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;

import org.apache.kafka.common.header.Header;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A batch of encoded Kafka records in off-heap memory, in the layout the native producer takes
 * ({@code docs/jni-contract.md}, "Native produce"): per record {@link #META_BYTES} bytes of
 * little-endian metadata (partition, topic index, key length, value length, header count, header
 * bytes, timestamp), then the keys, the values and the headers (Kafka's record-header encoding)
 * back to back. {@link NativeProducerSession#send} hands the batch over in one native call.
 *
 * <p>This is the entry for encoded batches: the {@code kafka-native} sink writer fills one from the
 * encoded values of a batch of rows, and a fused pipeline that already holds encoded keys and values
 * fills one (with {@link #add} or the bulk {@link #addValues}) or has native code fill its buffers
 * directly ({@link #prepareForNativeWrite}), so no Java object is made per record.
 *
 * <p>Buffers grow (doubling) and are kept across {@link #clear()}, so a steady stream of batches
 * allocates nothing. Not thread-safe; {@link #close()} frees the memory.
 */
public final class EncodedRecords implements AutoCloseable {

    /** Bytes of metadata per record. */
    public static final int META_BYTES = 32;

    /** The partition value asking the producer to choose (the stock sink's partitioning). */
    public static final int ANY_PARTITION = -1;

    /** The timestamp value asking the producer to stamp the record with the send time. */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private static final int MIN_CAPACITY = 4096;

    private MemorySegment meta;
    private MemorySegment keys;
    private MemorySegment values;
    private MemorySegment headers;
    private int count;
    private int keyBytes;
    private int valueBytes;
    private int headerBytes;

    /** An empty batch; memory is allocated as records are added. */
    public EncodedRecords() {}

    /** Forgets every record, keeping the memory. */
    public void clear() {
        count = 0;
        keyBytes = 0;
        valueBytes = 0;
        headerBytes = 0;
    }

    /**
     * Adds one record.
     *
     * @param partition the partition, or {@link #ANY_PARTITION}
     * @param topic the index of the topic among the producer's topics
     * @param key the key bytes {@code [keyOffset, keyOffset + keyLength)} of {@code key}, or {@code
     *     null}
     * @param value the value bytes {@code [valueOffset, valueOffset + valueLength)}, or {@code null}
     *     (a tombstone)
     * @param recordHeaders the headers, or {@code null}
     * @param timestamp epoch milliseconds, or {@link #NO_TIMESTAMP}
     */
    public void add(
            int partition,
            int topic,
            byte[] key,
            int keyOffset,
            int keyLength,
            byte[] value,
            int valueOffset,
            int valueLength,
            List<Header> recordHeaders,
            long timestamp) {
        int keyLen = key == null ? -1 : keyLength;
        int valueLen = value == null ? -1 : valueLength;
        if (key != null) {
            keys = ensure(keys, (long) keyBytes + keyLength, keyBytes);
            keys.put(keyBytes, key, keyOffset, keyLength);
            keyBytes += keyLength;
        }
        if (value != null) {
            values = ensure(values, (long) valueBytes + valueLength, valueBytes);
            values.put(valueBytes, value, valueOffset, valueLength);
            valueBytes += valueLength;
        }
        int headerCount = 0;
        int headerStart = headerBytes;
        if (recordHeaders != null) {
            for (Header h : recordHeaders) {
                appendHeader(h.key(), h.value());
                headerCount++;
            }
        }
        appendMeta(partition, topic, keyLen, valueLen, headerCount, headerBytes - headerStart, timestamp);
    }

    /**
     * Adds {@code n} records at once whose values are {@code [offsets[i], offsets[i + 1])} of {@code
     * data} (an encoder's batch output), without key or headers, the producer choosing the partition
     * and the timestamp.
     */
    public void addValues(byte[] data, int[] offsets, int n, int topic) {
        int total = offsets[n] - offsets[0];
        values = ensure(values, (long) valueBytes + total, valueBytes);
        values.put(valueBytes, data, offsets[0], total);
        valueBytes += total;
        for (int i = 0; i < n; i++) {
            appendMeta(ANY_PARTITION, topic, -1, offsets[i + 1] - offsets[i], 0, 0, NO_TIMESTAMP);
        }
    }

    /**
     * Makes room for {@code n} records of the given byte totals that native code writes straight into
     * the buffers (replacing the contents); the addresses are valid until the next change.
     */
    public void prepareForNativeWrite(int n, int keyTotal, int valueTotal, int headerTotal) {
        clear();
        meta = ensure(meta, (long) n * META_BYTES, 0);
        keys = ensure(keys, keyTotal, 0);
        values = ensure(values, valueTotal, 0);
        headers = ensure(headers, headerTotal, 0);
        count = n;
        keyBytes = keyTotal;
        valueBytes = valueTotal;
        headerBytes = headerTotal;
    }

    /** Records in the batch. */
    public int count() {
        return count;
    }

    /** Key, value and header bytes of the batch. */
    public long recordBytes() {
        return (long) keyBytes + valueBytes + headerBytes;
    }

    /** The four parts' addresses (metadata, keys, values, headers), for the native call. */
    long[] addresses() {
        meta = ensure(meta, 1, count * META_BYTES);
        keys = ensure(keys, 1, keyBytes);
        values = ensure(values, 1, valueBytes);
        headers = ensure(headers, 1, headerBytes);
        return new long[] {meta.getAddress(), keys.getAddress(), values.getAddress(), headers.getAddress()};
    }

    /** The four parts' lengths, in the order of {@link #addresses()}. */
    int[] lengths() {
        return new int[] {count * META_BYTES, keyBytes, valueBytes, headerBytes};
    }

    private void appendMeta(
            int partition, int topic, int keyLength, int valueLength, int headerCount, int headerLength, long timestamp) {
        if (count >= (Integer.MAX_VALUE - 8) / META_BYTES) {
            throw new IllegalStateException("An encoded record batch holds at most "
                    + (Integer.MAX_VALUE - 8) / META_BYTES + " records");
        }
        meta = ensure(meta, (long) (count + 1) * META_BYTES, count * META_BYTES);
        int at = count * META_BYTES;
        meta.putIntLittleEndian(at, partition);
        meta.putIntLittleEndian(at + 4, topic);
        meta.putIntLittleEndian(at + 8, keyLength);
        meta.putIntLittleEndian(at + 12, valueLength);
        meta.putIntLittleEndian(at + 16, headerCount);
        meta.putIntLittleEndian(at + 20, headerLength);
        meta.putLongLittleEndian(at + 24, timestamp);
        count++;
    }

    /** Kafka's record-header encoding: varint key length, key (UTF-8), varint value length or -1, value. */
    private void appendHeader(String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        long needed = (long) headerBytes + k.length + 10 + (value == null ? 0 : value.length) + 10;
        headers = ensure(headers, needed, headerBytes);
        headerBytes = putVarint(headers, headerBytes, k.length);
        headers.put(headerBytes, k, 0, k.length);
        headerBytes += k.length;
        if (value == null) {
            headerBytes = putVarint(headers, headerBytes, -1);
        } else {
            headerBytes = putVarint(headers, headerBytes, value.length);
            headers.put(headerBytes, value, 0, value.length);
            headerBytes += value.length;
        }
    }

    /** Writes {@code v} zig-zag varint encoded at {@code at}; returns the end. */
    private static int putVarint(MemorySegment segment, int at, int v) {
        long z = ((long) v << 1) ^ ((long) v >> 63);
        while ((z & ~0x7FL) != 0) {
            segment.put(at++, (byte) ((z & 0x7F) | 0x80));
            z >>>= 7;
        }
        segment.put(at++, (byte) z);
        return at;
    }

    private static MemorySegment ensure(MemorySegment segment, long needed, int keep) {
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("An encoded record batch part cannot exceed 2 GiB, needed " + needed);
        }
        if (segment != null && segment.size() >= needed) {
            return segment;
        }
        int capacity = Math.max(MIN_CAPACITY, segment == null ? 0 : segment.size());
        while (capacity < needed) {
            capacity = (int) Math.min(Integer.MAX_VALUE - 8L, capacity * 2L);
        }
        MemorySegment grown = MemorySegmentFactory.allocateUnpooledOffHeapMemory(capacity);
        if (segment != null) {
            segment.copyTo(0, grown, 0, keep);
            segment.free();
        }
        return grown;
    }

    /** Frees the memory; the batch may be reused afterwards (it reallocates). */
    @Override
    public void close() {
        for (MemorySegment segment : new MemorySegment[] {meta, keys, values, headers}) {
            if (segment != null && !segment.isFreed()) {
                segment.free();
            }
        }
        meta = null;
        keys = null;
        values = null;
        headers = null;
        clear();
    }
}
