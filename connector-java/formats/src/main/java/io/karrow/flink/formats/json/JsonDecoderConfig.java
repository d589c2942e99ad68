package io.karrow.flink.formats.json;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * The decode-side settings of one {@code json-native} source (already validated by the factory),
 * rendered as the decoder's {@code configJson} of {@code docs/jni-contract.md}. A {@code
 * json-confluent-native} source adds a {@link JsonConfluentConfig}: values then carry Confluent's
 * 5-byte header.
 */
public final class JsonDecoderConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final boolean failOnMissingField;
    private final boolean ignoreParseErrors;
    private final String timestampFormat;
    private final boolean jsonParser;
    private final JsonConfluentConfig confluent;

    /**
     * Creates the settings.
     *
     * @param failOnMissingField {@code fail-on-missing-field}
     * @param ignoreParseErrors {@code ignore-parse-errors}
     * @param timestampFormat {@code timestamp-format.standard}: {@code SQL} or {@code ISO-8601}
     * @param jsonParser {@code decode.json-parser.enabled}
     */
    public JsonDecoderConfig(
            boolean failOnMissingField, boolean ignoreParseErrors, String timestampFormat, boolean jsonParser) {
        this(failOnMissingField, ignoreParseErrors, timestampFormat, jsonParser, null);
    }

    /**
     * Creates the settings of a source whose values may carry Confluent's header.
     *
     * @param failOnMissingField {@code fail-on-missing-field}
     * @param ignoreParseErrors {@code ignore-parse-errors}
     * @param timestampFormat {@code timestamp-format.standard}: {@code SQL} or {@code ISO-8601}
     * @param jsonParser {@code decode.json-parser.enabled}
     * @param confluent the Confluent settings ({@code json-confluent-native}), or null for plain JSON
     */
    public JsonDecoderConfig(
            boolean failOnMissingField,
            boolean ignoreParseErrors,
            String timestampFormat,
            boolean jsonParser,
            JsonConfluentConfig confluent) {
        this.failOnMissingField = failOnMissingField;
        this.ignoreParseErrors = ignoreParseErrors;
        this.timestampFormat = Objects.requireNonNull(timestampFormat, "timestampFormat");
        this.jsonParser = jsonParser;
        this.confluent = confluent;
    }

    /** {@code fail-on-missing-field}. */
    public boolean failOnMissingField() {
        return failOnMissingField;
    }

    /** {@code ignore-parse-errors}. */
    public boolean ignoreParseErrors() {
        return ignoreParseErrors;
    }

    /** {@code timestamp-format.standard}. */
    public String timestampFormat() {
        return timestampFormat;
    }

    /** {@code decode.json-parser.enabled}. */
    public boolean jsonParser() {
        return jsonParser;
    }

    /** The Confluent settings ({@code json-confluent-native}), or null for plain JSON. */
    public JsonConfluentConfig confluent() {
        return confluent;
    }

    /**
     * Renders the contract's decoder {@code configJson} for rows of {@code rowType}.
     *
     * @throws UncheckedIOException if the Confluent settings name a truststore that cannot be read
     */
    public String toConfigJson(RowType rowType) {
        try {
            return configJson(rowType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** As {@link #toConfigJson}, with the truststore failure checked. */
    String configJson(RowType rowType) throws IOException {
        StringBuilder out = new StringBuilder(256).append("{\"row_type\":");
        LogicalTypeJson.append(out, rowType);
        out.append(",\"options\":{\"fail_on_missing_field\":").append(failOnMissingField)
                .append(",\"ignore_parse_errors\":").append(ignoreParseErrors)
                .append(",\"timestamp_standard\":");
        JsonText.appendString(out, timestampFormat);
        out.append(",\"json_parser\":").append(jsonParser).append('}');
        // The tree decoder prints float literals read into STRING columns with this JVM's
        // Double.toString digits (they changed in JDK 19); rendered when the decoder opens.
        out.append(",\"java_feature_version\":").append(Runtime.version().feature());
        if (confluent != null) {
            confluent.appendSection(out);
        }
        return out.append('}').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonDecoderConfig that
                && failOnMissingField == that.failOnMissingField
                && ignoreParseErrors == that.ignoreParseErrors
                && jsonParser == that.jsonParser
                && timestampFormat.equals(that.timestampFormat)
                && Objects.equals(confluent, that.confluent);
    }

    @Override
    public int hashCode() {
        return Objects.hash(failOnMissingField, ignoreParseErrors, timestampFormat, jsonParser, confluent);
    }

    @Override
    public String toString() {
        return "JsonDecoderConfig{failOnMissingField=" + failOnMissingField + ", ignoreParseErrors="
                + ignoreParseErrors + ", timestampFormat=" + timestampFormat + ", jsonParser=" + jsonParser
                + (confluent == null ? "" : ", confluent=" + confluent) + "}";
    }
}
