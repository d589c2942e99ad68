package io.karrow.bench;

import io.karrow.flink.formats.avro.AvroConfluentNativeSerializationSchema;
import io.karrow.flink.formats.avro.reference.ReferenceDeserializers;
import io.karrow.flink.formats.avro.reference.ReferenceSerializers;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.testutils.DevRegistry;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.util.HexFormat;
import java.util.Map;

/**
 * Encodes {@value #MESSAGES} Nexmark bid rows into Confluent-framed Avro three ways, in one JMH run ({@link ThreeWayEncodeBenchmark}):
 * the oracle (what Flink's {@code avro-confluent} serializer runs: {@code AvroRowDataSerializationSchema}
 * over {@code RegistryAvroSerializationSchema}), the native format's per-record {@code serialize},
 * and the batch path of the {@code kafka-native} sink (row images copied into direct memory, one
 * native call). Rows are {@code BinaryRowData}, as a SQL pipeline hands them to a sink. Scores are
 * messages per second.
 *
 * <p>{@code @Setup} starts the dev registry, decodes generated bids with the oracle to get the rows,
 * and fails unless both native paths write exactly the oracle's bytes for every row.
 */
public class AvroConfluentEncodeBenchmark extends ThreeWayEncodeBenchmark {

    private static final String SUBJECT = "bids_out-value";

    private DevRegistry registry;

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
        BinaryRowData[] rows = new BinaryRowData[MESSAGES];
        for (int i = 0; i < MESSAGES; i++) {
            rows[i] = toBinary.toBinaryRow(decoder.deserialize(generator.next())).copy();
        }

        SerializationSchema<RowData> oracle = ReferenceSerializers.create(rowType, registry.url(), SUBJECT, null);
        oracle.open(null);
        RegistryDecoderConfig registryConfig =
                new RegistryDecoderConfig(registry.url(), null, null, null, null, null, null, null, Map.of());
        AvroConfluentNativeSerializationSchema perRecord =
                new AvroConfluentNativeSerializationSchema(rowType, new RegistryEncoderConfig(registryConfig, SUBJECT));
        perRecord.open(null);

        start(rows, oracle, perRecord, "the oracle", HexFormat.of()::formatHex);
        System.out.printf("%n[setup] %d bid rows, registry %s: native bytes equal the oracle's%n", MESSAGES, registry.url());
    }

    /** Stops the registry process. */
    @TearDown(Level.Trial)
    public void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }
}
