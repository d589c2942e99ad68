package io.karrow.flink.nativebridge;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;

/**
 * One native producer ({@code karrow-kafka}'s idempotent and transactional producer behind a
 * handle; {@code docs/jni-contract.md}, "Native produce"): batches of {@link EncodedRecords} go in
 * with one native call each, {@link #poll()} sends what lingered and reads acknowledgements, and
 * transactions, flushes and the committer's EndTxn are control requests. Owns its native handle;
 * not thread-safe (one per sink writer or committer).
 */
public final class NativeProducerSession implements AutoCloseable {

    private static final int SUMMARY_LONGS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final NativeHandle handle;
    private final MemorySegment summary = MemorySegmentFactory.allocateUnpooledOffHeapMemory(SUMMARY_LONGS * Long.BYTES);
    private long acknowledged;
    private long bufferedBytes;

    /** The producer id and epoch of a transaction. */
    public record ProducerIdAndEpoch(long producerId, short epoch) {}

    /**
     * How an EndTxn ended: {@code errorCode} 0 (done), a Kafka error code, or -1 (no code: a timeout
     * or a connection that kept failing, {@code retriable}).
     */
    public record EndResult(int errorCode, String message, boolean retriable) {
        /** Whether the transaction was ended. */
        public boolean ok() {
            return errorCode == 0;
        }
    }

    /** Opens a producer from its JSON configuration (see {@code docs/jni-contract.md}). */
    public NativeProducerSession(String configJson) throws KarrowNativeException {
        this.handle = NativeHandle.open(SessionKind.PRODUCE, configJson, null);
    }

    /** Appends the records of {@code records} (in order), sending what is ready. */
    public void send(EncodedRecords records) throws KarrowNativeException {
        if (records.count() == 0) {
            return;
        }
        KarrowNative.copyIn(handle.get(), records.addresses(), records.lengths(), records.count());
    }

    /**
     * Appends the records of an encoded batch (full fusion) natively, once; returns the records
     * appended. When the batch's fetched batch failed, its records are appended and then this throws
     * that value's error (its record index is the value's index in the fetched batch).
     */
    public int handOver(NativeEncodedBatch batch) throws KarrowNativeException {
        return KarrowNative.handOver(batch.handle(), handle.get());
    }

    /** Sends what lingered and reads the acknowledgements that arrived (never waits). */
    public void poll() throws KarrowNativeException {
        KarrowNative.poll(handle.get(), summary.getAddress(), SUMMARY_LONGS);
        acknowledged = summary.getLongLittleEndian(0);
        bufferedBytes = summary.getLongLittleEndian(8);
    }

    /** Records acknowledged so far, as of the last {@link #poll()}. */
    public long acknowledged() {
        return acknowledged;
    }

    /** Bytes of open and unacknowledged batches, as of the last {@link #poll()}. */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    /** Sends everything and waits until it is acknowledged (or fails). */
    public void flush() throws KarrowNativeException {
        control("{\"op\":\"flush\"}");
    }

    /** InitProducerId for the transactional id: fences older producers, aborts what they left open. */
    public ProducerIdAndEpoch initTransactions() throws KarrowNativeException {
        JsonNode reply = parse(control("{\"op\":\"init_transactions\"}"));
        return new ProducerIdAndEpoch(reply.get("producer_id").asLong(), (short) reply.get("epoch").asInt());
    }

    /** Switches the transactional id; {@link #initTransactions()} must follow. */
    public void setTransactionalId(String transactionalId) throws KarrowNativeException {
        StringBuilder request = new StringBuilder("{\"op\":\"set_transactional_id\",\"transactional_id\":");
        JsonText.appendString(request, transactionalId).append('}');
        control(request.toString());
    }

    /** Opens a transaction. */
    public void beginTransaction() throws KarrowNativeException {
        control("{\"op\":\"begin_transaction\"}");
    }

    /** Flushes and commits the open transaction. */
    public void commitTransaction() throws KarrowNativeException {
        control("{\"op\":\"commit_transaction\"}");
    }

    /**
     * Flink's pre-commit: flushes and hands the open transaction over to a committer (no EndTxn);
     * returns the ids for the committable. {@link #initTransactions()} must follow before the next
     * transaction.
     */
    public ProducerIdAndEpoch precommitTransaction() throws KarrowNativeException {
        JsonNode reply = parse(control("{\"op\":\"precommit_transaction\"}"));
        return new ProducerIdAndEpoch(reply.get("producer_id").asLong(), (short) reply.get("epoch").asInt());
    }

    /** Aborts the open transaction (unsent records are dropped). */
    public void abortTransaction() throws KarrowNativeException {
        control("{\"op\":\"abort_transaction\"}");
    }

    /** Ends (commits or aborts) the transaction of {@code transactionalId} from its ids alone. */
    public EndResult endTransaction(String transactionalId, long producerId, short epoch, boolean commit)
            throws KarrowNativeException {
        StringBuilder request = new StringBuilder("{\"op\":\"end_transaction\",\"transactional_id\":");
        JsonText.appendString(request, transactionalId)
                .append(",\"producer_id\":").append(producerId)
                .append(",\"epoch\":").append(epoch)
                .append(",\"commit\":").append(commit).append('}');
        JsonNode reply = parse(control(request.toString()));
        JsonNode message = reply.get("message");
        JsonNode retriable = reply.get("retriable");
        return new EndResult(
                reply.get("error_code").asInt(),
                message == null || message.isNull() ? null : message.asText(),
                retriable != null && retriable.asBoolean());
    }

    /** The producer's state: producer id, epoch, transaction, records acknowledged. */
    public State state() throws KarrowNativeException {
        JsonNode s = parse(control("{\"op\":\"state\"}"));
        JsonNode id = s.get("transactional_id");
        return new State(
                id == null || id.isNull() ? null : id.asText(),
                s.get("producer_id").asLong(),
                (short) s.get("epoch").asInt(),
                s.get("in_transaction").asBoolean(),
                s.get("has_records").asBoolean(),
                s.get("transaction_version").asInt(),
                s.get("acknowledged").asLong());
    }

    /** What {@link #state()} reports. */
    public record State(
            String transactionalId,
            long producerId,
            short epoch,
            boolean inTransaction,
            boolean hasRecordsInTransaction,
            int transactionVersion,
            long acknowledged) {}

    /**
     * Hands over a refreshed OAUTHBEARER token ({@code {"value", "lifetimeMs", "extensions"}}): the
     * connections take it when they authenticate or re-authenticate (KIP-368).
     */
    public void setToken(String tokenJson) throws KarrowNativeException {
        control("{\"op\":\"set_token\",\"token\":" + tokenJson + "}");
    }

    /** The partition ids of {@code topic}, ascending. */
    public int[] partitions(String topic) throws KarrowNativeException {
        StringBuilder request = new StringBuilder("{\"op\":\"partitions\",\"topic\":");
        JsonText.appendString(request, topic).append('}');
        JsonNode reply = parse(control(request.toString()));
        int[] out = new int[reply.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = reply.get(i).asInt();
        }
        return out;
    }

    private String control(String request) throws KarrowNativeException {
        return KarrowNative.control(handle.get(), request);
    }

    private static JsonNode parse(String reply) {
        try {
            return JSON.readTree(reply);
        } catch (IOException e) {
            throw new IllegalStateException("The native producer replied " + reply, e);
        }
    }

    /** Closes the producer (its connections; unsent records are dropped) and frees the buffers. */
    @Override
    public void close() {
        handle.close();
        if (!summary.isFreed()) {
            summary.free();
        }
    }
}
