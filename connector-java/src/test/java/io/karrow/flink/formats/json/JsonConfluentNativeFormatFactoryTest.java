package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.avro.AvroConfluentNativeFormatFactory;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.formats.json.JsonFormatFactory;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.runtime.connector.sink.SinkRuntimeProviderContext;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Options, validation, settings, {@code configJson}, subject auto-completion and service registration
 * of {@code json-confluent-native}: the eight options of Flink's {@code json} format with its messages,
 * plus the registry options of {@code avro-confluent-native}, {@code schema} and {@code
 * validate-schema-id}. No native code runs here.
 */
class JsonConfluentNativeFormatFactoryTest {

    private static final String ID = JsonConfluentNativeFormatFactory.IDENTIFIER;
    private static final DataType PHYSICAL =
            DataTypes.ROW(DataTypes.FIELD("a", DataTypes.BIGINT()), DataTypes.FIELD("b", DataTypes.STRING())).notNull();
    private static final RowType ROW_TYPE = (RowType) PHYSICAL.getLogicalType();

    private static ResolvedCatalogTable table(Map<String, String> options, boolean metadataColumn) {
        List<Column> columns = new java.util.ArrayList<>(
                List.of(Column.physical("a", DataTypes.BIGINT()), Column.physical("b", DataTypes.STRING())));
        if (metadataColumn) {
            columns.add(Column.metadata("off", DataTypes.BIGINT(), "offset", true));
        }
        ResolvedSchema schema = ResolvedSchema.of(columns);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(options)
                .build();
        return new ResolvedCatalogTable(table, schema);
    }

    private static DynamicTableFactory.Context context(Map<String, String> tableOptions, boolean metadataColumn) {
        return new FactoryUtil.DefaultDynamicTableContext(ObjectIdentifier.of("c", "d", "t"),
                table(tableOptions, metadataColumn), Map.of(), new Configuration(),
                Thread.currentThread().getContextClassLoader(), false);
    }

    private static DecodingFormat<DeserializationSchema<RowData>> decoding(
            String identifier, Map<String, String> formatOptions) {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        return factory.createDecodingFormat(context(Map.of(), false), Configuration.fromMap(formatOptions));
    }

    private static EncodingFormat<SerializationSchema<RowData>> encoding(Map<String, String> formatOptions) {
        return new JsonConfluentNativeFormatFactory()
                .createEncodingFormat(context(Map.of(), false), Configuration.fromMap(formatOptions));
    }

