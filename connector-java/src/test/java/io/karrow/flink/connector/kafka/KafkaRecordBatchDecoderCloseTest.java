package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.karrow.flink.formats.avro.AvroConfluentNativeDeserializationSchema;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.NativeStats;
import io.karrow.flink.nativebridge.SessionKind;

import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.lang.ref.Reference;
import java.util.Map;

/**
 * The split reader's decoder frees every native session it holds when it closes, at once: its batch
 * decoder and the native decoder its value schema opened when the source opened it (Flink's {@code
 * DeserializationSchema} has no close hook, so before {@link KafkaRecordBatchDecoder#close()} freed it,
 * only the schema's cleaner did, whenever the garbage collector ran). Needs the native library.
 */
class KafkaRecordBatchDecoderCloseTest {

    @Test
    void closeFreesTheBatchDecoderAndTheValueSchemasOwnDecoderWithoutTheGarbageCollector() throws Exception {
        RowType rowType = (RowType) DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT())).getLogicalType();
        // No request is made when a decoder opens: the registry is only asked for an unseen schema id.
        RegistryDecoderConfig config =
                new RegistryDecoderConfig("http://127.0.0.1:1", null, null, null, null, null, null, null, Map.of());
        AvroConfluentNativeDeserializationSchema value =
                new AvroConfluentNativeDeserializationSchema(rowType, InternalTypeInfo.of(rowType), config, false);
        long before = NativeStats.snapshot().liveHandles(SessionKind.AVRO_DECODER);
        // As KafkaRecordDecoderSpec.open: the schema is opened, then the batch decoder is made from it.
        value.open(null);
        KafkaRecordBatchDecoder decoder = new KafkaRecordBatchDecoder(null, value,
                new KafkaRowAssembler(1, new int[0], new int[] {0}, new KafkaReadableMetadata[0], rowType),
                new KafkaNativeSourceMetrics(UnregisteredMetricsGroup.createSourceReaderMetricGroup()));
        assertThat(decoder.isBatched()).isTrue();
        assertThat(NativeStats.snapshot().liveHandles(SessionKind.AVRO_DECODER) - before)
                .as("the schema's decoder and the batch decoder").isEqualTo(2);

        decoder.close();
        assertThat(NativeStats.snapshot().liveHandles(SessionKind.AVRO_DECODER))
                .as("Avro decoders open right after the close").isEqualTo(before);
        // The schema is still reachable here: its cleaner cannot have been what freed its decoder.
        Reference.reachabilityFence(value);
    }
}
