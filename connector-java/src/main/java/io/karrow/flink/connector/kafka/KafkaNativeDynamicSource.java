package io.karrow.flink.connector.kafka;

import io.karrow.flink.formats.avro.AvroConfluentNativeFormatFactory;
import io.karrow.flink.formats.json.JsonConfluentNativeFormatFactory;
import io.karrow.flink.formats.json.JsonNativeFormatFactory;
import io.karrow.flink.formats.protobuf.ProtobufConfluentNativeFormatFactory;
import io.karrow.flink.formats.protobuf.ProtobufNativeFormatFactory;
import io.karrow.flink.planner.FusableScan;
import io.karrow.flink.planner.FusedCalcPlan;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.connectors.kafka.config.BoundedMode;
import org.apache.flink.streaming.connectors.kafka.config.StartupMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.kafka.common.TopicPartition;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The {@code kafka-native} table source: Flink's {@link KafkaDynamicSource} (options, metadata,
 * watermark push-down, changelog mode, planning: all inherited) whose runtime is a {@link
 * KafkaNativeSource} instead of the stock {@code KafkaSource}.
 *
 * <p>It is a {@link FusableScan}: karrow's planner may hand a copy of it a Calc's plan to run after
 * decoding ({@link #withFusedPlan}).
 *
 * <p>The stock {@code KafkaSource} is still built by the inherited {@code createKafkaSource} (so
 * starting and stopping offsets, subscription and consumer properties are configured by Flink's own
 * code) and wrapped. The operator keeps the stock uid ({@code kafka}) and name, so savepoints move
 * between {@code kafka} and {@code kafka-native} tables.
 */
public class KafkaNativeDynamicSource extends KafkaDynamicSource implements FusableScan {

    /** The value formats whose decoding runs natively (the ones a fused plan can follow). */
    static final Set<String> NATIVE_VALUE_FORMATS = Set.of(
            AvroConfluentNativeFormatFactory.IDENTIFIER,
            JsonNativeFormatFactory.IDENTIFIER,
            JsonConfluentNativeFormatFactory.IDENTIFIER,
            ProtobufNativeFormatFactory.IDENTIFIER,
            ProtobufConfluentNativeFormatFactory.IDENTIFIER);

    /** The JSON value formats (their stock counterparts catch downstream errors, see whyNotFusable). */
    static final Set<String> JSON_VALUE_FORMATS =
            Set.of(JsonNativeFormatFactory.IDENTIFIER, JsonConfluentNativeFormatFactory.IDENTIFIER);

    /** The transformation uid suffix the stock source uses; kept for savepoint compatibility. */
    private static final String KAFKA_TRANSFORMATION = "kafka";

    /** Creates the source; arguments as for {@link KafkaDynamicSource} (never upsert mode). */
    public KafkaNativeDynamicSource(
            DataType physicalDataType,
            @Nullable DecodingFormat<DeserializationSchema<RowData>> keyDecodingFormat,
            DecodingFormat<DeserializationSchema<RowData>> valueDecodingFormat,
            int[] keyProjection,
            int[] valueProjection,
            @Nullable String keyPrefix,
            @Nullable List<String> topics,
            @Nullable Pattern topicPattern,
            Properties properties,
            StartupMode startupMode,
            Map<TopicPartition, Long> specificStartupOffsets,
            long startupTimestampMillis,
            BoundedMode boundedMode,
            Map<TopicPartition, Long> specificBoundedOffsets,
            long boundedTimestampMillis,
            String tableIdentifier,
            @Nullable Integer parallelism) {
        super(physicalDataType, keyDecodingFormat, valueDecodingFormat, keyProjection, valueProjection, keyPrefix,
                topics, topicPattern, properties, startupMode, specificStartupOffsets, startupTimestampMillis,
                boundedMode, specificBoundedOffsets, boundedTimestampMillis, false, tableIdentifier, parallelism);
    }

    /** Whether records are fetched natively ({@code 'scan.fetch-mode' = 'native'}). */
    private boolean nativeFetch;

    /** Selects the native fetch ({@code 'scan.fetch-mode' = 'native'}) or Kafka's Java consumer. */
    void setNativeFetch(boolean nativeFetch) {
        this.nativeFetch = nativeFetch;
    }

    /** Whether records are fetched natively. */
    boolean isNativeFetch() {
        return nativeFetch;
    }

    /** The identifier of the table's value format. */
    private @Nullable String valueFormat;

    /** The Calc this source runs after decoding, when karrow's planner fused one into it. */
    private @Nullable FusedCalcPlan fusedPlan;

    /** Whether the value format skips values it cannot read ({@code ignore-parse-errors}). */
    private boolean valueFormatIgnoresParseErrors;

    /** Records the value format's {@code ignore-parse-errors}. */
    void setValueFormatIgnoresParseErrors(boolean ignores) {
        this.valueFormatIgnoresParseErrors = ignores;
    }

    /** Records the identifier of the table's value format ({@code value.format} / {@code format}). */
    void setValueFormat(@Nullable String valueFormat) {
        this.valueFormat = valueFormat;
    }

    /** The Calc this source runs, or null. */
    @Override
    public @Nullable FusedCalcPlan fusedPlan() {
        return fusedPlan;
    }

    @Override
    public @Nullable String whyNotFusable() {
        if (valueFormat == null || !NATIVE_VALUE_FORMATS.contains(valueFormat)) {
            return "the value format '" + valueFormat + "' does not decode natively";
        }
        if (valueFormatIgnoresParseErrors && JSON_VALUE_FORMATS.contains(valueFormat)) {
            // Flink's json format decodes inside a try that also covers emitting the row into the
            // chained Calc: with ignore-parse-errors it swallows the Calc's exceptions too (the record
            // is dropped). The fused runtime fails on them instead, so it does not run these scans.
            return "the value format '" + valueFormat + "' has ignore-parse-errors on, under which Flink's json"
                    + " format also drops records the chained Calc fails on; the fused runtime does not (yet)";
        }
        if (keyDecodingFormat != null) {
            return "the table has key columns (key.format), which the operator plan does not carry yet";
        }
        if (!metadataKeys.isEmpty()) {
            return "the scan reads metadata columns " + metadataKeys + ", which the operator plan does not carry yet";
        }
        // A pushed-down watermark strategy is fusable: the planner generates it again over the
        // fused Calc's rows (CalcFusion), or declines the Calc.
        return null;
    }

    @Override
    public @Nullable TypeInformation<RowData> carrierType() {
        return fusedPlan != null && fusedPlan.encodes() ? EncodedBatchRowTypeInfo.INSTANCE : null;
    }

    @Override
    public @Nullable String whyNotFullyFusable() {
        if (watermarkStrategy != null) {
            return "the scan assigns watermarks: a fully fused scan emits encoded batches, not the rows Flink's"
                    + " watermark generator reads";
        }
        if (parallelism != null) {
            return "the scan sets 'scan.parallelism': the fused source would not chain with the sink, and full"
                    + " fusion's encoded batches cross only chained edges";
        }
        return null;
    }

    @Override
    public DynamicTableSource withFusedPlan(FusedCalcPlan plan) {
        KafkaNativeDynamicSource copy = (KafkaNativeDynamicSource) copy();
        copy.fusedPlan = plan;
        return copy;
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        final DeserializationSchema<RowData> keyDeserialization =
                createDeserialization(context, keyDecodingFormat, keyProjection, keyPrefix);
        final DeserializationSchema<RowData> valueDeserialization =
                createDeserialization(context, valueDecodingFormat, valueProjection, null);
        final TypeInformation<RowData> producedTypeInfo = context.createTypeInformation(producedDataType);

        final KafkaSource<RowData> stockSource =
                createKafkaSource(keyDeserialization, valueDeserialization, producedTypeInfo);
        final KafkaNativeSource source = new KafkaNativeSource(
                stockSource,
                decoderSpec(keyDeserialization, valueDeserialization),
                producedType(producedTypeInfo),
                nativeFetch);

        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext providerContext, StreamExecutionEnvironment execEnv) {
                if (watermarkStrategy == null) {
                    watermarkStrategy = WatermarkStrategy.noWatermarks();
                }
                DataStreamSource<RowData> sourceStream =
                        execEnv.fromSource(source, watermarkStrategy, "KafkaSource-" + tableIdentifier);
                providerContext.generateUid(KAFKA_TRANSFORMATION).ifPresent(sourceStream::uid);
                return sourceStream;
            }

            @Override
            public boolean isBounded() {
                return source.getBoundedness() == Boundedness.BOUNDED;
            }

            @Override
            public Optional<Integer> getParallelism() {
                return Optional.ofNullable(parallelism);
            }
        };
    }

    /**
     * What the source emits: the table's rows; a fused Calc's output rows; or, fully fused (the plan
     * has the sink's encode stage), one {@link EncodedBatchRow} per split and fetched batch, of a
     * type that only crosses chained edges ({@link EncodedBatchRowTypeInfo}).
     */
    private TypeInformation<RowData> producedType(TypeInformation<RowData> tableRows) {
        if (fusedPlan == null) {
            return tableRows;
        }
        return fusedPlan.encodes() ? EncodedBatchRowTypeInfo.INSTANCE : InternalTypeInfo.of(fusedPlan.outputType());
    }

    /** Key/value schemas plus the output projection, computed as the stock source's deserializer is. */
    private KafkaRecordDecoderSpec decoderSpec(
            @Nullable DeserializationSchema<RowData> keyDeserialization,
            DeserializationSchema<RowData> valueDeserialization) {
        KafkaReadableMetadata[] metadata =
                metadataKeys.stream().map(KafkaReadableMetadata::of).toArray(KafkaReadableMetadata[]::new);
        int adjustedPhysicalArity = DataType.getFieldDataTypes(producedDataType).size() - metadataKeys.size();
        // Value-format metadata columns (value.*) follow the physical columns and belong to the value row.
        int[] adjustedValueProjection = IntStream.concat(
                        IntStream.of(valueProjection),
                        IntStream.range(keyProjection.length + valueProjection.length, adjustedPhysicalArity))
                .toArray();
        KafkaRowAssembler assembler = new KafkaRowAssembler(
                adjustedPhysicalArity,
                keyProjection,
                adjustedValueProjection,
                metadata,
                (RowType) producedDataType.getLogicalType());
        return new KafkaRecordDecoderSpec(keyDeserialization, valueDeserialization, assembler, fusedPlan);
    }

    private @Nullable DeserializationSchema<RowData> createDeserialization(
            DynamicTableSource.Context context,
            @Nullable DecodingFormat<DeserializationSchema<RowData>> format,
            int[] projection,
            @Nullable String prefix) {
        if (format == null) {
            return null;
        }
        return format.createRuntimeDecoder(context, FormatDataTypes.of(physicalDataType, projection, prefix));
    }

    @Override
    public DynamicTableSource copy() {
        final KafkaNativeDynamicSource copy = new KafkaNativeDynamicSource(
                physicalDataType,
                keyDecodingFormat,
                valueDecodingFormat,
                keyProjection,
                valueProjection,
                keyPrefix,
                topics,
                topicPattern,
                properties,
                startupMode,
                specificStartupOffsets,
                startupTimestampMillis,
                boundedMode,
                specificBoundedOffsets,
                boundedTimestampMillis,
                tableIdentifier,
                parallelism);
        copy.producedDataType = producedDataType;
        copy.metadataKeys = metadataKeys;
        copy.watermarkStrategy = watermarkStrategy;
        copy.nativeFetch = nativeFetch;
        copy.valueFormat = valueFormat;
        copy.valueFormatIgnoresParseErrors = valueFormatIgnoresParseErrors;
        copy.fusedPlan = fusedPlan;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return fusedPlan == null ? "Kafka native table source" : "Kafka native table source with a fused Calc";
    }
}
