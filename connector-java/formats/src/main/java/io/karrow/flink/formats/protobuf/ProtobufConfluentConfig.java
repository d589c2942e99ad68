package io.karrow.flink.formats.protobuf;

import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.JsonText;

import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;

/**
 * The Confluent part of a {@code protobuf-confluent-native} source or sink: how to reach the registry
 * (the settings every registry format uses; its schema is the sink's {@code schema} option, the
 * {@code .proto} text to register, or null to derive one from the table) and, for a sink, the subject
 * the writer schema is registered under. Rendered as the {@code confluent} section of the Protobuf
 * decoder's or encoder's {@code configJson} ({@code docs/jni-contract.md}).
 */
public final class ProtobufConfluentConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RegistryDecoderConfig registry;
    private final String subject;
    private final String schemaReferences;

    private ProtobufConfluentConfig(RegistryDecoderConfig registry, String subject, String schemaReferences) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.subject = subject;
        this.schemaReferences = schemaReferences;
    }

    /**
     * The settings of a decoder.
     *
     * @param registry how to reach the registry (its schema is not used when reading)
     */
    public static ProtobufConfluentConfig forDecoding(RegistryDecoderConfig registry) {
        return new ProtobufConfluentConfig(registry, null, null);
    }

    /**
     * The settings of an encoder.
     *
     * @param registry how to reach the registry; its schema, when set, is the {@code .proto} text registered
     * @param subject the resolved subject (never null)
     */
    public static ProtobufConfluentConfig forEncoding(RegistryDecoderConfig registry, String subject) {
        return forEncoding(registry, subject, null);
    }

    /**
     * The settings of an encoder whose schema imports registered schemas.
     *
     * @param registry how to reach the registry; its schema is the {@code .proto} text registered
     * @param subject the resolved subject (never null)
     * @param schemaReferences the {@code schema.references} option's JSON array, or null for none
     */
    public static ProtobufConfluentConfig forEncoding(
            RegistryDecoderConfig registry, String subject, String schemaReferences) {
        return new ProtobufConfluentConfig(registry, Objects.requireNonNull(subject, "subject"), schemaReferences);
    }

    /** The writer schema's references as the {@code schema.references} JSON array, or null. */
    public String schemaReferences() {
        return schemaReferences;
    }

    /** How to reach the registry. */
    public RegistryDecoderConfig registry() {
        return registry;
    }

    /** The subject the writer schema is registered under (encode), or null on the decode side. */
    public String subject() {
        return subject;
    }

    /**
     * Appends {@code ,"confluent":{...}}: the registry fields, then {@code subject} and {@code
     * schema_references} (encode).
     *
     * @throws IOException if the configured truststore cannot be read
     */
    void appendSection(StringBuilder out) throws IOException {
        String registryJson = registry.toRegistryJson();
        out.append(",\"confluent\":").append(registryJson, 0, registryJson.length() - 1);
        if (subject != null) {
            out.append(",\"subject\":");
            JsonText.appendString(out, subject);
        }
        if (schemaReferences != null) {
            out.append(",\"schema_references\":");
            JsonText.appendString(out, schemaReferences);
        }
        out.append('}');
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProtobufConfluentConfig that
                && registry.equals(that.registry) && Objects.equals(subject, that.subject)
                && Objects.equals(schemaReferences, that.schemaReferences);
    }

    @Override
    public int hashCode() {
        return Objects.hash(registry, subject, schemaReferences);
    }

    @Override
    public String toString() {
        return "ProtobufConfluentConfig{url=" + registry.getUrl() + (subject == null ? "" : ", subject=" + subject)
                + "}";
    }
}
