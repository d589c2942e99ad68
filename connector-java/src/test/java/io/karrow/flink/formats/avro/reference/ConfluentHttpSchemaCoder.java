package io.karrow.flink.formats.avro.reference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.flink.formats.avro.SchemaCoder;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Test-scope stand-in for Confluent's client inside Flink's {@code ConfluentSchemaRegistryCoder}:
 * reads the Confluent header (magic byte 0, 4-byte big-endian id) and fetches the writer schema from
 * {@code GET {url}/schemas/ids/{id}} over HTTP, caching per id. Errors use the messages of Flink's
 * coder.
 */
public final class ConfluentHttpSchemaCoder implements SchemaCoder {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String url;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<Integer, Schema> cache = new HashMap<>();

    /** Creates a coder for the registry at {@code url} (the first of a comma-separated list). */
    public ConfluentHttpSchemaCoder(String url) {
        this.url = url.split(",")[0].trim().replaceAll("/+$", "");
    }

    @Override
    public Schema readSchema(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        if (data.readByte() != 0) {
            throw new IOException("Unknown data format. Magic number does not match");
        }
        int id = data.readInt();
        Schema cached = cache.get(id);
        if (cached != null) {
            return cached;
        }
        Schema schema = fetch(id);
        cache.put(id, schema);
        return schema;
    }

    private Schema fetch(int id) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + id)).timeout(Duration.ofSeconds(30)).GET().build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while fetching schema " + id, e);
        }
        if (response.statusCode() != 200) {
            // Flink wraps Confluent's RestClientException the same way.
            throw new IOException(
                    String.format("Could not find schema with id %s in registry", id),
                    new IOException("HTTP " + response.statusCode() + ": " + response.body()));
        }
        JsonNode body = JSON.readTree(response.body());
        return new Schema.Parser().parse(body.get("schema").asText());
    }

    @Override
    public void writeSchema(Schema schema, OutputStream out) {
        throw new UnsupportedOperationException("The reference coder only reads");
    }
}
