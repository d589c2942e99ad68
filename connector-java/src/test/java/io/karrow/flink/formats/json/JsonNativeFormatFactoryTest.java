package io.karrow.flink.formats.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeutils.base.VoidSerializer;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.formats.json.JsonFormatFactory;
import org.apache.flink.table.api.DataTypes;
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
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RawType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Options, validation, forwarded options, produced type and service registration of {@code
 * json-native}, checked against Flink's own {@code json} factory (flink-json 2.2.0) wherever both
 * must behave the same. No native code runs here.
 */
class JsonNativeFormatFactoryTest {

    private static final DataType PHYSICAL =
            DataTypes.ROW(DataTypes.FIELD("a", DataTypes.BIGINT()), DataTypes.FIELD("b", DataTypes.STRING())).notNull();

    private static DynamicTableFactory.Context context(Map<String, String> tableOptions, boolean metadataColumn) {
        List<Column> columns = new ArrayList<>(List.of(
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

    private static DecodingFormat<DeserializationSchema<RowData>> decoding(
            String identifier, Map<String, String> formatOptions, Map<String, String> tableOptions, boolean metadata) {
        DeserializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), DeserializationFormatFactory.class, identifier);
        return factory.createDecodingFormat(context(tableOptions, metadata), Configuration.fromMap(formatOptions));
    }

    private static EncodingFormat<SerializationSchema<RowData>> encoding(String identifier, Map<String, String> formatOptions) {
        SerializationFormatFactory factory = FactoryUtil.discoverFactory(
                Thread.currentThread().getContextClassLoader(), SerializationFormatFactory.class, identifier);
        return factory.createEncodingFormat(context(Map.of(), false), Configuration.fromMap(formatOptions));
    }

    private static JsonNativeDeserializationSchema nativeDecoder(Map<String, String> formatOptions) {
        return (JsonNativeDeserializationSchema) decoding(JsonNativeFormatFactory.IDENTIFIER, formatOptions, Map.of(), false)
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL);
    }

