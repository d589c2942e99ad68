package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;

/**
 * One native fetch session (Kafka's Fetch protocol spoken by {@code karrow-kafka}) and the direct
 * buffers each poll's records are copied into: per record 40 bytes of metadata, the values in a
 * {@link DirectValueBuffer} (so a value format's batch decoder reads them as they are), the keys and
 * the headers. Owns its native handle; not thread-safe (one per split reader), except {@link
 * #wakeUp()}, which any thread may call.
 */
public final class NativeFetchSession implements AutoCloseable {

    /** Bytes of metadata per record (see {@code docs/jni-contract.md}). */
    public static final int META_BYTES = 40;

    private static final int SUMMARY_LONGS = 13;

    /** Bytes of one truncated slot after the slot lists: slot, epoch, fetch offset, end offset. */
    private static final int TRUNCATION_BYTES = 24;

    private final NativeHandle handle;
    /** Held around every wake-up and the close, so a wake-up never reaches a freed session. */
    private final Object wakeLock = new Object();
    private final MemorySegment summary = MemorySegmentFactory.allocateUnpooledOffHeapMemory(SUMMARY_LONGS * Long.BYTES);
    private final DirectValueBuffer values = new DirectValueBuffer();
    private MemorySegment meta = MemorySegmentFactory.allocateUnpooledOffHeapMemory(64 * 1024);
    private MemorySegment keys = MemorySegmentFactory.allocateUnpooledOffHeapMemory(1024);
    private MemorySegment headers = MemorySegmentFactory.allocateUnpooledOffHeapMemory(1024);
    private MemorySegment slots = MemorySegmentFactory.allocateUnpooledOffHeapMemory(1024);
    private int records;
    private int finished;
    private int leaderChanged;
    private int outOfRange;
    private int truncated;
    private long pendingRecords;
    private long recordBytes;
    private long fetchResponses;
    private long fetchLatencyMicros;
    private long fetchLatencyMaxMicros;
    private long maxLag;

    /**
     * Opens a session from its JSON configuration ({@code clientId}, {@code readCommitted}, {@code
     * maxWaitMs}, {@code minBytes}, {@code maxBytes}, {@code partitionMaxBytes}; see {@code
     * docs/jni-contract.md}).
     */
    public NativeFetchSession(String configJson) throws KarrowNativeException {
        this.handle = NativeHandle.open(SessionKind.FETCH, configJson, null);
    }

    /**
     * Assigns (or re-assigns) {@code slot}: {@code topic}-{@code partition}, led by the broker at
     * {@code leader} ({@code host:port}), read from {@code offset} up to {@code stopOffset} (exclusive;
     * {@code Long.MAX_VALUE} when unbounded).
     */
    public void assign(int slot, String topic, int partition, String leader, long offset, long stopOffset)
            throws KarrowNativeException {
        assign(slot, topic, partition, leader, offset, stopOffset, -1);
    }

    /**
     * {@link #assign(int, String, int, String, long, long)} at a position whose leader epoch is known
     * ({@code lastFetchedEpoch}, -1 for none): what Kafka's consumer keeps after resetting a
     * truncated partition to the first offset known to diverge.
     */
    public void assign(
            int slot, String topic, int partition, String leader, long offset, long stopOffset, int lastFetchedEpoch)
            throws KarrowNativeException {
        StringBuilder request = new StringBuilder("{\"op\":\"assign\",\"slot\":").append(slot).append(",\"topic\":");
        JsonText.appendString(request, topic).append(",\"partition\":").append(partition).append(",\"leader\":");
        JsonText.appendString(request, leader).append(",\"offset\":").append(offset)
                .append(",\"stop_offset\":").append(stopOffset)
                .append(",\"last_fetched_epoch\":").append(lastFetchedEpoch).append('}');
        KarrowNative.control(handle.get(), request.toString());
    }

    /** Forgets {@code slot}. */
    public void unassign(int slot) throws KarrowNativeException {
        KarrowNative.control(handle.get(), "{\"op\":\"unassign\",\"slot\":" + slot + "}");
    }

    /** Sets the leader ({@code host:port}) of {@code slot} after a leader change. */
    public void setLeader(int slot, String leader) throws KarrowNativeException {
        StringBuilder request = new StringBuilder("{\"op\":\"set_leader\",\"slot\":").append(slot).append(",\"leader\":");
        JsonText.appendString(request, leader).append('}');
        KarrowNative.control(handle.get(), request.toString());
    }

    /**
     * Hands over a refreshed OAUTHBEARER token ({@code {"value", "lifetimeMs", "extensions"}}): the
     * connections take it when they authenticate or re-authenticate (KIP-368).
     */
    public void setToken(String tokenJson) throws KarrowNativeException {
        KarrowNative.control(handle.get(), "{\"op\":\"set_token\",\"token\":" + tokenJson + "}");
    }

