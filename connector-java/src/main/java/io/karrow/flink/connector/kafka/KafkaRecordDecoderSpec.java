package io.karrow.flink.connector.kafka;

import io.karrow.flink.planner.FusedCalcPlan;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.UserCodeClassLoader;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;

/**
 * Everything needed to decode Kafka records into the table's rows: the key and value formats'
 * deserialization schemas and the row assembler. Serialized with the source; every split reader
 * opens its own {@link KafkaRecordBatchDecoder} from a private copy, so no schema instance is shared
 * between threads.
 */
final class KafkaRecordDecoderSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    private final @Nullable DeserializationSchema<RowData> keyDeserialization;
    private final DeserializationSchema<RowData> valueDeserialization;
    private final KafkaRowAssembler assembler;
    private final @Nullable FusedCalcPlan fusedPlan;

    KafkaRecordDecoderSpec(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler) {
        this(keyDeserialization, valueDeserialization, assembler, null);
    }

    /** As above; {@code fusedPlan} is the Calc karrow's planner fused into the scan, if any. */
    KafkaRecordDecoderSpec(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization,
            KafkaRowAssembler assembler,
            @Nullable FusedCalcPlan fusedPlan) {
        this.keyDeserialization = keyDeserialization;
        this.valueDeserialization = valueDeserialization;
        this.assembler = assembler;
        this.fusedPlan = fusedPlan;
    }

    /**
     * Opens a decoder on a copy of this spec: opens the key and value schemas like the stock source
     * does (metric group {@code deserializer}) and, for batch-capable value formats, a batch decoder.
     */
    KafkaRecordBatchDecoder open(SourceReaderContext readerContext, KafkaNativeSourceMetrics metrics) throws IOException {
        if (fusedPlan != null) {
            // The planner fuses only plans the native operator core says it runs (NativePlanCheck),
            // and this build has none: reaching this is a planner bug, never a silent fallback.
            throw new UnsupportedOperationException("This kafka-native scan was planned with a fused Calc ("
                    + fusedPlan.digest() + "), but this build of karrow has no fused runtime. SET"
                    + " 'karrow.operator-core.enabled' = 'false' to plan it with Flink alone.");
        }
        KafkaRecordDecoderSpec copy;
        try {
            copy = InstantiationUtil.clone(this, readerContext.getUserCodeClassLoader().asClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IOException("Could not copy the Kafka record decoders", e);
        }
        DeserializationSchema.InitializationContext context = new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return readerContext.metricGroup().addGroup("deserializer");
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return readerContext.getUserCodeClassLoader();
            }
        };
        try {
            if (copy.keyDeserialization != null) {
                copy.keyDeserialization.open(context);
            }
            copy.valueDeserialization.open(context);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Could not open the Kafka record deserializers", e);
        }
        return new KafkaRecordBatchDecoder(copy.keyDeserialization, copy.valueDeserialization, copy.assembler, metrics);
    }
}
