package io.karrow.bench;

import io.karrow.flink.formats.BatchSerializationSchema;
import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
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
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * Encodes {@value #MESSAGES} Nexmark bid rows ({@link BinaryRowData}, as rows reach a sink) into
 * Protobuf {@code karrow.test.Bid} values ({@link ProtobufOrderEncodeBenchmark}: nested orders) three
 * ways, in one JMH run: Flink's {@code protobuf} format (flink-protobuf's {@code
 * PbRowDataSerializationSchema}, what {@code 'format' = 'protobuf'} runs), the {@code protobuf-native}
 * format's per-record {@code serialize}, and its batch encoder (row images copied into direct memory,
 * one native call: the {@code kafka-native} sink's path). Both formats are created through {@code
 * FactoryUtil}. Scores are messages per second; {@code @Setup} fails unless all bytes are equal.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ProtobufEncodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class ProtobufEncodeBenchmark {

    /** Rows encoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private BinaryRowData[] rows;
    private SerializationSchema<RowData> oracle;
    private SerializationSchema<RowData> perRecord;
    private ValueBatchEncoder batchEncoder;
    private DirectValueBuffer images;
    private int[] offsets;

    /** Builds the rows, opens the encoders and checks that their bytes agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ProtobufMessages.Kind kind = kind();
        RowDataSerializer toBinary = new RowDataSerializer(kind.rowType());
        rows = new BinaryRowData[MESSAGES];
        RowData[] generic = kind.rows(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            rows[i] = toBinary.toBinaryRow(generic[i]).copy();
        }
        oracle = ProtobufMessages.encoder(ProtobufMessages.FLINK, kind);
        perRecord = ProtobufMessages.encoder(ProtobufMessages.NATIVE, kind);
        batchEncoder = ((BatchSerializationSchema) perRecord).createBatchEncoder();
        images = new DirectValueBuffer();
        offsets = new int[MESSAGES + 1];
        verifyParity();
        System.out.printf("%n[setup] %d %s rows: native Protobuf bytes equal flink-protobuf's%n", MESSAGES, kind);
    }

    /** The message type encoded (the bid here; {@link ProtobufOrderEncodeBenchmark} overrides it). */
    protected ProtobufMessages.Kind kind() {
        return ProtobufMessages.Kind.BID;
    }

    /** Frees the native encoders. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (batchEncoder != null) {
            batchEncoder.close();
        }
        ProtobufMessages.close(perRecord);
        if (images != null) {
            images.close();
        }
    }

    /** Flink's {@code protobuf} serializer, one {@code serialize} per row. */
    @Benchmark
    public void oracle(Blackhole bh) {
        for (BinaryRowData row : rows) {
            bh.consume(oracle.serialize(row));
        }
    }

    /** The protobuf-native format's per-record path: one JNI call per row. */
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
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < MESSAGES; i++) {
            byte[] expected = oracle.serialize(rows[i]);
            byte[] single = perRecord.serialize(rows[i]);
            byte[] fromBatch = Arrays.copyOfRange(batch, offsets[i], offsets[i + 1]);
            if (!Arrays.equals(expected, single) || !Arrays.equals(expected, fromBatch)) {
                throw new IllegalStateException("native bytes differ from flink-protobuf's at row " + i + ": expected "
                        + hex.formatHex(expected) + " got " + hex.formatHex(single) + " / " + hex.formatHex(fromBatch));
            }
        }
    }
}
