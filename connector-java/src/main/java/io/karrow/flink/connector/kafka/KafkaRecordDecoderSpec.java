package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.NativeDeserializationSchema;
import io.karrow.flink.nativebridge.NativeSessionConfig;
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
        if (copy.fusedPlan != null) {
            return openFused(copy, metrics);
        }
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

    /**
     * The decoder of a fused scan: its values are decoded and the fused Calc runs on them in one
     * native call per batch ({@link FusedCalcBatchDecoder}); nothing is decoded per record in Java.
     * The planner fuses only value-only scans of a native value format (no key, no metadata), so the
     * Calc's output rows are the records' rows as they are.
     */
    private static KafkaRecordBatchDecoder openFused(KafkaRecordDecoderSpec spec, KafkaNativeSourceMetrics metrics)
            throws IOException {
        if (spec.keyDeserialization != null || !spec.assembler.isPassThrough()
                || !(spec.valueDeserialization instanceof NativeDeserializationSchema)) {
            // The planner declines these (KafkaNativeDynamicSource.whyNotFusable): reaching this is a
            // planner bug, never a silent fallback.
            throw new IllegalStateException("The kafka-native scan was planned with a fused Calc ("
                    + spec.fusedPlan.digest() + ") but reads keys, metadata or a value format that does not"
                    + " decode natively");
        }
        NativeSessionConfig decoder =
                ((NativeDeserializationSchema<?>) spec.valueDeserialization).batchDecoderSession();
        if (spec.fusedPlan.encodes()) {
            return KafkaRecordBatchDecoder.fullyFused(spec.valueDeserialization, spec.assembler, metrics,
                    FusedCalcBatchDecoder.openSession(spec.fusedPlan, decoder),
                    spec.fusedPlan.outputType().getFieldCount());
        }
        return KafkaRecordBatchDecoder.fused(spec.valueDeserialization, spec.assembler, metrics,
                FusedCalcBatchDecoder.open(spec.fusedPlan, decoder));
    }
}
