package io.karrow.bench;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
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
import java.util.concurrent.TimeUnit;

/**
 * The three decode paths a decode benchmark times over the same {@value #MESSAGES} values, in one
 * JMH run: the stock format's {@code deserialize} ({@link #oracle}), the native format's per-record
 * {@code deserialize} ({@link #nativePerRecord}: one JNI call per value) and its batch decoder
 * ({@link #nativeBatch}: one native call for all values, as the {@code kafka-native} source makes per
 * fetched batch). A subclass's {@code @Setup} writes the values, opens the two schemas and hands them
 * to {@link #start}, which copies the values into direct memory once (as a fetch buffer would hold
 * them); the subclass then checks that all three paths give the oracle's rows. Scores are messages
 * per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ThreeWayDecodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public abstract class ThreeWayDecodeBenchmark {

    /** Messages decoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    /** The row type of the decoded rows. */
    protected RowType rowType;
    /** The {@value #MESSAGES} values every path decodes. */
    protected byte[][] messages;
    /** The stock format's opened deserializer. */
    protected DeserializationSchema<RowData> oracle;
    /** The native format's opened deserializer. */
    protected DeserializationSchema<RowData> perRecord;
    /** The native format's batch decoder. */
    protected ValueBatchDecoder batchDecoder;
    /** {@link #messages} in direct memory. */
    protected DirectValueBuffer values;

    /**
     * Takes the values and the opened schemas, creates the native batch decoder and copies the values
     * into direct memory.
     *
     * @return the values' total size in bytes
     */
    protected final long start(RowType rowType, byte[][] messages, DeserializationSchema<RowData> oracle,
            DeserializationSchema<RowData> perRecord) throws IOException {
        this.rowType = rowType;
        this.messages = messages;
        this.oracle = oracle;
        this.perRecord = perRecord;
        batchDecoder = ((BatchDeserializationSchema) perRecord).createBatchDecoder();
        values = new DirectValueBuffer();
        long bytes = 0;
        for (byte[] message : messages) {
            values.add(message);
            bytes += message.length;
        }
        return bytes;
    }

    /** Frees the native decoders. */
    @TearDown(Level.Trial)
    public void closeDecoders() throws Exception {
        if (batchDecoder != null) {
            batchDecoder.close();
        }
        if (perRecord instanceof AutoCloseable closeable) {
            closeable.close();
        }
        if (values != null) {
            values.close();
        }
    }

    /** The stock format, one {@code deserialize} per message. */
    @Benchmark
    public void oracle(Blackhole bh) throws IOException {
        for (byte[] message : messages) {
            bh.consume(oracle.deserialize(message));
        }
    }

    /** The native format's per-record path: one JNI call per message. */
    @Benchmark
    public void nativePerRecord(Blackhole bh) throws IOException {
        for (byte[] message : messages) {
            bh.consume(perRecord.deserialize(message));
        }
    }

    /** One native call for all messages (the kafka-native source's path), one row view per value. */
    @Benchmark
    public void nativeBatch(Blackhole bh) throws IOException {
        DecodedValues decoded = batchDecoder.decode(values, MESSAGES);
        for (int i = 0; i < decoded.rowCount(); i++) {
            bh.consume(decoded.row(i));
        }
    }
}
