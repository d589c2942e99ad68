package io.karrow.bench;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The three encode paths an encode benchmark times over the same {@value #MESSAGES} rows
 * ({@link BinaryRowData}, as rows reach a sink), in one JMH run: the stock format's {@code
 * serialize} ({@link #oracle}), the native format's per-record {@code serialize} ({@link
 * #nativePerRecord}: one JNI call per row) and its batch encoder ({@link #nativeBatch}: row images
 * copied into direct memory, one native call, the {@code kafka-native} sink's path). A subclass's
 * {@code @Setup} builds the rows and the two opened schemas and hands them to {@link #start}, which
 * fails unless both native paths write the oracle's bytes for every row. Scores are messages per
 * second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ThreeWayEncodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public abstract class ThreeWayEncodeBenchmark {

    /** Rows encoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private BinaryRowData[] rows;
    private SerializationSchema<RowData> oracle;
    private SerializationSchema<RowData> perRecord;
    private ValueBatchEncoder batchEncoder;
    private DirectValueBuffer images;
    private int[] offsets;

    /**
     * Takes the rows and the opened schemas, creates the native batch encoder and checks parity.
     *
     * @param rows the {@value #MESSAGES} rows every path encodes
     * @param oracle the stock format's opened serializer
     * @param perRecord the native format's opened serializer (its batch encoder is the third path)
     * @param oracleName how a parity failure names the oracle ("flink-json")
     * @param show how a parity failure prints a value
     * @throws IllegalStateException naming the first row whose bytes differ
     */
    protected final void start(BinaryRowData[] rows, SerializationSchema<RowData> oracle,
            SerializationSchema<RowData> perRecord, String oracleName, Function<byte[], String> show)
            throws IOException {
        this.rows = rows;
        this.oracle = oracle;
        this.perRecord = perRecord;
        batchEncoder = ((BatchSerializationSchema) perRecord).createBatchEncoder();
        images = new DirectValueBuffer();
        offsets = new int[MESSAGES + 1];
        byte[] batch = encodeBatch();
        for (int i = 0; i < MESSAGES; i++) {
            byte[] expected = oracle.serialize(rows[i]);
            byte[] single = perRecord.serialize(rows[i]);
            byte[] fromBatch = Arrays.copyOfRange(batch, offsets[i], offsets[i + 1]);
            if (!Arrays.equals(expected, single) || !Arrays.equals(expected, fromBatch)) {
                throw new IllegalStateException("native bytes differ from " + oracleName + "'s at row " + i
                        + ": expected " + show.apply(expected) + " got " + show.apply(single) + " / "
                        + show.apply(fromBatch));
            }
        }
    }

    /** Frees the native encoders. */
    @TearDown(Level.Trial)
    public void closeEncoders() throws Exception {
        if (batchEncoder != null) {
            batchEncoder.close();
        }
        if (perRecord instanceof AutoCloseable closeable) {
            closeable.close();
        }
        if (images != null) {
            images.close();
        }
    }

    /** The stock format's serializer, one {@code serialize} per row. */
    @Benchmark
    public void oracle(Blackhole bh) {
        for (BinaryRowData row : rows) {
            bh.consume(oracle.serialize(row));
        }
    }

    /** The native format's per-record path: one JNI call per row. */
    @Benchmark
    public void nativePerRecord(Blackhole bh) {
        for (BinaryRowData row : rows) {
            bh.consume(perRecord.serialize(row));
        }
    }

    /** The kafka-native sink's path: copy each row image into direct memory, one native call. */
    @Benchmark
    public void nativeBatch(Blackhole bh) throws IOException {
        bh.consume(encodeBatch());
    }

    private byte[] encodeBatch() throws IOException {
        images.clear();
        for (BinaryRowData row : rows) {
            images.add(row.getSegments()[0].getArray());
        }
        return batchEncoder.encode(images, MESSAGES, offsets);
    }
}