    /** Pauses or resumes fetching {@code slot}. */
    public void setPaused(int slot, boolean paused) throws KarrowNativeException {
        KarrowNative.control(
                handle.get(), "{\"op\":\"set_paused\",\"slot\":" + slot + ",\"paused\":" + paused + "}");
    }

    /**
     * Sends one Fetch request per leader and copies the records of the responses into this session's
     * buffers (sized from the poll's summary: records, value bytes, key bytes, header bytes, finished
     * slots, leader-changed slots, out-of-range slots, pending records, truncated slots; then the
     * fetch responses read, their latencies summed and the longest, in microseconds, and the largest
     * partition lag, for the consumer metrics).
     */
    public void poll() throws KarrowNativeException {
        long h = handle.get();
        KarrowNative.poll(h, summary.getAddress(), SUMMARY_LONGS);
        records = toInt(summary.getLongLittleEndian(0), "records");
        int valueBytes = toInt(summary.getLongLittleEndian(8), "value bytes");
        int keyBytes = toInt(summary.getLongLittleEndian(16), "key bytes");
        int headerBytes = toInt(summary.getLongLittleEndian(24), "header bytes");
        finished = toInt(summary.getLongLittleEndian(32), "finished slots");
        leaderChanged = toInt(summary.getLongLittleEndian(40), "leader-changed slots");
        outOfRange = toInt(summary.getLongLittleEndian(48), "out-of-range slots");
        pendingRecords = summary.getLongLittleEndian(56);
        truncated = toInt(summary.getLongLittleEndian(64), "truncated slots");
        fetchResponses = summary.getLongLittleEndian(72);
        fetchLatencyMicros = summary.getLongLittleEndian(80);
        fetchLatencyMaxMicros = summary.getLongLittleEndian(88);
        maxLag = summary.getLongLittleEndian(96);
        recordBytes = (long) valueBytes + keyBytes + headerBytes;
        meta = ensure(meta, (long) records * META_BYTES);
        keys = ensure(keys, keyBytes);
        headers = ensure(headers, headerBytes);
        slots = ensure(slots, 4L * (finished + leaderChanged + outOfRange) + (long) TRUNCATION_BYTES * truncated);
        values.prepareForNativeWrite(records, valueBytes);
        KarrowNative.copyOut(h, new long[] {
            meta.getAddress(), values.dataAddress(), values.lengthsAddress(), keys.getAddress(), headers.getAddress(),
            slots.getAddress()
        });
    }

    /**
     * Ends the {@link #poll()} that blocks now (another thread's) within about 20 ms, or the next
     * one at once, with no records; a request whose response had not started stays in flight for the
     * next poll. A no-op once closed.
     */
    public void wakeUp() throws KarrowNativeException {
        synchronized (wakeLock) {
            if (!handle.isClosed()) {
                KarrowNative.wake(handle.get());
            }
        }
    }

    /** Records not fetched yet in the assigned partitions, as the last responses reported. */
    public long pendingRecords() {
        return pendingRecords;
    }

    /** Fetch responses the last poll read. */
    public long fetchResponses() {
        return fetchResponses;
    }

    /** The latencies of the last poll's fetch responses (request sent to response read), summed, in µs. */
    public long fetchLatencyMicros() {
        return fetchLatencyMicros;
    }

    /** The longest latency of the last poll's fetch responses, in µs. */
    public long fetchLatencyMaxMicros() {
        return fetchLatencyMaxMicros;
    }

    /** The largest lag of an assigned partition after the last poll (records to the end reported). */
    public long maxLag() {
        return maxLag;
    }

    /** Key, value and header bytes of the last poll's records. */
    public long recordBytes() {
        return recordBytes;
    }

    /** Records of the last poll. */
    public int recordCount() {
        return records;
    }

    /** The values of the last poll, in record order. */
    public DirectValueBuffer values() {
        return values;
    }

    /** The slot of record {@code i}. */
    public int slot(int i) {
        return meta.getIntLittleEndian(i * META_BYTES);
    }

    /** Whether record {@code i}'s timestamp was set by the broker (log append time). */
    public boolean logAppendTime(int i) {
        return meta.getIntLittleEndian(i * META_BYTES + 4) == 1;
    }

    /** The offset of record {@code i}. */
    public long offset(int i) {
        return meta.getLongLittleEndian(i * META_BYTES + 8);
    }

    /** The timestamp of record {@code i}. */
    public long timestamp(int i) {
        return meta.getLongLittleEndian(i * META_BYTES + 16);
    }

    /** The leader epoch of record {@code i}'s batch, -1 when unknown. */
    public int leaderEpoch(int i) {
        return meta.getIntLittleEndian(i * META_BYTES + 24);
    }

    /** The key length of record {@code i}, -1 for a null key. */
    public int keyLength(int i) {
        return meta.getIntLittleEndian(i * META_BYTES + 28);
    }

