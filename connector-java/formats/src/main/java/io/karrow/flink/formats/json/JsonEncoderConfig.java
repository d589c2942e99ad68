package io.karrow.flink.formats.json;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * The encode-side settings of one {@code json-native} sink (already validated by the factory),
 * rendered as the encoder's {@code configJson} of {@code docs/jni-contract.md}. A {@code
 * json-confluent-native} sink adds a {@link JsonConfluentConfig}: the writer schema is registered
 * when the encoder opens and every value starts with Confluent's 5-byte header.
 */
public final class JsonEncoderConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String timestampFormat;
    private final String mapNullKeyMode;
    private final String mapNullKeyLiteral;
    private final boolean decimalAsPlainNumber;
    private final boolean ignoreNullFields;
    private final JsonConfluentConfig confluent;

    /**
     * Creates the settings.
     *
     * @param timestampFormat {@code timestamp-format.standard}: {@code SQL} or {@code ISO-8601}
     * @param mapNullKeyMode {@code map-null-key.mode}, upper-cased: {@code FAIL}, {@code DROP} or
     *     {@code LITERAL}
     * @param mapNullKeyLiteral {@code map-null-key.literal}
     * @param decimalAsPlainNumber {@code encode.decimal-as-plain-number}
     * @param ignoreNullFields {@code encode.ignore-null-fields}
     */
    public JsonEncoderConfig(
            String timestampFormat,
            String mapNullKeyMode,
            String mapNullKeyLiteral,
            boolean decimalAsPlainNumber,
            boolean ignoreNullFields) {
        this(timestampFormat, mapNullKeyMode, mapNullKeyLiteral, decimalAsPlainNumber, ignoreNullFields, null);
    }

    /**
     * Creates the settings of a sink whose values may carry Confluent's header.
     *
     * @param timestampFormat {@code timestamp-format.standard}: {@code SQL} or {@code ISO-8601}
     * @param mapNullKeyMode {@code map-null-key.mode}, upper-cased
     * @param mapNullKeyLiteral {@code map-null-key.literal}
     * @param decimalAsPlainNumber {@code encode.decimal-as-plain-number}
     * @param ignoreNullFields {@code encode.ignore-null-fields}
     * @param confluent the Confluent settings ({@code json-confluent-native}, with the subject), or null
     *     for plain JSON
     */
    public JsonEncoderConfig(
            String timestampFormat,
            String mapNullKeyMode,
            String mapNullKeyLiteral,
            boolean decimalAsPlainNumber,
            boolean ignoreNullFields,
            JsonConfluentConfig confluent) {
        if (confluent != null && confluent.subject() == null) {
            throw new IllegalArgumentException("the Confluent settings of an encoder need a subject");
        }
        this.confluent = confluent;
        this.timestampFormat = Objects.requireNonNull(timestampFormat, "timestampFormat");
        this.mapNullKeyMode = Objects.requireNonNull(mapNullKeyMode, "mapNullKeyMode");
        this.mapNullKeyLiteral = Objects.requireNonNull(mapNullKeyLiteral, "mapNullKeyLiteral");
        this.decimalAsPlainNumber = decimalAsPlainNumber;
        this.ignoreNullFields = ignoreNullFields;
    }

    /** {@code timestamp-format.standard}. */
    public String timestampFormat() {
        return timestampFormat;
    }

    /** {@code map-null-key.mode}, upper-cased. */
    public String mapNullKeyMode() {
        return mapNullKeyMode;
    }

    /** {@code map-null-key.literal}. */
    public String mapNullKeyLiteral() {
        return mapNullKeyLiteral;
    }

    /** {@code encode.decimal-as-plain-number}. */
    public boolean decimalAsPlainNumber() {
        return decimalAsPlainNumber;
    }

    /** {@code encode.ignore-null-fields}. */
    public boolean ignoreNullFields() {
        return ignoreNullFields;
    }

    /** The Confluent settings ({@code json-confluent-native}), or null for plain JSON. */
    public JsonConfluentConfig confluent() {
        return confluent;
    }

    /**
     * Renders the contract's encoder {@code configJson} for rows of {@code rowType}.
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
        out.append(",\"timestamp_standard\":");
        JsonText.appendString(out, timestampFormat);
        out.append(",\"map_null_key_mode\":");
        JsonText.appendString(out, mapNullKeyMode);
        out.append(",\"map_null_key_literal\":");
        JsonText.appendString(out, mapNullKeyLiteral);
        out.append(",\"decimal_as_plain_number\":").append(decimalAsPlainNumber)
                .append(",\"ignore_null_fields\":").append(ignoreNullFields)
                // FLOAT/DOUBLE digits as this JVM's Float/Double.toString writes them (they changed
                // in JDK 19, JDK-4511638); rendered when the encoder opens, on the JVM running it.
                .append(",\"java_feature_version\":").append(Runtime.version().feature());
        if (confluent != null) {
            confluent.appendSection(out);
        }
        return out.append('}').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonEncoderConfig that
                && decimalAsPlainNumber == that.decimalAsPlainNumber
                && ignoreNullFields == that.ignoreNullFields
                && timestampFormat.equals(that.timestampFormat)
                && mapNullKeyMode.equals(that.mapNullKeyMode)
                && mapNullKeyLiteral.equals(that.mapNullKeyLiteral)
                && Objects.equals(confluent, that.confluent);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                timestampFormat, mapNullKeyMode, mapNullKeyLiteral, decimalAsPlainNumber, ignoreNullFields, confluent);
    }

    @Override
    public String toString() {
        return "JsonEncoderConfig{timestampFormat=" + timestampFormat + ", mapNullKeyMode=" + mapNullKeyMode
                + ", mapNullKeyLiteral=" + mapNullKeyLiteral + ", decimalAsPlainNumber=" + decimalAsPlainNumber
                + ", ignoreNullFields=" + ignoreNullFields + (confluent == null ? "" : ", confluent=" + confluent) + "}";
    }
}
