package io.karrow.flink.formats.avro;

import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BASIC_AUTH_CREDENTIALS_SOURCE;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BASIC_AUTH_USER_INFO;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BEARER_AUTH_CREDENTIALS_SOURCE;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.BEARER_AUTH_TOKEN;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.PROPERTIES;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SCHEMA;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_KEYSTORE_LOCATION;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_KEYSTORE_PASSWORD;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_TRUSTSTORE_LOCATION;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SSL_TRUSTSTORE_PASSWORD;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SUBJECT;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.URL;

import io.karrow.flink.formats.ProducedRowClass;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;

import java.util.Map;
import java.util.Set;

/**
 * Factory of the {@code avro-confluent-native} format: a drop-in replacement for Flink's {@code
 * avro-confluent}, with the same options, whose decoding and encoding run in Rust.
 *
 * <p>The factory decides the row class: Flink's Kafka connector casts value rows to {@code
 * GenericRowData} as soon as the table declares a key format or metadata columns, so for such tables
 * the rows are converted; value-only tables get {@code BinaryRowData} without per-field objects.
 */
public class AvroConfluentNativeFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {

    /** The format identifier used in DDL. */
    public static final String IDENTIFIER = "avro-confluent-native";

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        RegistryDecoderConfig config = registryConfig(formatOptions);
        return new AvroConfluentNativeDecodingFormat(config, ProducedRowClass.needsGenericRows(context));
    }

    /**
     * Creates the sink side. Like Flink's {@code avro-confluent}, serialization needs a {@code
     * subject}; when it is not set, the subject is auto-completed as {@code <topic>-value} or {@code
     * <topic>-key} following {@link SubjectAutoCompletion} (Flink's Kafka connector does this only
     * for the identifier {@code avro-confluent}), otherwise planning fails.
     */
    @Override
    public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        RegistryDecoderConfig registry = registryConfig(formatOptions);
        String subject = formatOptions.getOptional(SUBJECT)
                .or(() -> SubjectAutoCompletion.defaultSubject(
                        IDENTIFIER, context.getCatalogTable().getOptions(), formatOptions))
                .orElseThrow(() -> new ValidationException(String.format(
                        "Option %s.%s is required for serialization (it is auto-completed as '<topic>-value' or "
                                + "'<topic>-key' only for a Kafka table with a single literal 'topic' whose key or "
                                + "value format is unambiguously '%s')",
                        IDENTIFIER, SUBJECT.key(), IDENTIFIER)));
        return new AvroConfluentNativeEncodingFormat(new RegistryEncoderConfig(registry, subject));
    }

    /** Validates the format options and builds the registry settings shared by both sides. */
    private RegistryDecoderConfig registryConfig(ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        if (formatOptions.getOptional(SSL_KEYSTORE_LOCATION).isPresent()) {
            throw new ValidationException(
                    "Option '" + SSL_KEYSTORE_LOCATION.key() + "' (TLS client certificates) is not supported by '"
                            + IDENTIFIER + "' yet; use 'avro-confluent' for registries that require client "
                            + "certificates.");
        }
        return new RegistryDecoderConfig(
                formatOptions.get(URL),
                formatOptions.getOptional(SCHEMA).orElse(null),
                formatOptions.getOptional(BASIC_AUTH_CREDENTIALS_SOURCE).orElse(null),
                formatOptions.getOptional(BASIC_AUTH_USER_INFO).orElse(null),
                formatOptions.getOptional(BEARER_AUTH_CREDENTIALS_SOURCE).orElse(null),
                formatOptions.getOptional(BEARER_AUTH_TOKEN).orElse(null),
                formatOptions.getOptional(SSL_TRUSTSTORE_LOCATION).orElse(null),
                formatOptions.getOptional(SSL_TRUSTSTORE_PASSWORD).orElse(null),
                formatOptions.getOptional(PROPERTIES).orElse(Map.of()));
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
        return Set.of(
                SUBJECT,
                SCHEMA,
                PROPERTIES,
                SSL_KEYSTORE_LOCATION,
                SSL_KEYSTORE_PASSWORD,
                SSL_TRUSTSTORE_LOCATION,
                SSL_TRUSTSTORE_PASSWORD,
                BASIC_AUTH_CREDENTIALS_SOURCE,
                BASIC_AUTH_USER_INFO,
                BEARER_AUTH_CREDENTIALS_SOURCE,
                BEARER_AUTH_TOKEN);
    }

    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        return Set.of(
                URL,
                SUBJECT,
                SCHEMA,
                PROPERTIES,
                SSL_KEYSTORE_LOCATION,
                SSL_KEYSTORE_PASSWORD,
                SSL_TRUSTSTORE_LOCATION,
                SSL_TRUSTSTORE_PASSWORD,
                BASIC_AUTH_CREDENTIALS_SOURCE,
                BASIC_AUTH_USER_INFO,
                BEARER_AUTH_CREDENTIALS_SOURCE,
                BEARER_AUTH_TOKEN);
    }
}
