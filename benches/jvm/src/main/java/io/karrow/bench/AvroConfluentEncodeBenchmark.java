package io.karrow.bench;

import io.karrow.flink.formats.ValueBatchEncoder;
import io.karrow.flink.formats.avro.AvroConfluentNativeSerializationSchema;
import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;
import io.karrow.flink.formats.avro.reference.ReferenceSerializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.nativebridge.DirectValueBuffer;
import io.karrow.flink.testutils.DevRegistry;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Encodes {@value #MESSAGES} Nexmark bid rows into Confluent-framed Avro three ways, in one JMH run:
 * the oracle (what Flink's {@code avro-confluent} serializer runs: {@code AvroRowDataSerializationSchema}
 * over {@code RegistryAvroSerializationSchema}), the native format's per-record {@code serialize},
 * and the batch path of the {@code kafka-native} sink (row images copied into direct memory, one
 * native call). Rows are {@code BinaryRowData}, as a SQL pipeline hands them to a sink. Scores are
 * messages per second.
 *
 * <p>{@code @Setup} starts the dev registry, decodes generated bids with the oracle to get the rows,
 * and fails unless both native paths write exactly the oracle's bytes for every row.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(AvroConfluentEncodeBenchmark.MESSAGES)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
public class AvroConfluentEncodeBenchmark {

    /** Rows encoded per benchmark invocation. */
    public static final int MESSAGES = 8192;

    private static final String SUBJECT = "bids_out-value";

    private DevRegistry registry;
    private BinaryRowData[] rows;

    private SerializationSchema<RowData> oracle;
    private AvroConfluentNativeSerializationSchema perRecord;
    private ValueBatchEncoder batchEncoder;
    private DirectValueBuffer images;
    private int[] offsets;

    /** Starts the registry, builds the rows, opens the three encoders and checks their bytes agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        AvroConfluentDecodeBenchmark.locateRegistryBinary();
        registry = DevRegistry.start();
        int writerId = registry.register("bids-value", NexmarkBids.WRITER_SCHEMA);

        RowType rowType = NexmarkBids.rowType();
        DeserializationSchema<RowData> decoder =
                ReferenceDeserializers.create(rowType, InternalTypeInfo.of(rowType), registry.url(), null);
        decoder.open(null);
        RowDataSerializer toBinary = new RowDataSerializer(rowType);
        NexmarkBids.Generator generator = new NexmarkBids.Generator(writerId, 42L);
        rows = new BinaryRowData[MESSAGES];
        for (int i = 0; i < MESSAGES; i++) {
            rows[i] = toBinary.toBinaryRow(decoder.deserialize(generator.next())).copy();
        }

        oracle = ReferenceSerializers.create(rowType, registry.url(), SUBJECT, null);
        oracle.open(null);
        RegistryDecoderConfig registryConfig =
                new RegistryDecoderConfig(registry.url(), null, null, null, null, null, null, null, Map.of());
        perRecord = new AvroConfluentNativeSerializationSchema(rowType, new RegistryEncoderConfig(registryConfig, SUBJECT));
        perRecord.open(null);
        batchEncoder = perRecord.createBatchEncoder();
        images = new DirectValueBuffer();
        offsets = new int[MESSAGES + 1];

        verifyParity();
        System.out.printf("%n[setup] %d bid rows, registry %s: native bytes equal the oracle's%n", MESSAGES, registry.url());
    }

    /** Frees the native encoders and stops the registry process. */
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
        if (registry != null) {
            registry.close();
        }
    }

    /** The oracle: flink-avro's registry-aware serialization, one {@code serialize} per row. */
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
            images.add(imageOf(row));
        }
        return batchEncoder.encode(images, MESSAGES, offsets);
    }

    private static byte[] imageOf(BinaryRowData row) {
        return row.getSegments()[0].getArray();
    }

    private void verifyParity() throws IOException {
        byte[] batch = encodeBatch();
        for (int i = 0; i < MESSAGES; i++) {
            byte[] expected = oracle.serialize(rows[i]);
            byte[] single = perRecord.serialize(rows[i]);
            byte[] fromBatch = Arrays.copyOfRange(batch, offsets[i], offsets[i + 1]);
            if (!Arrays.equals(expected, single) || !Arrays.equals(expected, fromBatch)) {
                throw new IllegalStateException("native bytes differ from the oracle's at row " + i);
            }
        }
    }
}
