package io.karrow.flink.formats.protobuf;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

/**
 * The settings of one {@code protobuf-native} table (already validated by the factory): the message's
 * full name, its serialized descriptor set, and the format options, rendered as the native
 * configuration of {@code docs/jni-contract.md}.
 */
public final class ProtobufConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String messageName;
    private final byte[] descriptorSet;
    private final boolean ignoreParseErrors;
    private final boolean readDefaultValues;
    private final String writeNullStringLiteral;

    /**
     * Creates the settings.
     *
     * @param messageName the message's full Protobuf name ({@code package.Outer.Inner})
     * @param descriptorSet the serialized {@code FileDescriptorSet} holding the message
     * @param ignoreParseErrors {@code ignore-parse-errors}
     * @param readDefaultValues {@code read-default-values}
     * @param writeNullStringLiteral {@code write-null-string-literal}
     */
    public ProtobufConfig(
            String messageName,
            byte[] descriptorSet,
            boolean ignoreParseErrors,
            boolean readDefaultValues,
            String writeNullStringLiteral) {
        this.messageName = Objects.requireNonNull(messageName, "messageName");
        this.descriptorSet = Objects.requireNonNull(descriptorSet, "descriptorSet").clone();
        this.ignoreParseErrors = ignoreParseErrors;
        this.readDefaultValues = readDefaultValues;
        this.writeNullStringLiteral = Objects.requireNonNull(writeNullStringLiteral, "writeNullStringLiteral");
    }

    /** The message's full Protobuf name. */
    public String messageName() {
        return messageName;
    }

    /** The serialized descriptor set (a copy). */
    public byte[] descriptorSet() {
        return descriptorSet.clone();
    }

    /** {@code ignore-parse-errors}. */
    public boolean ignoreParseErrors() {
        return ignoreParseErrors;
    }

    /** The contract's configuration JSON for rows of {@code rowType}. */
    public String configJson(RowType rowType) {
        StringBuilder out = new StringBuilder(256).append("{\"row_type\":");
        LogicalTypeJson.append(out, rowType);
        out.append(",\"message\":");
        JsonText.appendString(out, messageName);
        out.append(",\"options\":{\"ignore_parse_errors\":").append(ignoreParseErrors)
                .append(",\"read_default_values\":").append(readDefaultValues)
                .append(",\"write_null_string_literal\":");
        JsonText.appendString(out, writeNullStringLiteral);
        return out.append("}}").toString();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ProtobufConfig)) {
            return false;
        }
        ProtobufConfig that = (ProtobufConfig) o;
        return ignoreParseErrors == that.ignoreParseErrors
                && readDefaultValues == that.readDefaultValues
                && messageName.equals(that.messageName)
                && Arrays.equals(descriptorSet, that.descriptorSet)
                && writeNullStringLiteral.equals(that.writeNullStringLiteral);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageName, Arrays.hashCode(descriptorSet), ignoreParseErrors, readDefaultValues,
                writeNullStringLiteral);
    }
}
