package io.karrow.flink.formats.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
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

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Options, planning checks, settings and {@code configJson} of {@code protobuf-confluent-native}. No
 * native code runs here (the ITCase covers the runtime).
 */
class ProtobufConfluentNativeFormatFactoryTest {

    private static final String ID = ProtobufConfluentNativeFormatFactory.IDENTIFIER;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DataType PHYSICAL = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
            DataTypes.FIELD("address", DataTypes.ROW(DataTypes.FIELD("zip", DataTypes.INT())))).notNull();
    private static final RowType ROW_TYPE = (RowType) PHYSICAL.getLogicalType();

    private static DynamicTableFactory.Context context() {
        ResolvedSchema schema = ResolvedSchema.of(List.of(Column.physical("id", DataTypes.BIGINT())));
        CatalogTable table = CatalogTable.newBuilder()
                .schema(org.apache.flink.table.api.Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(Map.of())
                .build();
        return new FactoryUtil.DefaultDynamicTableContext(ObjectIdentifier.of("c", "d", "t"),
                new ResolvedCatalogTable(table, schema), Map.of(), new Configuration(),
                Thread.currentThread().getContextClassLoader(), false);
    }

    private static Map<String, String> options(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("url", "http://r:1");
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    private static ProtobufNativeDeserializationSchema decoder(Map<String, String> formatOptions, DataType physical) {
        DecodingFormat<DeserializationSchema<RowData>> format = new ProtobufConfluentNativeFormatFactory()
                .createDecodingFormat(context(), Configuration.fromMap(formatOptions));
        return (ProtobufNativeDeserializationSchema)
                format.createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, physical);
    }

    private static ProtobufNativeSerializationSchema encoder(Map<String, String> formatOptions, DataType physical) {
        EncodingFormat<SerializationSchema<RowData>> format = new ProtobufConfluentNativeFormatFactory()
                .createEncodingFormat(context(), Configuration.fromMap(formatOptions));
        return (ProtobufNativeSerializationSchema)
                format.createRuntimeEncoder(new SinkRuntimeProviderContext(false), physical);
    }

    private static Set<String> keys(Set<ConfigOption<?>> options) {
        return options.stream().map(ConfigOption::key).collect(Collectors.toSet());
    }

    @Test
    void discoveredForBothDirectionsWithTheRegistryAndProtobufOptions() {
        ClassLoader loader = getClass().getClassLoader();
        assertThat(FactoryUtil.discoverFactory(loader, DeserializationFormatFactory.class, ID))
                .isInstanceOf(ProtobufConfluentNativeFormatFactory.class);
        assertThat(FactoryUtil.discoverFactory(loader, SerializationFormatFactory.class, ID))
                .isInstanceOf(ProtobufConfluentNativeFormatFactory.class);
        ProtobufConfluentNativeFormatFactory factory = new ProtobufConfluentNativeFormatFactory();
        assertThat(keys(factory.requiredOptions())).containsExactly("url");
        assertThat(keys(factory.optionalOptions())).containsExactlyInAnyOrder(
                "subject", "schema", "schema.references", "message-name", "ignore-parse-errors", "read-default-values",
                "write-null-string-literal", "properties", "ssl.keystore.location", "ssl.keystore.password",
                "ssl.truststore.location", "ssl.truststore.password", "basic-auth.credentials-source",
                "basic-auth.user-info", "bearer-auth.credentials-source", "bearer-auth.token",
                "request-timeout", "max-retries", "retry-backoff", "retry-backoff-max");
        assertThat(keys(factory.forwardOptions()))
                .contains("url", "subject", "schema", "schema.references", "message-name")
                .doesNotContain("ignore-parse-errors", "read-default-values");
    }

    @Test
    void decoderConfigHasAConfluentSectionAndNoDescriptors() throws Exception {
        ProtobufNativeDeserializationSchema decoder =
                decoder(options("ignore-parse-errors", "true", "basic-auth.user-info", "u:p"), PHYSICAL);
        ProtobufConfig config = decoder.getConfig();
        assertThat(config.descriptorSet()).isEmpty();
        JsonNode json = JSON.readTree(config.configJson(ROW_TYPE));
        assertThat(json.get("message").asText()).isEmpty();
        assertThat(json.get("options").get("ignore_parse_errors").asBoolean()).isTrue();
        assertThat(json.get("confluent").get("url").asText()).isEqualTo("http://r:1");
        assertThat(json.get("confluent").get("basic_auth_user_info").asText()).isEqualTo("u:p");
        assertThat(json.get("confluent").has("subject")).isFalse();
        // The schema survives Java serialization (it travels to the task managers).
        ProtobufNativeDeserializationSchema copy = InstantiationUtil.clone(decoder);
        assertThat(copy.getConfig()).isEqualTo(config);
    }

    @Test
    void encoderConfigCarriesSubjectSchemaAndMessageName() throws Exception {
        String schema = "syntax = \"proto3\"; message A { int64 id = 1; }";
        ProtobufConfig config = encoder(options("subject", "s-value", "schema", schema, "message-name", "A"),
                PHYSICAL).getConfig();
        JsonNode json = JSON.readTree(config.configJson(ROW_TYPE));
        assertThat(json.get("message").asText()).isEqualTo("A");
        assertThat(json.get("confluent").get("subject").asText()).isEqualTo("s-value");
        assertThat(json.get("confluent").get("schema").asText()).isEqualTo(schema);
        assertThat(json.get("confluent").has("schema_references")).isFalse();
        JsonNode derived = JSON.readTree(encoder(options("subject", "s"), PHYSICAL).getConfig().configJson(ROW_TYPE));
        assertThat(derived.get("confluent").get("schema").isNull()).isTrue();
        assertThat(derived.get("message").asText()).isEmpty();
    }

    @Test
    void encoderConfigCarriesTheSchemasReferencesAndRefusesThemWithoutASchema() throws Exception {
        String schema = "syntax = \"proto3\"; import \"common.proto\"; message A { int64 id = 1; }";
        String references = "[{\"name\":\"common.proto\",\"subject\":\"common\",\"version\":1}]";
        ProtobufNativeSerializationSchema encoder =
                encoder(options("subject", "s-value", "schema", schema, "schema.references", references), PHYSICAL);
        JsonNode json = JSON.readTree(encoder.getConfig().configJson(ROW_TYPE));
        assertThat(json.get("confluent").get("schema_references").asText()).isEqualTo(references);
        assertThat(InstantiationUtil.clone(encoder).getConfig()).isEqualTo(encoder.getConfig());
        assertThatThrownBy(() -> encoder(options("subject", "s", "schema.references", references), PHYSICAL))
                .hasMessageContaining("protobuf-confluent-native.schema.references needs the writer schema");
    }

    @Test
    void planningChecks() {
        assertThatThrownBy(() -> encoder(options(), PHYSICAL))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Option protobuf-confluent-native.subject is required for serialization");
        assertThatThrownBy(() -> encoder(options("subject", "s", "message-name", "A"), PHYSICAL))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'message-name'").hasMessageContaining("'schema' option, which is not set");
        DataType decimal = DataTypes.ROW(DataTypes.FIELD("price", DataTypes.DECIMAL(10, 2))).notNull();
        assertThatThrownBy(() -> encoder(options("subject", "s"), decimal))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("protobuf-confluent-native cannot derive a Protobuf schema for column "
                        + "'price': DECIMAL(10, 2) has no Protobuf scalar type");
        DataType nested = DataTypes.ROW(DataTypes.FIELD("r",
                DataTypes.ROW(DataTypes.FIELD("m", DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.INT())))))).notNull();
        assertThatThrownBy(() -> encoder(options("subject", "s"), nested))
                .hasMessageContaining("column 'r.m': ARRAY elements must be scalars or ROWs, not ARRAY<INT>");
        DataType doubleKeys = DataTypes.ROW(
                DataTypes.FIELD("m", DataTypes.MAP(DataTypes.DOUBLE(), DataTypes.INT()))).notNull();
        assertThatThrownBy(() -> encoder(options("subject", "s"), doubleKeys))
                .hasMessageContaining("MAP keys must be STRING, INT, BIGINT or BOOLEAN, not DOUBLE");
        DataType smallint = DataTypes.ROW(DataTypes.FIELD("s", DataTypes.SMALLINT())).notNull();
        assertThatThrownBy(() -> encoder(options("subject", "s"), smallint))
                .hasMessageContaining("column 's': SMALLINT has no Protobuf scalar type");
        // With an explicit schema only the readable check applies (SMALLINT may hold an enum).
        assertThat(encoder(options("subject", "s", "schema", "syntax = \"proto3\";"), smallint)).isNotNull();
        assertThatThrownBy(() -> encoder(options("subject", "s", "schema", "x"), decimal))
                .hasMessageContaining("cannot read column 'price' of type DECIMAL(10, 2)");
        // Sources: every type must map to some Protobuf field.
        DataType timestamp = DataTypes.ROW(DataTypes.FIELD("r",
                DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP(3))))).notNull();
        assertThatThrownBy(() -> decoder(options(), timestamp))
                .isInstanceOf(ValidationException.class)
                .hasMessage("protobuf-confluent-native cannot read column 'r.t' of type TIMESTAMP(3): no Protobuf "
                        + "field maps to it");
        assertThat(decoder(options(), PHYSICAL)).isNotNull();
        assertThatThrownBy(() -> decoder(options("ssl.keystore.location", "/k.jks"), PHYSICAL))
                .hasMessageContaining("not supported by 'protobuf-confluent-native'");
    }
}
