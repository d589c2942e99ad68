package io.karrow.flink.formats.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.avro.reference.AvroConfluentReferenceFormatFactory;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.formats.registry.SubjectAutoCompletion;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sink side of the {@code avro-confluent-native} factory: discovery, the required subject, and
 * the subject auto-completion rule of {@link SubjectAutoCompletion}, exercised through Flink's own
 * Kafka table factory so the format options are projected exactly as in a real job.
 */
class AvroConfluentNativeEncodingFactoryTest {

    private static final String NATIVE = AvroConfluentNativeFormatFactory.IDENTIFIER;
    private static final DataType PHYSICAL =
            DataTypes.ROW(DataTypes.FIELD("k", DataTypes.BIGINT()), DataTypes.FIELD("v", DataTypes.STRING())).notNull();

    private static ResolvedCatalogTable table(Map<String, String> options) {
        ResolvedSchema schema = ResolvedSchema.of(
                List.of(Column.physical("k", DataTypes.BIGINT()), Column.physical("v", DataTypes.STRING())));
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(options)
                .build();
        return new ResolvedCatalogTable(table, schema);
    }

    /** Creates the Kafka sink for {@code options} (plus the connector basics) the way the planner does. */
    private static KafkaDynamicSink kafkaSink(Map<String, String> options) {
        Map<String, String> all = new HashMap<>(options);
        all.put("connector", "kafka");
        all.put("properties.bootstrap.servers", "127.0.0.1:1");
        return (KafkaDynamicSink) FactoryUtil.createDynamicTableSink(
                null, ObjectIdentifier.of("c", "d", "t"), table(all), Map.of(), new Configuration(),
                Thread.currentThread().getContextClassLoader(), false);
    }

    private static String subject(KafkaDynamicSink sink, String field) throws Exception {
        Field f = KafkaDynamicSink.class.getDeclaredField(field);
        f.setAccessible(true);
        Object format = f.get(sink);
        assertThat(format).isInstanceOf(AvroConfluentNativeEncodingFormat.class);
        return ((AvroConfluentNativeEncodingFormat) format).getConfig().getSubject();
    }

