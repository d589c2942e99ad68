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
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Test-scope stand-in for Confluent's client inside Flink's {@code ConfluentSchemaRegistryCoder}:
 * reads the Confluent header (magic byte 0, 4-byte big-endian id) and fetches the writer schema from
 * {@code GET {url}/schemas/ids/{id}} over HTTP, caching per id; its references are fetched by subject
 * and version and parsed first, as Confluent's client does. On the write side it registers the
 * writer schema under the subject with {@code POST {url}/subjects/{subject}/versions} (cached per
 * schema, like Confluent's {@code CachedSchemaRegistryClient}) and writes {@code 0x00} and the id.
 * Errors use the messages of Flink's coder.
 */
public final class ConfluentHttpSchemaCoder implements SchemaCoder {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String url;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(60)).build();
    private final Map<Integer, Schema> cache = new HashMap<>();
    private final Map<Schema, Integer> registered = new HashMap<>();
    private final String subject;

    /** Creates a reading coder for the registry at {@code url} (the first of a comma-separated list). */
    public ConfluentHttpSchemaCoder(String url) {
        this(url, null);
    }

    /** Creates a coder that also registers writer schemas under {@code subject} (null: read only). */
    public ConfluentHttpSchemaCoder(String url, String subject) {
        this.url = url.split(",")[0].trim().replaceAll("/+$", "");
        this.subject = subject;
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
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + id)).timeout(Duration.ofSeconds(120)).GET().build();
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
        // As Confluent's client: the referenced schemas (recursively, by subject and version) are
        // parsed first by the same parser, so the writer schema may name their types.
        Schema.Parser parser = new Schema.Parser();
        parseReferences(body.get("references"), parser, new java.util.HashSet<>(), 0);
        return parser.parse(body.get("schema").asText());
    }

    private void parseReferences(JsonNode references, Schema.Parser parser, java.util.Set<String> seen, int depth)
            throws IOException {
        if (references == null || !references.isArray() || references.isEmpty()) {
            return;
        }
        if (depth >= 32) {
            throw new IOException("schema references nest deeper than 32 levels");
        }
        for (JsonNode reference : references) {
            String subject = reference.get("subject").asText();
            int version = reference.get("version").asInt();
            if (!seen.add(subject + "/" + version)) {
                continue;
            }
            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/subjects/"
                            + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/" + version))
                    .timeout(Duration.ofSeconds(120)).GET().build();
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while fetching " + subject + " version " + version, e);
            }
            if (response.statusCode() != 200) {
                throw new IOException("HTTP " + response.statusCode() + ": " + response.body());
            }
            JsonNode body = JSON.readTree(response.body());
            parseReferences(body.get("references"), parser, seen, depth + 1);
            parser.parse(body.get("schema").asText());
        }
    }

    /** Registers {@code schema} under the subject (once per schema) and writes the 5-byte header. */
    @Override
    public void writeSchema(Schema schema, OutputStream out) throws IOException {
        if (subject == null) {
            throw new IllegalStateException("This reference coder has no subject to register under");
        }
        Integer id = registered.get(schema);
        if (id == null) {
            id = register(schema);
            registered.put(schema, id);
        }
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
    }

    private int register(Schema schema) throws IOException {
        String body = JSON.writeValueAsString(JSON.createObjectNode().put("schema", schema.toString()));
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        url + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while registering a schema under " + subject, e);
        }
        if (response.statusCode() != 200) {
            // Flink wraps Confluent's RestClientException the same way.
            throw new IOException("Could not register schema in registry",
                    new IOException("HTTP " + response.statusCode() + ": " + response.body()));
        }
        return JSON.readTree(response.body()).get("id").asInt();
    }
}
