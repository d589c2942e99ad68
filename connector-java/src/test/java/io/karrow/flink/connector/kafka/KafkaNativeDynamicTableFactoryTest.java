package io.karrow.flink.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/** Options, validation and planning of {@code 'connector' = 'kafka-native'} (no broker needed). */
class KafkaNativeDynamicTableFactoryTest {

    private static final ResolvedSchema SCHEMA = ResolvedSchema.of(
            Column.physical("k", DataTypes.STRING()),
            Column.physical("v", DataTypes.STRING()),
            Column.metadata("off", DataTypes.BIGINT(), "offset", true));

    private static Map<String, String> options(String connector) {
        Map<String, String> options = new HashMap<>();
        options.put("connector", connector);
        options.put("topic", "t");
        options.put("properties.bootstrap.servers", "127.0.0.1:1");
        options.put("properties.group.id", "g");
        options.put("scan.startup.mode", "earliest-offset");
        options.put("scan.bounded.mode", "latest-offset");
        options.put("key.format", "raw");
        options.put("key.fields", "k");
        options.put("value.format", "raw");
        options.put("value.fields-include", "EXCEPT_KEY");
        return options;
    }

    private static DynamicTableSource source(Map<String, String> options) {
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(SCHEMA).build())
                .options(options)
                .build();
        return FactoryUtil.createDynamicTableSource(
                null, ObjectIdentifier.of("c", "d", "t"), new ResolvedCatalogTable(table, SCHEMA), Map.of(),
                new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    @Test
    void discoveredThroughServiceLoader() {
        assertThat(FactoryUtil.discoverFactory(getClass().getClassLoader(), DynamicTableSourceFactory.class, "kafka-native"))
                .isInstanceOf(KafkaNativeDynamicTableFactory.class);
    }

    @Test
    void acceptsEveryOptionOfTheStockKafkaSource() {
        assertThat(new KafkaNativeDynamicTableFactory().requiredOptions())
                .isEqualTo(new org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory().requiredOptions());
        Set<ConfigOption<?>> optional = new HashSet<>(
                new org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory().optionalOptions());
        optional.add(KafkaNativeConnectorOptions.SCAN_FETCH_MODE);
        optional.add(KafkaNativeConnectorOptions.SINK_PRODUCE_MODE);
        assertThat(new KafkaNativeDynamicTableFactory().optionalOptions()).isEqualTo(optional);
        DynamicTableSource source = source(options("kafka-native"));
        assertThat(source).isInstanceOf(KafkaNativeDynamicSource.class);
        // Same planning-time view as the stock source (minus the class).
        KafkaDynamicSource stock = (KafkaDynamicSource) source(options("kafka"));
        assertThat(((KafkaDynamicSource) source).listReadableMetadata()).isEqualTo(stock.listReadableMetadata());
        assertThat(source.copy()).isInstanceOf(KafkaNativeDynamicSource.class).isEqualTo(source);
    }

    @Test
    void unknownOptionsFailLikeTheStockConnector() {
        Map<String, String> options = options("kafka-native");
        options.put("scan.no-such-option", "1");
        assertThatThrownBy(() -> source(options))
                .hasStackTraceContaining("Unsupported options found for 'kafka-native'")
                .hasStackTraceContaining("scan.no-such-option");
    }

    @Test
    void fetchModeSelectsTheNativeFetchAndSurvivesCopies() {
        assertThat(((KafkaNativeDynamicSource) source(options("kafka-native"))).isNativeFetch()).isFalse();
        Map<String, String> options = options("kafka-native");
        options.put("scan.fetch-mode", "native");
        KafkaNativeDynamicSource source = (KafkaNativeDynamicSource) source(options);
        assertThat(source.isNativeFetch()).isTrue();
        assertThat(((KafkaNativeDynamicSource) source.copy()).isNativeFetch()).isTrue();
        options.put("scan.fetch-mode", "kafka-consumer");
        assertThat(((KafkaNativeDynamicSource) source(options)).isNativeFetch()).isFalse();
    }

    @Test
    void unknownFetchModesFailAndSecuritySettingsDecideTheFetchAtPlanning() {
        Map<String, String> options = options("kafka-native");
        options.put("scan.fetch-mode", "librdkafka");
        assertThatThrownBy(() -> source(options))
                .hasStackTraceContaining("Invalid value for option 'scan.fetch-mode': 'librdkafka'")
                .hasStackTraceContaining("[kafka-consumer, native]");
        options.put("scan.fetch-mode", "native");
        for (String protocol : List.of("SSL", "SASL_PLAINTEXT", "SASL_SSL")) {
            options.put("properties.security.protocol", protocol);
            options.put("properties.sasl.mechanism", "SCRAM-SHA-512");
            options.put("properties.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"b\";");
            assertThat(((KafkaNativeDynamicSource) source(options)).isNativeFetch()).as(protocol).isTrue();
            // GSSAPI (Kafka's default mechanism), and OAUTHBEARER with another login module than
            // OAuthBearerLoginModule, keep Kafka's consumer.
            options.put("properties.sasl.mechanism", "OAUTHBEARER");
            assertThat(((KafkaNativeDynamicSource) source(options)).isNativeFetch())
                    .as(protocol)
                    .isEqualTo(protocol.equals("SSL"));
            options.remove("properties.sasl.mechanism");
            assertThat(((KafkaNativeDynamicSource) source(options)).isNativeFetch())
                    .as(protocol)
                    .isEqualTo(protocol.equals("SSL"));
            options.put("properties.sasl.mechanism", "OAUTHBEARER");
            options.put("properties.sasl.jaas.config",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
            assertThat(((KafkaNativeDynamicSource) source(options)).isNativeFetch()).as(protocol).isTrue();
            options.remove("properties.sasl.mechanism");
        }
        options.put("properties.ssl.cipher.suites", "TLS_AES_128_GCM_SHA256");
        assertThat(((KafkaNativeDynamicSource) source(options)).isNativeFetch()).isFalse();
        options.put("scan.fetch-mode", "kafka-consumer");
        assertThat(source(options)).isInstanceOf(KafkaNativeDynamicSource.class);
    }

    private static final ResolvedSchema SINK_SCHEMA = ResolvedSchema.of(
            Column.physical("k", DataTypes.STRING()), Column.physical("v", DataTypes.STRING()));

    private static Map<String, String> sinkOptions(String valueFormat) {
        Map<String, String> options = new HashMap<>();
        options.put("connector", "kafka-native");
        options.put("topic", "t");
        options.put("properties.bootstrap.servers", "127.0.0.1:1");
        options.put("key.format", "raw");
        options.put("key.fields", "k");
        options.put("value.format", valueFormat);
        options.put("value.fields-include", "EXCEPT_KEY");
        return options;
    }

    private static DynamicTableSink sink(Map<String, String> options) {
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(SINK_SCHEMA).build())
                .options(options)
                .build();
        return FactoryUtil.createDynamicTableSink(
                null, ObjectIdentifier.of("c", "d", "t"), new ResolvedCatalogTable(table, SINK_SCHEMA), Map.of(),
                new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    private static DynamicTableSink.SinkRuntimeProvider plan(Map<String, String> options) {
        return sink(options).getSinkRuntimeProvider(new SinkRuntimeProviderContext(false));
    }

    @Test
    void produceModeSelectsTheNativeProducerAndSurvivesCopies() {
        Map<String, String> options = sinkOptions("json-native");
        KafkaNativeDynamicSink byDefault = (KafkaNativeDynamicSink) sink(options);
        assertThat(byDefault.nativeProduce()).isFalse();
        assertThat(byDefault.asSummaryString()).isEqualTo("Kafka native table sink");
        options.put("sink.produce-mode", "native");
        KafkaNativeDynamicSink nativeSink = (KafkaNativeDynamicSink) sink(options);
        assertThat(nativeSink.nativeProduce()).isTrue();
        assertThat(((KafkaNativeDynamicSink) nativeSink.copy()).nativeProduce()).isTrue();
        assertThat(nativeSink.asSummaryString()).contains("native produce");
        assertThat(nativeSink.getSinkRuntimeProvider(new SinkRuntimeProviderContext(false)))
                .isInstanceOf(DataStreamSinkProvider.class);
        options.put("sink.produce-mode", "kafka-producer");
        assertThat(((KafkaNativeDynamicSink) sink(options)).nativeProduce()).isFalse();
    }

    @Test
    void unknownProduceModesFailAndSecuritySettingsDecideTheProducerAtPlanning() {
        Map<String, String> options = sinkOptions("json-native");
        options.put("sink.produce-mode", "librdkafka");
        assertThatThrownBy(() -> sink(options))
                .hasStackTraceContaining("Invalid value for option 'sink.produce-mode': 'librdkafka'")
                .hasStackTraceContaining("[kafka-producer, native]");
        options.put("sink.produce-mode", "native");
        for (String protocol : List.of("SSL", "SASL_PLAINTEXT", "SASL_SSL")) {
            options.put("properties.security.protocol", protocol);
            options.put("properties.sasl.mechanism", "PLAIN");
            options.put("properties.sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";");
            assertThat(((KafkaNativeDynamicSink) sink(options)).nativeProduce()).as(protocol).isTrue();
            options.put("properties.sasl.mechanism", "GSSAPI");
            assertThat(((KafkaNativeDynamicSink) sink(options)).nativeProduce())
                    .as(protocol)
                    .isEqualTo(protocol.equals("SSL"));
        }
        options.put("sink.produce-mode", "kafka-producer");
        assertThat(sink(options)).isInstanceOf(KafkaNativeDynamicSink.class);
    }

    @Test
    void nativeProduceRefusesWhatItCannotDoAtPlanning() {
        Map<String, String> options = sinkOptions("raw");
        options.put("sink.produce-mode", "native");
        assertThatThrownBy(() -> plan(options)).hasStackTraceContaining("needs a value format that encodes natively");
        options.put("value.format", "json-native");
        options.put("topic", "t1;t2");
        assertThatThrownBy(() -> plan(options)).hasStackTraceContaining("writes one topic");
        options.put("topic", "t");
        options.put("properties.interceptor.classes", "com.example.Interceptor");
        assertThatThrownBy(() -> plan(options))
                .hasStackTraceContaining("does not run Kafka producer classes ('properties.interceptor.classes')");
        options.remove("properties.interceptor.classes");
        assertThat(plan(options)).isInstanceOf(DataStreamSinkProvider.class);
    }

    @Test
    void keyFieldsWithoutKeyFormatFailLikeTheStockConnector() {
        Map<String, String> options = options("kafka-native");
        options.remove("key.format");
        assertThatThrownBy(() -> source(options))
                .hasStackTraceContaining("The option 'key.fields' can only be declared if a key format is defined using 'key.format'.");
    }

    @Test
    void runtimeIsTheBatchDecodingSourceWithStockBoundedness() {
        DynamicTableSource source = source(options("kafka-native"));
        ((KafkaDynamicSource) source).applyReadableMetadata(List.of("offset"),
                DataTypes.ROW(DataTypes.FIELD("k", DataTypes.STRING()), DataTypes.FIELD("v", DataTypes.STRING()),
                        DataTypes.FIELD("off", DataTypes.BIGINT())).notNull());
        DataStreamScanProvider provider = (DataStreamScanProvider)
                ((KafkaDynamicSource) source).getScanRuntimeProvider(ScanRuntimeProviderContext.INSTANCE);
        assertThat(provider.isBounded()).isTrue();
    }

    @Test
    void readsTheStockSourcesCompletedConsumerProperties() {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "g");
        KafkaSource<String> source = KafkaSource.<String>builder()
                .setTopics("t")
                .setProperties(props)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(new SimpleStringSchema()))
                .build();
        Properties completed = KafkaSourceInternals.properties(source);
        assertThat(completed.getProperty(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG))
                .isEqualTo(ByteArrayDeserializer.class.getName());
        assertThat(completed.getProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG)).isEqualTo("false");
        assertThat(completed.getProperty("client.id.prefix")).isEqualTo("g");
        assertThat(KafkaSourceInternals.rackIdSupplier(source)).isNull();
    }
}
