package io.karrow.flink.formats.registry;

import io.karrow.flink.nativebridge.JsonText;

import org.apache.flink.table.types.logical.RowType;

import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;

/**
 * The settings of one {@code avro-confluent-native} sink: the registry settings shared with the
 * decoder plus the subject the writer schema is registered under, rendered as the encoder's {@code
 * configJson} of {@code docs/jni-contract.md} (the decoder's object plus {@code "subject"} and, when
 * set, {@code "schema_references"}).
 */
public final class RegistryEncoderConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RegistryDecoderConfig registry;
    private final String subject;
    private final String schemaReferences;

    /** Creates the settings; {@code subject} is the resolved subject (never null). */
    public RegistryEncoderConfig(RegistryDecoderConfig registry, String subject) {
        this(registry, subject, null);
    }

    /**
     * Creates the settings with the writer schema's references ({@code schema.references}: a JSON
     * array of {@code {"name", "subject", "version"}}, checked natively), or null for none.
     */
    public RegistryEncoderConfig(RegistryDecoderConfig registry, String subject, String schemaReferences) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.subject = Objects.requireNonNull(subject, "subject");
        this.schemaReferences = schemaReferences;
    }

    /** The registry settings. */
    public RegistryDecoderConfig getRegistry() {
        return registry;
    }

    /** The subject the writer schema is registered under. */
    public String getSubject() {
        return subject;
    }

    /**
     * Renders the contract's encoder {@code configJson} for rows of {@code rowType}.
     *
     * @throws IOException if the configured truststore cannot be read
     */
    public String toConfigJson(RowType rowType) throws IOException {
        String decoderJson = registry.toConfigJson(rowType);
        StringBuilder out = new StringBuilder(decoderJson.length() + subject.length() + 16);
        out.append(decoderJson, 0, decoderJson.length() - 1).append(",\"subject\":");
        JsonText.appendString(out, subject);
        if (schemaReferences != null) {
            out.append(",\"schema_references\":");
            JsonText.appendString(out, schemaReferences);
        }
        return out.append('}').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegistryEncoderConfig that
                && registry.equals(that.registry)
                && subject.equals(that.subject)
                && Objects.equals(schemaReferences, that.schemaReferences);
    }

    @Override
    public int hashCode() {
        return Objects.hash(registry, subject, schemaReferences);
    }

    @Override
    public String toString() {
        return "RegistryEncoderConfig{url=" + registry.getUrl() + ", subject=" + subject + "}";
    }
}
