package io.karrow.flink.formats.json;

import static io.karrow.flink.formats.registry.RegistryFormatOptions.REGISTRY_CONNECTION_OPTIONS;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.SUBJECT;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.URL;
import static io.karrow.flink.formats.json.JsonConfluentNativeFormatOptions.SCHEMA;
import static io.karrow.flink.formats.json.JsonConfluentNativeFormatOptions.VALIDATE_SCHEMA_ID;

import io.karrow.flink.formats.ProducedRowClass;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.formats.registry.SubjectAutoCompletion;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;

import java.util.HashSet;
import java.util.Set;

/**
 * Factory of the {@code json-confluent-native} format: Confluent's JSON Schema wire format ({@code
 * 0x00}, the 4-byte big-endian schema id, then the JSON document), which open-source Flink does not
 * have. After the header, values are read and written exactly as {@code json-native} (Flink's {@code
 * json} semantics) does, with the same eight options, defaults and validation messages.
 *
 * <p>Registry options are those of {@code avro-confluent-native} ({@code url} required; {@code
 * subject}, authentication, TLS, {@code properties}), read by the same code. Reading ignores the
 * schema id unless {@code validate-schema-id} is true. Writing registers the {@code schema} option's
 * text, or a JSON Schema derived from the row type, under {@code subject} (auto-completed as {@code
 * <topic>-value} / {@code <topic>-key} by {@link SubjectAutoCompletion}) when the encoder opens.
 *
 * <p>Rows are produced and consumed by the {@code json-native} runtime classes ({@link
 * JsonNativeDecodingFormat}, {@link JsonNativeEncodingFormat}) with a {@link JsonConfluentConfig}, so
 * the format works behind the stock {@code kafka} connector (per record) and behind {@code
 * kafka-native} (batches).
 */
public class JsonConfluentNativeFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {

    /** The format identifier used in DDL. */
    public static final String IDENTIFIER = "json-confluent-native";

    private final JsonNativeFormatFactory json = new JsonNativeFormatFactory();

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        JsonNativeFormatFactory.validateDecodingOptions(formatOptions);
        RegistryDecoderConfig registry = RegistryDecoderConfig.fromOptions(IDENTIFIER, formatOptions, null, null);
        JsonConfluentConfig confluent =
                JsonConfluentConfig.forDecoding(registry, formatOptions.get(VALIDATE_SCHEMA_ID));
        JsonDecoderConfig config = JsonNativeFormatFactory.decoderConfig(formatOptions, confluent);
        return new JsonNativeDecodingFormat(config, ProducedRowClass.needsGenericRows(context));
    }

    /**
     * Creates the sink side. The subject is the {@code subject} option, else {@code <topic>-value} /
     * {@code <topic>-key} when {@link SubjectAutoCompletion} can tell, else planning fails with
     * "Option json-confluent-native.subject is required for serialization".
     */
    @Override
    public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        JsonNativeFormatFactory.validateEncodingOptions(formatOptions);
        RegistryDecoderConfig registry = RegistryDecoderConfig.fromOptions(
                IDENTIFIER, formatOptions, formatOptions.getOptional(SCHEMA).orElse(null), null);
        String subject = SubjectAutoCompletion.requireSubject(IDENTIFIER, context, formatOptions);
        JsonConfluentConfig confluent = JsonConfluentConfig.forEncoding(registry, subject);
        return new JsonNativeEncodingFormat(JsonNativeFormatFactory.encoderConfig(formatOptions, confluent));
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(URL);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(json.optionalOptions());
        options.addAll(REGISTRY_CONNECTION_OPTIONS);
        options.add(SUBJECT);
        options.add(SCHEMA);
        options.add(VALIDATE_SCHEMA_ID);
        return options;
    }

    /**
     * The forwarded options of {@code json-native} and of the registry ({@code url}, {@code subject},
     * {@code schema}, authentication, TLS, {@code properties}); like {@code fail-on-missing-field} and
     * {@code ignore-parse-errors}, the decode-only {@code validate-schema-id} is not forwarded.
     */
    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(json.forwardOptions());
        options.addAll(REGISTRY_CONNECTION_OPTIONS);
        options.add(URL);
        options.add(SUBJECT);
        options.add(SCHEMA);
        return options;
    }
}