    private static Map<String, String> options(String... keyValues) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            out.put(keyValues[i], keyValues[i + 1]);
        }
        return out;
    }

    @Test
    void discoveredAsSerializationFormat() {
        assertThat(FactoryUtil.discoverFactory(getClass().getClassLoader(), SerializationFormatFactory.class, NATIVE))
                .isInstanceOf(AvroConfluentNativeFormatFactory.class);
        assertThat(FactoryUtil.discoverFactory(getClass().getClassLoader(), SerializationFormatFactory.class,
                AvroConfluentReferenceFormatFactory.IDENTIFIER)).isInstanceOf(AvroConfluentReferenceFormatFactory.class);
    }

    @Test
    void valueFormatGetsTopicValue() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "value.format", NATIVE, "value." + NATIVE + ".url", "http://r:1"));
        assertThat(subject(sink, "valueEncodingFormat")).isEqualTo("bids-value");
    }

    @Test
    void plainFormatOptionGetsTopicValue() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "format", NATIVE, NATIVE + ".url", "http://r:1"));
        assertThat(subject(sink, "valueEncodingFormat")).isEqualTo("bids-value");
    }

    @Test
    void keyFormatGetsTopicKey() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "key.format", NATIVE, "key." + NATIVE + ".url", "http://r:1",
                "key.fields", "k", "value.format", "raw", "value.fields-include", "EXCEPT_KEY"));
        assertThat(subject(sink, "keyEncodingFormat")).isEqualTo("bids-key");
    }

    @Test
    void keyAndValueBothNativeWithIdenticalOptionsGetTheirOwnSubjects() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids",
                "key.format", NATIVE, "key." + NATIVE + ".url", "http://r:1", "key.fields", "k",
                "value.format", NATIVE, "value." + NATIVE + ".url", "http://r:1"));
        assertThat(subject(sink, "keyEncodingFormat")).isEqualTo("bids-key");
        assertThat(subject(sink, "valueEncodingFormat")).isEqualTo("bids-value");
    }

    @Test
    void keyAndValueBothNativeWithDifferentOptionsGetTheirOwnSubjects() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids",
                "key.format", NATIVE, "key." + NATIVE + ".url", "http://key:1", "key.fields", "k",
                "format", NATIVE, NATIVE + ".url", "http://value:1"));
        assertThat(subject(sink, "keyEncodingFormat")).isEqualTo("bids-key");
        assertThat(subject(sink, "valueEncodingFormat")).isEqualTo("bids-value");
    }

    @Test
    void explicitSubjectWins() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "value.format", NATIVE,
                "value." + NATIVE + ".url", "http://r:1", "value." + NATIVE + ".subject", "mine"));
        assertThat(subject(sink, "valueEncodingFormat")).isEqualTo("mine");
        KafkaDynamicSink old = kafkaSink(options("topic", "bids", "value.format", NATIVE,
                "value." + NATIVE + ".url", "http://r:1", "value." + NATIVE + ".schema-registry.subject", "old"));
        assertThat(subject(old, "valueEncodingFormat")).isEqualTo("old");
    }

    @Test
    void subjectIsRequiredWithoutASingleLiteralTopic() {
        String message = "Option avro-confluent-native.subject is required for serialization";
        assertThatThrownBy(() -> kafkaSink(options("topic", "a;b", "value.format", NATIVE, "value." + NATIVE + ".url", "http://r:1")))
                .satisfies(t -> assertThat(ParityHarness.messages(t)).contains(message));
        assertThatThrownBy(() -> kafkaSink(options("topic-pattern", "bids.*", "value.format", NATIVE, "value." + NATIVE + ".url", "http://r:1")))
                .satisfies(t -> assertThat(ParityHarness.messages(t)).contains(message));
        // outside a Kafka table (no topic option at all)
        SerializationFormatFactory factory = new AvroConfluentNativeFormatFactory();
        assertThatThrownBy(() -> factory.createEncodingFormat(
                        new FactoryUtil.DefaultDynamicTableContext(ObjectIdentifier.of("c", "d", "t"),
                                table(Map.of("connector", "filesystem")), Map.of(), new Configuration(),
                                getClass().getClassLoader(), false),
                        Configuration.fromMap(Map.of("url", "http://r:1"))))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining(message);
    }

    @Test
    void referenceFormatCompletesTheSameSubject() throws Exception {
        String ref = AvroConfluentReferenceFormatFactory.IDENTIFIER;
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "value.format", ref, "value." + ref + ".url", "http://r:1"));
        Field f = KafkaDynamicSink.class.getDeclaredField("valueEncodingFormat");
        f.setAccessible(true);
        assertThat(f.get(sink)).isNotNull();
        assertThatThrownBy(() -> kafkaSink(options("topic-pattern", "b.*", "value.format", ref, "value." + ref + ".url", "http://r:1")))
                .satisfies(t -> assertThat(ParityHarness.messages(t)).contains("Option avro-confluent-reference.subject is required for serialization"));
    }

    @Test
    void runtimeEncoderAndConfigJson() throws Exception {
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "value.format", NATIVE, "value." + NATIVE + ".url", "http://r:1"));
        Field f = KafkaDynamicSink.class.getDeclaredField("valueEncodingFormat");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        EncodingFormat<SerializationSchema<RowData>> format = (EncodingFormat<SerializationSchema<RowData>>) f.get(sink);
        SerializationSchema<RowData> a = format.createRuntimeEncoder(new SinkRuntimeProviderContext(false), PHYSICAL);
        SerializationSchema<RowData> b = format.createRuntimeEncoder(new SinkRuntimeProviderContext(false), PHYSICAL);
        assertThat(a).isInstanceOf(AvroConfluentNativeSerializationSchema.class).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(((AvroConfluentNativeSerializationSchema) a).subject()).isEqualTo("bids-value");
        RegistryEncoderConfig config = ((AvroConfluentNativeEncodingFormat) format).getConfig();
        assertThat(config.toConfigJson((RowType) PHYSICAL.getLogicalType())).isEqualTo("{\"row_type\":"
                + LogicalTypeJson.toJson(PHYSICAL.getLogicalType())
                + ",\"url\":\"http://r:1\",\"schema\":null,\"basic_auth_credentials_source\":null,"
                + "\"basic_auth_user_info\":null,\"bearer_auth_credentials_source\":null,\"bearer_auth_token\":null,"
                + "\"ssl_ca_pem\":null,"
                + "\"request_timeout_ms\":10000,\"max_retries\":3,\"retry_backoff_ms\":100,\"retry_backoff_max_ms\":2000,"
                + "\"properties\":{},\"subject\":\"bids-value\"}");
        assertThatThrownBy(() -> format.createRuntimeEncoder(new SinkRuntimeProviderContext(false),
                DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP(6))).notNull()))
                .hasMessageContaining("Avro does not support TIMESTAMP type with precision: 6");
    }

    @Test
    void schemaReferencesTravelAsTextAndNeedTheSchema() throws Exception {
        String refs = "[{\"name\":\"money.Amount\",\"subject\":\"amount\",\"version\":1}]";
        KafkaDynamicSink sink = kafkaSink(options("topic", "bids", "value.format", NATIVE, "value." + NATIVE + ".url",
                "http://r:1", "value." + NATIVE + ".schema", "\"long\"", "value." + NATIVE + ".schema.references", refs));
        Field f = KafkaDynamicSink.class.getDeclaredField("valueEncodingFormat");
        f.setAccessible(true);
        RegistryEncoderConfig config = ((AvroConfluentNativeEncodingFormat) f.get(sink)).getConfig();
        assertThat(config.toConfigJson((RowType) PHYSICAL.getLogicalType())).endsWith(
                ",\"subject\":\"bids-value\",\"schema_references\":\"[{\\\"name\\\":\\\"money.Amount\\\","
                        + "\\\"subject\\\":\\\"amount\\\",\\\"version\\\":1}]\"}");
        assertThatThrownBy(() -> kafkaSink(options("topic", "bids", "value.format", NATIVE, "value." + NATIVE + ".url",
                "http://r:1", "value." + NATIVE + ".schema.references", refs)))
                .satisfies(t -> assertThat(ParityHarness.messages(t)).contains(
                        "Option avro-confluent-native.schema.references needs the writer schema in avro-confluent-native.schema."));
    }
}
