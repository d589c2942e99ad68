package io.karrow.flink.formats.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.karrow.flink.formats.avro.reference.AvroConfluentReferenceFormatFactory;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/** Options, validation, produced type and service registration of {@code avro-confluent-native}. */
class AvroConfluentNativeFormatFactoryTest {

    private static final DataType PHYSICAL =
            DataTypes.ROW(DataTypes.FIELD("a", DataTypes.BIGINT()), DataTypes.FIELD("b", DataTypes.STRING())).notNull();

    private static DynamicTableFactory.Context context(Map<String, String> tableOptions, boolean metadataColumn) {
        List<Column> columns = new java.util.ArrayList<>(List.of(
                Column.physical("a", DataTypes.BIGINT()), Column.physical("b", DataTypes.STRING())));
        if (metadataColumn) {
            columns.add(Column.metadata("off", DataTypes.BIGINT(), "offset", true));
        }
        ResolvedSchema schema = ResolvedSchema.of(columns);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(tableOptions)
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(
                ObjectIdentifier.of("c", "d", "t"), new ResolvedCatalogTable(table, schema), Map.of(),
                new Configuration(), Thread.currentThread().getContextClassLoader(), false);
    }

    private static DecodingFormat<DeserializationSchema<RowData>> decodingFormat(
            Map<String, String> formatOptions, Map<String, String> tableOptions, boolean metadata) {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class,
                AvroConfluentNativeFormatFactory.IDENTIFIER);
        return factory.createDecodingFormat(context(tableOptions, metadata), Configuration.fromMap(formatOptions));
    }

    private static AvroConfluentNativeDeserializationSchema schema(
            Map<String, String> formatOptions, Map<String, String> tableOptions, boolean metadata) {
        return (AvroConfluentNativeDeserializationSchema) decodingFormat(formatOptions, tableOptions, metadata)
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL);
    }

    @Test
    void discoveredThroughServiceLoader() {
        assertThat(FactoryUtil.discoverFactory(getClass().getClassLoader(), DeserializationFormatFactory.class,
                "avro-confluent-native")).isInstanceOf(AvroConfluentNativeFormatFactory.class);
        assertThat(FactoryUtil.discoverFactory(getClass().getClassLoader(), DeserializationFormatFactory.class,
                "avro-confluent-reference")).isInstanceOf(AvroConfluentReferenceFormatFactory.class);
    }

    @Test
    void optionsMirrorAvroConfluent() {
        AvroConfluentNativeFormatFactory factory = new AvroConfluentNativeFormatFactory();
        assertThat(factory.requiredOptions()).extracting(o -> o.key()).containsExactly("url");
        assertThat(factory.optionalOptions()).extracting(o -> o.key()).containsExactlyInAnyOrder(
                "subject", "schema", "schema.references", "properties", "ssl.keystore.location", "ssl.keystore.password",
                "ssl.truststore.location", "ssl.truststore.password", "basic-auth.credentials-source",
                "basic-auth.user-info", "bearer-auth.credentials-source", "bearer-auth.token",
                "request-timeout", "max-retries", "retry-backoff", "retry-backoff-max");
        assertThat(AvroConfluentNativeFormatOptions.URL.fallbackKeys()).extracting(k -> k.getKey())
                .containsExactly("schema-registry.url");
        assertThat(AvroConfluentNativeFormatOptions.SUBJECT.fallbackKeys()).extracting(k -> k.getKey())
                .containsExactly("schema-registry.subject");
        assertThat(AvroConfluentNativeFormatOptions.SCHEMA.fallbackKeys()).extracting(k -> k.getKey())
                .containsExactly("schema-registry.schema");
        assertThat(factory.forwardOptions()).hasSize(17);
    }

    @Test
    void urlIsRequired() {
        assertThatThrownBy(() -> decodingFormat(Map.of(), Map.of(), false))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("url");
    }

    @Test
    void fallbackUrlKeyIsAccepted() {
        AvroConfluentNativeDeserializationSchema s =
                schema(Map.of("schema-registry.url", "http://old:1"), Map.of(), false);
        AvroConfluentNativeDeserializationSchema t = schema(Map.of("url", "http://old:1"), Map.of(), false);
        assertThat(s).isEqualTo(t);
    }

    @Test
    void producedTypeIsThePhysicalRow() {
        AvroConfluentNativeDeserializationSchema s = schema(Map.of("url", "http://r:1"), Map.of(), false);
        assertThat(s.getProducedType()).isEqualTo(InternalTypeInfo.of((RowType) PHYSICAL.getLogicalType()));
        assertThat(s.emitsGenericRows()).isFalse();
        assertThat(s.isEndOfStream(null)).isFalse();
    }

    @Test
    void keyFormatOrMetadataSwitchesToGenericRows() {
        assertThat(schema(Map.of("url", "http://r:1"), Map.of("key.format", "raw"), false).emitsGenericRows()).isTrue();
        assertThat(schema(Map.of("url", "http://r:1"), Map.of(), true).emitsGenericRows()).isTrue();
    }

    @Test
    void keystoreIsReportedAsUnsupported() {
        assertThatThrownBy(() -> decodingFormat(
                Map.of("url", "https://r:1", "ssl.keystore.location", "/k.jks"), Map.of(), false))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("ssl.keystore.location");
    }

    @Test
    void unsupportedTypesFailAtPlanningWithFlinksMessages() {
        DecodingFormat<DeserializationSchema<RowData>> format = decodingFormat(Map.of("url", "http://r:1"), Map.of(), false);
        assertThatThrownBy(() -> format.createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE,
                DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP(6))).notNull()))
                .hasMessageContaining("Avro does not support TIMESTAMP type with precision: 6");
        assertThatThrownBy(() -> format.createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE,
                DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP_LTZ(3))).notNull()))
                .hasMessageContaining("Unsupported to derive Schema for type");
        assertThatThrownBy(() -> format.createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE,
                DataTypes.ROW(DataTypes.FIELD("m", DataTypes.MAP(DataTypes.INT(), DataTypes.INT()))).notNull()))
                .hasMessageContaining("doesn't support non-string as key type of map");
    }

    @Test
    void registryClientBoundsAreReadAndValidatedAtPlanning() throws Exception {
        Configuration defaults = Configuration.fromMap(Map.of("url", "http://r:1"));
        RegistryDecoderConfig stock = RegistryDecoderConfig.fromOptions("avro-confluent-native", defaults, null, null);
        // The defaults are the client's own (schema-registry's RegistryConfig::from_url).
        assertThat(stock.getRequestTimeoutMs()).isEqualTo(10_000);
        assertThat(stock.getMaxRetries()).isEqualTo(3);
        assertThat(stock.getRetryBackoffMs()).isEqualTo(100);
        assertThat(stock.getRetryBackoffMaxMs()).isEqualTo(2_000);
        Map<String, String> bounds = Map.of("url", "http://r:1", "request-timeout", "1500 ms", "max-retries", "0",
                "retry-backoff", "5 ms", "retry-backoff-max", "1 min");
        decodingFormat(bounds, Map.of(), false);
        RegistryDecoderConfig set =
                RegistryDecoderConfig.fromOptions("avro-confluent-native", Configuration.fromMap(bounds), null, null);
        assertThat(set.toRegistryJson()).contains("\"request_timeout_ms\":1500,\"max_retries\":0,"
                + "\"retry_backoff_ms\":5,\"retry_backoff_max_ms\":60000,");
        assertThat(set).isNotEqualTo(stock);

        Map<Map<String, String>, String> invalid = Map.of(
                Map.of("request-timeout", "0 ms"), "Option 'request-timeout' of 'avro-confluent-native' must be between",
                Map.of("request-timeout", "2 h"), "Option 'request-timeout' of 'avro-confluent-native' must be between",
                Map.of("max-retries", "-1"), "Option 'max-retries' of 'avro-confluent-native' must be between 0 and 100",
                Map.of("max-retries", "101"), "Option 'max-retries' of 'avro-confluent-native' must be between 0 and 100",
                Map.of("retry-backoff", "11 min"), "Option 'retry-backoff' of 'avro-confluent-native' must be between",
                Map.of("retry-backoff", "3 s"), "Option 'retry-backoff-max' of 'avro-confluent-native' (2000 ms) must not be "
                        + "shorter than 'retry-backoff' (3000 ms)");
        invalid.forEach((options, message) -> {
            Map<String, String> all = new java.util.HashMap<>(options);
            all.put("url", "http://r:1");
            assertThatThrownBy(() -> decodingFormat(all, Map.of(), false))
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining(message);
        });
        assertThatThrownBy(() -> decodingFormat(Map.of("url", "http://r:1", "request-timeout", "soon"), Map.of(), false))
                .hasMessageContaining("request-timeout");
    }

    @Test
    void configJsonFollowsTheContract() throws Exception {
        RegistryDecoderConfig config = new RegistryDecoderConfig("http://r:1", null, "USER_INFO", null, null, null,
                null, null, Map.of("basic.auth.user.info", "u:p"));
        String json = config.toConfigJson((RowType) PHYSICAL.getLogicalType());
        assertThat(json).isEqualTo("{\"row_type\":" + LogicalTypeJson.toJson(PHYSICAL.getLogicalType())
                + ",\"url\":\"http://r:1\",\"schema\":null,\"basic_auth_credentials_source\":\"USER_INFO\","
                + "\"basic_auth_user_info\":\"u:p\",\"bearer_auth_credentials_source\":null,\"bearer_auth_token\":null,"
                + "\"ssl_ca_pem\":null,"
                + "\"request_timeout_ms\":10000,\"max_retries\":3,\"retry_backoff_ms\":100,\"retry_backoff_max_ms\":2000,"
                + "\"properties\":{\"basic.auth.user.info\":\"u:p\"}}");
        assertThat(LogicalTypeJson.toJson(PHYSICAL.getLogicalType())).isEqualTo(
                "{\"type\":\"ROW\",\"nullable\":false,\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"BIGINT\",\"nullable\":true}},"
                        + "{\"name\":\"b\",\"type\":{\"type\":\"VARCHAR\",\"nullable\":true,\"length\":2147483647}}]}");
    }
}
