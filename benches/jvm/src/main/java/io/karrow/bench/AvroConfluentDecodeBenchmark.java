package io.karrow.bench;

import io.karrow.flink.formats.DecodedValues;
import io.karrow.flink.formats.avro.AvroConfluentNativeDeserializationSchema;
import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.testutils.DevRegistry;
import io.karrow.flink.testutils.RowDataDiff;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

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
public class AvroConfluentDecodeBenchmark extends ThreeWayDecodeBenchmark {

    private static final String SUBJECT = "bids-value";
    private static final long SEED = 42L;

    private DevRegistry registry;

    /** Starts the registry, encodes the bids, opens all three decoders and checks their rows agree. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        locateRegistryBinary();
        registry = DevRegistry.start();
        int schemaId = registry.register(SUBJECT, NexmarkBids.WRITER_SCHEMA);

        NexmarkBids.Generator generator = new NexmarkBids.Generator(schemaId, SEED);
        byte[][] written = new byte[MESSAGES][];
        for (int i = 0; i < MESSAGES; i++) {
            written[i] = generator.next();
        }

        RowType bids = NexmarkBids.rowType();
        InternalTypeInfo<RowData> typeInfo = InternalTypeInfo.of(bids);
        RegistryDecoderConfig config =
                new RegistryDecoderConfig(registry.url(), null, null, null, null, null, null, null, Map.of());

        DeserializationSchema<RowData> reference = ReferenceDeserializers.create(bids, typeInfo, registry.url(), null);
        reference.open(null);
        AvroConfluentNativeDeserializationSchema nativeSchema =
                new AvroConfluentNativeDeserializationSchema(bids, typeInfo, config, false);
        nativeSchema.open(null);
        long totalBytes = start(bids, written, reference, nativeSchema);

        verifyParity();
        System.out.printf(
                "%n[setup] %d bids, %.1f bytes/message on average, schema id %d, registry %s: native rows equal oracle rows%n",
                MESSAGES, (double) totalBytes / MESSAGES, schemaId, registry.url());
    }

    /** Stops the registry process. */
    @TearDown(Level.Trial)
    public void stopRegistry() {
        if (registry != null) {
            registry.close();
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
