package io.karrow.flink.formats.json;

import io.karrow.flink.formats.registry.RegistryDecoderConfig;
import io.karrow.flink.nativebridge.JsonText;

import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;

/**
 * The Confluent part of a {@code json-confluent-native} source or sink: how to reach the registry
 * (the settings {@code avro-confluent-native} uses), whether schema ids are validated (decode), and
 * the subject the writer schema is registered under (encode). Rendered as the {@code confluent}
 * section of the JSON decoder's or encoder's {@code configJson} ({@code docs/jni-contract.md}).
 */
public final class JsonConfluentConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RegistryDecoderConfig registry;
    private final boolean validateSchemaId;
    private final String subject;

    private JsonConfluentConfig(RegistryDecoderConfig registry, boolean validateSchemaId, String subject) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.validateSchemaId = validateSchemaId;
        this.subject = subject;
    }

    /**
     * The settings of a decoder.
     *
     * @param registry how to reach the registry (its schema is not used when reading)
     * @param validateSchemaId {@code validate-schema-id}
     */
    public static JsonConfluentConfig forDecoding(RegistryDecoderConfig registry, boolean validateSchemaId) {
        return new JsonConfluentConfig(registry, validateSchemaId, null);
    }

    /**
     * The settings of an encoder.
     *
     * @param registry how to reach the registry; its schema, when set, is the JSON Schema registered
     * @param subject the resolved subject (never null)
     */
    public static JsonConfluentConfig forEncoding(RegistryDecoderConfig registry, String subject) {
        return new JsonConfluentConfig(registry, false, Objects.requireNonNull(subject, "subject"));
    }

    /** How to reach the registry. */
    public RegistryDecoderConfig registry() {
        return registry;
    }

    /** {@code validate-schema-id} (decode). */
    public boolean validateSchemaId() {
        return validateSchemaId;
    }

    /** The subject the writer schema is registered under (encode), or null on the decode side. */
    public String subject() {
        return subject;
    }

    /**
     * Appends {@code ,"confluent":{...}}: the registry fields, then {@code validate_schema_id} (decode)
     * or {@code subject} (encode).
     *
     * @throws IOException if the configured truststore cannot be read
     */
    void appendSection(StringBuilder out) throws IOException {
        String registryJson = registry.toRegistryJson();
        out.append(",\"confluent\":").append(registryJson, 0, registryJson.length() - 1);
        if (subject == null) {
            out.append(",\"validate_schema_id\":").append(validateSchemaId);
        } else {
            out.append(",\"subject\":");
            JsonText.appendString(out, subject);
        }
        out.append('}');
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonConfluentConfig that
                && validateSchemaId == that.validateSchemaId
                && registry.equals(that.registry)
                && Objects.equals(subject, that.subject);
    }

    @Override
    public int hashCode() {
        return Objects.hash(registry, validateSchemaId, subject);
    }

    @Override
    public String toString() {
        return "JsonConfluentConfig{url=" + registry.getUrl()
                + (subject == null ? ", validateSchemaId=" + validateSchemaId : ", subject=" + subject) + "}";
    }
}
