package io.karrow.flink.formats.avro;

import static io.karrow.flink.formats.registry.RegistryFormatOptions.REGISTRY_CONNECTION_OPTIONS;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SCHEMA;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SCHEMA_REFERENCES;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.SUBJECT;
import static io.karrow.flink.formats.avro.AvroConfluentNativeFormatOptions.URL;

import io.karrow.flink.formats.ProducedRowClass;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.formats.registry.RegistryEncoderConfig;
import io.karrow.flink.formats.registry.SubjectAutoCompletion;

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

import java.util.HashSet;
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
        String subject = SubjectAutoCompletion.requireSubject(IDENTIFIER, context, formatOptions);
        if (formatOptions.getOptional(SCHEMA_REFERENCES).isPresent()
                && !formatOptions.getOptional(SCHEMA).isPresent()) {
            throw new ValidationException(
                    "Option " + IDENTIFIER + "." + SCHEMA_REFERENCES.key() + " needs the writer schema in "
                            + IDENTIFIER + "." + SCHEMA.key() + ".");
        }
        return new AvroConfluentNativeEncodingFormat(new RegistryEncoderConfig(
                registry, subject, formatOptions.getOptional(SCHEMA_REFERENCES).orElse(null)));
    }

    /** Validates the format options and builds the registry settings shared by both sides. */
    private RegistryDecoderConfig registryConfig(ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        return RegistryDecoderConfig.fromOptions(
                IDENTIFIER, formatOptions, formatOptions.getOptional(SCHEMA).orElse(null), "avro-confluent");
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
        Set<ConfigOption<?>> options = new HashSet<>(REGISTRY_CONNECTION_OPTIONS);
        options.add(SUBJECT);
        options.add(SCHEMA);
        options.add(SCHEMA_REFERENCES);
        return options;
    }

    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(REGISTRY_CONNECTION_OPTIONS);
        options.add(URL);
        options.add(SUBJECT);
        options.add(SCHEMA);
        options.add(SCHEMA_REFERENCES);
        return options;
    }
}
