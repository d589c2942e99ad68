package io.karrow.flink.formats.avro.reference;

import org.apache.flink.formats.avro.SchemaCoder;

import java.util.Objects;

/** Serializable provider of {@link ConfluentHttpSchemaCoder}, one coder (and cache) per call. */
public final class ConfluentHttpSchemaCoderProvider implements SchemaCoder.SchemaCoderProvider {

    private static final long serialVersionUID = 1L;

    private final String url;

    /** Creates a provider for the registry at {@code url}. */
    public ConfluentHttpSchemaCoderProvider(String url) {
        this.url = Objects.requireNonNull(url);
    }

    @Override
    public SchemaCoder get() {
        return new ConfluentHttpSchemaCoder(url);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConfluentHttpSchemaCoderProvider && ((ConfluentHttpSchemaCoderProvider) o).url.equals(url);
    }

    @Override
    public int hashCode() {
        return url.hashCode();
    }
}
