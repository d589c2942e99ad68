package io.karrow.flink.formats.protobuf;

import static io.karrow.flink.formats.protobuf.ProtobufConfluentNativeFormatOptions.MESSAGE_NAME;
import static io.karrow.flink.formats.protobuf.ProtobufConfluentNativeFormatOptions.SCHEMA;
import static io.karrow.flink.formats.protobuf.ProtobufConfluentNativeFormatOptions.SCHEMA_REFERENCES;
import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.IGNORE_PARSE_ERRORS;
import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.READ_DEFAULT_VALUES;
import static io.karrow.flink.formats.protobuf.ProtobufNativeFormatOptions.WRITE_NULL_STRING_LITERAL;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.REGISTRY_CONNECTION_OPTIONS;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.SUBJECT;
import static io.karrow.flink.formats.registry.RegistryFormatOptions.URL;

import io.karrow.flink.formats.ProducedRowClass;
import io.karrow.flink.formats.registry.RegistryDecoderConfig;
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
 * Factory of the {@code protobuf-confluent-native} format: Confluent's Protobuf wire format ({@code
 * 0x00}, the 4-byte big-endian schema id, the message-index array, then the protobuf message), which
 * open-source Flink does not have (FLINK-34440). Values are read with the writer schema registered
 * under their id (no generated class) and, after that, exactly as {@code protobuf-native} (Flink's
 * {@code protobuf} semantics) reads and writes them.
 *
 * <p>Registry options are those of the other registry formats ({@code url} required; {@code subject},
 * authentication, TLS, {@code properties}), read by the same code. Writing registers the {@code schema}
 * option's {@code .proto} text (message {@code message-name}, default the first one), or a proto3
 * schema derived from the row type, under {@code subject} (auto-completed as {@code <topic>-value} /
 * {@code <topic>-key} by {@link SubjectAutoCompletion}) when the encoder opens.
 *
 * <p>Rows are produced and consumed by the {@code protobuf-native} runtime classes ({@link
 * ProtobufNativeDeserializationSchema}, {@link ProtobufNativeSerializationSchema}) with a {@link
 * ProtobufConfluentConfig}, so the format works behind the stock {@code kafka} connector (per record)
 * and behind {@code kafka-native} (batches).
 */
public class ProtobufConfluentNativeFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {

    /** The format identifier used in DDL. */
    public static final String IDENTIFIER = "protobuf-confluent-native";

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        RegistryDecoderConfig registry = RegistryDecoderConfig.fromOptions(IDENTIFIER, formatOptions, null, null);
        ProtobufConfig config = new ProtobufConfig(
                ProtobufConfluentConfig.forDecoding(registry),
                "",
                formatOptions.get(IGNORE_PARSE_ERRORS),
                formatOptions.get(READ_DEFAULT_VALUES),
                formatOptions.get(WRITE_NULL_STRING_LITERAL));
        return new ProtobufConfluentNativeDecodingFormat(config, ProducedRowClass.needsGenericRows(context));
    }

    /**
     * Creates the sink side. The subject is the {@code subject} option, else {@code <topic>-value} /
     * {@code <topic>-key} when {@link SubjectAutoCompletion} can tell, else planning fails with "Option
     * protobuf-confluent-native.subject is required for serialization".
     */
    @Override
    public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        String schema = formatOptions.getOptional(SCHEMA).orElse(null);
        String messageName = formatOptions.getOptional(MESSAGE_NAME).orElse("");
        if (schema == null && !messageName.isEmpty()) {
            throw new ValidationException("Option '" + MESSAGE_NAME.key() + "' of " + IDENTIFIER
                    + " names a message of the 'schema' option, which is not set (the derived schema has one"
                    + " message).");
        }
        String references = formatOptions.getOptional(SCHEMA_REFERENCES).orElse(null);
        if (schema == null && references != null) {
            throw new ValidationException("Option " + IDENTIFIER + "." + SCHEMA_REFERENCES.key()
                    + " needs the writer schema in " + IDENTIFIER + "." + SCHEMA.key() + ".");
        }
        RegistryDecoderConfig registry = RegistryDecoderConfig.fromOptions(IDENTIFIER, formatOptions, schema, null);
        String subject = SubjectAutoCompletion.requireSubject(IDENTIFIER, context, formatOptions);
        ProtobufConfig config = new ProtobufConfig(
                ProtobufConfluentConfig.forEncoding(registry, subject, references),
                messageName,
                formatOptions.get(IGNORE_PARSE_ERRORS),
                formatOptions.get(READ_DEFAULT_VALUES),
                formatOptions.get(WRITE_NULL_STRING_LITERAL));
        return new ProtobufConfluentNativeEncodingFormat(config);
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
        options.add(MESSAGE_NAME);
        options.add(IGNORE_PARSE_ERRORS);
        options.add(READ_DEFAULT_VALUES);
        options.add(WRITE_NULL_STRING_LITERAL);
        return options;
    }

    /**
     * The registry options ({@code url}, {@code subject}, {@code schema}, {@code schema.references},
     * authentication, TLS, {@code properties}) and the encode-only {@code message-name} and {@code
     * write-null-string-literal}; the
     * decode-only {@code ignore-parse-errors} and {@code read-default-values} are not forwarded.
     */
    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(REGISTRY_CONNECTION_OPTIONS);
        options.add(URL);
        options.add(SUBJECT);
        options.add(SCHEMA);
        options.add(SCHEMA_REFERENCES);
        options.add(MESSAGE_NAME);
        options.add(WRITE_NULL_STRING_LITERAL);
        return options;
    }
}
