package io.karrow.flink.connector.kafka;

import io.karrow.flink.planner.PlannerHook;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.connectors.kafka.config.BoundedMode;
import org.apache.flink.streaming.connectors.kafka.config.StartupMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.common.TopicPartition;

import javax.annotation.Nullable;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@link KafkaNativeDynamicTableFactory} delegates to when Flink's Kafka connector is on the
 * class path.
 *
 * <p>It is Flink's {@link KafkaDynamicTableFactory} under another identifier: the same required and
 * optional options, format discovery ({@code format} / {@code value.format} / {@code key.format}
 * with their prefixed options), validation (unknown options, key fields, startup and bounded modes,
 * primary keys) and error messages. Only the runtimes differ: the source's ({@link
 * KafkaNativeDynamicSource}) and the sink's ({@link KafkaNativeDynamicSink}: batched native encode
 * in front of Flink's own {@code KafkaSink}).
 */
class FlinkKafkaTableFactory extends KafkaDynamicTableFactory implements KafkaNativeDynamicTableFactory.Delegate {

    @Override
    public String factoryIdentifier() {
        return KafkaNativeDynamicTableFactory.IDENTIFIER;
    }

    /**
     * Flink's {@code kafka} options plus {@link KafkaNativeConnectorOptions#SCAN_FETCH_MODE} and
     * {@link KafkaNativeConnectorOptions#SINK_PRODUCE_MODE}.
     */
    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(super.optionalOptions());
        options.add(KafkaNativeConnectorOptions.SCAN_FETCH_MODE);
        options.add(KafkaNativeConnectorOptions.SINK_PRODUCE_MODE);
        return options;
    }

    /**
     * Flink's source, told how to fetch ({@code scan.fetch-mode}) and which value format it decodes
     * with; installs karrow's planner program into the converting session ({@link PlannerHook}).
     */
    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        DynamicTableSource source = super.createDynamicTableSource(context);
        Map<String, String> options = context.getCatalogTable().getOptions();
        boolean nativeFetch = KafkaNativeConnectorOptions.nativeFetch(options);
        if (source instanceof KafkaNativeDynamicSource) {
            ((KafkaNativeDynamicSource) source).setNativeFetch(nativeFetch);
            ((KafkaNativeDynamicSource) source).setValueFormat(valueFormatIdentifier(options));
            ((KafkaNativeDynamicSource) source).setValueFormatIgnoresParseErrors(valueFormatIgnoresParseErrors(options));
        }
        PlannerHook.installForSource(context);
        return source;
    }

    /**
     * Flink's sink, told how to produce ({@code sink.produce-mode}) and which formats it encodes
     * with; installs karrow's planner program into the converting session ({@link PlannerHook}).
     */
    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        DynamicTableSink sink = super.createDynamicTableSink(context);
        Map<String, String> options = context.getCatalogTable().getOptions();
        boolean nativeProduce = KafkaNativeConnectorOptions.nativeProduce(options);
        if (sink instanceof KafkaNativeDynamicSink) {
            ((KafkaNativeDynamicSink) sink).setNativeProduce(nativeProduce);
            ((KafkaNativeDynamicSink) sink).setFormats(valueFormatIdentifier(options), options.get("key.format"));
        }
        PlannerHook.install(context);
        return sink;
    }

    /** Whether the value format's {@code ignore-parse-errors} option is on. */
    static boolean valueFormatIgnoresParseErrors(Map<String, String> options) {
        String prefix = options.get("value.format") != null ? "value." : "";
        String format = valueFormatIdentifier(options);
        return format != null && Boolean.parseBoolean(
                options.getOrDefault(prefix + format + ".ignore-parse-errors", "false").trim());
    }

    /** The identifier of the table's value format ({@code value.format}, or {@code format}). */
    static String valueFormatIdentifier(Map<String, String> options) {
        String format = options.get("value.format");
        return format != null ? format : options.get("format");
    }

    @Override
    protected KafkaDynamicSource createKafkaTableSource(
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
            Map<TopicPartition, Long> specificEndOffsets,
            long endTimestampMillis,
            String tableIdentifier,
            Integer parallelism) {
        return new KafkaNativeDynamicSource(
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
                specificEndOffsets,
                endTimestampMillis,
                tableIdentifier,
                parallelism);
    }

    @Override
    protected KafkaDynamicSink createKafkaTableSink(
            DataType physicalDataType,
            @Nullable EncodingFormat<SerializationSchema<RowData>> keyEncodingFormat,
            EncodingFormat<SerializationSchema<RowData>> valueEncodingFormat,
            int[] keyProjection,
            int[] valueProjection,
            @Nullable String keyPrefix,
            @Nullable List<String> topics,
            @Nullable Pattern topicPattern,
            Properties properties,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            Integer parallelism,
            @Nullable String transactionalIdPrefix,
            TransactionNamingStrategy transactionNamingStrategy) {
        return new KafkaNativeDynamicSink(
                physicalDataType,
                keyEncodingFormat,
                valueEncodingFormat,
                keyProjection,
                valueProjection,
                keyPrefix,
                topics,
                topicPattern,
                properties,
                partitioner,
                deliveryGuarantee,
                parallelism,
                transactionalIdPrefix,
                transactionNamingStrategy);
    }
}
