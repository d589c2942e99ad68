package io.karrow.flink.connector.kafka;

import io.karrow.flink.nativebridge.NativeEncodedBatch;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.variant.Variant;

import java.util.Objects;

/**
 * Full fusion's carrier: the encoded records of one fetched batch of one split ({@link
 * NativeEncodedBatch}), travelling as the one element a fully fused {@code kafka-native} source
 * emits for that batch, through the chained Calc slot, to the {@code kafka-native} sink's writer,
 * which hands the batch to its native producer ({@code RowDataRecordFeed}). It is a {@link RowData}
 * only so that the planner's transformations (typed by row) carry it; it has no fields to read:
 * every accessor throws, so an operator that is not the fused sink fails loudly instead of seeing
 * rows. Its type ({@link EncodedBatchRowTypeInfo}) copies it as the same object and refuses to
 * serialize it, so it only ever crosses chained edges.
 *
 * <p>Owns the batch: whoever takes it ({@link #take()}) closes it; one never taken is freed by the
 * batch's cleaner.
 */
public final class EncodedBatchRow implements RowData {

    private final NativeEncodedBatch batch;
    private final int arity;
    private final String topic;
    private final int partition;
    private final long failedOffset;
    private boolean taken;

    /**
     * A carrier.
     *
     * @param batch the encoded records (owned by the carrier from now on)
     * @param arity the arity of the rows the batch stands for (the fused Calc's output)
     * @param topic the topic of the fetched records
     * @param partition their partition
     * @param failedOffset the offset of the record whose failure the batch carries, or -1
     */
    EncodedBatchRow(NativeEncodedBatch batch, int arity, String topic, int partition, long failedOffset) {
        this.batch = Objects.requireNonNull(batch, "batch");
        this.arity = arity;
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partition = partition;
        this.failedOffset = failedOffset;
    }

    /** Takes the batch, once; the caller closes it. */
    public NativeEncodedBatch take() {
        if (taken) {
            throw new IllegalStateException("The encoded batch of " + where() + " was handed over already");
        }
        taken = true;
        return batch;
    }

    /** Records in the batch. */
    public int records() {
        return batch.records();
    }

    /** Where the batch's records came from, for messages ({@code topic 't', partition p}). */
    public String where() {
        return "topic '" + topic + "', partition " + partition;
    }

    /** The offset of the record whose failure the batch carries, or -1. */
    public long failedOffset() {
        return failedOffset;
    }

    private UnsupportedOperationException noFields() {
        return new UnsupportedOperationException("A fully fused kafka-native source emitted the encoded records of "
                + where() + " (one element per fetched batch), which only the kafka-native sink it was fused with"
                + " can take; an operator read a field of it");
    }

    @Override
    public int getArity() {
        return arity;
    }

    @Override
    public RowKind getRowKind() {
        return RowKind.INSERT;
    }

    @Override
    public void setRowKind(RowKind kind) {
        throw noFields();
    }

    @Override
    public boolean isNullAt(int pos) {
        throw noFields();
    }

    @Override
    public boolean getBoolean(int pos) {
        throw noFields();
    }

    @Override
    public byte getByte(int pos) {
        throw noFields();
    }

    @Override
    public short getShort(int pos) {
        throw noFields();
    }

    @Override
    public int getInt(int pos) {
        throw noFields();
    }

    @Override
    public long getLong(int pos) {
        throw noFields();
    }

    @Override
    public float getFloat(int pos) {
        throw noFields();
    }

    @Override
    public double getDouble(int pos) {
        throw noFields();
    }

    @Override
    public StringData getString(int pos) {
        throw noFields();
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        throw noFields();
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        throw noFields();
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        throw noFields();
    }

    @Override
    public byte[] getBinary(int pos) {
        throw noFields();
    }

    @Override
    public ArrayData getArray(int pos) {
        throw noFields();
    }

    @Override
    public MapData getMap(int pos) {
        throw noFields();
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        throw noFields();
    }

    @Override
    public Variant getVariant(int pos) {
        throw noFields();
    }

    @Override
    public String toString() {
        return "EncodedBatchRow(" + where() + ", " + batch.records() + " records)";
    }
}
