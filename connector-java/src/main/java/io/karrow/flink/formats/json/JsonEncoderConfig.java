package io.karrow.flink.formats.json;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Objects;

/**
 * The encode-side settings of one {@code json-native} sink (already validated by the factory),
 * rendered as the encoder's {@code configJson} of {@code docs/jni-contract.md}.
 */
public final class JsonEncoderConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String timestampFormat;
    private final String mapNullKeyMode;
    private final String mapNullKeyLiteral;
    private final boolean decimalAsPlainNumber;
    private final boolean ignoreNullFields;

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

    /** Renders the contract's encoder {@code configJson} for rows of {@code rowType}. */
    public String toConfigJson(RowType rowType) {
        StringBuilder out = new StringBuilder(256).append("{\"row_type\":");
        LogicalTypeJson.append(out, rowType);
        out.append(",\"timestamp_standard\":");
        JsonText.appendString(out, timestampFormat);
        out.append(",\"map_null_key_mode\":");
        JsonText.appendString(out, mapNullKeyMode);
        out.append(",\"map_null_key_literal\":");
        JsonText.appendString(out, mapNullKeyLiteral);
        return out.append(",\"decimal_as_plain_number\":").append(decimalAsPlainNumber)
                .append(",\"ignore_null_fields\":").append(ignoreNullFields)
                .append('}')
                .toString();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof JsonEncoderConfig)) {
            return false;
        }
        JsonEncoderConfig that = (JsonEncoderConfig) o;
        return decimalAsPlainNumber == that.decimalAsPlainNumber
                && ignoreNullFields == that.ignoreNullFields
                && timestampFormat.equals(that.timestampFormat)
                && mapNullKeyMode.equals(that.mapNullKeyMode)
                && mapNullKeyLiteral.equals(that.mapNullKeyLiteral);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestampFormat, mapNullKeyMode, mapNullKeyLiteral, decimalAsPlainNumber, ignoreNullFields);
    }

    @Override
    public String toString() {
        return "JsonEncoderConfig{timestampFormat=" + timestampFormat + ", mapNullKeyMode=" + mapNullKeyMode
                + ", mapNullKeyLiteral=" + mapNullKeyLiteral + ", decimalAsPlainNumber=" + decimalAsPlainNumber
                + ", ignoreNullFields=" + ignoreNullFields + "}";
    }
}
