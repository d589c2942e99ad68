package io.karrow.bench;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.formats.json.JsonDecoderConfig;
import io.karrow.flink.formats.json.JsonNativeDeserializationSchema;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Decodes {@value #MESSAGES} JSON Nexmark bids (written by flink-json's own serializer) into Flink
 * rows three ways, in one JMH run: flink-json's default decoder ({@code
 * JsonParserRowDataDeserializationSchema}, what {@code 'format' = 'json'} runs), the {@code json-native}
 * format's per-record {@code deserialize}, and its batch decoder (one native call for all values, as
 * the {@code kafka-native} source makes per fetched batch). Scores are messages per second.
 *
 * <p>{@code @Setup} fails unless both native paths give flink-json's rows for every message. The batch
 * values are copied into direct memory once in {@code @Setup}, as a fetch buffer would hold them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(JsonDecodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class JsonDecodeBenchmark {

    /** Messages decoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private RowType rowType;
    private byte[][] messages;
    private JsonParserRowDataDeserializationSchema oracle;
    private JsonNativeDeserializationSchema perRecord;
    private ValueBatchDecoder batchDecoder;
    private DirectValueBuffer values;

    /** Writes the bids with flink-json, opens the decoders and checks that their rows agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        rowType = NexmarkBids.rowType();
        messages = bidMessages(rowType, MESSAGES);
        InternalTypeInfo<RowData> typeInfo = InternalTypeInfo.of(rowType);
        oracle = new JsonParserRowDataDeserializationSchema(rowType, typeInfo, false, false, TimestampFormat.SQL);
        oracle.open(null);
        perRecord = new JsonNativeDeserializationSchema(
                rowType, typeInfo, new JsonDecoderConfig(false, false, "SQL", true), false);
        perRecord.open(null);
        batchDecoder = perRecord.createBatchDecoder();
        values = new DirectValueBuffer();
        long bytes = 0;
        for (byte[] message : messages) {
            values.add(message);
            bytes += message.length;
        }
        verifyParity();
        System.out.printf("%n[setup] %d JSON bids, %.1f bytes/message on average: native rows equal flink-json's%n",
                MESSAGES, (double) bytes / MESSAGES);
    }

    /** Frees the native decoders. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (batchDecoder != null) {
            batchDecoder.close();
        }
        if (perRecord != null) {
            perRecord.close();
        }
        if (values != null) {
            values.close();
        }
    }

    /** flink-json's default decoder, one {@code deserialize} per message. */
    @Benchmark
    public void oracle(Blackhole bh) throws IOException {
        Collector<RowData> out = new BlackholeCollector(bh);
        for (byte[] message : messages) {
            oracle.deserialize(message, out);
        }
    }

    /** The json-native format's per-record path: one JNI call per message. */
    @Benchmark
    public void nativePerRecord(Blackhole bh) throws IOException {
        Collector<RowData> out = new BlackholeCollector(bh);
        for (byte[] message : messages) {
            perRecord.deserialize(message, out);
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

    /** The bids as flink-json writes them (so the input is what a Flink producer would emit). */
    static byte[][] bidMessages(RowType rowType, int count) throws Exception {
        JsonRowDataSerializationSchema writer = new JsonRowDataSerializationSchema(
                rowType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        writer.open(null);
        NexmarkBids.Generator generator = new NexmarkBids.Generator(0, 42L);
        byte[][] out = new byte[count][];
        for (int i = 0; i < count; i++) {
            out[i] = writer.serialize(generator.nextRow());
        }
        return out;
    }

    private void verifyParity() throws IOException {
        DecodedValues batch = batchDecoder.decode(values, MESSAGES);
        List<RowData> expected = new ArrayList<>();
        List<RowData> single = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            expected.clear();
            single.clear();
            oracle.deserialize(messages[i], new ListCollector<>(expected));
            perRecord.deserialize(messages[i], new ListCollector<>(single));
            if (expected.size() != 1 || single.size() != 1 || batch.rowEnd(i) - batch.rowStart(i) != 1) {
                throw new IllegalStateException("message " + i + " did not give exactly one row everywhere");
            }
            String diff = RowDataDiff.diff(rowType, expected.get(0), single.get(0));
            String batchDiff = RowDataDiff.diff(rowType, expected.get(0), batch.row(batch.rowStart(i)));
            if (diff != null || batchDiff != null) {
                throw new IllegalStateException("native rows differ from flink-json's at message " + i + ": "
                        + (diff != null ? diff : batchDiff));
            }
        }
    }

    /** Hands every row to the blackhole. */
    private static final class BlackholeCollector implements Collector<RowData> {
        private final Blackhole bh;

        BlackholeCollector(Blackhole bh) {
            this.bh = bh;
        }

        @Override
        public void collect(RowData record) {
            bh.consume(record);
        }

        @Override
        public void close() {}
    }
}
