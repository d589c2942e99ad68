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

    private ProtobufConfluentConfig(RegistryDecoderConfig registry, String subject) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.subject = subject;
    }

    /**
     * The settings of a decoder.
     *
     * @param registry how to reach the registry (its schema is not used when reading)
     */
    public static ProtobufConfluentConfig forDecoding(RegistryDecoderConfig registry) {
        return new ProtobufConfluentConfig(registry, null);
    }

    /**
     * The settings of an encoder.
     *
     * @param registry how to reach the registry; its schema, when set, is the {@code .proto} text registered
     * @param subject the resolved subject (never null)
     */
    public static ProtobufConfluentConfig forEncoding(RegistryDecoderConfig registry, String subject) {
        return new ProtobufConfluentConfig(registry, Objects.requireNonNull(subject, "subject"));
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
     * Appends {@code ,"confluent":{...}}: the registry fields, then {@code subject} (encode).
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
        out.append('}');
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ProtobufConfluentConfig)) {
            return false;
        }
        ProtobufConfluentConfig that = (ProtobufConfluentConfig) o;
        return registry.equals(that.registry) && Objects.equals(subject, that.subject);
    }

    @Override
    public int hashCode() {
        return Objects.hash(registry, subject);
    }

    @Override
    public String toString() {
        return "ProtobufConfluentConfig{url=" + registry.getUrl() + (subject == null ? "" : ", subject=" + subject)
                + "}";
    }
}
