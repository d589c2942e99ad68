package io.karrow.bench;

import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.formats.json.JsonEncoderConfig;
import io.karrow.flink.formats.json.JsonNativeSerializationSchema;
import io.karrow.flink.nativebridge.DirectValueBuffer;

import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
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
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Encodes {@value #MESSAGES} Nexmark bid rows ({@link BinaryRowData}, as rows reach a sink) into
 * JSON three ways, in one JMH run: flink-json's {@code JsonRowDataSerializationSchema} (what {@code
 * 'format' = 'json'} runs), the {@code json-native} format's per-record {@code serialize}, and its
 * batch encoder (row images copied into direct memory, one native call: the {@code kafka-native}
 * sink's path). Scores are messages per second; {@code @Setup} fails unless all bytes are equal.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(JsonEncodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class JsonEncodeBenchmark {

    /** Rows encoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private BinaryRowData[] rows;
    private JsonRowDataSerializationSchema oracle;
    private JsonNativeSerializationSchema perRecord;
    private ValueBatchEncoder batchEncoder;
    private DirectValueBuffer images;
    private int[] offsets;

    /** Builds the rows, opens the encoders and checks that their bytes agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        RowType rowType = NexmarkBids.rowType();
        RowDataSerializer toBinary = new RowDataSerializer(rowType);
        NexmarkBids.Generator generator = new NexmarkBids.Generator(0, 42L);
        rows = new BinaryRowData[MESSAGES];
        for (int i = 0; i < MESSAGES; i++) {
            rows[i] = toBinary.toBinaryRow(generator.nextRow()).copy();
        }
        oracle = new JsonRowDataSerializationSchema(
                rowType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        oracle.open(null);
        perRecord = new JsonNativeSerializationSchema(rowType, new JsonEncoderConfig("SQL", "FAIL", "null", false, false));
        perRecord.open(null);
        batchEncoder = perRecord.createBatchEncoder();
        images = new DirectValueBuffer();
        offsets = new int[MESSAGES + 1];
        verifyParity();
        System.out.printf("%n[setup] %d bid rows: native JSON bytes equal flink-json's%n", MESSAGES);
    }

    /** Frees the native encoders. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (batchEncoder != null) {
            batchEncoder.close();
        }
        if (perRecord != null) {
            perRecord.close();
        }
        if (images != null) {
            images.close();
        }
    }

    /** flink-json's serializer, one {@code serialize} per row. */
    @Benchmark
    public void oracle(Blackhole bh) {
        for (BinaryRowData row : rows) {
            bh.consume(oracle.serialize(row));
        }
    }

    /** The json-native format's per-record path: one JNI call per row. */
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

    private void verifyParity() throws IOException {
        byte[] batch = encodeBatch();
        for (int i = 0; i < MESSAGES; i++) {
            byte[] expected = oracle.serialize(rows[i]);
            byte[] single = perRecord.serialize(rows[i]);
            byte[] fromBatch = Arrays.copyOfRange(batch, offsets[i], offsets[i + 1]);
            if (!Arrays.equals(expected, single) || !Arrays.equals(expected, fromBatch)) {
                throw new IllegalStateException("native bytes differ from flink-json's at row " + i + ": expected "
                        + new String(expected) + " got " + new String(single) + " / " + new String(fromBatch));
            }
        }
    }
}
