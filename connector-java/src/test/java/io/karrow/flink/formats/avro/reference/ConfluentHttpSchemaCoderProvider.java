package io.karrow.flink.formats.avro.reference;

import org.apache.flink.formats.avro.SchemaCoder;

import java.util.Objects;

/**
 * Serializable provider of {@link ConfluentHttpSchemaCoder}, one coder (and cache) per call; with a
 * subject the coders also register writer schemas.
 */
public final class ConfluentHttpSchemaCoderProvider implements SchemaCoder.SchemaCoderProvider {

    private static final long serialVersionUID = 1L;

    private final String url;
    private final String subject;

    /** Creates a provider of reading coders for the registry at {@code url}. */
    public ConfluentHttpSchemaCoderProvider(String url) {
        this(url, null);
    }

    /** Creates a provider of coders that register under {@code subject} (null: read only). */
    public ConfluentHttpSchemaCoderProvider(String url, String subject) {
        this.url = Objects.requireNonNull(url);
        this.subject = subject;
    }

    @Override
    public SchemaCoder get() {
        return new ConfluentHttpSchemaCoder(url, subject);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConfluentHttpSchemaCoderProvider
                && ((ConfluentHttpSchemaCoderProvider) o).url.equals(url)
                && Objects.equals(((ConfluentHttpSchemaCoderProvider) o).subject, subject);
    }

    @Override
    public int hashCode() {
        return Objects.hash(url, subject);
    }
}