    private static JsonNativeDeserializationSchema decoder(Map<String, String> formatOptions) {
        return (JsonNativeDeserializationSchema)
                decoding(ID, formatOptions).createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL);
    }

    private static JsonNativeSerializationSchema encoder(Map<String, String> formatOptions) {
        return (JsonNativeSerializationSchema)
                encoding(formatOptions).createRuntimeEncoder(new SinkRuntimeProviderContext(false), PHYSICAL);
    }

    /** {@code url} plus the given pairs. */
    private static Map<String, String> options(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("url", "http://r:1");
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    private static Set<String> keys(Set<ConfigOption<?>> options) {
        return options.stream().map(ConfigOption::key).collect(Collectors.toSet());
    }

    private static Map<String, Object> keysAndDefaults(Set<ConfigOption<?>> options) {
        return options.stream().collect(Collectors.toMap(ConfigOption::key,
                o -> o.hasDefaultValue() ? o.defaultValue() : "<none>"));
    }

    private static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getMessage()).append(" | ");
        }
        return s.toString();
    }

    @Test
    void discoveredThroughServiceLoaderForBothDirections() {
        ClassLoader loader = getClass().getClassLoader();
        assertThat(FactoryUtil.discoverFactory(loader, DeserializationFormatFactory.class, ID))
                .isInstanceOf(JsonConfluentNativeFormatFactory.class);
        assertThat(FactoryUtil.discoverFactory(loader, SerializationFormatFactory.class, ID))
                .isInstanceOf(JsonConfluentNativeFormatFactory.class);
        assertThat(FactoryUtil.discoverFactory(loader, DeserializationFormatFactory.class, "json-native"))
                .isInstanceOf(JsonNativeFormatFactory.class);
    }

    @Test
    void optionsAreJsonsEightPlusTheRegistryOptionsOfAvroConfluentNative() {
        JsonConfluentNativeFormatFactory factory = new JsonConfluentNativeFormatFactory();
        assertThat(keys(factory.requiredOptions())).containsExactly("url");

        Set<String> expected = new HashSet<>(keys(new JsonFormatFactory().optionalOptions()));
        expected.addAll(keys(new AvroConfluentNativeFormatFactory().optionalOptions()));
        // Avro's writer-schema references (an Avro schema option, not a registry one): JSON has none.
        assertThat(expected.remove("schema.references")).isTrue();
        expected.add("validate-schema-id");
        assertThat(keys(factory.optionalOptions())).isEqualTo(expected).contains(
                "subject", "schema", "properties", "ssl.keystore.location", "ssl.keystore.password",
                "ssl.truststore.location", "ssl.truststore.password", "basic-auth.credentials-source",
                "basic-auth.user-info", "bearer-auth.credentials-source", "bearer-auth.token");
        assertThat(factory.optionalOptions()).hasSize(8 + 11 + 4 + 1);

        // The JSON options keep Flink's defaults; validate-schema-id is off by default.
        Map<String, Object> defaults = keysAndDefaults(factory.optionalOptions());
        keysAndDefaults(new JsonFormatFactory().optionalOptions())
                .forEach((key, value) -> assertThat(defaults).containsEntry(key, value));
        assertThat(defaults).containsEntry("validate-schema-id", false);
        // url, subject and schema keep avro-confluent's fallback keys.
        for (ConfigOption<?> option : factory.requiredOptions()) {
            assertThat(option.fallbackKeys().iterator().next().getKey()).isEqualTo("schema-registry.url");
        }
        assertThat(decoder(Map.of("schema-registry.url", "http://old:1")).getConfig().confluent().registry().getUrl())
                .isEqualTo("http://old:1");
    }

    @Test
    void forwardedOptionsAreJsonsAndTheRegistrysButNotTheDecodeOnlyOnes() {
        JsonConfluentNativeFormatFactory factory = new JsonConfluentNativeFormatFactory();
        Set<String> expected = new HashSet<>(keys(new JsonFormatFactory().forwardOptions()));
        expected.addAll(keys(new AvroConfluentNativeFormatFactory().forwardOptions()));
        assertThat(expected.remove("schema.references")).isTrue();
        assertThat(keys(factory.forwardOptions())).isEqualTo(expected)
                .doesNotContain("fail-on-missing-field", "ignore-parse-errors", "validate-schema-id");
        assertThat(factory.optionalOptions()).containsAll(
                factory.forwardOptions().stream().filter(o -> !o.key().equals("url")).collect(Collectors.toSet()));
    }

    @Test
    void optionsAreValidatedWithJsonsMessagesAndTheRegistryRules() {
        assertThatThrownBy(() -> decoder(options("fail-on-missing-field", "true", "ignore-parse-errors", "true")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("fail-on-missing-field and ignore-parse-errors shouldn't both be true.");
        assertThatThrownBy(() -> decoder(options("timestamp-format.standard", "iso-8601")))
                .hasMessage("Unsupported value 'iso-8601' for timestamp-format.standard. Supported values are "
                        + "[SQL, ISO-8601].");
        assertThatThrownBy(() -> encoder(options("subject", "s", "map-null-key.mode", "bogus")))
                .hasMessage("Unsupported value 'bogus' for option map-null-key.mode. Supported values are "
                        + "[LITERAL, FAIL, DROP].");
        assertThatThrownBy(() -> decoder(options("validate-schema-id", "maybe")))
                .satisfies(t -> assertThat(messages(t)).contains("validate-schema-id"));
        assertThatThrownBy(() -> decoder(Map.of()))
                .isInstanceOf(ValidationException.class)
                .satisfies(t -> assertThat(messages(t)).contains("Missing required options are:").contains("url"));
        assertThatThrownBy(() -> decoder(options("ssl.keystore.location", "/k.jks")))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Option 'ssl.keystore.location' (TLS client certificates) is not supported by "
                        + "'json-confluent-native' yet.");
        // Encode-only options are not checked when decoding, and decode-only ones not when encoding.
        assertThat(decoder(options("map-null-key.mode", "bogus"))).isNotNull();
        assertThat(encoder(options("subject", "s", "fail-on-missing-field", "true", "ignore-parse-errors", "true",
                "validate-schema-id", "true"))).isNotNull();
    }

    @Test
    void settingsComeFromTheOptions() {
        JsonDecoderConfig decode = decoder(options("ignore-parse-errors", "true", "timestamp-format.standard",
                "ISO-8601", "decode.json-parser.enabled", "false", "validate-schema-id", "true",
                "basic-auth.credentials-source", "USER_INFO", "basic-auth.user-info", "u:p",
                "properties.x", "y", "schema", "{}")).getConfig();
        RegistryDecoderConfig registry = new RegistryDecoderConfig(
                "http://r:1", null, "USER_INFO", "u:p", null, null, null, null, Map.of("x", "y"));
        assertThat(decode).isEqualTo(new JsonDecoderConfig(false, true, "ISO-8601", false,
                JsonConfluentConfig.forDecoding(registry, true)));
        assertThat(decoder(options()).getConfig().confluent().validateSchemaId()).isFalse();

        JsonEncoderConfig encode = encoder(options("subject", "bids-value", "schema", "{\"type\":\"object\"}",
                "map-null-key.mode", "literal", "encode.ignore-null-fields", "true")).getConfig();
        RegistryDecoderConfig withSchema = new RegistryDecoderConfig(
                "http://r:1", "{\"type\":\"object\"}", null, null, null, null, null, null, Map.of());
        assertThat(encode).isEqualTo(new JsonEncoderConfig("SQL", "LITERAL", "null", false, true,
                JsonConfluentConfig.forEncoding(withSchema, "bids-value")));
        assertThat(encode).isNotEqualTo(new JsonEncoderConfig("SQL", "LITERAL", "null", false, true));
    }

    @Test
    void configJsonHasAConfluentSection() throws Exception {
        String row = LogicalTypeJson.toJson(ROW_TYPE);
        RegistryDecoderConfig registry = new RegistryDecoderConfig(
                "http://r:1", null, null, null, "STATIC_TOKEN", "t", null, null, Map.of("k", "v"));
        String registryFields = "\"url\":\"http://r:1\",\"schema\":null,\"basic_auth_credentials_source\":null,"
                + "\"basic_auth_user_info\":null,\"bearer_auth_credentials_source\":\"STATIC_TOKEN\","
                + "\"bearer_auth_token\":\"t\",\"ssl_ca_pem\":null,"
                + "\"request_timeout_ms\":10000,\"max_retries\":3,\"retry_backoff_ms\":100,\"retry_backoff_max_ms\":2000,"
                + "\"properties\":{\"k\":\"v\"}";
        assertThat(new JsonDecoderConfig(false, true, "SQL", true, JsonConfluentConfig.forDecoding(registry, true))
                .toConfigJson(ROW_TYPE))
                .isEqualTo("{\"row_type\":" + row + ",\"options\":{\"fail_on_missing_field\":false,"
                        + "\"ignore_parse_errors\":true,\"timestamp_standard\":\"SQL\",\"json_parser\":true},"
                        + "\"java_feature_version\":" + Runtime.version().feature() + ","
                        + "\"confluent\":{" + registryFields + ",\"validate_schema_id\":true}}");
        assertThat(new JsonEncoderConfig("SQL", "FAIL", "null", false, false,
                JsonConfluentConfig.forEncoding(registry, "t-value")).toConfigJson(ROW_TYPE))
                .isEqualTo("{\"row_type\":" + row + ",\"timestamp_standard\":\"SQL\",\"map_null_key_mode\":\"FAIL\","
                        + "\"map_null_key_literal\":\"null\",\"decimal_as_plain_number\":false,"
                        + "\"ignore_null_fields\":false,\"java_feature_version\":" + Runtime.version().feature()
                        + ",\"confluent\":{" + registryFields + ",\"subject\":\"t-value\"}}");
        // The registry object is the avro-confluent-native configJson without the row type.
        assertThat(registry.toConfigJson(ROW_TYPE)).isEqualTo("{\"row_type\":" + row + "," + registryFields + "}");
        // Plain json-native configurations have no section.
        assertThat(new JsonDecoderConfig(false, false, "SQL", true).toConfigJson(ROW_TYPE)).doesNotContain("confluent");
        assertThatThrownBy(() -> JsonConfluentConfig.forEncoding(registry, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new JsonEncoderConfig("SQL", "FAIL", "null", false, false,
                JsonConfluentConfig.forDecoding(registry, false))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void runtimeCodecsAreTheJsonNativeOnesAndSurviveSerialization() throws Exception {
        JsonNativeDeserializationSchema decoder = decoder(options("validate-schema-id", "true"));
        assertThat(decoder.emitsGenericRows()).isFalse();
        assertThat(InstantiationUtil.clone(decoder)).isEqualTo(decoder);
        JsonNativeSerializationSchema encoder = encoder(options("subject", "s"));
        assertThat(InstantiationUtil.clone(encoder)).isEqualTo(encoder);
        assertThat(encoder.schemaId()).isEqualTo(-1);
        assertThat(decoding(ID, options()).getChangelogMode()).isEqualTo(ChangelogMode.insertOnly());
        assertThat(encoding(options("subject", "s")).getChangelogMode()).isEqualTo(ChangelogMode.insertOnly());

        DeserializationFormatFactory factory = new JsonConfluentNativeFormatFactory();
        JsonNativeDeserializationSchema generic = (JsonNativeDeserializationSchema) factory
                .createDecodingFormat(context(Map.of(), true), Configuration.fromMap(options()))
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL);
        assertThat(generic.emitsGenericRows()).isTrue();
    }

    @Test
    void unsupportedTypesFailAsInJson() {
        DataType intKeys = DataTypes.ROW(DataTypes.FIELD("m", DataTypes.MAP(DataTypes.INT(), DataTypes.STRING()))).notNull();
        assertThatThrownBy(() -> decoding(ID, options()).createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, intKeys))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("JSON format doesn't support non-string as key type of map. The type is: MAP<INT, STRING>");
        assertThatThrownBy(() -> encoding(options("subject", "s"))
                        .createRuntimeEncoder(new SinkRuntimeProviderContext(false), intKeys))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    // ---- subject auto-completion, through Flink's Kafka table factory ----

    private static KafkaDynamicSink kafkaSink(Map<String, String> options) {
        Map<String, String> all = new HashMap<>(options);
        all.put("connector", "kafka");
        all.put("properties.bootstrap.servers", "127.0.0.1:1");
        return (KafkaDynamicSink) FactoryUtil.createDynamicTableSink(null, ObjectIdentifier.of("c", "d", "t"),
                table(all, false), Map.of(), new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    private static String subject(KafkaDynamicSink sink, String field) throws Exception {
        Field f = KafkaDynamicSink.class.getDeclaredField(field);
        f.setAccessible(true);
        Object format = f.get(sink);
        assertThat(format).isInstanceOf(JsonNativeEncodingFormat.class);
        return ((JsonNativeEncodingFormat) format).getConfig().confluent().subject();
    }

    private static Map<String, String> table(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    @Test
    void subjectIsAutoCompletedAsAvroConfluentNativeDoes() throws Exception {
        assertThat(subject(kafkaSink(table("topic", "bids", "value.format", ID, "value." + ID + ".url", "http://r:1")),
                "valueEncodingFormat")).isEqualTo("bids-value");
        assertThat(subject(kafkaSink(table("topic", "bids", "format", ID, ID + ".url", "http://r:1")),
                "valueEncodingFormat")).isEqualTo("bids-value");
        KafkaDynamicSink both = kafkaSink(table("topic", "bids", "key.format", ID, "key." + ID + ".url", "http://r:1",
                "key.fields", "a", "value.format", ID, "value." + ID + ".url", "http://r:1"));
        assertThat(subject(both, "keyEncodingFormat")).isEqualTo("bids-key");
        assertThat(subject(both, "valueEncodingFormat")).isEqualTo("bids-value");
        assertThat(subject(kafkaSink(table("topic", "bids", "value.format", ID, "value." + ID + ".url", "http://r:1",
                "value." + ID + ".subject", "mine")), "valueEncodingFormat")).isEqualTo("mine");

        // Unknown format options are rejected by the connector, as for every format.
        assertThatThrownBy(() -> kafkaSink(table("topic", "bids", "value.format", ID, "value." + ID + ".url",
                        "http://r:1", "value." + ID + ".bogus", "x")))
                .satisfies(t -> assertThat(messages(t)).contains("Unsupported options").contains("bogus"));

        String message = "Option json-confluent-native.subject is required for serialization";
        assertThatThrownBy(() -> kafkaSink(table("topic", "a;b", "value.format", ID, "value." + ID + ".url", "http://r:1")))
                .satisfies(t -> assertThat(messages(t)).contains(message));
        assertThatThrownBy(() -> encoding(options()))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining(message);
    }
}
