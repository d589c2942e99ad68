package io.karrow.flink.formats.protobuf;

import io.karrow.flink.nativebridge.JsonText;
import io.karrow.flink.nativebridge.LogicalTypeJson;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The settings of one {@code protobuf-native} table (already validated by the factory): the message's
 * full name, its serialized descriptor set, and the format options, rendered as the native
 * configuration of {@code docs/jni-contract.md}. A {@code protobuf-confluent-native} table adds a
 * {@link ProtobufConfluentConfig} (rendered as the {@code confluent} section): its descriptor set is
 * empty (schemas come from the registry) and the message name is the encoder's {@code message-name},
 * or empty.
 */
public final class ProtobufConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String messageName;
    private final byte[] descriptorSet;
    private final boolean ignoreParseErrors;
    private final boolean readDefaultValues;
    private final String writeNullStringLiteral;
    private final ProtobufConfluentConfig confluent;

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
        this.confluent = null;
    }

    /**
     * Creates the settings of a {@code protobuf-confluent-native} table.
     *
     * @param confluent the registry settings and, for a sink, the subject and writer schema
     * @param messageName the {@code message-name} option (sink), or {@code ""}
     * @param ignoreParseErrors {@code ignore-parse-errors}
     * @param readDefaultValues {@code read-default-values}
     * @param writeNullStringLiteral {@code write-null-string-literal}
     */
    public ProtobufConfig(
            ProtobufConfluentConfig confluent,
            String messageName,
            boolean ignoreParseErrors,
            boolean readDefaultValues,
            String writeNullStringLiteral) {
        this.confluent = Objects.requireNonNull(confluent, "confluent");
        this.messageName = Objects.requireNonNull(messageName, "messageName");
        this.descriptorSet = new byte[0];
        this.ignoreParseErrors = ignoreParseErrors;
        this.readDefaultValues = readDefaultValues;
        this.writeNullStringLiteral = Objects.requireNonNull(writeNullStringLiteral, "writeNullStringLiteral");
    }

    /** The Confluent settings ({@code protobuf-confluent-native}), or null for {@code protobuf-native}. */
    public ProtobufConfluentConfig confluent() {
        return confluent;
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

    /**
     * The contract's configuration JSON for rows of {@code rowType}.
     *
     * @throws UncheckedIOException if the Confluent settings name a truststore that cannot be read
     */
    public String configJson(RowType rowType) {
        StringBuilder out = new StringBuilder(256).append("{\"row_type\":");
        LogicalTypeJson.append(out, rowType);
        out.append(",\"message\":");
        JsonText.appendString(out, messageName);
        out.append(",\"options\":{\"ignore_parse_errors\":").append(ignoreParseErrors)
                .append(",\"read_default_values\":").append(readDefaultValues)
                .append(",\"write_null_string_literal\":");
        JsonText.appendString(out, writeNullStringLiteral);
        out.append('}');
        if (confluent != null) {
            try {
                confluent.appendSection(out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.append('}').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProtobufConfig that
                && ignoreParseErrors == that.ignoreParseErrors
                && readDefaultValues == that.readDefaultValues
                && messageName.equals(that.messageName)
                && Arrays.equals(descriptorSet, that.descriptorSet)
                && writeNullStringLiteral.equals(that.writeNullStringLiteral)
                && Objects.equals(confluent, that.confluent);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageName, Arrays.hashCode(descriptorSet), ignoreParseErrors, readDefaultValues,
                writeNullStringLiteral, confluent);
    }
}
