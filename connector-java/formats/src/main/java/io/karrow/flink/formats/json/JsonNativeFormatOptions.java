package io.karrow.flink.formats.json;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.util.Set;

/**
 * Options of the {@code json-native} format: the same eight keys, types and defaults as Flink's
 * {@code json} format (flink-json 2.2.0), plus the values the string options accept.
 */
public final class JsonNativeFormatOptions {

    /** {@code timestamp-format.standard} value: space between date and time. */
    public static final String SQL = "SQL";

    /** {@code timestamp-format.standard} value: {@code T} between date and time. */
    public static final String ISO_8601 = "ISO-8601";

    /** The accepted {@code timestamp-format.standard} values (compared exactly). */
    public static final Set<String> TIMESTAMP_FORMATS = Set.of(SQL, ISO_8601);

    /** {@code map-null-key.mode} value: fail the record. */
    public static final String MAP_NULL_KEY_FAIL = "FAIL";

    /** {@code map-null-key.mode} value: drop the entry. */
    public static final String MAP_NULL_KEY_DROP = "DROP";

    /** {@code map-null-key.mode} value: write {@code map-null-key.literal}. */
    public static final String MAP_NULL_KEY_LITERAL_MODE = "LITERAL";

    /** Fail when a declared field is absent from a JSON object (decode). */
    public static final ConfigOption<Boolean> FAIL_ON_MISSING_FIELD =
            ConfigOptions.key("fail-on-missing-field")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether a JSON object that lacks a declared field fails the record (true) or yields "
                                    + "NULL for that field (false, the default).");

    /** Turn field conversion failures into NULL and skip unreadable messages (decode). */
    public static final ConfigOption<Boolean> IGNORE_PARSE_ERRORS =
            ConfigOptions.key("ignore-parse-errors")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether a field that cannot be converted becomes NULL and a message that cannot be "
                                    + "parsed is skipped, instead of failing the job (false by default).");

    /** Text form of TIMESTAMP and TIMESTAMP_LTZ values, {@code SQL} or {@code ISO-8601} (both directions). */
    public static final ConfigOption<String> TIMESTAMP_FORMAT =
            ConfigOptions.key("timestamp-format.standard")
                    .stringType()
                    .defaultValue(SQL)
                    .withDescription(
                            "How timestamps are read and written: 'SQL' (the default) uses "
                                    + "'yyyy-MM-dd HH:mm:ss.fff', 'ISO-8601' uses 'yyyy-MM-ddTHH:mm:ss.fff'.");

    /** What encoding does with a NULL map key: {@code FAIL}, {@code DROP} or {@code LITERAL}. */
    public static final ConfigOption<String> MAP_NULL_KEY_MODE =
            ConfigOptions.key("map-null-key.mode")
                    .stringType()
                    .defaultValue(MAP_NULL_KEY_FAIL)
                    .withDescription(
                            "How a NULL map key is written: 'FAIL' (the default) fails the record, 'DROP' leaves "
                                    + "the entry out, 'LITERAL' writes 'map-null-key.literal' as the key.");

    /** Key text written for a NULL map key in {@code LITERAL} mode. */
    public static final ConfigOption<String> MAP_NULL_KEY_LITERAL =
            ConfigOptions.key("map-null-key.literal")
                    .stringType()
                    .defaultValue("null")
                    .withDescription(
                            "The key written for a NULL map key when 'map-null-key.mode' is 'LITERAL' "
                                    + "(\"null\" by default).");

    /** Write DECIMAL values as plain digits with their declared scale (encode). */
    public static final ConfigOption<Boolean> ENCODE_DECIMAL_AS_PLAIN_NUMBER =
            ConfigOptions.key("encode.decimal-as-plain-number")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether DECIMAL values are written as plain numbers, never in scientific notation "
                                    + "(false by default).");

    /** Leave NULL row fields out of the written objects (encode). */
    public static final ConfigOption<Boolean> ENCODE_IGNORE_NULL_FIELDS =
            ConfigOptions.key("encode.ignore-null-fields")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Whether NULL fields are left out of the written JSON objects (false by default).");

    /**
     * Reproduce Flink's streaming-token decoder ({@code true}, the default) or its tree decoder; they
     * differ in a few corner cases (decode).
     */
    public static final ConfigOption<Boolean> DECODE_JSON_PARSER_ENABLED =
            ConfigOptions.key("decode.json-parser.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether values are decoded with the semantics of Flink's token-stream JSON decoder "
                                    + "(true, the default) or of its tree decoder (false).");

    private JsonNativeFormatOptions() {}
}
