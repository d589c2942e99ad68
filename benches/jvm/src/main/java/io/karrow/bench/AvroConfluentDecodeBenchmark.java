package io.karrow.bench;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.ValueBatchDecoder;
import io.karrow.flink.formats.avro.AvroConfluentNativeDeserializationSchema;
import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Decodes {@value #MESSAGES} Confluent-framed Avro Nexmark bids into Flink rows three ways, in one
 * JMH run: the oracle (what Flink's {@code avro-confluent} runs), the native format's per-record
 * {@code deserialize}, and one native batch call (the {@code kafka-native} source's {@code
 * ValueBatchDecoder}) whose rows are {@code BinaryRowData} views. Scores are messages per second.
 *
 * <p>{@code @Setup} starts the dev registry ({@code karrow registry serve} on a free port, binary from
 * {@code -Dkarrow.registry.binary} or {@code target/release/karrow} above the working directory),
 * registers the writer schema, and fails unless all three paths give the oracle's rows for every
 * message. For the batch path the values are copied once into direct memory in {@code @Setup}, as a
 * connector's fetch buffer would hold them; the timed part is the native call plus the row wrapping.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(AvroConfluentDecodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class AvroConfluentDecodeBenchmark {

    /** Messages decoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private static final String SUBJECT = "bids-value";
    private static final long SEED = 42L;

    private DevRegistry registry;
    private RowType rowType;
    private byte[][] messages;

    private DeserializationSchema<RowData> oracle;
    private AvroConfluentNativeDeserializationSchema perRecord;

    private ValueBatchDecoder batchDecoder;
    private DirectValueBuffer values;

    /** Starts the registry, encodes the bids, opens all three decoders and checks their rows agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        locateRegistryBinary();
        registry = DevRegistry.start();
        int schemaId = registry.register(SUBJECT, NexmarkBids.WRITER_SCHEMA);

        NexmarkBids.Generator generator = new NexmarkBids.Generator(schemaId, SEED);
        messages = new byte[MESSAGES][];
        int totalBytes = 0;
        for (int i = 0; i < MESSAGES; i++) {
            messages[i] = generator.next();
            totalBytes += messages[i].length;
        }

        rowType = NexmarkBids.rowType();
        InternalTypeInfo<RowData> typeInfo = InternalTypeInfo.of(rowType);
        RegistryDecoderConfig config =
                new RegistryDecoderConfig(registry.url(), null, null, null, null, null, null, null, Map.of());

        oracle = ReferenceDeserializers.create(rowType, typeInfo, registry.url(), null);
        oracle.open(null);
        perRecord = new AvroConfluentNativeDeserializationSchema(rowType, typeInfo, config, false);
        perRecord.open(null);
        batchDecoder = perRecord.createBatchDecoder();
        values = new DirectValueBuffer();
        for (byte[] message : messages) {
            values.add(message);
        }

        verifyParity();
        System.out.printf(
                "%n[setup] %d bids, %.1f bytes/message on average, schema id %d, registry %s: native rows equal oracle rows%n",
                MESSAGES, (double) totalBytes / MESSAGES, schemaId, registry.url());
    }

    /** Frees the native decoders and stops the registry process. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (perRecord != null) {
            perRecord.close();
        }
        if (batchDecoder != null) {
            batchDecoder.close();
        }
        if (values != null) {
            values.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    /** The oracle: Flink's registry-aware Avro deserialization, one {@code deserialize} per message. */
    @Benchmark
    public void oracle(Blackhole bh) throws IOException {
        for (byte[] message : messages) {
            bh.consume(oracle.deserialize(message));
        }
    }

    /** The native format's per-record path: one JNI call per message, rows are {@link BinaryRowData}. */
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

    private void verifyParity() throws IOException {
        DecodedValues batch = batchDecoder.decode(values, MESSAGES);
        if (batch.rowCount() != MESSAGES) {
            throw new IllegalStateException("nativeBatch gave " + batch.rowCount() + " rows for " + MESSAGES + " bids");
        }
        for (int i = 0; i < MESSAGES; i++) {
            RowData expected = oracle.deserialize(messages[i]);
            String perRecordDiff = RowDataDiff.diff(rowType, expected, perRecord.deserialize(messages[i]));
            if (perRecordDiff != null) {
                throw new IllegalStateException("nativePerRecord differs from the oracle at message " + i + ": " + perRecordDiff);
            }
            String batchDiff = RowDataDiff.diff(rowType, expected, batch.row(batch.rowStart(i)));
            if (batchDiff != null) {
                throw new IllegalStateException("nativeBatch differs from the oracle at message " + i + ": " + batchDiff);
            }
        }
    }

    /** Points {@code karrow.registry.binary} at {@code target/release/karrow} when it is not set. */
    static void locateRegistryBinary() {
        if (System.getProperty("karrow.registry.binary") != null) {
            return;
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("target/release/karrow");
            if (Files.isExecutable(candidate)) {
                System.setProperty("karrow.registry.binary", candidate.toString());
                return;
            }
        }
    }
}
