package io.karrow.bench;

import io.karrow.flink.formats.BatchDeserializationSchema;
import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.testutils.RowDataDiff;

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
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Decodes {@value #MESSAGES} Protobuf Nexmark bids ({@code karrow.test.Bid}, written by the generated
 * class; {@link ProtobufOrderDecodeBenchmark}: nested orders) into Flink rows three ways, in one JMH
 * run: Flink's {@code protobuf} format (flink-protobuf's {@code PbRowDataDeserializationSchema}, what
 * {@code 'format' = 'protobuf'} runs), the {@code protobuf-native} format's per-record {@code
 * deserialize}, and its batch decoder (one native call for all values, as the {@code kafka-native}
 * source makes per fetched batch). Both formats are created through {@code FactoryUtil} as a SQL
 * table gets them. Scores are messages per second.
 *
 * <p>{@code @Setup} fails unless both native paths give Flink's rows for every message. The batch
 * values are copied into direct memory once in {@code @Setup}, as a fetch buffer would hold them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ProtobufDecodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class ProtobufDecodeBenchmark {

    /** Messages decoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private ProtobufMessages.Kind kind;
    private RowType rowType;
    private byte[][] messages;
    private DeserializationSchema<RowData> oracle;
    private DeserializationSchema<RowData> perRecord;
    private ValueBatchDecoder batchDecoder;
    private DirectValueBuffer values;

    /** Writes the messages with the generated class, opens the decoders and checks that their rows agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        kind = kind();
        rowType = kind.rowType();
        messages = kind.messages(MESSAGES);
        oracle = ProtobufMessages.decoder(ProtobufMessages.FLINK, kind);
        perRecord = ProtobufMessages.decoder(ProtobufMessages.NATIVE, kind);
        batchDecoder = ((BatchDeserializationSchema) perRecord).createBatchDecoder();
        values = new DirectValueBuffer();
        long bytes = 0;
        for (byte[] message : messages) {
            values.add(message);
            bytes += message.length;
        }
        verifyParity();
        System.out.printf("%n[setup] %d Protobuf %s messages, %.1f bytes/message on average: native rows equal"
                + " flink-protobuf's%n", MESSAGES, kind, (double) bytes / MESSAGES);
    }

    /** The message type decoded (the bid here; {@link ProtobufOrderDecodeBenchmark} overrides it). */
    protected ProtobufMessages.Kind kind() {
        return ProtobufMessages.Kind.BID;
    }

    /** Frees the native decoders. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (batchDecoder != null) {
            batchDecoder.close();
        }
        ProtobufMessages.close(perRecord);
        if (values != null) {
            values.close();
        }
    }

    /** Flink's {@code protobuf} format, one {@code deserialize} per message. */
    @Benchmark
    public void oracle(Blackhole bh) throws IOException {
        for (byte[] message : messages) {
            bh.consume(oracle.deserialize(message));
        }
    }

    /** The protobuf-native format's per-record path: one JNI call per message. */
    @Benchmark
    public void nativePerRecord(Blackhole bh) throws IOException {
        for (byte[] message : messages) {
            bh.consume(perRecord.deserialize(message));
        }
    }

    /** One native call for all messages (the kafka-native source's path). */
    @Benchmark
    public void nativeBatch(Blackhole bh) throws IOException {
        DecodedValues decoded = batchDecoder.decode(values, MESSAGES);
        for (int i = 0; i < decoded.rowCount(); i++) {
            bh.consume(decoded.row(i));
        }
    }

    private void verifyParity() throws IOException {
        DecodedValues batch = batchDecoder.decode(values, MESSAGES);
        if (batch.valueCount() != MESSAGES) {
            throw new IllegalStateException("the batch gave " + batch.valueCount() + " value entries for " + MESSAGES);
        }
        for (int i = 0; i < MESSAGES; i++) {
            RowData expected = oracle.deserialize(messages[i]);
            RowData single = perRecord.deserialize(messages[i]);
            if (expected == null || single == null || batch.rowEnd(i) - batch.rowStart(i) != 1) {
                throw new IllegalStateException("message " + i + " did not give exactly one row everywhere");
            }
            String diff = RowDataDiff.diff(rowType, expected, single);
            String batchDiff = RowDataDiff.diff(rowType, expected, batch.row(batch.rowStart(i)));
            if (diff != null || batchDiff != null) {
                throw new IllegalStateException("native rows differ from flink-protobuf's at message " + i + ": "
                        + (diff != null ? diff : batchDiff));
            }
        }
    }
}