    private static JsonNativeSerializationSchema nativeEncoder(Map<String, String> formatOptions) {
        return (JsonNativeSerializationSchema) encoding(JsonNativeFormatFactory.IDENTIFIER, formatOptions)
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), PHYSICAL);
    }

    private static Map<String, String> options(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    private static Map<String, Object> keysAndDefaults(Set<ConfigOption<?>> options) {
        return options.stream().collect(Collectors.toMap(ConfigOption::key,
                o -> o.hasDefaultValue() ? o.defaultValue() : "<none>"));
    }

    /** The exception a call throws, asserted to throw. */
    private static Throwable thrown(Runnable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("expected a failure").isNotNull();
        return t;
    }

    /** Both factories fail the same way (class and message) on the same call. */
    private static void failsLikeFlink(Function<String, Object> call) {
        Throwable flink = thrown(() -> call.apply(JsonFormatFactory.IDENTIFIER));
        Throwable karrow = thrown(() -> call.apply(JsonNativeFormatFactory.IDENTIFIER));
        assertThat(karrow).isInstanceOf(flink.getClass()).hasMessage(flink.getMessage());
    }

    @Test
    void discoveredThroughServiceLoaderForBothDirections() {
        ClassLoader loader = getClass().getClassLoader();
        assertThat(FactoryUtil.discoverFactory(loader, DeserializationFormatFactory.class, "json-native"))
                .isInstanceOf(JsonNativeFormatFactory.class);
        assertThat(FactoryUtil.discoverFactory(loader, SerializationFormatFactory.class, "json-native"))
                .isInstanceOf(JsonNativeFormatFactory.class);
        // Flink's own json format still resolves to Flink's factory.
        assertThat(FactoryUtil.discoverFactory(loader, DeserializationFormatFactory.class, "json"))
                .isInstanceOf(JsonFormatFactory.class);
    }

    @Test
    void optionsKeysTypesAndDefaultsMirrorFlinksJson() {
        JsonNativeFormatFactory karrow = new JsonNativeFormatFactory();
        JsonFormatFactory flink = new JsonFormatFactory();
        assertThat(karrow.requiredOptions()).isEmpty();
        assertThat(flink.requiredOptions()).isEmpty();
        assertThat(keysAndDefaults(karrow.optionalOptions())).isEqualTo(keysAndDefaults(flink.optionalOptions()));
        assertThat(keysAndDefaults(karrow.optionalOptions())).containsOnlyKeys(
                "fail-on-missing-field", "ignore-parse-errors", "timestamp-format.standard", "map-null-key.mode",
                "map-null-key.literal", "encode.decimal-as-plain-number", "encode.ignore-null-fields",
                "decode.json-parser.enabled");
        for (ConfigOption<?> option : karrow.optionalOptions()) {
            assertThat(option.fallbackKeys()).as(option.key()).isEmpty();
        }
    }

    @Test
    void forwardedOptionsAreAllButTheDecodeErrorHandlingOnes() {
        JsonNativeFormatFactory karrow = new JsonNativeFormatFactory();
        Set<String> forwarded = karrow.forwardOptions().stream().map(ConfigOption::key).collect(Collectors.toSet());
        assertThat(forwarded).isEqualTo(
                new JsonFormatFactory().forwardOptions().stream().map(ConfigOption::key).collect(Collectors.toSet()));
        assertThat(forwarded).hasSize(6).doesNotContain("fail-on-missing-field", "ignore-parse-errors");
        assertThat(karrow.optionalOptions()).containsAll(karrow.forwardOptions());
    }

    @Test
    void decodeOptionsAreValidatedWithFlinksMessages() {
        assertThatThrownBy(() -> nativeDecoder(options("fail-on-missing-field", "true", "ignore-parse-errors", "true")))
                .isInstanceOf(org.apache.flink.table.api.ValidationException.class)
                .hasMessage("fail-on-missing-field and ignore-parse-errors shouldn't both be true.");
        for (Map<String, String> bad : List.of(
                options("fail-on-missing-field", "true", "ignore-parse-errors", "true"),
                options("timestamp-format.standard", "iso-8601"),
                options("timestamp-format.standard", "RFC-3339"),
                options("ignore-parse-errors", "maybe"),
                options("decode.json-parser.enabled", "yes"))) {
            failsLikeFlink(id -> decoding(id, bad, Map.of(), false));
        }
        assertThat(thrown(() -> nativeDecoder(options("timestamp-format.standard", "iso-8601"))))
                .hasMessage("Unsupported value 'iso-8601' for timestamp-format.standard. Supported values are "
                        + "[SQL, ISO-8601].");
        // The encode-only options are not checked when decoding, as in Flink.
        assertThat(nativeDecoder(options("map-null-key.mode", "bogus")).getConfig().timestampFormat()).isEqualTo("SQL");
    }

    @Test
    void encodeOptionsAreValidatedWithFlinksMessages() {
        for (Map<String, String> bad : List.of(
                options("map-null-key.mode", "bogus"),
                options("map-null-key.mode", "nul"),
                options("timestamp-format.standard", "sql"),
                options("encode.ignore-null-fields", "1"))) {
            failsLikeFlink(id -> encoding(id, bad));
        }
        assertThat(thrown(() -> nativeEncoder(options("map-null-key.mode", "bogus"))))
                .hasMessage("Unsupported value 'bogus' for option map-null-key.mode. Supported values are "
                        + "[LITERAL, FAIL, DROP].");
        // Decode-only options are accepted together on the sink, as in Flink.
        assertThat(nativeEncoder(options("fail-on-missing-field", "true", "ignore-parse-errors", "true"))).isNotNull();
    }

    @Test
    void decodeSettingsComeFromTheOptions() {
        assertThat(nativeDecoder(Map.of()).getConfig()).isEqualTo(new JsonDecoderConfig(false, false, "SQL", true));
        assertThat(nativeDecoder(options("ignore-parse-errors", "true", "timestamp-format.standard", "ISO-8601",
                "decode.json-parser.enabled", "false")).getConfig())
                .isEqualTo(new JsonDecoderConfig(false, true, "ISO-8601", false));
        assertThat(nativeDecoder(options("fail-on-missing-field", "true")).getConfig().failOnMissingField()).isTrue();
    }

    @Test
    void encodeSettingsComeFromTheOptionsWithTheModeUpperCased() {
        assertThat(nativeEncoder(Map.of()).getConfig())
                .isEqualTo(new JsonEncoderConfig("SQL", "FAIL", "null", false, false));
        assertThat(nativeEncoder(options("map-null-key.mode", "literal", "map-null-key.literal", "N/A",
                "timestamp-format.standard", "ISO-8601", "encode.decimal-as-plain-number", "true",
                "encode.ignore-null-fields", "true")).getConfig())
                .isEqualTo(new JsonEncoderConfig("ISO-8601", "LITERAL", "N/A", true, true));
        assertThat(nativeEncoder(options("map-null-key.mode", "Drop")).getConfig().mapNullKeyMode()).isEqualTo("DROP");
    }

    @Test
    void configJsonFollowsTheContract() {
        RowType rowType = (RowType) PHYSICAL.getLogicalType();
        String row = LogicalTypeJson.toJson(rowType);
        String jvm = ",\"java_feature_version\":" + Runtime.version().feature();
        assertThat(new JsonDecoderConfig(true, false, "ISO-8601", true).toConfigJson(rowType))
                .isEqualTo("{\"row_type\":" + row + ",\"options\":{\"fail_on_missing_field\":true,"
                        + "\"ignore_parse_errors\":false,\"timestamp_standard\":\"ISO-8601\",\"json_parser\":true}" + jvm + "}");
        assertThat(new JsonEncoderConfig("SQL", "LITERAL", "a\"b", true, false).toConfigJson(rowType))
                .isEqualTo("{\"row_type\":" + row + ",\"timestamp_standard\":\"SQL\",\"map_null_key_mode\":\"LITERAL\","
                        + "\"map_null_key_literal\":\"a\\\"b\",\"decimal_as_plain_number\":true,"
                        + "\"ignore_null_fields\":false" + jvm + "}");
    }

    @Test
    void producedTypeIsTheProjectedPhysicalRowAndChangelogIsInsertOnly() {
        DecodingFormat<DeserializationSchema<RowData>> format =
                decoding(JsonNativeFormatFactory.IDENTIFIER, Map.of(), Map.of(), false);
        JsonNativeDeserializationSchema all =
                (JsonNativeDeserializationSchema) format.createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL);
        assertThat(all.getProducedType()).isEqualTo(InternalTypeInfo.of((RowType) PHYSICAL.getLogicalType()));
        assertThat(all.emitsGenericRows()).isFalse();
        assertThat(all.isEndOfStream(null)).isFalse();

        DataType onlyB = DataTypes.ROW(DataTypes.FIELD("b", DataTypes.STRING())).notNull();
        JsonNativeDeserializationSchema projected = (JsonNativeDeserializationSchema)
                ((org.apache.flink.table.connector.format.ProjectableDecodingFormat<DeserializationSchema<RowData>>) format)
                        .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL, new int[][] {{1}});
        assertThat(projected.getProducedType()).isEqualTo(InternalTypeInfo.of((RowType) onlyB.getLogicalType()));

        assertThat(format.getChangelogMode()).isEqualTo(ChangelogMode.insertOnly());
        assertThat(encoding(JsonNativeFormatFactory.IDENTIFIER, Map.of()).getChangelogMode())
                .isEqualTo(ChangelogMode.insertOnly());
        assertThat(decoding(JsonFormatFactory.IDENTIFIER, Map.of(), Map.of(), false).getChangelogMode())
                .isEqualTo(ChangelogMode.insertOnly());
    }

    @Test
    void keyFormatOrMetadataSwitchesToGenericRows() {
        for (Map<String, String> table : List.of(Map.of("key.format", "raw"), Map.<String, String>of())) {
            boolean metadata = table.isEmpty();
            JsonNativeDeserializationSchema schema = (JsonNativeDeserializationSchema)
                    decoding(JsonNativeFormatFactory.IDENTIFIER, Map.of(), table, metadata)
                            .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, PHYSICAL);
            assertThat(schema.emitsGenericRows()).as("table options %s, metadata %s", table, metadata).isTrue();
        }
    }

    @Test
    void schemasSurviveJavaSerializationAsTheJobGraphNeeds() throws Exception {
        JsonNativeDeserializationSchema decoder = nativeDecoder(options("ignore-parse-errors", "true"));
        JsonNativeSerializationSchema encoder = nativeEncoder(options("map-null-key.mode", "literal"));
        assertThat(org.apache.flink.util.InstantiationUtil.clone(decoder)).isEqualTo(decoder);
        assertThat(org.apache.flink.util.InstantiationUtil.clone(encoder)).isEqualTo(encoder);
    }

    @Test
    void equalOptionsGiveEqualSchemas() {
        assertThat(nativeDecoder(options("ignore-parse-errors", "false"))).isEqualTo(nativeDecoder(Map.of()));
        assertThat(nativeDecoder(options("ignore-parse-errors", "true"))).isNotEqualTo(nativeDecoder(Map.of()));
        assertThat(nativeEncoder(options("map-null-key.mode", "drop")))
                .isEqualTo(nativeEncoder(options("map-null-key.mode", "DROP")));
    }

    @Test
    void unsupportedTypesFailWhenTheRuntimeCodecIsCreatedAsInFlink() {
        List<DataType> types = List.of(
                DataTypes.ROW(DataTypes.FIELD("m", DataTypes.MAP(DataTypes.INT(), DataTypes.STRING()))).notNull(),
                DataTypes.ROW(DataTypes.FIELD("s", DataTypes.MULTISET(DataTypes.BIGINT()))).notNull(),
                DataTypes.ROW(DataTypes.FIELD("n", DataTypes.ROW(DataTypes.FIELD("m",
                        DataTypes.MAP(DataTypes.STRING(), DataTypes.MAP(DataTypes.DATE(), DataTypes.INT())))))).notNull(),
                DataTypes.ROW(DataTypes.FIELD("a", DataTypes.ARRAY(DataTypes.MAP(DataTypes.BOOLEAN(), DataTypes.INT()))),
                        DataTypes.FIELD("m", DataTypes.MAP(DataTypes.INT(), DataTypes.INT()))).notNull(),
                DataTypes.ROW(DataTypes.FIELD("r", DataTypes.of(new RawType<>(Void.class, VoidSerializer.INSTANCE)))).notNull(),
                DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIMESTAMP_WITH_TIME_ZONE(3))).notNull());
        for (DataType type : types) {
            failsLikeFlink(id -> decoding(id, Map.of(), Map.of(), false)
                    .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, type));
            failsLikeFlink(id -> encoding(id, Map.of()).createRuntimeEncoder(new SinkRuntimeProviderContext(false), type));
        }
        assertThat(thrown(() -> decoding(JsonNativeFormatFactory.IDENTIFIER, Map.of(), Map.of(), false)
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, types.get(0))))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("JSON format doesn't support non-string as key type of map. The type is: MAP<INT, STRING>");
        // String-keyed maps and multisets of every string type are fine.
        DataType ok = DataTypes.ROW(
                DataTypes.FIELD("m", DataTypes.MAP(DataTypes.CHAR(3), DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))),
                DataTypes.FIELD("s", DataTypes.MULTISET(DataTypes.VARCHAR(5)))).notNull();
        assertThat(decoding(JsonNativeFormatFactory.IDENTIFIER, Map.of(), Map.of(), false)
                .createRuntimeDecoder(ScanRuntimeProviderContext.INSTANCE, ok)).isNotNull();
        assertThat(encoding(JsonNativeFormatFactory.IDENTIFIER, Map.of())
                .createRuntimeEncoder(new SinkRuntimeProviderContext(false), ok)).isNotNull();
    }
}
