package io.karrow.flink.formats.json;

import static io.karrow.flink.formats.json.JsonNativeFormatOptions.DECODE_JSON_PARSER_ENABLED;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.ENCODE_DECIMAL_AS_PLAIN_NUMBER;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.ENCODE_IGNORE_NULL_FIELDS;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.FAIL_ON_MISSING_FIELD;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.IGNORE_PARSE_ERRORS;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.MAP_NULL_KEY_DROP;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.MAP_NULL_KEY_FAIL;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.MAP_NULL_KEY_LITERAL;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.MAP_NULL_KEY_LITERAL_MODE;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.MAP_NULL_KEY_MODE;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.TIMESTAMP_FORMAT;
import static io.karrow.flink.formats.json.JsonNativeFormatOptions.TIMESTAMP_FORMATS;

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

import java.util.Set;

/**
 * Factory of the {@code json-native} format: a drop-in replacement for Flink's {@code json} format
 * (flink-json 2.2.0), with the same options, defaults and validation messages, whose decoding and
 * encoding run in Rust.
 *
 * <p>Like {@code avro-confluent-native}, the factory decides the row class: tables with a key format
 * or metadata columns get {@code GenericRowData} (Flink's Kafka connector casts to it), value-only
 * tables get {@code BinaryRowData} views without per-field objects.
 */
public class JsonNativeFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {

    /** The format identifier used in DDL. */
    public static final String IDENTIFIER = "json-native";

    /** The accepted {@code map-null-key.mode} values as Flink's message lists them. */
    private static final String MAP_NULL_KEY_MODES =
            "[" + MAP_NULL_KEY_LITERAL_MODE + ", " + MAP_NULL_KEY_FAIL + ", " + MAP_NULL_KEY_DROP + "]";

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        validateDecodingOptions(formatOptions);
        return new JsonNativeDecodingFormat(
                decoderConfig(formatOptions, null), ProducedRowClass.needsGenericRows(context));
    }

    @Override
    public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        FactoryUtil.validateFactoryOptions(this, formatOptions);
        validateEncodingOptions(formatOptions);
        return new JsonNativeEncodingFormat(encoderConfig(formatOptions, null));
    }

    /**
     * The decode settings of validated options; {@code confluent} is null for {@code json-native}
     * and set for {@code json-confluent-native}.
     */
    static JsonDecoderConfig decoderConfig(ReadableConfig formatOptions, JsonConfluentConfig confluent) {
        return new JsonDecoderConfig(
                formatOptions.get(FAIL_ON_MISSING_FIELD),
                formatOptions.get(IGNORE_PARSE_ERRORS),
                formatOptions.get(TIMESTAMP_FORMAT),
                formatOptions.get(DECODE_JSON_PARSER_ENABLED),
                confluent);
    }

    /**
     * The encode settings of validated options; {@code confluent} is null for {@code json-native}
     * and set (with the subject) for {@code json-confluent-native}.
     */
    static JsonEncoderConfig encoderConfig(ReadableConfig formatOptions, JsonConfluentConfig confluent) {
        return new JsonEncoderConfig(
                formatOptions.get(TIMESTAMP_FORMAT),
                mapNullKeyMode(formatOptions),
                formatOptions.get(MAP_NULL_KEY_LITERAL),
                formatOptions.get(ENCODE_DECIMAL_AS_PLAIN_NUMBER),
                formatOptions.get(ENCODE_IGNORE_NULL_FIELDS),
                confluent);
    }

    /** Checks the decode-side options as Flink's {@code json} format does, with its messages. */
    static void validateDecodingOptions(ReadableConfig options) {
        if (options.get(FAIL_ON_MISSING_FIELD) && options.get(IGNORE_PARSE_ERRORS)) {
            throw new ValidationException(
                    FAIL_ON_MISSING_FIELD.key() + " and " + IGNORE_PARSE_ERRORS.key() + " shouldn't both be true.");
        }
        validateTimestampFormat(options);
    }

    /** Checks the encode-side options as Flink's {@code json} format does, with its messages. */
    static void validateEncodingOptions(ReadableConfig options) {
        String mode = options.get(MAP_NULL_KEY_MODE);
        if (!isMapNullKeyMode(mode)) {
            throw new ValidationException(String.format(
                    "Unsupported value '%s' for option %s. Supported values are %s.",
                    mode, MAP_NULL_KEY_MODE.key(), MAP_NULL_KEY_MODES));
        }
        validateTimestampFormat(options);
    }

    private static void validateTimestampFormat(ReadableConfig options) {
        String format = options.get(TIMESTAMP_FORMAT);
        if (!TIMESTAMP_FORMATS.contains(format)) {
            throw new ValidationException(String.format(
                    "Unsupported value '%s' for %s. Supported values are [%s, %s].",
                    format, TIMESTAMP_FORMAT.key(), JsonNativeFormatOptions.SQL, JsonNativeFormatOptions.ISO_8601));
        }
    }

    /** The validated {@code map-null-key.mode}, upper-cased as Flink compares it. */
    private static String mapNullKeyMode(ReadableConfig options) {
        // Default-locale upper-casing, exactly as Flink's json format compares the mode.
        return options.get(MAP_NULL_KEY_MODE).toUpperCase();
    }

    private static boolean isMapNullKeyMode(String mode) {
        String upper = mode.toUpperCase();
        return upper.equals(MAP_NULL_KEY_FAIL) || upper.equals(MAP_NULL_KEY_DROP) || upper.equals(MAP_NULL_KEY_LITERAL_MODE);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                FAIL_ON_MISSING_FIELD,
                IGNORE_PARSE_ERRORS,
                TIMESTAMP_FORMAT,
                MAP_NULL_KEY_MODE,
                MAP_NULL_KEY_LITERAL,
                ENCODE_DECIMAL_AS_PLAIN_NUMBER,
                ENCODE_IGNORE_NULL_FIELDS,
                DECODE_JSON_PARSER_ENABLED);
    }

    /** Every option except the two decode-only error-handling ones, as for Flink's {@code json}. */
    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        return Set.of(
                TIMESTAMP_FORMAT,
                MAP_NULL_KEY_MODE,
                MAP_NULL_KEY_LITERAL,
                ENCODE_DECIMAL_AS_PLAIN_NUMBER,
                ENCODE_IGNORE_NULL_FIELDS,
                DECODE_JSON_PARSER_ENABLED);
    }
}