    /** The number of headers of record {@code i}. */
    public int headerCount(int i) {
        return meta.getIntLittleEndian(i * META_BYTES + 32);
    }

    /** The bytes of record {@code i}'s headers. */
    public int headerBytes(int i) {
        return meta.getIntLittleEndian(i * META_BYTES + 36);
    }

    /** A copy of {@code length} key bytes from {@code start} of the poll's keys. */
    public byte[] key(int start, int length) {
        byte[] key = new byte[length];
        keys.get(start, key, 0, length);
        return key;
    }

    /** The {@code count} headers in the {@code length} header bytes from {@code start}. */
    public Headers headers(int start, int length, int count) {
        RecordHeaders out = new RecordHeaders();
        int at = start;
        int end = start + length;
        for (int h = 0; h < count; h++) {
            long[] read = new long[1];
            at = varint(headers, at, end, read);
            byte[] key = new byte[checkedLength(read[0], at, end)];
            headers.get(at, key, 0, key.length);
            at += key.length;
            at = varint(headers, at, end, read);
            byte[] value = null;
            if (read[0] >= 0) {
                value = new byte[checkedLength(read[0], at, end)];
                headers.get(at, value, 0, value.length);
                at += value.length;
            }
            out.add(new RecordHeader(new String(key, StandardCharsets.UTF_8), value));
        }
        return out;
    }

    /** Slots that reached their stopping offset in the last poll. */
    public int finishedCount() {
        return finished;
    }

    /** Finished slot {@code k}. */
    public int finishedSlot(int k) {
        return slots.getIntLittleEndian(4 * k);
    }

    /** Slots whose leader moved in the last poll. */
    public int leaderChangedCount() {
        return leaderChanged;
    }

    /** Leader-changed slot {@code k}. */
    public int leaderChangedSlot(int k) {
        return slots.getIntLittleEndian(4 * (finished + k));
    }

    /** Slots whose next offset was outside the log in the last poll. */
    public int outOfRangeCount() {
        return outOfRange;
    }

    /** Out-of-range slot {@code k}. */
    public int outOfRangeSlot(int k) {
        return slots.getIntLittleEndian(4 * (finished + leaderChanged + k));
    }

    /**
     * Slots whose leader's log was truncated below their next offset in the last poll (a diverging
     * epoch, KIP-320); they are not fetched again until assigned again.
     */
    public int truncatedCount() {
        return truncated;
    }

    /** Truncated slot {@code k}. */
    public int truncatedSlot(int k) {
        return slots.getIntLittleEndian(truncationAt(k));
    }

    /** The diverging epoch of truncated slot {@code k}: the leader's epoch the end offset belongs to. */
    public int truncatedEpoch(int k) {
        return slots.getIntLittleEndian(truncationAt(k) + 4);
    }

    /** The fetch offset of truncated slot {@code k}. */
    public long truncatedOffset(int k) {
        return slots.getLongLittleEndian(truncationAt(k) + 8);
    }

    /** The end offset of truncated slot {@code k}: the first offset known to diverge. */
    public long truncatedEndOffset(int k) {
        return slots.getLongLittleEndian(truncationAt(k) + 16);
    }

    private int truncationAt(int k) {
        return 4 * (finished + leaderChanged + outOfRange) + TRUNCATION_BYTES * k;
    }

    /** Closes the session (and its connections) and frees the buffers. */
    @Override
    public void close() {
        synchronized (wakeLock) {
            handle.close();
        }
        values.close();
        for (MemorySegment segment : new MemorySegment[] {summary, meta, keys, headers, slots}) {
            if (!segment.isFreed()) {
                segment.free();
            }
        }
    }

    private static int varint(MemorySegment segment, int at, int end, long[] out) {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at >= end) {
                throw new IllegalStateException("record headers end inside a varint");
            }
            byte b = segment.get(at++);
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                out[0] = (raw >>> 1) ^ -(raw & 1);
                return at;
            }
        }
        throw new IllegalStateException("a record header varint is longer than 10 bytes");
    }

    private static int checkedLength(long length, int at, int end) {
        if (length < 0 || length > end - at) {
            throw new IllegalStateException("a record header length " + length + " exceeds the headers");
        }
        return (int) length;
    }

    private static MemorySegment ensure(MemorySegment segment, long needed) {
        if (segment.size() >= needed) {
            return segment;
        }
        long capacity = segment.size();
        while (capacity < needed) {
            capacity *= 2;
        }
        if (capacity > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("a fetch needs " + needed + " bytes of buffer");
        }
        segment.free();
        return MemorySegmentFactory.allocateUnpooledOffHeapMemory((int) capacity);
    }

    private static int toInt(long value, String what) {
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new IllegalStateException("native fetch reported " + value + " " + what);
        }
        return (int) value;
    }
}
